"""decide(state, command, ctx): check who acts, then hand the command to its
module's handler (commands/), which emits the events."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import Ctx, Event, RoleRequired, RuleError

from .builder import _WHAT, _Builder
from .commands import (
    disputes,
    invitations,
    items,
    organizer,
    ready,
    results,
    rounds,
    schedule,
    timeouts,
)
from .options import _name_ok
from .state import ROLES, SPECTATOR, ShowState

_HANDLERS = {
    **organizer.HANDLERS,
    **rounds.HANDLERS,
    **results.HANDLERS,
    **items.HANDLERS,
    **disputes.HANDLERS,
    **timeouts.HANDLERS,
    **invitations.HANDLERS,
    **schedule.HANDLERS,
    **ready.HANDLERS,
}

COMMANDS = tuple(_HANDLERS)


def decide(state: ShowState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
    if not isinstance(command, Mapping):
        raise RuleError("a command is a mapping with a type, an actor and a role")
    kind = command.get("type")
    handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
    if handler is None:
        raise RuleError(
            "unknown show command {kind!r}; commands: {handlers}",
            kind=kind,
            handlers=", ".join(sorted(_HANDLERS)),
        )
    if not state.created:
        raise RuleError("there is no show yet: create it first")
    if not _name_ok(command.get("actor")):
        raise RuleError("a command needs an actor (a username)")
    if command.get("role") not in ROLES:
        raise RuleError("role must be one of {roles}", roles=", ".join(ROLES))
    reason = command.get("reason", "")
    if reason is not None and not isinstance(reason, str):
        raise RuleError("reason must be text")
    if command["role"] == SPECTATOR:
        raise RoleRequired(
            "spectators may only watch: {action} is not for them", action=_WHAT.get(kind, kind)
        )
    b = _Builder(state, command, ctx)
    handler(b, command)
    return b.events
