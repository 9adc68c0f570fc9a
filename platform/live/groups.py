"""The groups a match's sockets join: one per seat, one for its moderators,
one for its spectators (fed behind the delay by each spectator's consumer)."""

from __future__ import annotations

import re

from games.core.protocol import MODERATOR, SEAT, Viewer

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def seat_group(match_id: int, seat: str) -> str:
    # a group name allows only ASCII letters, digits, '-', '_' and '.'
    return f"match-{match_id}.seat-{_UNSAFE.sub('_', seat)[:60]}"


def moderator_group(match_id: int) -> str:
    return f"match-{match_id}.mod"


def spectator_group(match_id: int) -> str:
    return f"match-{match_id}.spectators"


def group_for(match_id: int, viewer: Viewer) -> str:
    if viewer.kind == SEAT:
        return seat_group(match_id, viewer.seat)
    if viewer.kind == MODERATOR:
        return moderator_group(match_id)
    return spectator_group(match_id)


def groups_of(match) -> list[str]:
    """Every group of a match, each told when its stream moves."""
    return [
        *(seat_group(match.pk, s) for s in match.seats),
        moderator_group(match.pk),
        spectator_group(match.pk),
    ]
