"""The bots' levels as people are offered them: each level's words and, where
it has one, its rating in a game (the practice picker on the games page, the
console's bot entrants), and a bot as a seat of a table reads ("Bot, level 2").

The ratings come from the source the ratings app registers
(games.player_ratings); with none registered, no level shows a rating."""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.core.playout import LEVELS, level_holder, level_of
from games.holders import bot_kind

from .player_ratings import ShownRating, ratings_of

WORDS = {
    0: gettext_lazy("plays any legal move at random: for a first game"),
    1: gettext_lazy("plays by rules of thumb: counts cards, bluffs now and then"),
    2: gettext_lazy("tries each move on deals that fit what it has seen, keeps the best"),
    3: gettext_lazy("searches a tree of moves over every deal it cannot tell apart"),
    4: gettext_lazy("searches longer, and reads your claims, challenges and bids"),
}
DEFAULT_LEVEL = 1


@dataclass(frozen=True)
class Level:
    number: int
    holder: str  # "bot:level:N"
    words: str
    rating: ShownRating | None

    @property
    def value(self) -> str:
        """The name a form sends ("level:N")."""
        return bot_kind(self.holder)

    @property
    def title(self) -> str:
        return gettext_lazy("L%(n)s") % {"n": self.number}


def levels(game: str | None = None) -> list[Level]:
    """Every level, with its rating in ``game`` (none without a game)."""
    rated = ratings_of(game, [level_holder(n) for n in LEVELS]) if game else {}
    return [Level(n, level_holder(n), str(WORDS[n]), rated.get(level_holder(n))) for n in LEVELS]


def level_choices() -> list[tuple[str, str]]:
    """(value, label) pairs for a form: "level:2", "L2: tries each move..."."""
    # the colon in the words, so French puts its no-break space before it
    return [
        (lv.value, _("%(name)s: %(value)s") % {"name": lv.title, "value": lv.words})
        for lv in levels()
    ]


def bot_in_words(kind: str) -> str:
    """A seat's bot as people read it ("level:2" -> "Bot, level 2"), never
    its stored name."""
    level = level_of(kind)
    if level is None:
        return _("Bot")
    return _("Bot, level %(n)s") % {"n": level}
