"""The opening side of the ready-check (commands/ready.py): the deadline a
match opened with ``ready_check_s`` carries, and the check passed at once
when nobody is awaited. Shared by the rounds that open matches and by the
``ready`` command that confirms a seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..builder import _Builder
from ..state import Duel, Final, ShowState, not_ready, round_by_id


def deadline(s: ShowState, now: float) -> dict[str, float]:
    """The ``ready_by`` field of a match opened at ``now`` ({}: no ready-check)."""
    secs = s.options.get("ready_check_s") or 0
    return {"ready_by": now + secs} if secs else {}


def _match_at(s: ShowState, where: Mapping[str, Any]) -> Duel | Final:
    if where.get("final"):
        return s.final
    return round_by_id(s, where["round"]).duel(where["candidate"])


def pass_if_nobody_awaited(b: _Builder, where: Mapping[str, Any]) -> None:
    """Pass the ready-check of a match just opened or confirmed when nobody
    is awaited any more."""
    m = _match_at(b.state, where)
    if not m.awaiting_ready or not_ready(b.state, m):
        return
    reason = "everyone is there" if m.ready else "bots are always there"
    b.emit("ready_check_passed", dict(where), reason=reason)
