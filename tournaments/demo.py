"""The demo's live show keeps moving in `make run`: when one of its matches
ends (the clock thread plays the bots' moves) or a show step is made, the
bots' show steps and the demo organizer's steps are made at once, so the
next death match (or the final) opens and is played in turn. Only the show
named by seed_demo. The person logged in as organizer may take over
(`release_autopilot`, the console's button): then the autopilot leaves the
organizer's steps to them, and the bots still play their seats."""

from __future__ import annotations

import contextvars
import logging
from contextlib import contextmanager

from games import services as match_services
from games.core.protocol import RuleError

from . import autopilot, show_services
from .models import ShowRecord

LIVE_DEMO = "Demo: season two (live)"
MAX_STEPS = 40
log = logging.getLogger(__name__)
_held = contextvars.ContextVar("demo_autopilot_held", default=False)


@contextmanager
def held():
    """No autopilot inside: seed_demo sets the scene, and drive() does not recurse."""
    token = _held.set(True)
    try:
        yield
    finally:
        _held.reset(token)


def drives(stream: str) -> bool:
    """Whether the demo's autopilot drives this show."""
    return ShowRecord.objects.filter(stream=stream, name=LIVE_DEMO).exists()


def drive(stream: str, now: float | None = None) -> int:
    """Make every step the demo show's bots and organizer owe; how many."""
    rng = match_services.secure_rng()
    n = 0
    with held():
        try:
            while n < MAX_STEPS and autopilot.step(stream, rng, now=now):
                n += 1
        except RuleError as exc:  # the match's own move stands; the show waits for people
            log.warning("demo: the autopilot was refused: %s", exc)
    if n:
        log.info("demo: %d show step(s) made by the autopilot", n)
    return n


def _on_match_events(match, new: list, state, now: float) -> None:
    if _held.get() or not match.show_stream.startswith("show-"):
        return
    if not any(e.type in ("series_ended", "series_forfeited") for e in new):
        return
    if drives(match.show_stream):
        drive(match.show_stream, now=now)


def _on_show_command(stream: str, new: list, now: float) -> None:
    """A person made a step (a player's choice, the organizer's ranking, a
    hand-back): the bots and the autopilot make theirs after it."""
    if not _held.get() and drives(stream):
        drive(stream, now=now)


match_services.on_match_events(_on_match_events)
show_services.after_command(_on_show_command)
