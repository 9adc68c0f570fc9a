"""A small driver for Higher or Lower tests: one match, commands and waits."""

from __future__ import annotations

import random

from games.core.protocol import Ctx, Viewer
from games.core.registry import series_for

SEATS = ("ana", "ben")
SERIES = series_for("higher-lower")
RULES = SERIES.rules


class Match:
    def __init__(self, options=None, seed=0, seats=SEATS):
        self.series = SERIES
        self.rng = random.Random(seed)
        self.now = 0.0
        self.events = list(
            SERIES.start(Ctx(now=0.0, rng=self.rng, role="system"), seats, options, None, None)
        )
        self.state = SERIES.fold(self.events)

    @property
    def bout(self):
        st = self.state
        return st.bout if st.bout is not None else st.last_bout

    def _apply(self, new):
        for e in new:
            self.state = SERIES.evolve(self.state, e)
        self.events += new
        return new

    def do(self, seat, **command):
        """Submit a command now; raises RuleError (and changes nothing) when refused."""
        new = SERIES.decide(self.state, command, Ctx(now=self.now, rng=self.rng, seat=seat))
        return self._apply(new)

    def wait(self, seconds):
        """Let time pass; every deadline reached fires, each at its own moment."""
        end = self.now + seconds
        new = SERIES.fire_due(self.state, Ctx(now=end, rng=self.rng, role="system"))
        self.now = end
        return self._apply(new)

    def view(self, seat=None, kind=None):
        viewer = Viewer.of_seat(seat) if seat else Viewer(kind)
        return RULES.view(self.bout, viewer)

    def guesser_at(self, declared=10, guesser="ben"):
        """Run the auction so that ``guesser`` wins it at ``declared``."""
        self.do(guesser, type="bid", amount=declared)
        self.wait(15)
        return self
