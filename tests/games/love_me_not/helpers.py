"""A small driver for Love Me Not tests: one match, commands and waits."""

from __future__ import annotations

import random
from collections import Counter

from games.core.protocol import Ctx, Viewer
from games.core.registry import series_for
from games.love_me_not.rules import DECK

SERIES = series_for("love-me-not")
RULES = SERIES.rules
SEATS = ("ana", "ben")
FULL_DECK = Counter(DECK)

# the shared example's deck: ana draws 2H JS, ben 3H 4H in turn 1, and so on
EXAMPLE_DECK = "2H JS 3H 4H 5H 2S 5S 3S 4S 2D JH 3D 4D 5D 2C 3C JD 4C 5C JC".split()


class Match:
    def __init__(self, options=None, deck=None, seed=0):
        self.rng = random.Random(seed)
        self.now = 0.0
        setup = {"deck": list(deck)} if deck else None
        self.events = list(
            SERIES.start(Ctx(now=0.0, rng=self.rng, role="system"), SEATS, options, None, setup)
        )
        self.state = SERIES.fold(self.events)

    @property
    def bout(self):
        st = self.state
        return st.bout if st.bout is not None else st.last_bout

    @property
    def last(self):
        return self.state.last_bout

    def _apply(self, new):
        for e in new:
            self.state = SERIES.evolve(self.state, e)
        self.events += new
        return new

    def choose(self, seat, keep, discard):
        return self.do(seat, {"type": "choose", "keep": keep, "discard": discard})

    def do(self, seat, command):
        new = SERIES.decide(self.state, command, Ctx(now=self.now, rng=self.rng, seat=seat))
        return self._apply(new)

    def wait(self, seconds):
        end = self.now + seconds
        new = SERIES.fire_due(self.state, Ctx(now=end, rng=self.rng, role="system"))
        self.now = end
        return self._apply(new)

    def view(self, seat=None, kind=None, last=False):
        viewer = Viewer.of_seat(seat) if seat else Viewer(kind)
        return RULES.view(self.last if last else self.bout, viewer)


def cards_in_play(bout) -> Counter:
    c = Counter(bout.deck)
    for group in (bout.hands, bout.tableaus, bout.piles):
        for cards in group:
            c.update(cards)
    return c
