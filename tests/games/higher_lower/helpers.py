"""A small driver for Higher or Lower tests: one match, commands and waits."""

from __future__ import annotations

from games.core.driver import MatchDriver
from games.core.registry import series_for

SEATS = ("ana", "ben")
SERIES = series_for("higher-lower")
RULES = SERIES.rules


class Match(MatchDriver):
    def __init__(self, options=None, seed=0, seats=SEATS):
        super().__init__(SERIES, seats, options, seed=seed)

    def do(self, seat, **command):
        """Submit a command now; raises RuleError (and changes nothing) when refused."""
        return self.submit(seat, command)

    def guesser_at(self, declared=10, guesser="ben"):
        """Run the auction so that ``guesser`` wins it at ``declared``."""
        self.do(guesser, type="bid", amount=declared)
        self.wait(15)
        return self
