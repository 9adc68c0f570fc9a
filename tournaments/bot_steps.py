"""Bot-held entrants make their show steps at once, in every show: after each
show command and when one of the show's matches ends, every step a bot owes
(a token gift, a candidate choice, a nomination, a ban) is made, so a show
with bots on some seats waits only for its people. In the demo's live show
the organizer's steps are made too (tournaments.demo), unless taken over."""

from __future__ import annotations

import contextvars
import logging
from contextlib import contextmanager

from games import services as match_services
from games.core.protocol import RuleError

from . import autopilot, demo, show_services

MAX_STEPS = 40
log = logging.getLogger(__name__)
_held = contextvars.ContextVar("bot_steps_held", default=False)


@contextmanager
def held():
    """No step made inside: seed_demo sets its scene, and drive() does not recurse."""
    token = _held.set(True)
    try:
        yield
    finally:
        _held.reset(token)


def drive(stream: str, now: float | None = None) -> int:
    """Make every step the show's bots (and the demo's organizer) owe; how many."""
    rng = match_services.secure_rng()
    organizer = demo.drives(stream)
    n = 0
    with held():
        try:
            while n < MAX_STEPS and autopilot.step(stream, rng, organizer=organizer, now=now):
                n += 1
        except RuleError as exc:  # the step that led here stands; the show waits for people
            log.warning("a bot's show step was refused: %s", exc, extra={"stream": stream})
    if n:
        log.info("%d show step(s) made by bots", n, extra={"stream": stream})
    return n


def _on_match_events(match, new: list, state, now: float) -> None:
    if _held.get() or not match.show_stream.startswith("show-"):
        return
    if any(e.type in ("series_ended", "series_forfeited") for e in new):
        drive(match.show_stream, now=now)


def _on_show_command(stream: str, new: list, now: float) -> None:
    """A person made a step (a player's choice, the organizer's ranking, a
    hand-back): the bots make theirs after it."""
    if not _held.get():
        drive(stream, now=now)


match_services.on_match_events(
    _on_match_events, types=("series_ended", "series_forfeited"), of="show-"
)
show_services.after_command(_on_show_command)
