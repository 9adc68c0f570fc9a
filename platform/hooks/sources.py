"""Other apps' streams as webhook deliveries: a source registered at
start-up (the show room's chat, by chat.apps; the hooks import nothing of
the chat) says which items its rows make, which shows its streams belong
to, and whether an item still stands when it is due."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Source:
    """Another app's streams as deliveries (``register_source``)."""

    prefix: str  # the streams it turns into deliveries
    # rows -> [(show stream, kind, version, body, recorded_at)]
    items: Callable[[list], list]
    # streams (of the prefix) -> the show streams they belong to
    shows_of: Callable[[set], set]
    # (kind, stream, version) -> whether it may still be sent, when it is due
    stands: Callable[[str, str, int], bool]
    # kinds always sent at the spectator delay, even to the organizer's live endpoint
    delayed: tuple[str, ...] = ()


sources: dict[str, Source] = {}


def register_source(source: Source) -> None:
    sources[source.prefix] = source


def source_of(stream: str) -> Source | None:
    return next((s for p, s in sources.items() if stream.startswith(p)), None)


def stands(kind: str, stream: str, version: int) -> bool:
    """Whether a delivery may still go out (a source's item withdrawn: no)."""
    source = source_of(stream)
    return source is None or source.stands(kind, stream, version)
