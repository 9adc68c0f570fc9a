"""A bracket's check-in before its draw, as a scheduled show's before its
start (shows/commands/schedule.py): the organizer creates the bracket with
its check-in open, each person holding an entrant says they are there, and
the organizer's draw seeds only those present (in their seed order; a bot is
always there) and drops the others, whose absence the page says. Then the
first series open, each with its own ready-check as before.

The stream: ``bracket_created`` with ``check_in`` true (no series opens),
``bracket_entrant_checked_in`` per entrant, then the draw, a second
``bracket_created`` of those present with ``dropped`` (bracket_fold.py)."""

from __future__ import annotations

from collections.abc import Mapping

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils.translation import gettext as _

from eventlog.commands import once
from eventlog.store import NewEvent, append
from games.core.protocol import RuleError
from games.holders import is_bot

from . import brackets
from .bracket_fold import CHECKED_IN
from .readmodels import bracket_folded


def is_open(created: Mapping) -> bool:
    """Whether the bracket waits on its check-in (no series is open yet)."""
    return bool(created.get("check_in"))


def present(created: Mapping) -> list[str]:
    """The entrants there for the draw, in seed order: checked in, or a bot."""
    holders, checked = created.get("holders") or {}, set(created.get("checked_in") or ())
    return [e for e in created.get("entrants") or () if e in checked or is_bot(holders.get(e))]


def held_by(created: Mapping, user_id: int | None) -> list[str]:
    """The entrants the account ``user_id`` holds, in seed order."""
    holders = created.get("holders") or {}
    return [
        e
        for e in created.get("entrants") or ()
        if user_id is not None
        and not isinstance(holders.get(e), bool)
        and holders.get(e) == user_id
    ]


def check_in(stream: str, user_id: int | None, *, command_id: str | None = None) -> list[str]:
    """The account ``user_id`` says it is there for each entrant it holds
    that has not checked in; returns those entrants. A retry with the same
    ``command_id`` gets the first answer and writes nothing."""
    return once(
        f"{stream}:check-in",
        {"user": user_id},
        lambda: {"checked_in": _check_in(stream, user_id)},
        command_id=command_id,
        account=user_id,
    )["checked_in"]


def _check_in(stream: str, user_id: int | None) -> list[str]:
    (_state, created, _links), version = bracket_folded(stream)
    if not version:
        raise RuleError("no such bracket")
    if not is_open(created):
        raise RuleError("the bracket's check-in is not open")
    mine = held_by(created, user_id)
    if not mine:
        raise PermissionDenied(_("only a person holding an entrant of this bracket checks in"))
    todo = [e for e in mine if e not in set(created.get("checked_in") or ())]
    if not todo:
        raise RuleError("{who} has checked in already", who=", ".join(mine))
    append(
        stream,
        version,
        [NewEvent(CHECKED_IN, {"entrant": e}) for e in todo],
        actor=f"user:{user_id}",
        role="player",
    )
    return todo


def draw(
    stream: str, user_id: int | None, *, actor: str = "", command_id: str | None = None
) -> list[str]:
    """The organizer closes the check-in and draws the bracket of the entrants
    present; returns the entrants dropped (they did not check in). A retry
    with the same ``command_id`` gets the first answer and writes nothing."""
    return once(
        f"{stream}:draw",
        {"user": user_id},
        lambda: {"dropped": _draw(stream, user_id, actor)},
        command_id=command_id,
        account=user_id,
    )["dropped"]


def _draw(stream: str, user_id: int | None, actor: str) -> list[str]:
    from .bracket_services import _open_pending

    (_state, created, _links), version = bracket_folded(stream)
    if not version:
        raise RuleError("no such bracket")
    if user_id is None or created.get("organizer_id") != user_id:
        raise PermissionDenied(_("only the bracket's organizer draws it"))
    if not is_open(created):
        raise RuleError("the bracket is drawn already")
    there = present(created)
    dropped = [e for e in created["entrants"] if e not in there]
    if len(there) < 2:
        raise RuleError("at least two entrants must check in before the draw")
    try:
        drawn = brackets.created_event(created["format"], there, created.get("options"))
    except brackets.BracketError as exc:
        raise RuleError(str(exc)) from None
    data = {k: v for k, v in created.items() if k not in ("checked_in",)}
    data.update(drawn["data"], check_in=False, dropped=dropped, drawn_from=created["entrants"])
    with transaction.atomic():
        append(stream, version, [NewEvent(drawn["type"], data)], actor=actor, role="organizer")
        _open_pending(stream)
    return dropped
