"""TV's channels besides a show's own (board.py): a game's channel (the live
matches of that game across the site, the one at the highest stake on
screen) and the site's top-rated live match (as Lichess TV has). Every
match is read as spectators read it, at its own delay; a seat's rating is
the one everyone may see (``games.seat_ratings``)."""

from __future__ import annotations

from dataclasses import dataclass

from games import services as match_services
from games import visibility
from games.core.registry import available, rules_for
from games.models import Match
from games.seat_ratings import ratings_for

from . import tv
from .board import SPECTATOR, LiveMatch, live_entries

SITE_LIMIT = 12  # the most recently moved live matches a site channel weighs
TOP = "top"


@dataclass
class Listed:
    """A live match a site channel weighs: its summary at its cut, what is at
    stake and its seats' ratings; only the one on screen gets its table."""

    summary: match_services.Summary
    stake: float
    ratings: dict[str, float]


def games() -> list[tuple[str, str]]:
    """(slug, name) of every game: a channel each."""
    return [(r.slug, r.name) for r in available()]


def _target(match) -> int:
    """Bouts to win the series (its option, else the game's default)."""
    options = match.options or {}
    first_to = options.get("first_to")
    if isinstance(first_to, int) and not isinstance(first_to, bool):
        return first_to
    return rules_for(match.game).default_first_to(options, len(match.seats or ()))


def site_live(game: str | None = None, now: float | None = None) -> list[Listed]:
    """The site's live matches (of ``game``, or of all) spectators may watch
    now, each as of its own cut, with their seats' ratings."""
    now = visibility.clock() if now is None else now
    rows = Match.objects.filter(status="live").order_by("-updated_at", "-id")
    if game is not None:
        rows = rows.filter(game=game)
    summaries = match_services.summaries_for(list(rows[:SITE_LIMIT]), SPECTATOR, now=now)
    out = []
    for s in summaries:
        if s.status != "live":
            continue
        seen = tv.Candidate(s.pk, s.kind, tuple(s.scores.values()), _target(s.match))
        out.append(Listed(s, tv.stake(seen), ratings_for(s.match)))
    return sorted(out, key=lambda m: m.summary.pk)


def _on_screen(listed: Listed | None, now: float | None) -> LiveMatch | None:
    """The chosen match with its spectators' table (None: not open after all)."""
    if listed is None:
        return None
    found = live_entries([listed.summary], {}, visibility.clock() if now is None else now)
    if not found:
        return None
    found[0].ratings = listed.ratings
    return found[0]


def top_rated(live: list[Listed], on_screen: int | None = None, now=None) -> LiveMatch | None:
    """The live match whose players are rated highest; the one on screen
    stays until another is clearly higher rated."""
    scores = {
        m.summary.pk: tv.rated(tuple(m.ratings.get(seat) for seat in m.summary.seats)) for m in live
    }
    chosen = tv.pick(on_screen, scores, by=tv.RATED_SWITCH_BY)
    return _on_screen(next((m for m in live if m.summary.pk == chosen), None), now)


def most_at_stake(live: list[Listed], on_screen: int | None = None, now=None) -> LiveMatch | None:
    """The live match with the most at stake (TV's rule for a show's matches)."""
    chosen = tv.pick(on_screen, {m.summary.pk: m.stake for m in live})
    return _on_screen(next((m for m in live if m.summary.pk == chosen), None), now)
