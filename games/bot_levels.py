"""The bots' levels as people are offered them: each level's words and, where
it has one, its rating in a game (the practice picker on the games page, the
console's bot entrants).

Ratings sit above the games, so the picker asks a source that the ratings app
registers at start-up (``register_level_ratings``, from its AppConfig.ready),
as the console asks its order by rating. With none registered, no level shows
a rating."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.utils.translation import gettext_lazy

from games.core.playout import LEVELS, level_holder

WORDS = {
    0: gettext_lazy("plays any legal move at random: for a first game"),
    1: gettext_lazy("plays by rules of thumb: counts cards, bluffs now and then"),
    2: gettext_lazy("tries each move on deals that fit what it has seen, keeps the best"),
    3: gettext_lazy("searches a tree of moves over every deal it cannot tell apart"),
    4: gettext_lazy("searches longer, and reads your claims, challenges and bids"),
}
DEFAULT_LEVEL = 1


@dataclass(frozen=True)
class LevelRating:
    """A level's rating in one game, as everyone may see it now."""

    ordinal: float
    games: int
    provisional: bool


# game -> {"bot:level:N": its rating}, for the levels that have one
LevelRatings = Callable[[str], dict[str, LevelRating]]

_ratings: LevelRatings | None = None


def register_level_ratings(source: LevelRatings | None) -> LevelRatings | None:
    """Install where the levels' ratings come from; returns the one it replaces."""
    global _ratings
    previous, _ratings = _ratings, source
    return previous


@dataclass(frozen=True)
class Level:
    number: int
    holder: str  # "bot:level:N"
    words: str
    rating: LevelRating | None

    @property
    def value(self) -> str:
        """The name a form sends ("level:N")."""
        return self.holder[len("bot:") :]

    @property
    def title(self) -> str:
        return gettext_lazy("L%(n)s") % {"n": self.number}


def levels(game: str | None = None) -> list[Level]:
    """Every level, with its rating in ``game`` (none without a game)."""
    rated = _ratings(game) if game and _ratings is not None else {}
    return [Level(n, level_holder(n), str(WORDS[n]), rated.get(level_holder(n))) for n in LEVELS]


def level_choices() -> list[tuple[str, str]]:
    """(value, label) pairs for a form: "level:2", "L2: tries each move..."."""
    return [(lv.value, f"{lv.title}: {lv.words}") for lv in levels()]
