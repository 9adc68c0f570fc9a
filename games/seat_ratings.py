"""The ratings of a match's seats, as everyone may see them now (TV shows
them beside each seat and picks the site's top-rated match by them), read
through the one source the ratings app registers (``games.player_ratings``)."""

from __future__ import annotations

from games.models import Match
from games.player_ratings import holder_keys, ratings_of


def ratings_for(match: Match) -> dict[str, float]:
    """Each rated seat of ``match`` -> its rating (the ordinal, to a tenth)
    in the match's game."""
    keys = holder_keys(match)
    rated = ratings_of(match.game, set(keys.values()))
    return {seat: round(rated[k].ordinal, 1) for seat, k in keys.items() if k in rated}
