"""TV's channels besides a show's own (board.py): a game's channel (the live
matches of that game across the site, the one at the highest stake on
screen) and the site's top-rated live match (as Lichess TV has). Every
match is read as spectators read it, at its own delay; a seat's rating is
the one everyone may see (``games.seat_ratings``)."""

from __future__ import annotations

from games import services as match_services
from games import visibility
from games.core.registry import available
from games.models import Match
from games.seat_ratings import ratings_for

from . import tv
from .board import SPECTATOR, LiveMatch, live_entries

SITE_LIMIT = 40  # the most recently moved live matches a site channel weighs
TOP = "top"


def games() -> list[tuple[str, str]]:
    """(slug, name) of every game: a channel each."""
    return [(r.slug, r.name) for r in available()]


def site_live(game: str | None = None, now: float | None = None) -> list[LiveMatch]:
    """The site's live matches (of ``game``, or of all) spectators may watch
    now, with their seats' ratings."""
    now = visibility.clock() if now is None else now
    rows = Match.objects.filter(status="live").order_by("-updated_at", "-id")
    if game is not None:
        rows = rows.filter(game=game)
    summaries = match_services.summaries_for(list(rows[:SITE_LIMIT]), SPECTATOR, now=now)
    live = live_entries(summaries, {}, now)
    for m in live:
        m.ratings = ratings_for(m.summary.match)
    return sorted(live, key=lambda m: m.summary.pk)


def top_rated(live: list[LiveMatch], on_screen: int | None = None) -> LiveMatch | None:
    """The live match whose players are rated highest; the one on screen
    stays until another is clearly higher rated."""
    scores = {m.summary.pk: tv.rated(tuple(x["rating"] for x in m.seats)) for m in live}
    chosen = tv.pick(on_screen, scores, by=tv.RATED_SWITCH_BY)
    return next((m for m in live if m.summary.pk == chosen), None)
