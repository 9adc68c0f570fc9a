"""A scheduled show before and at its start: registration (open, with a cap
and a waiting list, or by invitation), withdrawal, the organizer's approval,
check-in, and the start, which drops whoever did not check in and fills
their seat from the waiting list or with a bot as the options say. Each
decision is an event with its reason; the clock's sweep makes the system's
(``open_check_in``, ``start``) when they are due."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RoleRequired, RuleError

from ..builder import _WHAT, _Builder, _need_organizer, _need_system, _not_over, _text
from ..options import _is_int, default_round_titles
from ..state import (
    ACTIVE,
    APPLIED,
    ORGANIZER,
    PLAYER,
    SCHEDULED,
    SYSTEM,
    WAITING,
    ShowState,
    active,
)
from .rounds import _maybe_open_final

# who may still withdraw (and be declined) before the start
REGISTERED = (ACTIVE, WAITING, APPLIED)


def check_in_opens_at(s: ShowState) -> float | None:
    secs = s.options.get("check_in_s") or 0
    return None if s.starts_at is None or not secs else s.starts_at - secs


def due(s: ShowState, now: float) -> str | None:
    """The system command a scheduled show is due for at ``now``: ``start``,
    ``open_check_in``, or None."""
    if not s.created or s.phase != SCHEDULED:
        return None
    if now >= s.starts_at:
        return "start"
    opens = check_in_opens_at(s)
    if opens is not None and now >= opens and not s.check_in_open:
        return "open_check_in"
    return None


def next_due(s: ShowState) -> float | None:
    """When the next system step of a scheduled show falls due."""
    if not s.created or s.phase != SCHEDULED:
        return None
    opens = check_in_opens_at(s)
    return opens if opens is not None and not s.check_in_open else s.starts_at


def _before_start(s: ShowState) -> None:
    _not_over(s)
    if s.phase != SCHEDULED:
        raise RuleError("the show has started: registration and withdrawal are closed")


def _full(s: ShowState) -> bool:
    cap = s.options.get("cap")
    return cap is not None and len(active(s)) >= cap


def _seat_status(s: ShowState) -> tuple[str, str]:
    """(status, reason) of an entrant taken on now: a seat, or the waiting list."""
    if not _full(s):
        return ACTIVE, "a seat was free"
    if not s.options.get("waiting_list", True):
        raise RuleError(
            "the show is full ({options} entrants) and has no waiting list",
            options=s.options["cap"],
        )
    return WAITING, f"the show is full ({s.options['cap']} entrants): on the waiting list"


def _entrant(b: _Builder, kind: str, statuses: tuple[str, ...]) -> str:
    """The entrant acting as a player, in one of ``statuses``."""
    if b.role != PLAYER or b.actor not in b.state.entrants:
        raise RoleRequired("only an entrant of this show may {what}", what=_WHAT[kind])
    if b.state.status.get(b.actor) not in statuses:
        raise RuleError(
            "{actor} is {status}: nothing to {what}",
            actor=b.actor,
            status=b.state.status.get(b.actor),
            what=_WHAT[kind],
        )
    return b.actor


def _name_for(s: ShowState, username: str, user_id: int) -> str:
    """The entrant name of a registering account: its username (again, when it
    withdrew before), else the username with a number."""
    for n in range(1, len(s.entrants) + 2):
        name = username if n == 1 else f"{username}-{n}"
        if name not in s.entrants or s.registered_by.get(name) == user_id:
            return name
    raise AssertionError("unreachable: one of the names is free")


def _register(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "register")
    s = b.state
    _before_start(s)
    if s.options.get("registration") != "open":
        raise RuleError("this show is by invitation: ask its organizer for one")
    user_id, username = c.get("user_id"), c.get("username")
    if not _is_int(user_id) or not isinstance(username, str) or not username.strip():
        raise RuleError("a registration is an account's")
    if user_id == s.organizer_id or user_id in s.moderator_ids.values():
        raise RuleError("{username} runs this show and cannot enter it", username=username)
    if user_id in s.held.values():
        raise RuleError("{username} is registered already", username=username)
    if len(s.entrants) >= MAX_REGISTRATIONS:
        raise RuleError("this show takes no more registrations")
    name = _name_for(s, username, user_id)
    if s.options.get("approval"):
        status, reason = APPLIED, "waiting for the organizer's approval"
    else:
        status, reason = _seat_status(s)
    b.emit(
        "entrant_registered",
        {"entrant": name, "user_id": user_id, "username": username, "status": status},
        reason=reason,
        visible_to=(),  # the account is the staff's to know
        public={"entrant": name, "status": status},
    )


MAX_REGISTRATIONS = 1000  # registrations of one show, withdrawn ones included


def _promote(b: _Builder, freed_by: str) -> None:
    """A seat came free before the start: the waiting list's first takes it."""
    s = b.state
    if s.waiting and not _full(s):
        b.emit(
            "entrant_promoted",
            {"entrant": s.waiting[0]},
            reason=f"a seat came free ({freed_by}): first on the waiting list",
        )


