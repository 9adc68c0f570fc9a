"""Seeding by rating in the console: a new show's or bracket's entrants
ordered best rated first in a game (the organizer can still reorder them).

Ratings sit above the tournaments, so the console asks an order that the
ratings app registers at start-up (``register_rating_order`` in its
AppConfig.ready), as games.visibility asks its show provider. With none
registered, the entrants keep their order."""

from __future__ import annotations

from collections.abc import Callable

# (game, entrants, holders) -> the entrants, best rated first
RatingOrder = Callable[[str, list[str], dict], list[str]]

_order: RatingOrder | None = None


def register_rating_order(order: RatingOrder | None) -> RatingOrder | None:
    """Install the order by rating; returns the one it replaces."""
    global _order
    previous, _order = _order, order
    return previous


def by_rating(game: str, entrants: list[str], holders: dict) -> list[str]:
    """``entrants`` best rated first in ``game``, by the registered order."""
    if _order is None:
        return list(entrants)
    return _order(game, entrants, holders)


def lines_by_rating(game: str, text: str, entrants: list[str], holders: dict) -> str:
    """The console's entrant lines (``NAME`` or ``NAME = holder``), reordered."""
    lines = {}
    for line in text.splitlines():
        name = line.partition("=")[0].strip()
        if name:
            lines.setdefault(name, line.strip())
    return "\n".join(lines[e] for e in by_rating(game, entrants, holders))
