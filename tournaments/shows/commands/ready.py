"""The ready-check before each death match and the final: with option
``ready_check_s``, a match opens on the platform only once every seat a
person holds has confirmed (``ready``); bots are always there. Whoever has
not confirmed when the time is up forfeits (``no_show_forfeited``, by the
clocks' sweep through ``timeout``), and the show moves on: the other side
wins; when both are absent, a death match's candidate loses (they were on
the line already) and the final's loser is a recorded coin flip."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ..builder import _Builder, _player
from ..state import FINAL_KEY, ShowState, current_round, not_ready, round_by_id
from . import results
from .ready_opening import pass_if_nobody_awaited


def _awaiting(s: ShowState, who: str) -> dict[str, Any] | None:
    """Where ``who`` is awaited by a ready-check: a death match or the final."""
    rnd = current_round(s)
    for d in rnd.duels if rnd else ():
        if d.awaiting_ready and who in not_ready(s, d):
            return {"round": rnd.id, "candidate": d.candidate}
    if s.final is not None and s.final.awaiting_ready and who in not_ready(s, s.final):
        return {"final": True}
    return None


def _ready(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "ready")
    where = _awaiting(b.state, who)
    if where is None:
        raise RuleError("no match of {who} is waiting for them to confirm they are there", who=who)
    b.emit("player_ready", {**where, "entrant": who})
    pass_if_nobody_awaited(b, where)


def no_show(b: _Builder, rid: str, who: str) -> None:
    """The ready-check of ``who``'s match is over: whoever is absent forfeits."""
    s = b.state
    secs = s.options.get("ready_check_s") or 0
    if rid == FINAL_KEY:
        m, where = s.final, {"final": True}
    else:
        rnd = round_by_id(s, rid)
        m = next(d for d in rnd.duels if who in d.seats)
        where = {"round": rid, "candidate": m.candidate}
    absent = not_ready(s, m)
    if not m.awaiting_ready or not absent:
        raise RuleError("everyone confirmed: nobody forfeits")
    flip = None
    if len(absent) == 1:
        loser = absent[0]
    elif rid == FINAL_KEY:
        flip = loser = b.ctx.rng.choice(sorted(absent))
    else:
        loser = m.candidate
    winner = next(x for x in m.seats if x != loser)
    b.emit(
        "no_show_forfeited",
        {**where, "entrants": list(absent), "loser": loser, "winner": winner, "flip": flip},
        reason=f"{', '.join(absent)} did not confirm within {secs} s",
    )
    if rid == FINAL_KEY:
        results.record_final_result(b, winner, loser, None, forfeit="no_show")
    else:
        results.record_duel_result(b, rnd, m, winner, loser, None, forfeit="no_show")


HANDLERS = {"ready": _ready}
