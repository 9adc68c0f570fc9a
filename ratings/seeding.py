"""Seeding by rating: the console orders a new bracket's or show's entrants
by their rating in a game (the organizer can still reorder them)."""

from __future__ import annotations

from . import selectors
from .identity import holder_key


def by_rating(game: str, entrants: list[str], holders: dict) -> list[str]:
    """``entrants`` best rated first in ``game`` as everyone sees the
    ratings now; those without a rating (or a holder) keep their order last."""
    players = {e: holder_key(holders.get(e)) for e in entrants}
    return selectors.seed_order(game, list(entrants), players)


def lines_by_rating(game: str, text: str, entrants: list[str], holders: dict) -> str:
    """The console's entrant lines (``NAME`` or ``NAME = holder``), reordered."""
    lines = {}
    for line in text.splitlines():
        name = line.partition("=")[0].strip()
        if name:
            lines.setdefault(name, line.strip())
    return "\n".join(lines[e] for e in by_rating(game, entrants, holders))
