"""An in-memory match driven by commands and waits: every event kept, no
database. Tests and tools use it to play a game exactly as the services do."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .protocol import Ctx, Event, Viewer
from .series import MatchState, Series


class MatchDriver:
    def __init__(
        self,
        series: Series,
        seats,
        options: Mapping[str, Any] | None = None,
        items: Mapping[str, list[str]] | None = None,
        setup: Mapping[str, Any] | None = None,
        seed: int = 0,
    ):
        self.series = series
        self.rules = series.rules
        self.rng = random.Random(seed)
        self.now = 0.0
        self.events: list[Event] = list(
            series.start(Ctx(now=0.0, rng=self.rng, role="system"), seats, options, items, setup)
        )
        self.state: MatchState = series.fold(self.events)

    @property
    def bout(self):
        """The bout in play, or the one that ended last."""
        st = self.state
        return st.bout if st.bout is not None else st.last_bout

    @property
    def last(self):
        """The bout that ended last."""
        return self.state.last_bout

    def _apply(self, new: list[Event]) -> list[Event]:
        for e in new:
            self.state = self.series.evolve(self.state, e)
        self.events += new
        return new

    def submit(
        self, seat: str | None, command: Mapping[str, Any], role: str = "player"
    ) -> list[Event]:
        """Decide a command now; RuleError (and nothing changes) when refused."""
        ctx = Ctx(now=self.now, rng=self.rng, seat=seat, role=role)
        return self._apply(self.series.decide(self.state, command, ctx))

    def wait(self, seconds: float, until=None) -> list[Event]:
        """Let time pass; each deadline reached fires at its own moment
        (none after ``until(state)`` becomes true)."""
        end = self.now + seconds
        new: list[Event] = []
        while not self.state.finished and not (until and until(self.state)):
            nd = self.series.next_deadline(self.state)
            if nd is None or nd > end:
                break
            new += self._apply(
                self.series.fire_due(self.state, Ctx(now=nd, rng=self.rng, role="system"))
            )
        self.now = end
        return new

    def view(self, seat: str | None = None, kind: str | None = None, last: bool = False) -> dict:
        viewer = Viewer.of_seat(seat) if seat else Viewer(kind)
        return self.rules.view(self.last if last else self.bout, viewer)

    def types(self) -> list[str]:
        return [e.type for e in self.events]
