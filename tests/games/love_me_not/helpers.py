"""A small driver for Love Me Not tests: one match, commands and waits."""

from __future__ import annotations

from collections import Counter

from games.core.driver import MatchDriver
from games.core.registry import series_for
from games.love_me_not.rules import DECK

SERIES = series_for("love-me-not")
RULES = SERIES.rules
SEATS = ("ana", "ben")
FULL_DECK = Counter(DECK)

# the shared example's deck: ana draws 2H JS, ben 3H 4H in turn 1, and so on
EXAMPLE_DECK = "2H JS 3H 4H 5H 2S 5S 3S 4S 2D JH 3D 4D 5D 2C 3C JD 4C 5C JC".split()


class Match(MatchDriver):
    def __init__(self, options=None, deck=None, seed=0):
        setup = {"deck": list(deck)} if deck else None
        super().__init__(SERIES, SEATS, options, setup=setup, seed=seed)

    def choose(self, seat, keep, discard):
        return self.do(seat, {"type": "choose", "keep": keep, "discard": discard})

    def do(self, seat, command):
        return self.submit(seat, command)


def cards_in_play(bout) -> Counter:
    c = Counter(bout.deck)
    for group in (bout.hands, bout.tableaus, bout.piles):
        for cards in group:
            c.update(cards)
    return c
