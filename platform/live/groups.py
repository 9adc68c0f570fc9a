"""The groups a match's sockets join: every socket of a match joins its
match's group, where each version is announced once (one group_send per
version, not one per kind of viewer: the message carries no card, each
consumer renders its own viewer's table) and the players' room chat is
told; moderators and spectators join its watchers' group as well, where
the spectators' room chat is told (never a seat's socket)."""

from __future__ import annotations

from games.core.protocol import SEAT, Viewer


def match_group(match_id: int) -> str:
    # a group name allows only ASCII letters, digits, '-', '_' and '.'
    return f"match-{match_id}"


def watchers_group(match_id: int) -> str:
    return f"match-{match_id}.watch"


def groups_for(match_id: int, viewer: Viewer) -> list[str]:
    """The groups a socket of ``viewer`` joins."""
    if viewer.kind == SEAT:
        return [match_group(match_id)]
    return [match_group(match_id), watchers_group(match_id)]


def groups_of(match) -> list[str]:
    """The groups a new version of ``match`` is told to: one, its every socket's."""
    return [match_group(match.pk)]
