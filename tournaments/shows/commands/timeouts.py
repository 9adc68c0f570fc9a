"""Timeouts: a missed deadline takes a random legal choice for the entrant."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ..builder import _Builder, _need_system
from ..state import (
    READY,
    _duel_of,
    ban_options,
    candidate_split,
    current_round,
    dmo_options,
    gift_options,
    overdue,
)
from . import ready, rounds


def _timeout(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "timeout")
    s = b.state
    late = overdue(s, b.ctx.now)
    if not late:
        raise RuleError("no deadline has passed")
    _deadline, (rid, step, who) = late[0]
    if step == READY:
        b.on_behalf = who
        ready.no_show(b, rid, who)
        return
    rnd = current_round(s)
    rng = b.ctx.rng
    cmd: dict[str, Any] = {
        "type": step,
        "round": rid,
        "reason": f"{who} let the {step.replace('_', ' ')} deadline pass",
    }

    def pick(options):
        options = sorted(options)
        if not options:
            raise RuleError(
                "no legal choice is left for {who}'s {step}", who=who, step=step.replace("_", " ")
            )
        return rng.choice(options)

    if step == "give_token":
        cmd["to"] = pick(gift_options(s, rnd))
    elif step == "choose_candidate":
        _forced, pool, r = candidate_split(s, rnd)
        if len(pool) < r:
            raise RuleError("no legal choice is left for {who}'s choose candidate", who=who)
        cmd["candidates"] = rng.sample(sorted(pool), r)
    elif step == "nominate":
        cmd["dmo"] = pick(dmo_options(s, rnd, who))
    elif step == "ban_game":
        cmd["game"] = pick(ban_options(s, _duel_of(rnd, who)))
    b.cmd = {**b.cmd, **cmd}
    b.on_behalf = who
    rounds.HANDLERS[step](b, b.cmd)


HANDLERS = {
    "timeout": _timeout,
}
