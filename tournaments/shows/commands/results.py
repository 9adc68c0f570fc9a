"""What the system records from the show's matches: links and results."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ..builder import _Builder, _need_system, _not_over, _text
from ..commands.rounds import _advance
from ..state import STARTED, Duel, Round, current_round, match_kind, round_by_id


def _open_duel(b: _Builder, c: Mapping[str, Any]) -> tuple[Round, Duel]:
    s = b.state
    _not_over(s)
    rid = c.get("round")
    rnd = current_round(s) if rid is None else round_by_id(s, rid)
    if rnd is None:
        if rid is None:
            raise RuleError("no round is in progress")
        raise RuleError("no round {rid}", rid=rid)
    cand = c.get("candidate")
    duel = rnd.duel(cand) if cand is not None else None
    if duel is None:
        raise RuleError("no death match of {cand!r} in round {id}", cand=cand, id=rnd.id)
    if not duel.opened:
        raise RuleError("the death match of {cand} is not open yet", cand=cand)
    return rnd, duel


def _death_match_linked(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "death_match_linked")
    rnd, duel = _open_duel(b, c)
    stream = _text(c, "match_stream", "match_stream")
    if duel.match_stream is not None:
        raise RuleError(
            "the death match of {candidate} is already linked to {match_stream}",
            candidate=duel.candidate,
            match_stream=duel.match_stream,
        )
    if match_kind(b.state, stream)[0] != "other":
        raise RuleError("{stream} is already a stream of this show", stream=stream)
    b.emit(
        "death_match_linked", {"round": rnd.id, "candidate": duel.candidate, "match_stream": stream}
    )


def _death_match_result(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "death_match_result")
    rnd, duel = _open_duel(b, c)
    if rnd.status != STARTED:
        raise RuleError("round {id} is not in progress", id=rnd.id)
    if duel.decided:
        raise RuleError(
            "the death match of {candidate} is decided already: {winner} won",
            candidate=duel.candidate,
            winner=duel.winner,
        )
    winner, loser = c.get("winner"), c.get("loser")
    if loser is None and winner in duel.seats:
        loser = duel.dmo if winner == duel.candidate else duel.candidate
    if {winner, loser} != set(duel.seats) or winner == loser:
        raise RuleError(
            "winner and loser must be {candidate} and {dmo}", candidate=duel.candidate, dmo=duel.dmo
        )
    stream = c.get("match_stream")
    if stream is not None and duel.match_stream is not None and stream != duel.match_stream:
        raise RuleError(
            "that death match is {match_stream}, not {stream}",
            match_stream=duel.match_stream,
            stream=stream,
        )
    record_duel_result(b, rnd, duel, winner, loser, duel.match_stream or stream)


def record_duel_result(b, rnd, duel, winner, loser, stream, forfeit: str | None = None) -> None:
    """A death match's result: its loser eliminated, the round moving on."""
    extra = {"forfeit": forfeit} if forfeit else {}
    b.emit(
        "death_match_result",
        {
            "round": rnd.id,
            "candidate": duel.candidate,
            "winner": winner,
            "loser": loser,
            "match_stream": stream,
            **extra,
        },
    )
    b.emit(
        "entrant_eliminated",
        {"entrant": loser, "round": rnd.id, "cause": forfeit or "death_match"},
        reason=f"forfeited the death match to {winner}: a no-show"
        if forfeit
        else f"lost the death match to {winner}",
    )
    _advance(b)


def _final_linked(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "final_linked")
    s = b.state
    _not_over(s)
    if s.final is None:
        raise RuleError("the final is not open")
    stream = _text(c, "match_stream", "match_stream")
    if s.final.match_stream is not None:
        raise RuleError(
            "the final is already linked to {match_stream}", match_stream=s.final.match_stream
        )
    if match_kind(s, stream)[0] != "other":
        raise RuleError("{stream} is already a stream of this show", stream=stream)
    b.emit("final_linked", {"match_stream": stream})


def _final_result(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "final_result")
    s = b.state
    _not_over(s)
    f = s.final
    if f is None:
        raise RuleError("the final is not open")
    winner = c.get("winner")
    if winner not in f.players:
        raise RuleError(
            "the winner must be {players} or {players2}",
            players=f.players[0],
            players2=f.players[1],
        )
    loser = f.players[1] if winner == f.players[0] else f.players[0]
    if c.get("loser") not in (None, loser):
        raise RuleError("the loser must be {loser}", loser=loser)
    stream = c.get("match_stream")
    if stream is not None and f.match_stream is not None and stream != f.match_stream:
        raise RuleError(
            "the final is {match_stream}, not {stream}", match_stream=f.match_stream, stream=stream
        )
    record_final_result(b, winner, loser, f.match_stream or stream)


def record_final_result(b, winner, loser, stream, forfeit: str | None = None) -> None:
    extra = {"forfeit": forfeit} if forfeit else {}
    b.emit("final_result", {"winner": winner, "loser": loser, "match_stream": stream, **extra})
    b.emit(
        "entrant_eliminated",
        {"entrant": loser, "round": None, "cause": forfeit or "final"},
        reason=f"forfeited the final to {winner}: a no-show"
        if forfeit
        else f"lost the final to {winner}",
    )
    b.emit("champion_crowned", {"champion": winner}, reason="won the final")


HANDLERS = {
    "death_match_linked": _death_match_linked,
    "death_match_result": _death_match_result,
    "final_linked": _final_linked,
    "final_result": _final_result,
}
