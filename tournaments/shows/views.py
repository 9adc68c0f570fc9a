"""Reads for people: a role's view of the show and its public log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from games.core.protocol import SPECTATOR_VIEW, Event, Viewer

from ..items import CATALOGUE, SCOPE_WORDS, describe
from .commands.schedule import check_in_opens_at
from .evolve import as_of
from .options import match_length_option
from .state import (
    MODERATOR,
    ORGANIZER,
    PLANNED,
    PLAYER,
    SPECTATOR,
    Dispute,
    Duel,
    Item,
    Round,
    ShowState,
    inventory,
    pending,
)


def _duel_view(d: Duel) -> dict[str, Any]:
    return {
        "candidate": d.candidate,
        "dmo": d.dmo,
        "bans": dict(d.bans),
        "game": d.game,
        "first_to": d.first_to,  # in the unit of length_option (bouts won, Bleven's crowns)
        "length_option": match_length_option(d.game) if d.game else None,
        "opened": d.opened,
        "match_stream": d.match_stream,
        "winner": d.winner,
        "loser": d.loser,
    }


def _round_view(s: ShowState, r: Round) -> dict[str, Any]:
    return {
        "id": r.id,
        "title": r.title,
        "status": r.status,
        "ranking": [list(g) for g in r.ranking],
        "winners": list(r.winners),
        "tokens": dict(r.tokens),
        "immune": sorted(r.immune) if r.status != PLANNED else [],
        "gift_due": r.gift_due,
        "gift_to": r.gift_to,
        "candidates_needed": r.needed,
        "candidates": list(r.candidates),
        "duels": [_duel_view(d) for d in r.duels],
        "eliminated": list(r.eliminated),
        "note": r.note,
    }


def _item_view(it: Item) -> dict[str, Any]:
    info = describe(it.item) or {}
    return {
        "id": it.id,
        "item": it.item,
        "name": info.get("name", it.item),
        "scope": it.scope,
        "scope_words": SCOPE_WORDS.get(it.scope, it.scope),
        "given_by": it.given_by,
        "rules": info.get("rules", ""),
    }


def _dispute_view(d: Dispute, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": d.id,
        "target": {"stream": d.target_stream, "version": d.target_version},
        "status": d.status,
        "claimed_by": d.claimed_by,
        "filed_by": d.filed_by,
        "ruling": dict(d.ruling) if d.ruling else None,
    }
    if full:
        out["text"] = d.text
        out["proposal"] = dict(d.proposal) if d.proposal else None
    return out


def _schedule_view(s: ShowState) -> dict[str, Any] | None:
    """A scheduled show's start, registration and check-in (None: not scheduled)."""
    if s.starts_at is None:
        return None
    o = s.options
    return {
        "starts_at": s.starts_at,
        "check_in_opens_at": check_in_opens_at(s),
        "check_in_open": s.check_in_open,
        "checked_in": sorted(s.checked_in),
        "waiting_list": list(s.waiting),
        "registration": o.get("registration"),
        "cap": o.get("cap"),
        "approval": o.get("approval"),
        "absentees": o.get("absentees"),
    }


def _filer_sees(d: Dispute, viewer_role: str, seat: str | None, viewer_id: int | None) -> bool:
    """Whether the viewer filed ``d``: by the filing account's id; a dispute
    filed before the id was recorded, only by the player now holding the seat
    it was filed from (a name alone, a spectator's or a moderator's, is not enough)."""
    if d.filed_by_id is not None:
        return viewer_id is not None and viewer_id == d.filed_by_id
    return viewer_role == PLAYER == d.filed_role and seat is not None and seat == d.filed_by


