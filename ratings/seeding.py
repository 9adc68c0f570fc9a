"""Seeding by rating: the order the console asks for (tournaments.console.
rating_order) when it orders a new bracket's or show's entrants by their
rating in a game; ratings' AppConfig.ready registers ``by_rating`` there."""

from __future__ import annotations

from . import selectors
from .identity import holder_key


def by_rating(game: str, entrants: list[str], holders: dict) -> list[str]:
    """``entrants`` best rated first in ``game`` as everyone sees the
    ratings now; those without a rating (or a holder) keep their order last."""
    players = {e: holder_key(holders.get(e)) for e in entrants}
    return selectors.seed_order(game, list(entrants), players)
