"""The demo's live show keeps moving in `make run`: besides the bots' show
steps (made in every show, tournaments.bot_steps), the demo organizer's
steps are made by the autopilot, so the next death match (or the final)
opens and is played in turn. Only the show named by seed_demo. The person
logged in as organizer may take over (`release_autopilot`, the console's
button): then the autopilot leaves the organizer's steps to them, and the
bots still play their seats."""

from __future__ import annotations

from django.db.models import Q

from .models import ShowRecord

LIVE_DEMO = "Demo: season two (live)"
# the demo's scheduled shows (seed_demo's weekly template makes them): once one
# starts, the autopilot makes its organizer's steps too
SCHEDULED_DEMO = "Demo: weekly cup"


def drives(stream: str) -> bool:
    """Whether the demo's autopilot makes this show's organizer steps."""
    return (
        ShowRecord.objects.filter(stream=stream)
        .filter(Q(name=LIVE_DEMO) | Q(name__startswith=SCHEDULED_DEMO))
        .exists()
    )
