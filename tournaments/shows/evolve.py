"""evolve, fold, as_of: one evolver (``_ev_<event type>``) per show event."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from games.core.protocol import Event
from games.holders import is_bot

from .invitations import EVOLVERS as INVITATION_EVOLVERS
from .options import _is_int
from .schedule import EVOLVERS as SCHEDULE_EVOLVERS
from .state import (
    ACTIVE,
    AWAITING,
    CHAMPION,
    CLAIMED,
    ELIMINATED,
    ENTRANT_STEPS,
    FINAL_KEY,
    FINISHED,
    READY,
    RULED,
    RUNNING,
    SCHEDULED,
    STARTED,
    SUBSTITUTED,
    Dispute,
    Duel,
    Final,
    Item,
    Round,
    ShowState,
    _duel_of,
    _item_no,
    current_round,
    final_decisions,
    round_by_id,
    round_decisions,
)

log = logging.getLogger(__name__)


def evolve(state: ShowState, event: Event) -> ShowState:
    """Fold one event (pure; an unknown event type changes nothing but the
    version). An event the state cannot hold is a bug: it is logged and
    raised, never skipped. A ruling that voids show events refolds the log
    without them."""
    s = _apply(state, event)
    if event.type == "ruling_applied":
        extra = frozenset(event.data.get("voided") or ())
        if extra - state.voided:
            s = _refold(s.log, state.voided | extra)
    return s


def fold(events: Iterable[Event]) -> ShowState:
    s = ShowState()
    for ev in events:
        s = evolve(s, ev)
    return s


replay = fold


def _refold(log: tuple[Event, ...], voided: frozenset[int]) -> ShowState:
    s = ShowState()
    for i, ev in enumerate(log, 1):
        if i in voided:
            s = replace(s, version=i, log=s.log + (ev,))
        else:
            s = _apply(s, ev)
    return replace(s, voided=voided)


def _apply(state: ShowState, event: Event) -> ShowState:
    s = replace(state, version=state.version + 1, log=state.log + (event,))
    fn = _EVOLVERS.get(event.type)
    if fn is None:
        return s
    try:
        return _sync_deadlines(fn(s, event.data), event.data.get("at"))
    except Exception:
        log.exception(
            "show %s version %s: cannot fold %s event", state.stream, s.version, event.type
        )
        raise


def _sync_deadlines(s: ShowState, at: Any) -> ShowState:
    """Open a deadline for every entrant step that became due, drop the rest:
    a round's steps get ``step_deadline_s`` from now, a ready-check the
    deadline its match was opened with."""
    secs = s.options.get("step_deadline_s") or 0
    want: dict[tuple[str, str, str], float | None] = {}
    rnd = current_round(s)
    if rnd is not None:
        for step, who in round_decisions(s, rnd):
            if step == READY:
                want[(rnd.id, step, who)] = _duel_of(rnd, who).ready_by
            elif step in ENTRANT_STEPS:
                timed = secs and isinstance(at, (int, float))
                want[(rnd.id, step, who)] = at + secs if timed else None
    for step, who in final_decisions(s):
        want[(FINAL_KEY, step, who)] = s.final.ready_by
    new = {}
    for k, due in want.items():
        if k in s.deadlines:
            new[k] = s.deadlines[k]
        elif due is not None:
            new[k] = due
    if new == dict(s.deadlines):
        return s
    return replace(s, deadlines=new)


def _set_round(s: ShowState, rid: str, **changes: Any) -> ShowState:
    rounds = tuple(replace(r, **changes) if r.id == rid else r for r in s.rounds)
    return replace(s, rounds=rounds)


def _set_duel(s: ShowState, rid: str, cand: str, **changes: Any) -> ShowState:
    rnd = round_by_id(s, rid)
    duels = tuple(replace(d, **changes) if d.candidate == cand else d for d in rnd.duels)
    return _set_round(s, rid, duels=duels)


def _status(s: ShowState, **by_name: str) -> ShowState:
    return replace(s, status={**s.status, **by_name})


def _ev_show_created(s: ShowState, d: Mapping[str, Any]) -> ShowState:
    rounds = tuple(Round(r["id"], r["title"]) for r in d["rounds"])
    return replace(
        s,
        created=True,
        name=d["name"],
        organizer=d["organizer"],
        organizer_id=d.get("organizer_id"),  # None in shows created before ids were recorded
        stream=d.get("stream"),
        entrants=tuple(d["entrants"]),
        status={e: ACTIVE for e in d["entrants"]},
        options=dict(d["options"]),
        rounds=rounds,
        round_seq=len(rounds),
        held={e: h for e, h in (d.get("holders") or {}).items() if isinstance(h, int)},
        bots={e: h for e, h in (d.get("holders") or {}).items() if is_bot(h)},
        phase=SCHEDULED if d.get("starts_at") is not None else RUNNING,
        starts_at=d.get("starts_at"),
    )


def _ev_round_added(s, d):
    return replace(s, rounds=s.rounds + (Round(d["round"], d["title"]),), round_seq=s.round_seq + 1)


def _ev_rounds_reordered(s, d):
    by_id = {r.id: r for r in s.rounds}
    order = [x for x in d["order"] if x in by_id]
    rest = [r for r in s.rounds if r.id not in order]
    return replace(s, rounds=tuple(by_id[x] for x in order) + tuple(rest))


def _ev_moderator_appointed(s, d):
    who = d["username"]
    return replace(
        s,
        moderators=s.moderators + (who,),
        moderator_ids={**s.moderator_ids, who: d.get("user_id")},
    )


def _ev_moderator_removed(s, d):
    who = d["username"]
    ids = {k: v for k, v in s.moderator_ids.items() if k != who}
    return replace(s, moderators=tuple(m for m in s.moderators if m != who), moderator_ids=ids)


def _rename(name: Any, out: str, new: str) -> Any:
    return new if name == out else name


def _ev_entrant_substituted(s, d):
    out, new = d["out"], d["in"]
    rounds = []
    for r in s.rounds:
        if r.status == STARTED:
            rn = lambda x: _rename(x, out, new)  # noqa: E731
            r = replace(
                r,
                ranking=tuple(tuple(rn(x) for x in g) for g in r.ranking),
                winners=tuple(rn(x) for x in r.winners),
                tokens={rn(k): v for k, v in r.tokens.items()},
                gift_to=rn(r.gift_to),
                candidates=tuple(rn(x) for x in r.candidates),
                duels=tuple(
                    replace(
                        du,
                        candidate=rn(du.candidate),
                        dmo=rn(du.dmo),
                        bans={rn(k): v for k, v in du.bans.items()},
                    )
                    for du in r.duels
                ),
            )
        rounds.append(r)
    items = dict(s.items)
    for iid in d.get("items", ()):
        if iid in items:
            items[iid] = replace(items[iid], holder=new)
    deadlines = {(k[0], k[1], _rename(k[2], out, new)): v for k, v in s.deadlines.items()}
    sub = {
        "out": out,
        "in": new,
        "reason": d.get("reason", ""),
        "at": d.get("at"),
        "holder": d.get("holder"),
    }
    holder = d.get("holder")
    return replace(
        _status(s, **{out: SUBSTITUTED, new: ACTIVE}),
        held={**s.held, new: holder} if _is_int(holder) else s.held,
        bots={**s.bots, new: holder} if is_bot(holder) else s.bots,
        entrants=s.entrants + (new,),
        rounds=tuple(rounds),
        items=items,
        deadlines=deadlines,
        substitutions=s.substitutions + (sub,),
    )


def _ev_deadline_extended(s, d):
    secs = d["seconds"]
    dl = {
        k: (v + secs if k[0] == d["round"] and k[1] == d["step"] and k[2] in d["entrants"] else v)
        for k, v in s.deadlines.items()
    }
    return replace(s, deadlines=dl)


def _ev_ranking_entered(s, d):
    return _set_round(
        s,
        d["round"],
        status=STARTED,
        ranking=tuple(tuple(g) for g in d["ranking"]),
        winners=tuple(d["winners"]),
        tokens=dict(d["tokens"]),
        gift_due=bool(d["gift_due"]),
        needed=int(d["needed"]),
        note=d.get("note", ""),
    )


def _ev_token_given(s, d):
    rnd = round_by_id(s, d["round"])
    tokens = {**rnd.tokens, d["giver"]: rnd.tokens.get(d["giver"], 2) - 1, d["to"]: 1}
    return _set_round(s, d["round"], gift_due=False, gift_to=d["to"], tokens=tokens)


def _ev_candidates_named(s, d):
    cands = tuple(d["candidates"])
    return _set_round(
        s, d["round"], named=True, candidates=cands, duels=tuple(Duel(x) for x in cands)
    )


def _ev_dmo_nominated(s, d):
    return _set_duel(s, d["round"], d["candidate"], dmo=d["dmo"])


def _ev_game_banned(s, d):
    duel = round_by_id(s, d["round"]).duel(d["candidate"])
    return _set_duel(s, d["round"], d["candidate"], bans={**duel.bans, d["by"]: d["game"]})


def _ev_game_picked(s, d):
    return _set_duel(s, d["round"], d["candidate"], game=d["game"])


def _ev_death_match_opened(s, d):
    return _set_duel(
        s,
        d["round"],
        d["candidate"],
        game=d["game"],
        first_to=d.get("first_to"),
        opened=True,
        ready_by=d.get("ready_by"),
    )


def _ev_death_match_linked(s, d):
    return _set_duel(s, d["round"], d["candidate"], match_stream=d["match_stream"])


def _ev_death_match_result(s, d):
    s = _set_duel(s, d["round"], d["candidate"], winner=d["winner"], loser=d["loser"])
    if d.get("match_stream"):
        duel = round_by_id(s, d["round"]).duel(d["candidate"])
        if duel.match_stream is None:
            s = _set_duel(s, d["round"], d["candidate"], match_stream=d["match_stream"])
    return s


def _ev_entrant_eliminated(s, d):
    who = d["entrant"]
    s = _status(s, **{who: ELIMINATED})
    rid = d.get("round")
    if rid is not None:
        rnd = round_by_id(s, rid)
        s = _set_round(s, rid, eliminated=rnd.eliminated + (who,))
    return s


def _ev_round_finished(s, d):
    return _set_round(s, d["round"], status=FINISHED)


def _ev_final_opened(s, d):
    final = Final(tuple(d["players"]), d["game"], d.get("first_to"), ready_by=d.get("ready_by"))
    return replace(s, final=final)


def _ev_final_linked(s, d):
    return replace(s, final=replace(s.final, match_stream=d["match_stream"]))


def _ev_final_result(s, d):
    return replace(s, final=replace(s.final, winner=d["winner"], loser=d["loser"]))


def _ev_champion_crowned(s, d):
    return replace(_status(s, **{d["champion"]: CHAMPION}), champion=d["champion"])


def _ev_final_cancelled(s, d):
    return replace(s, final=None)


def _ev_death_match_corrected(s, d):
    rid, cand = d["round"], d["candidate"]
    duel = round_by_id(s, rid).duel(cand)
    old_loser = duel.loser
    s = _set_duel(s, rid, cand, winner=d["winner"], loser=d["loser"])
    rnd = round_by_id(s, rid)
    elim = tuple(d["loser"] if x == old_loser else x for x in rnd.eliminated)
    s = _set_round(s, rid, eliminated=elim)
    changes = {d["loser"]: ELIMINATED}
    if old_loser and old_loser != d["loser"]:
        changes[old_loser] = ACTIVE
    return _status(s, **changes)


def _ev_death_match_reopened(s, d):
    rid, cand = d["round"], d["candidate"]
    duel = round_by_id(s, rid).duel(cand)
    old_loser = duel.loser
    s = _set_duel(s, rid, cand, winner=None, loser=None)
    rnd = round_by_id(s, rid)
    s = _set_round(
        s, rid, status=STARTED, eliminated=tuple(x for x in rnd.eliminated if x != old_loser)
    )
    return _status(s, **{old_loser: ACTIVE}) if old_loser else s


def _ev_champion_corrected(s, d):
    new, old = d["champion"], d["previous"]
    s = _status(s, **{new: CHAMPION, old: ELIMINATED})
    return replace(s, champion=new, final=replace(s.final, winner=new, loser=old))


def _ev_final_reopened(s, d):
    players = tuple(d["players"])
    s = _status(s, **{p: ACTIVE for p in players})
    return replace(s, champion=None, final=replace(s.final, winner=None, loser=None))


def _ev_entrant_disqualified(s, d):
    return _status(s, **{d["entrant"]: ELIMINATED})


def _ev_item_granted(s, d):
    it = Item(d["item_id"], d["item"], d["entrant"], d["scope"], d["given_by"], d.get("reason", ""))
    return replace(s, items={**s.items, it.id: it}, item_seq=max(s.item_seq, _item_no(it.id)))


def _ev_item_transferred(s, d):
    it = s.items[d["item_id"]]
    return replace(s, items={**s.items, it.id: replace(it, holder=d["to"])})


def _ev_item_revoked(s, d):
    it = s.items[d["item_id"]]
    return replace(s, items={**s.items, it.id: replace(it, status="revoked")})


def _ev_item_used(s, d):
    it = s.items[d["item_id"]]
    return replace(
        s, items={**s.items, it.id: replace(it, status="used", used_in=d.get("match_stream"))}
    )


def _ev_dispute_filed(s, d):
    dp = Dispute(
        d["dispute_id"],
        d["target_stream"],
        d["target_version"],
        d["text"],
        d["filed_by"],
        d.get("role", ""),
        d.get("at", 0.0),
        filed_by_id=d.get("filed_by_id"),
    )
    n = int(dp.id.split("-", 1)[1])
    return replace(s, disputes={**s.disputes, dp.id: dp}, dispute_seq=max(s.dispute_seq, n))


def _set_dispute(s, did, **changes):
    return replace(s, disputes={**s.disputes, did: replace(s.disputes[did], **changes)})


def _ev_dispute_claimed(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, claimed_by=d["moderator"])


def _ev_dispute_transferred(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, claimed_by=d["to"])


def _ev_ruling_proposed(s, d):
    proposal = {
        k: d[k]
        for k in ("dispute_id", "ruling", "params", "target", "flags", "moderator", "reason", "at")
    }
    return _set_dispute(s, d["dispute_id"], status=AWAITING, proposal=proposal)


def _ev_ruling_rejected(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, proposal=None)


def _ev_ruling_applied(s, d):
    ruling = {
        k: d.get(k)
        for k in (
            "ruling",
            "params",
            "target",
            "moderators",
            "reason",
            "at",
            "voided",
            "show_effect",
        )
    }
    return _set_dispute(s, d["dispute_id"], status=RULED, proposal=None, ruling=ruling)


_EVOLVERS = {
    "show_created": _ev_show_created,
    "round_added": _ev_round_added,
    "rounds_reordered": _ev_rounds_reordered,
    "moderator_appointed": _ev_moderator_appointed,
    "moderator_removed": _ev_moderator_removed,
    "match_viewed_omnisciently": lambda s, d: s,  # for the audit log only
    "autopilot_released": lambda s, d: replace(s, autopilot_released=True),
    "autopilot_resumed": lambda s, d: replace(s, autopilot_released=False),
    "entrant_substituted": _ev_entrant_substituted,
    "deadline_extended": _ev_deadline_extended,
    "ranking_entered": _ev_ranking_entered,
    "token_given": _ev_token_given,
    "candidates_named": _ev_candidates_named,
    "dmo_nominated": _ev_dmo_nominated,
    "game_banned": _ev_game_banned,
    "game_picked": _ev_game_picked,
    "death_match_opened": _ev_death_match_opened,
    "death_match_linked": _ev_death_match_linked,
    "death_match_result": _ev_death_match_result,
    "entrant_eliminated": _ev_entrant_eliminated,
    "round_finished": _ev_round_finished,
    "final_opened": _ev_final_opened,
    "final_linked": _ev_final_linked,
    "final_result": _ev_final_result,
    "champion_crowned": _ev_champion_crowned,
    "final_cancelled": _ev_final_cancelled,
    "death_match_corrected": _ev_death_match_corrected,
    "death_match_reopened": _ev_death_match_reopened,
    "champion_corrected": _ev_champion_corrected,
    "final_reopened": _ev_final_reopened,
    "entrant_disqualified": _ev_entrant_disqualified,
    "item_granted": _ev_item_granted,
    "item_transferred": _ev_item_transferred,
    "item_revoked": _ev_item_revoked,
    "item_used": _ev_item_used,
    "dispute_filed": _ev_dispute_filed,
    "dispute_claimed": _ev_dispute_claimed,
    "dispute_transferred": _ev_dispute_transferred,
    "ruling_proposed": _ev_ruling_proposed,
    "ruling_rejected": _ev_ruling_rejected,
    "ruling_applied": _ev_ruling_applied,
    **INVITATION_EVOLVERS,
    **SCHEDULE_EVOLVERS,
}


EVENT_TYPES = tuple(_EVOLVERS)


def upto(state: ShowState, version: int) -> ShowState:
    """The show as it stood at ``version`` (its first ``version`` events)."""
    return state if version >= len(state.log) else fold(state.log[:version])


def as_of(state: ShowState, t: float) -> ShowState:
    """The show as it stood at time ``t`` (events recorded after ``t`` left out)."""
    kept = []
    for ev in state.log:
        at = ev.data.get("at")
        if isinstance(at, (int, float)) and at > t:
            break
        kept.append(ev)
    return fold(kept)
