"""The decider protocol every game implements (shared/DESIGN.md).

A game is pure: no Django, no clock, no RNG of its own. Time and chance reach
it only through ``Ctx``, and what they produced is recorded in events so that
``evolve`` replays exactly.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

MODERATOR = "moderator"
SPECTATOR = "spectator"
SEAT = "seat"
# a spectator under a show's policy "everything": what the seats know
# together (every hand, every seat's secret move), never the deck, a deal's
# order or its salt (those stay the moderators' until the deal is revealed)
EVERY_SEAT = "every_seat"


class RuleError(Exception):
    """A command the rules refuse, in plain English. ``words`` is the sentence
    with ``{name}`` placeholders and ``values`` fill them: the web layer looks
    ``words`` up in the catalogs (games.engine_words.refusal), so the engines
    never need Django to be read in another language."""

    def __init__(self, words: str = "", /, **values: Any) -> None:
        self.words = words
        self.values = values
        super().__init__(words.format(**values) if values else words)


class RoleRequired(RuleError):
    """A command refused because the caller lacks the role it needs (the
    message names it): the API answers 403 and the pages their 403 page,
    where any other RuleError is a 422 or a form error."""


@dataclass(frozen=True)
class Event:
    """One fact. ``data`` is JSON-able and never mutated.

    ``visible_to``: None means every viewer sees ``data``; a tuple of seats
    means only those seats (and moderators) see ``data``, and everyone else
    sees ``public`` instead, or nothing at all when ``public`` is None.
    """

    type: str
    data: Mapping[str, Any] = field(default_factory=dict)
    visible_to: tuple[str, ...] | None = None
    public: Mapping[str, Any] | None = None

    def for_viewer(self, viewer: Viewer) -> Mapping[str, Any] | None:
        """The data this viewer may see, or None when the event is hidden."""
        if self.visible_to is None or viewer.kind == MODERATOR:
            return self.data
        if viewer.kind == SEAT and viewer.seat in self.visible_to:
            return self.data
        if viewer.kind == EVERY_SEAT and self.visible_to:
            return self.data
        return self.public

    def to_json(self) -> dict:
        return {
            "type": self.type,
            "data": dict(self.data),
            "visible_to": list(self.visible_to) if self.visible_to is not None else None,
            "public": dict(self.public) if self.public is not None else None,
        }

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> Event:
        vis = raw.get("visible_to")
        return cls(
            type=raw["type"],
            data=raw.get("data") or {},
            visible_to=tuple(vis) if vis is not None else None,
            public=raw.get("public"),
        )


@dataclass(frozen=True)
class Viewer:
    kind: str  # SEAT, MODERATOR, SPECTATOR or EVERY_SEAT
    seat: str | None = None

    @classmethod
    def of_seat(cls, seat: str) -> Viewer:
        return cls(SEAT, seat)


MODERATOR_VIEW = Viewer(MODERATOR)
SPECTATOR_VIEW = Viewer(SPECTATOR)
EVERY_SEAT_VIEW = Viewer(EVERY_SEAT)


@dataclass(frozen=True)
class Ctx:
    """What a command handler passes in: the time, the randomness, who acts.

    ``seat`` is None for system commands (deal, timeout); ``role`` is
    "player", "system" or "moderator".
    """

    now: float
    rng: random.Random
    seat: str | None = None
    role: str = "player"

    @property
    def is_system(self) -> bool:
        return self.role == "system"


@dataclass(frozen=True)
class Decision:
    """Someone must decide something; ``deadline`` is absolute (None: no clock)."""

    seat: str
    kind: str
    deadline: float | None = None


@dataclass(frozen=True)
class Outcome:
    """How a bout (or a whole series) ended.

    ``winners`` is empty for a drawn bout; several seats may share a win.
    ``points`` is what each seat scores towards the series.
    """

    winners: tuple[str, ...]
    points: Mapping[str, int]
    reason: str = ""


def win_outcome(seats, winners, reason: str = "") -> Outcome:
    """The usual bout result: one point for each winner (none when drawn)."""
    winners = tuple(winners)
    return Outcome(winners, {s: (1 if s in winners else 0) for s in seats}, reason)
