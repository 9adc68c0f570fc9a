"""Disputes: filing, claiming, rulings and the two-moderator rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.core.protocol import RoleRequired, RuleError

from ..builder import _Builder, _need_moderator, _reason, _text
from ..commands.rounds import _advance, _maybe_open_final
from ..options import _is_int, _name_ok
from ..state import (
    ACTIVE,
    AWAITING,
    CLAIMED,
    DECIDING_EVENTS,
    MATCH_ONLY_RULINGS,
    MODERATOR,
    OPEN,
    ORGANIZER,
    PLANNED,
    PLAYER,
    RULINGS,
    STEP_EVENTS,
    Dispute,
    ShowState,
    active,
    current_round,
    is_moderator,
    match_kind,
    round_by_id,
)


def _dispute(s: ShowState, c: Mapping[str, Any]) -> Dispute:
    did = c.get("dispute_id")
    d = s.disputes.get(did) if isinstance(did, str) else None
    if d is None:
        raise RuleError("no dispute {did!r} in this show", did=did)
    return d


def _file_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    mod = b.role in (ORGANIZER, MODERATOR) and is_moderator(s, b.actor)
    if c.get("foreign") is True:
        raise RoleRequired(
            "only a player seated in that match or a moderator of its show may file a "
            "dispute: it is not a match of this show or of a bracket it hosts"
        )
    if not mod and not (b.role == PLAYER and c.get("seated") is True):
        raise RoleRequired(
            "only a player seated in that match or a moderator of this show may file a dispute"
        )
    stream = _text(c, "target_stream", "target_stream (the stream of the disputed event)")
    version = c.get("target_version")
    if not _is_int(version) or version < 1:
        raise RuleError("target_version must be the version of the disputed event (1 or more)")
    if match_kind(s, stream)[0] == "show" and version > s.version:
        raise RuleError(
            "the show has no event {version} yet (it is at version {version2})",
            version=version,
            version2=s.version,
        )
    text = _text(c, "text", "a dispute's text")
    did = f"d-{s.dispute_seq + 1}"
    data = {
        "dispute_id": did,
        "target_stream": stream,
        "target_version": version,
        "text": text,
        "filed_by": b.actor,
        # the platform vouches for the filing account: the text is shown by it, not by name
        "filed_by_id": c.get("filer_id") if _is_int(c.get("filer_id")) else None,
    }
    public = {k: v for k, v in data.items() if k not in ("text", "filed_by_id")}
    b.emit("dispute_filed", data, visible_to=(), public=public)


def _claim_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "claim_dispute")
    d = _dispute(b.state, c)
    if d.status != OPEN:
        who = f" by {d.claimed_by}" if d.claimed_by else ""
        raise RuleError(
            "dispute {id} is {status}{who}, not open",
            id=d.id,
            status=d.status.replace("_", " "),
            who=who,
        )
    b.emit("dispute_claimed", {"dispute_id": d.id, "moderator": b.actor})


def _transfer_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "transfer_dispute")
    s = b.state
    d = _dispute(s, c)
    if d.status != CLAIMED:
        raise RuleError(
            "dispute {id} is {status}: only a claimed dispute can be transferred",
            id=d.id,
            status=d.status.replace("_", " "),
        )
    if b.actor not in (d.claimed_by, s.organizer):
        raise RuleError(
            "only {claimed_by}, who claimed dispute {id}, or the organizer may transfer it",
            claimed_by=d.claimed_by,
            id=d.id,
        )
    to = c.get("to")
    if not _name_ok(to) or not is_moderator(s, to):
        raise RuleError("{to!r} is not a moderator of this show", to=to)
    if to == d.claimed_by:
        raise RuleError("{to} holds dispute {id} already", to=to, id=d.id)
    b.emit("dispute_transferred", {"dispute_id": d.id, "from": d.claimed_by, "to": to})


@dataclass(frozen=True)
class _Plan:
    """What a ruling does to the show."""

    four_eyes: bool
    effect: str  # none, void, disqualify, correct, reopen
    target_kind: str
    where: Any = None
    new_winner: str | None = None
    entrant: str | None = None
    voided: tuple[int, ...] = ()


def _check_params(ruling: str, params: Mapping[str, Any], target_version: int) -> None:
    if ruling == "void_to":
        v = params.get("version")
        if not _is_int(v) or v < 1 or v >= target_version:
            raise RuleError(
                "void_to needs params.version: a version from 1 to {n}, before the disputed event",
                n=target_version - 1,
            )
    elif ruling in ("award_bout", "overturn_series"):
        if not _name_ok(params.get("winner")):
            raise RuleError("{ruling} needs params.winner", ruling=ruling)
    elif ruling == "disqualify":
        if not _name_ok(params.get("entrant")):
            raise RuleError("disqualify needs params.entrant")
    elif ruling == "adjust_clock":
        secs = params.get("seconds")
        if (
            not _name_ok(params.get("seat"))
            or not isinstance(secs, (int, float))
            or isinstance(secs, bool)
        ):
            raise RuleError("adjust_clock needs params.seat and params.seconds")


def _plan_ruling(
    s: ShowState, d: Dispute, ruling: str, params: Mapping[str, Any], flags: Mapping[str, Any]
) -> _Plan:
    """Validate a ruling against the show now; raise RuleError if it cannot apply."""
    if ruling not in RULINGS:
        raise RuleError("ruling must be one of {rulings}", rulings=", ".join(RULINGS))
    _check_params(ruling, params, d.target_version)
    changes = bool(flags.get("changes_series_winner"))
    reopens = bool(flags.get("reopens_series"))
    kind, where = match_kind(s, d.target_stream)
    if kind == "show":
        if ruling in MATCH_ONLY_RULINGS:
            raise RuleError(
                "{ruling} applies to a match, not to the show's own stream", ruling=ruling
            )
        if ruling == "void_to":
            v = params["version"]
            voided = tuple(
                i
                for i, ev in enumerate(s.log, 1)
                if i > v and i not in s.voided and ev.type in STEP_EVENTS
            )
            deciding = any(s.log[i - 1].type in DECIDING_EVENTS for i in voided)
            return _Plan(changes or deciding, "void", kind, voided=voided)
        if ruling == "disqualify":
            who = params["entrant"]
            _check_show_disqualify(s, who)
            return _Plan(True, "disqualify", kind, entrant=who)
        return _Plan(changes, "none", kind)
    if kind in ("death_match", "final"):
        if kind == "final":
            seats = s.final.players
            winner = s.final.winner
        else:
            rnd = round_by_id(s, where[0])
            duel = rnd.duel(where[1])
            seats = duel.seats
            winner = duel.winner
        for key in ("winner", "seat", "entrant"):
            if key in params and params[key] not in seats:
                raise RuleError(
                    "{seat} is not seated in that match ({seats})",
                    seat=params[key],
                    seats=" vs ".join(seats),
                )
        new_winner = None
        if ruling == "overturn_series":
            new_winner = params["winner"]
            if winner is None:
                raise RuleError("that match has no result to overturn yet")
        elif ruling == "disqualify":
            new_winner = seats[1] if params["entrant"] == seats[0] else seats[0]
        elif ruling == "award_bout" and changes:
            new_winner = params["winner"]
        four = changes or ruling in ("overturn_series", "disqualify")
        if winner is not None and (reopens or ruling == "void_to") and new_winner is None:
            _check_correctable(s, kind, where)
            return _Plan(True, "reopen", kind, where)
        if winner is not None and new_winner is not None and new_winner != winner:
            _check_correctable(s, kind, where)
            return _Plan(True, "correct", kind, where, new_winner=new_winner)
        return _Plan(four, "none", kind, where)
    return _Plan(changes or ruling == "overturn_series", "none", kind)


def _check_correctable(s: ShowState, kind: str, where: Any) -> None:
    if kind == "final":
        return
    rid = where[0]
    ids = [r.id for r in s.rounds]
    later = [r for r in s.rounds[ids.index(rid) + 1 :] if r.status != PLANNED]
    if later:
        raise RuleError(
            "the show has moved on to round {id}: that death match can no longer be corrected",
            id=later[0].id,
        )
    if s.final is not None and s.final.winner is not None:
        raise RuleError("the final is decided: that death match can no longer be corrected")


def _check_show_disqualify(s: ShowState, who: str) -> None:
    if s.status.get(who) != ACTIVE:
        raise RuleError("{who} is not an active entrant", who=who)
    if s.final is not None:
        raise RuleError(
            "the final is under way: disqualify {who} in the final match instead", who=who
        )
    rnd = current_round(s)
    if rnd is not None:
        if not rnd.named or any(d.dmo is None for d in rnd.duels):
            raise RuleError(
                "round {id} is choosing its candidates and opponents: wait until every candidate has nominated",
                id=rnd.id,
            )
        involved = set(rnd.winners) | set(rnd.candidates) | {d.dmo for d in rnd.duels if d.dmo}
        if rnd.gift_to:
            involved.add(rnd.gift_to)
        if who in involved:
            raise RuleError(
                "{who} takes part in round {id}: rule on their match, or wait for the round to end",
                who=who,
                id=rnd.id,
            )
        pending_losses = sum(1 for d in rnd.duels if not d.decided)
        if len(active(s)) - 1 - pending_losses < 2:
            raise RuleError("disqualifying now would leave fewer than two entrants for the final")


def _rule_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "rule_dispute")
    s = b.state
    d = _dispute(s, c)
    if d.status == OPEN:
        raise RuleError("dispute {id} is open: claim it before ruling", id=d.id)
    if d.status != CLAIMED:
        raise RuleError(
            "dispute {id} is {status} already", id=d.id, status=d.status.replace("_", " ")
        )
    if b.actor != d.claimed_by:
        raise RuleError(
            "only {claimed_by}, who claimed dispute {id}, may rule on it",
            claimed_by=d.claimed_by,
            id=d.id,
        )
    ruling = c.get("ruling")
    params = c.get("params") or {}
    if not isinstance(params, Mapping):
        raise RuleError("params must be a mapping")
    reason = _reason(c, "a ruling")
    flags = {
        "changes_series_winner": bool(c.get("changes_series_winner")),
        "reopens_series": bool(c.get("reopens_series")),
    }
    plan = _plan_ruling(s, d, ruling, params, flags)
    body = {
        "dispute_id": d.id,
        "ruling": ruling,
        "params": dict(params),
        "target": {"stream": d.target_stream, "version": d.target_version},
        "flags": flags,
    }
    if plan.four_eyes:
        b.emit(
            "ruling_proposed",
            {**body, "moderator": b.actor},
            reason=reason,
            visible_to=(),
            public={"dispute_id": d.id, "status": AWAITING},
        )
    else:
        _apply_ruling(b, d, body, plan, [b.actor], reason)


def _apply_ruling(
    b: _Builder,
    d: Dispute,
    body: Mapping[str, Any],
    plan: _Plan,
    moderators: list[str],
    reason: str,
) -> None:
    b.emit(
        "ruling_applied",
        {**body, "moderators": moderators, "voided": list(plan.voided), "show_effect": plan.effect},
        reason=reason,
    )
    s = b.state
    if plan.effect == "disqualify":
        b.emit(
            "entrant_disqualified",
            {"entrant": plan.entrant, "dispute_id": d.id},
            reason=reason,
        )
        _advance(b)
    elif plan.effect in ("correct", "reopen") and plan.target_kind == "death_match":
        rid, cand = plan.where
        duel = round_by_id(s, rid).duel(cand)
        final_open = s.final is not None and s.final.winner is None
        if final_open:
            b.emit(
                "final_cancelled",
                {"players": list(s.final.players), "match_stream": s.final.match_stream},
                reason=reason,
            )
        if plan.effect == "correct":
            loser = duel.candidate if plan.new_winner == duel.dmo else duel.dmo
            b.emit(
                "death_match_corrected",
                {
                    "round": rid,
                    "candidate": cand,
                    "winner": plan.new_winner,
                    "loser": loser,
                    "previous_winner": duel.winner,
                    "dispute_id": d.id,
                },
                reason=reason,
            )
            _maybe_open_final(b)
        else:
            b.emit(
                "death_match_reopened",
                {"round": rid, "candidate": cand, "reinstated": duel.loser, "dispute_id": d.id},
                reason=reason,
            )
    elif plan.effect in ("correct", "reopen") and plan.target_kind == "final":
        f = s.final
        if plan.effect == "correct":
            b.emit(
                "champion_corrected",
                {"champion": plan.new_winner, "previous": f.winner, "dispute_id": d.id},
                reason=reason,
            )
        else:
            b.emit(
                "final_reopened", {"players": list(f.players), "dispute_id": d.id}, reason=reason
            )


def _approve_ruling(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "approve_ruling")
    s = b.state
    d = _dispute(s, c)
    if d.status != AWAITING or d.proposal is None:
        raise RuleError("dispute {id} has no ruling awaiting approval", id=d.id)
    proposer = d.proposal["moderator"]
    if b.actor == proposer:
        raise RuleError(
            "a ruling that changes who won needs a second moderator: you cannot approve your own ruling"
        )
    p = d.proposal
    plan = _plan_ruling(s, d, p["ruling"], p["params"], p.get("flags", {}))
    body = {k: p[k] for k in ("dispute_id", "ruling", "params", "target", "flags")}
    body["approved_by"] = b.actor
    _apply_ruling(b, d, body, plan, [proposer, b.actor], p.get("reason", ""))


def _reject_ruling(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "reject_ruling")
    d = _dispute(b.state, c)
    if d.status != AWAITING or d.proposal is None:
        raise RuleError("dispute {id} has no ruling awaiting approval", id=d.id)
    if b.actor == d.proposal["moderator"]:
        raise RuleError("a second moderator must review the ruling: you proposed it")
    reason = _reason(c, "rejecting a ruling")
    b.emit(
        "ruling_rejected",
        {"dispute_id": d.id, "moderator": b.actor, "proposed_by": d.proposal["moderator"]},
        reason=reason,
        visible_to=(),
        public={"dispute_id": d.id, "status": CLAIMED},
    )


HANDLERS = {
    "file_dispute": _file_dispute,
    "claim_dispute": _claim_dispute,
    "transfer_dispute": _transfer_dispute,
    "rule_dispute": _rule_dispute,
    "approve_ruling": _approve_ruling,
    "reject_ruling": _reject_ruling,
}