def _withdraw(b: _Builder, c: Mapping[str, Any]) -> None:
    _before_start(b.state)
    who = _entrant(b, "withdraw", REGISTERED)
    b.emit("entrant_withdrew", {"entrant": who}, reason=c.get("reason") or "withdrew")
    _promote(b, f"{who} withdrew")


def _registrant(b: _Builder, c: Mapping[str, Any], statuses: tuple[str, ...]) -> str:
    who = _text(c, "entrant", "the entrant")
    status = b.state.status.get(who)
    if status not in statuses:
        raise RuleError(
            "{who} is {value}, not {statuses}",
            who=who,
            value=status or "not registered",
            statuses=" or ".join(statuses),
        )
    return who


def _approve(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "approve_registration")
    _before_start(b.state)
    who = _registrant(b, c, (APPLIED,))
    status, reason = _seat_status(b.state)
    b.emit("registration_approved", {"entrant": who, "status": status}, reason=reason)


def _decline(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "decline_registration")
    _before_start(b.state)
    who = _registrant(b, c, REGISTERED)
    if who not in b.state.registered_by:
        raise RuleError("{who} was entered by the organizer, not registered", who=who)
    reason = _text(c, "reason", "a reason for declining")
    b.emit("registration_declined", {"entrant": who}, reason=reason)
    _promote(b, f"{who} was declined")


def _open_check_in(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "open_check_in")
    s = b.state
    _before_start(s)
    if due(s, b.ctx.now) != "open_check_in":
        raise RuleError("the check-in is not due to open now")
    b.emit("check_in_opened", {"closes_at": s.starts_at}, reason="the check-in window began")


def _check_in(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    _before_start(s)
    who = _entrant(b, "check_in", (ACTIVE, WAITING))
    if not s.check_in_open:
        raise RuleError("the check-in is not open")
    if who in s.checked_in:
        raise RuleError("{who} has checked in already", who=who)
    b.emit("entrant_checked_in", {"entrant": who})


def _start(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    if b.role == SYSTEM:
        if s.phase == SCHEDULED and b.ctx.now < s.starts_at:
            raise RuleError("the show's start time has not come")
        by, reason = "schedule", "its start time came"
    else:
        _need_organizer(b, "start")
        by, reason = ORGANIZER, c.get("reason") or "the organizer started it early"
    _before_start(s)
    if s.options.get("check_in_s"):
        for who in active(s):
            if who not in s.checked_in and who not in s.bots:
                _drop(b, who)
    live = active(b.state)
    if len(live) < 2:
        b.emit(
            "show_cancelled",
            {"entrants": list(live)},
            reason=f"{len(live)} entrant(s) at the start: a show needs two",
        )
        return
    b.emit("show_started", {"entrants": list(live), "by": by}, reason=reason)
    if not b.state.rounds:
        per_round = b.state.options["candidates_per_round"]
        for i, title in enumerate(default_round_titles(len(live), per_round), 1):
            b.emit("round_added", {"round": f"r{i}", "title": title})
    _maybe_open_final(b)


def _drop(b: _Builder, who: str) -> None:
    """An entrant absent at the close of check-in: out, and their seat filled
    as option ``absentees`` says."""
    s = b.state
    why = f"{who} did not check in" if who in s.held else f"nobody holds {who}"
    b.emit("entrant_dropped", {"entrant": who}, reason=why)
    rule = s.options.get("absentees", "drop")
    if rule in ("waiting_list", "waiting_list_then_bot"):
        standby = [w for w in b.state.waiting if w in b.state.checked_in]
        if standby:
            b.emit(
                "entrant_replaced",
                {"out": who, "in": standby[0], "by": "waiting_list"},
                reason=f"{why}: {standby[0]} was next on the waiting list and checked in",
            )
            return
    if rule in ("bot", "waiting_list_then_bot"):
        n = 1 + sum(1 for e in b.state.entrants if e in b.state.bots)
        while f"bot-{n}" in b.state.entrants:
            n += 1
        holder = f"bot:{s.options.get('replacement_bot', 'heuristic')}"
        b.emit(
            "entrant_replaced",
            {"out": who, "in": f"bot-{n}", "by": "bot", "holder": holder},
            reason=f"{why}: a bot takes the seat",
        )


HANDLERS = {
    "register": _register,
    "withdraw": _withdraw,
    "approve_registration": _approve,
    "decline_registration": _decline,
    "open_check_in": _open_check_in,
    "check_in": _check_in,
    "start": _start,
}
