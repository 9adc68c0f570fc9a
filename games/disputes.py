"""Where a viewer of a match may file a dispute about it: a link beside each
line of the table's history.

A match knows nothing of shows: the places come from a provider that the
tournaments app registers at startup (``register_dispute_provider``), as
games.visibility's show facts do. Without one, a table offers no link."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class DisputePlace:
    """A show that takes this viewer's dispute about the match: its name and
    the address of its dispute form for that match (the event is added)."""

    name: str
    url: str


class DisputeProvider(Protocol):
    def dispute_places(self, match, user) -> list[DisputePlace]: ...


_provider: DisputeProvider | None = None


def register_dispute_provider(provider: DisputeProvider | None) -> DisputeProvider | None:
    """Install the provider; returns the one it replaces."""
    global _provider
    previous, _provider = _provider, provider
    return previous


def dispute_places(match, user) -> list[DisputePlace]:
    if _provider is None or user is None or not getattr(user, "is_authenticated", False):
        return []
    return _provider.dispute_places(match, user)
