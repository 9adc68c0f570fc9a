"""Players' ratings as everyone may see them, for the games' own pages: the
practice picker's bot levels (games.bot_levels) and the seats of a table
(games.presenters.table).

Ratings sit above the games, so the games ask a source that the ratings app
registers at start-up (``register_player_ratings``, from its AppConfig.ready),
as the console asks its order by rating. With none registered, nobody shows a
rating."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass

from .holders import row_key


@dataclass(frozen=True)
class ShownRating:
    """A player's rating in one game, as everyone may see it now."""

    ordinal: float
    games: int
    provisional: bool


# (game, player keys: "u:<id>", "bot:level:N") -> {key: its rating}, for those rated
PlayerRatings = Callable[[str, Collection[str]], dict[str, ShownRating]]

_source: PlayerRatings | None = None


def register_player_ratings(source: PlayerRatings | None) -> PlayerRatings | None:
    """Install where the ratings come from; returns the one it replaces."""
    global _source
    previous, _source = _source, source
    return previous


def holder_keys(match) -> dict[str, str]:
    """Each held seat of ``match`` -> its holder's player key (what ratings
    are kept under)."""
    keys = {h.seat: row_key(h) for h in match.holders.all()}
    return {seat: key for seat, key in keys.items() if key}


def ratings_of(game: str, keys: Collection[str]) -> dict[str, ShownRating]:
    """The ratings in ``game`` of those of ``keys`` who have one now."""
    keys = [k for k in keys if k]
    if not keys or _source is None:
        return {}
    return _source(game, keys)