def view(
    state: ShowState,
    viewer_role: str,
    username: str | None = None,
    now: float | None = None,
    viewer_id: int | None = None,
) -> dict[str, Any]:
    """What ``viewer_role`` (organizer, moderator, player, spectator) may know.

    ``username`` is who the viewer acts as: for a player, the entrant their
    account holds (only a player's seat grants anything); ``viewer_id`` is
    their account. Spectators given ``now`` see the show as it stood
    ``spectator_delay_s`` earlier, so that the show does not tell a death
    match's result before the delayed match does. Dispute texts go to
    moderators and the filing account. Items are private like the match's
    own: each entrant sees their own, moderators (and spectators under policy
    "everything") see all; everyone sees how many items each entrant holds.
    """
    s = state
    if viewer_role == SPECTATOR and now is not None:
        s = as_of(state, now - s.options.get("spectator_delay_s", 0))
    staff = viewer_role in (ORGANIZER, MODERATOR)
    see_items = staff or (
        viewer_role == SPECTATOR and s.options.get("spectator_policy") == "everything"
    )
    seat = username if viewer_role == PLAYER else None
    return {
        "name": s.name,
        "phase": s.phase,
        "schedule": _schedule_view(s),
        "organizer": s.organizer,
        "moderators": list(s.moderators),
        "options": dict(s.options),
        "status": "over" if s.champion else ("final" if s.final else "rounds"),
        "champion": s.champion,
        "entrants": [{"name": e, "status": s.status[e]} for e in s.entrants],
        "substitutions": [dict(x) for x in s.substitutions],
        "rounds": [_round_view(s, r) for r in s.rounds],
        "final": None
        if s.final is None
        else {
            "players": list(s.final.players),
            "game": s.final.game,
            "first_to": s.final.first_to,
            "length_option": match_length_option(s.final.game),
            "match_stream": s.final.match_stream,
            "winner": s.final.winner,
        },
        "pending": [{"who": d.seat, "step": d.kind, "deadline": d.deadline} for d in pending(s)],
        "inventories": {
            e: [_item_view(it) for it in inventory(s, e)]
            for e in s.entrants
            if inventory(s, e) and (see_items or e == seat)
        },
        "item_counts": {e: len(inventory(s, e)) for e in s.entrants if inventory(s, e)},
        "disputes": [
            _dispute_view(d, staff or _filer_sees(d, viewer_role, seat, viewer_id))
            for d in sorted(s.disputes.values(), key=lambda d: int(d.id.split("-")[1]))
        ],
        "catalogue": {g: {k: dict(v) for k, v in items.items()} for g, items in CATALOGUE.items()},
    }


# ---- one English line per kind of show event, from its data's getter ----
EventText = Callable[[Callable[[str], Any]], str]

# the show, its staff, its seats and its autopilot
_SHOW_AND_STAFF: dict[str, EventText] = {
    "show_created": lambda g: f"{g('name')} opens with {len(g('entrants') or [])} entrants",
    "round_added": lambda g: f"round {g('round')} ({g('title')}) planned",
    "rounds_reordered": lambda g: f"rounds reordered: {', '.join(g('order') or [])}",
    "moderator_appointed": lambda g: f"{g('username')} moderates the show",
    "moderator_removed": lambda g: f"{g('username')} no longer moderates the show",
    "match_viewed_omnisciently": lambda g: (
        f"{g('username')} looks at {g('match_stream')} with every card shown"
    ),
    "entrant_substituted": lambda g: f"{g('in')} replaces {g('out')}",
    "autopilot_released": lambda g: f"{g('actor')} takes over the organizer's steps",
    "autopilot_resumed": lambda g: f"{g('actor')} hands the organizer's steps to the autopilot",
    "invitation_created": lambda g: f"a person is invited to hold {g('entrant')}",
    "invitation_accepted": lambda g: (
        f"{g('username')} now holds {g('entrant')}"
        if g("username")
        else f"a person now holds {g('entrant')}"
    ),
    "invitation_revoked": lambda g: f"the invitation to hold {g('entrant')} is revoked",
    "deadline_extended": lambda g: f"{g('step')} deadline extended by {g('seconds')} s",
}

# a round's steps, its death matches and the final
_ROUNDS: dict[str, EventText] = {
    "ranking_entered": lambda g: (
        f"round {g('round')}: main match won by {', '.join(g('winners') or [])}"
    ),
    "token_given": lambda g: f"{g('giver')} gives a token of life to {g('to')}",
    "candidates_named": lambda g: f"elimination candidate(s): {', '.join(g('candidates') or [])}",
    "dmo_nominated": lambda g: f"{g('candidate')} nominates {g('dmo')} for the death match",
    "game_banned": lambda g: f"{g('by')} bans {g('game')}",
    "game_picked": lambda g: f"death match of {g('candidate')}: {g('game')}",
    "death_match_opened": lambda g: (
        f"death match {g('candidate')} vs {g('dmo')} opens ({g('game')})"
    ),
    "death_match_result": lambda g: f"{g('winner')} wins the death match against {g('loser')}",
    "entrant_eliminated": lambda g: f"{g('entrant')} is eliminated",
    "round_finished": lambda g: f"round {g('round')} ends",
    "final_opened": lambda g: f"final: {' vs '.join(g('players') or [])} ({g('game')})",
    "final_result": lambda g: f"{g('winner')} wins the final",
    "champion_crowned": lambda g: f"{g('champion')} is the champion",
}

# items
_ITEMS: dict[str, EventText] = {
    "item_granted": lambda g: (
        f"{g('entrant')} receives {g('item') or 'an item'} ({g('item_id')}), "
        f"given by {g('given_by')}"
    ),
    "item_transferred": lambda g: (
        f"{g('item') or 'an item'} ({g('item_id')}) passes from {g('from')} to {g('to')}"
    ),
    "item_revoked": lambda g: (
        f"{g('item') or 'an item'} ({g('item_id')}) is taken from {g('entrant')}"
    ),
    "item_used": lambda g: f"{g('entrant')} uses {g('item') or 'an item'} ({g('item_id')})",
}

