"""A small driver for Love Letter tests: one match, commands and waits."""

from __future__ import annotations

import random
from collections import Counter

from games.core.protocol import Ctx, Viewer
from games.core.registry import series_for
from games.love_letter_family.cards import CLASSIC_DECK

SERIES = series_for("love-letter")
RULES = SERIES.rules
FULL_DECK = Counter(CLASSIC_DECK)


class Match:
    def __init__(self, seats=("ana", "ben"), options=None, setup=None, seed=0):
        self.rng = random.Random(seed)
        self.now = 0.0
        self.events = list(
            SERIES.start(Ctx(now=0.0, rng=self.rng, role="system"), seats, options, None, setup)
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

    def play(self, seat, card, target=None, guess=None, **extra):
        """Submit a play now; raises RuleError (and changes nothing) when refused."""
        cmd = {"type": "play", "card": str(card), **extra}
        if target is not None:
            cmd["target"] = target
        if guess is not None:
            cmd["guess"] = str(guess)
        return self.do(seat, cmd)

    def do(self, seat, command):
        new = SERIES.decide(self.state, command, Ctx(now=self.now, rng=self.rng, seat=seat))
        return self._apply(new)

    def wait(self, seconds):
        end = self.now + seconds
        new = SERIES.fire_due(self.state, Ctx(now=end, rng=self.rng, role="system"))
        self.now = end
        return self._apply(new)

    @property
    def last(self):
        """The round that ended last."""
        return self.state.last_bout

    def view(self, seat=None, kind=None, last=False):
        viewer = Viewer.of_seat(seat) if seat else Viewer(kind)
        return RULES.view(self.last if last else self.bout, viewer)


def cards_in_play(bout) -> Counter:
    """Every card of a round wherever it is: it must always be the 16."""
    c = Counter(bout.removed) + Counter(bout.deck)
    if bout.hidden is not None:
        c[bout.hidden] += 1
    for h in bout.hands:
        c.update(h)
    for d in bout.discards:
        c.update(d)
    return c


def stacked(hidden, removed, deck, first="ana"):
    return {
        "hidden": str(hidden),
        "removed": [str(c) for c in removed],
        "deck": [str(c) for c in deck],
        "first": first,
    }
