"""How a scheduled show folds before and at its start (registration, the
waiting list, check-in, drops and replacements, the start) and how a match's
ready-check folds (who is there, passed). Commands: commands/schedule.py
and commands/ready.py."""

from __future__ import annotations

from dataclasses import replace

from .state import (
    ACTIVE,
    CANCELLED,
    DECLINED,
    DROPPED,
    RUNNING,
    WAITING,
    WITHDRAWN,
    ShowState,
    round_by_id,
)


def _status(s: ShowState, who: str, status: str) -> ShowState:
    waiting = tuple(w for w in s.waiting if w != who)
    if status == WAITING:
        waiting += (who,)
    return replace(s, status={**s.status, who: status}, waiting=waiting)


def _registered(s: ShowState, d) -> ShowState:
    who, uid = d["entrant"], d["user_id"]
    entrants = s.entrants if who in s.entrants else s.entrants + (who,)
    s = replace(
        s,
        entrants=entrants,
        held={**s.held, who: uid},
        registered_by={**s.registered_by, who: uid},
        checked_in=s.checked_in - {who},
    )
    return _status(s, who, d["status"])


def _let_go(s: ShowState, who: str, status: str) -> ShowState:
    """Out before the start: the account no longer holds the entrant."""
    held = {k: v for k, v in s.held.items() if k != who}
    return _status(replace(s, held=held, checked_in=s.checked_in - {who}), who, status)


def _replaced(s: ShowState, d) -> ShowState:
    new = d["in"]
    if d["by"] == "bot":
        s = replace(s, entrants=s.entrants + (new,), bots={**s.bots, new: d["holder"]})
    return _status(s, new, ACTIVE)


def _ready(s: ShowState, d) -> ShowState:
    who = d["entrant"]
    if d.get("final"):
        return replace(s, final=replace(s.final, ready=s.final.ready + (who,)))
    return _set_duel(s, d, lambda du: replace(du, ready=du.ready + (who,)))


def _passed(s: ShowState, d) -> ShowState:
    if d.get("final"):
        return replace(s, final=replace(s.final, ready_passed=True))
    return _set_duel(s, d, lambda du: replace(du, ready_passed=True))


def _set_duel(s: ShowState, d, change) -> ShowState:
    rnd = round_by_id(s, d["round"])
    duels = tuple(change(du) if du.candidate == d["candidate"] else du for du in rnd.duels)
    rounds = tuple(replace(r, duels=duels) if r.id == rnd.id else r for r in s.rounds)
    return replace(s, rounds=rounds)


EVOLVERS = {
    "entrant_registered": _registered,
    "entrant_withdrew": lambda s, d: _let_go(s, d["entrant"], WITHDRAWN),
    "registration_approved": lambda s, d: _status(s, d["entrant"], d["status"]),
    "registration_declined": lambda s, d: _let_go(s, d["entrant"], DECLINED),
    "entrant_promoted": lambda s, d: _status(s, d["entrant"], ACTIVE),
    "check_in_opened": lambda s, d: replace(s, check_in_open=True),
    "entrant_checked_in": lambda s, d: replace(s, checked_in=s.checked_in | {d["entrant"]}),
    "entrant_dropped": lambda s, d: _status(s, d["entrant"], DROPPED),
    "entrant_replaced": _replaced,
    "show_started": lambda s, d: replace(s, phase=RUNNING, check_in_open=False),
    "show_cancelled": lambda s, d: replace(s, phase=CANCELLED, check_in_open=False),
    "player_ready": _ready,
    "ready_check_passed": _passed,
    "no_show_forfeited": lambda s, d: s,  # the result events that follow say what it did
}
