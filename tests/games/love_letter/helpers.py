"""A small driver for Love Letter tests: one match, commands and waits."""

from __future__ import annotations

from collections import Counter

from games.core.driver import MatchDriver
from games.core.registry import series_for
from games.love_letter_family.cards import CLASSIC_DECK

SERIES = series_for("love-letter")
RULES = SERIES.rules
FULL_DECK = Counter(CLASSIC_DECK)


class Match(MatchDriver):
    def __init__(self, seats=("ana", "ben"), options=None, setup=None, seed=0):
        super().__init__(SERIES, seats, options, setup=setup, seed=seed)

    def play(self, seat, card, target=None, guess=None, **extra):
        """Submit a play now; raises RuleError (and changes nothing) when refused."""
        cmd = {"type": "play", "card": str(card), **extra}
        if target is not None:
            cmd["target"] = target
        if guess is not None:
            cmd["guess"] = str(guess)
        return self.do(seat, cmd)

    def do(self, seat, command):
        return self.submit(seat, command)


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