# disputes and the rulings that mend the show
_DISPUTES: dict[str, EventText] = {
    "dispute_filed": lambda g: (
        f"dispute {g('dispute_id')} filed against {g('target_stream')} v{g('target_version')}"
    ),
    "ruling_applied": lambda g: (
        f"ruling on {g('dispute_id')}: {g('ruling')} by {', '.join(g('moderators') or [])}"
    ),
    "death_match_corrected": lambda g: (
        f"ruling: {g('winner')} wins the death match, {g('loser')} is eliminated"
    ),
    "death_match_reopened": lambda g: (
        f"ruling: the death match of {g('candidate')} is back in play"
    ),
    "champion_corrected": lambda g: f"ruling: {g('champion')} is the champion",
    "entrant_disqualified": lambda g: f"{g('entrant')} is disqualified",
}

# a scheduled show: registration, check-in, the start and the ready-checks
_SCHEDULE: dict[str, EventText] = {
    "entrant_registered": lambda g: (
        f"{g('entrant')} registers"
        + {"waiting": " (waiting list)", "applied": " (awaiting approval)"}.get(g("status"), "")
    ),
    "entrant_withdrew": lambda g: f"{g('entrant')} withdraws",
    "registration_approved": lambda g: f"the registration of {g('entrant')} is approved",
    "registration_declined": lambda g: f"the registration of {g('entrant')} is declined",
    "entrant_promoted": lambda g: f"{g('entrant')} takes a seat from the waiting list",
    "check_in_opened": lambda g: "check-in is open",
    "entrant_checked_in": lambda g: f"{g('entrant')} checks in",
    "entrant_dropped": lambda g: f"{g('entrant')} is dropped: {g('reason')}",
    "entrant_replaced": lambda g: f"{g('in')} takes the seat of {g('out')}",
    "show_started": lambda g: f"the show starts with {len(g('entrants') or [])} entrants",
    "show_cancelled": lambda g: f"the show is cancelled: {g('reason')}",
    "player_ready": lambda g: f"{g('entrant')} is ready",
    "ready_check_passed": lambda g: "ready-check passed: the match opens",
    "no_show_forfeited": lambda g: (
        f"{', '.join(g('entrants') or [])} did not show: {g('loser')} forfeits to {g('winner')}"
    ),
}

EVENT_TEXTS: dict[str, EventText] = {
    **_SHOW_AND_STAFF,
    **_ROUNDS,
    **_ITEMS,
    **_DISPUTES,
    **_SCHEDULE,
}


def _describe_event(ev: Event, data: Mapping[str, Any]) -> str:
    """The event in one English line (the API's ``text``); a kind without a
    line by its name."""
    text = EVENT_TEXTS.get(ev.type)
    return text(data.get) if text else ev.type.replace("_", " ")


def public_log(state: ShowState, now: float | None = None) -> list[dict[str, Any]]:
    """The show's public log: every show step, item movement and ruling, as
    spectators may see it (which item it is, dispute texts and unapproved
    proposals withheld; with ``now``, only what is older than the spectator
    delay). Voided events are marked."""
    cut = None if now is None else now - state.options.get("spectator_delay_s", 0)
    out = []
    for i, ev in enumerate(state.log, 1):
        at = ev.data.get("at")
        if cut is not None and isinstance(at, (int, float)) and at > cut:
            break
        data = ev.for_viewer(SPECTATOR_VIEW)
        if data is None:
            continue
        out.append(
            {
                "version": i,
                "type": ev.type,
                "text": _describe_event(ev, data),
                "data": dict(data),
                "void": i in state.voided,
            }
        )
    return out


def audit_log(state: ShowState) -> list[dict[str, Any]]:
    """Every organizer and moderator action of the show, oldest first, for
    the moderators: version, kind, actor, role, reason, time, text, void."""
    out = []
    for i, ev in enumerate(state.log, 1):
        d = ev.data
        if d.get("role") not in (ORGANIZER, MODERATOR):
            continue
        out.append(
            {
                "version": i,
                "kind": ev.type,
                "actor": d.get("actor"),
                "role": d.get("role"),
                "reason": d.get("reason", ""),
                "at": d.get("at"),
                "text": _describe_event(ev, d),
                "data": dict(d),
                "void": i in state.voided,
            }
        )
    return out


def events_for(state: ShowState, viewer: Viewer) -> list[tuple[int, Mapping[str, Any]]]:
    """(version, data) of every event this viewer may see (redacted)."""
    out = []
    for i, ev in enumerate(state.log, 1):
        data = ev.for_viewer(viewer)
        if data is not None:
            out.append((i, data))
    return out
