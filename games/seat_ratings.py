"""The ratings of a match's seats, as everyone may see them now (TV shows
them beside each seat and picks the site's top-rated match by them).

Ratings sit above the games, so the broadcast asks a source that the ratings
app registers at start-up (``register_seat_ratings``), as the practice picker
asks the bots' levels' ratings (``games.bot_levels``). With none registered,
no seat shows a rating."""

from __future__ import annotations

from collections.abc import Callable

from games.models import Match

# (game, {seat: holder: a user id or "bot:<kind>"}) -> {seat: rating}, rated seats only
SeatRatings = Callable[[str, dict[str, object]], dict[str, float]]

_source: SeatRatings | None = None


def register_seat_ratings(source: SeatRatings | None) -> SeatRatings | None:
    """Install where the seats' ratings come from; returns the one it replaces."""
    global _source
    previous, _source = _source, source
    return previous


def ratings_for(match: Match) -> dict[str, float]:
    """Each rated seat of ``match`` -> its rating in the match's game."""
    if _source is None:
        return {}
    holders: dict[str, object] = {}
    for h in match.holders.all():
        holders[h.seat] = (
            h.user_id if h.user_id is not None else (f"bot:{h.bot}" if h.bot else None)
        )
    return _source(match.game, holders)
