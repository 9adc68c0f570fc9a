"""The demo's live show keeps moving in `make run`: when one of its matches
ends (the clock thread plays the bots' moves), the bots' show steps and the
demo organizer's steps are made at once, so the next death match (or the
final) opens and is played in turn. Only shows named by seed_demo."""

from __future__ import annotations

import logging

from games import services as match_services
from games.core.protocol import RuleError

from . import autopilot
from .models import ShowRecord

LIVE_DEMO = "Demo: season two (live)"
MAX_STEPS = 40
log = logging.getLogger(__name__)


def drive(stream: str, now: float | None = None) -> int:
    """Make every step the demo show's bots and organizer owe; how many."""
    rng = match_services.secure_rng()
    n = 0
    try:
        while n < MAX_STEPS and autopilot.step(stream, rng, now=now):
            n += 1
    except RuleError as exc:  # the match's own move stands; the show waits for people
        log.warning("demo: the autopilot was refused: %s", exc)
    return n


def _on_match_events(match, new: list, state, now: float) -> None:
    if not match.show_stream.startswith("show-"):
        return
    if not any(e.type in ("series_ended", "series_forfeited") for e in new):
        return
    if not ShowRecord.objects.filter(stream=match.show_stream, name=LIVE_DEMO).exists():
        return
    n = drive(match.show_stream, now=now)
    if n:
        log.info("demo: %d show step(s) made by the autopilot", n)


match_services.on_match_events(_on_match_events)
