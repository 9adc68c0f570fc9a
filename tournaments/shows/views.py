"""Reads for people: a role's view of the show and its public log."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
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


# ---- one English line per kind of show event: a format over its data ----
# The formats are msgids (marked for the catalogs; most are the pages' own
# words, ``tournaments/log_words``), applied here untranslated: the API's
# ``text`` is English. A format's slot reads the data field of its name,
# unless the line's ``slots`` say which field (or what of the data) fills it.
def gettext_noop(text: str) -> str:
    """Marks ``text`` for the catalogs (makemessages looks for this name),
    without Django: the show engine is pure."""
    return text


Getter = Callable[[str], Any]
Slots = Mapping[str, "str | Callable[[Getter], Any]"]


@dataclass(frozen=True)
class Line:
    text: str
    slots: Slots = field(default_factory=dict)

    def __call__(self, get: Getter) -> str:
        return self.text % _Filled(self.slots, get)


@dataclass(frozen=True)
class Choice:
    """The line for ``by`` of the data's ``key`` (``default`` for any other)."""

    key: str
    lines: Mapping[Any, Line]
    default: Line
    by: Callable[[Any], Any] = lambda value: value

    def __call__(self, get: Getter) -> str:
        return self.lines.get(self.by(get(self.key)), self.default)(get)


class _Filled(dict):
    """A format's slots, filled from the data when read."""

    def __init__(self, slots: Slots, get: Getter):
        super().__init__()
        self.slots, self.get = slots, get

    def __missing__(self, slot: str) -> Any:
        source = self.slots.get(slot, slot)
        return self.get(source) if isinstance(source, str) else source(self.get)


def _joined(key: str, between: str = ", ") -> Callable[[Getter], str]:
    return lambda get: between.join(get(key) or [])


def _count(key: str) -> Callable[[Getter], int]:
    return lambda get: len(get(key) or [])


def _item(get: Getter) -> Any:
    return get("item") or "an item"


EventText = Callable[[Getter], str]

# the show, its staff, its seats and its autopilot
_SHOW_AND_STAFF: dict[str, EventText] = {
    "show_created": Line(
        gettext_noop("%(name)s opens with %(n)s entrants"), {"n": _count("entrants")}
    ),
    "round_added": Line(gettext_noop("round %(n)s (%(title)s) planned"), {"n": "round"}),
    "rounds_reordered": Line(
        gettext_noop("rounds reordered: %(order)s"), {"order": _joined("order")}
    ),
    "moderator_appointed": Line(gettext_noop("%(who)s moderates the show"), {"who": "username"}),
    "moderator_removed": Line(
        gettext_noop("%(who)s no longer moderates the show"), {"who": "username"}
    ),
    "match_viewed_omnisciently": Line(
        gettext_noop("%(who)s looks at %(match)s with every card shown"),
        {"who": "username", "match": "match_stream"},
    ),
    "entrant_substituted": Line(
        gettext_noop("%(new)s replaces %(old)s"), {"new": "in", "old": "out"}
    ),
    "autopilot_released": Line(
        gettext_noop("%(who)s takes over the organizer's steps"), {"who": "actor"}
    ),
    "autopilot_resumed": Line(
        gettext_noop("%(who)s hands the organizer's steps to the autopilot"), {"who": "actor"}
    ),
    "invitation_created": Line(
        gettext_noop("a person is invited to hold %(seat)s"), {"seat": "entrant"}
    ),
    "invitation_accepted": Choice(
        "username",
        {False: Line(gettext_noop("a person now holds %(seat)s"), {"seat": "entrant"})},
        Line(gettext_noop("%(who)s now holds %(seat)s"), {"who": "username", "seat": "entrant"}),
        by=bool,
    ),
    "invitation_revoked": Line(
        gettext_noop("the invitation to hold %(seat)s is revoked"), {"seat": "entrant"}
    ),
    "deadline_extended": Line(gettext_noop("%(step)s deadline extended by %(seconds)s s")),
}

# a round's steps, its death matches and the final
_ROUNDS: dict[str, EventText] = {
    "ranking_entered": Line(
        gettext_noop("round %(n)s: main match won by %(who)s"),
        {"n": "round", "who": _joined("winners")},
    ),
    "token_given": Line(gettext_noop("%(giver)s gives a token of life to %(to)s")),
    "candidates_named": Line(
        gettext_noop("elimination candidate(s): %(who)s"), {"who": _joined("candidates")}
    ),
    "dmo_nominated": Line(gettext_noop("%(candidate)s nominates %(dmo)s for the death match")),
    "game_banned": Line(gettext_noop("%(who)s bans %(game)s"), {"who": "by"}),
    "game_picked": Line(gettext_noop("death match of %(who)s: %(game)s"), {"who": "candidate"}),
    "death_match_opened": Line(
        gettext_noop("death match %(a)s vs %(b)s opens (%(game)s)"),
        {"a": "candidate", "b": "dmo"},
    ),
    "death_match_result": Line(gettext_noop("%(winner)s wins the death match against %(loser)s")),
    "entrant_eliminated": Line(gettext_noop("%(who)s is eliminated"), {"who": "entrant"}),
    "round_finished": Line(gettext_noop("round %(n)s ends"), {"n": "round"}),
    "final_opened": Line(
        gettext_noop("final: %(players)s (%(game)s)"), {"players": _joined("players", " vs ")}
    ),
    "final_result": Line(gettext_noop("%(who)s wins the final"), {"who": "winner"}),
    "champion_crowned": Line(gettext_noop("%(who)s is the champion"), {"who": "champion"}),
}

# items
_ITEMS: dict[str, EventText] = {
    "item_granted": Line(
        gettext_noop("%(who)s receives %(item)s (%(item_id)s), given by %(by)s"),
        {"who": "entrant", "item": _item, "by": "given_by"},
    ),
    "item_transferred": Line(
        gettext_noop("%(item)s (%(item_id)s) passes from %(a)s to %(b)s"),
        {"item": _item, "a": "from", "b": "to"},
    ),
    "item_revoked": Line(
        gettext_noop("%(item)s (%(item_id)s) is taken from %(who)s"),
        {"item": _item, "who": "entrant"},
    ),
    "item_used": Line(
        gettext_noop("%(who)s uses %(item)s (%(item_id)s)"), {"who": "entrant", "item": _item}
    ),
}

# disputes and the rulings that mend the show
_DISPUTES: dict[str, EventText] = {
    "dispute_filed": Line(
        gettext_noop("dispute %(dispute_id)s filed against %(target_stream)s v%(target_version)s")
    ),
    "ruling_applied": Line(
        gettext_noop("ruling on %(dispute_id)s: %(ruling)s by %(who)s"),
        {"who": _joined("moderators")},
    ),
    "death_match_corrected": Line(
        gettext_noop("ruling: %(winner)s wins the death match, %(loser)s is eliminated")
    ),
    "death_match_reopened": Line(
        gettext_noop("ruling: the death match of %(who)s is back in play"), {"who": "candidate"}
    ),
    "champion_corrected": Line(
        gettext_noop("ruling: %(who)s is the champion"), {"who": "champion"}
    ),
    "entrant_disqualified": Line(gettext_noop("%(who)s is disqualified"), {"who": "entrant"}),
}

_ENTRANT = {"who": "entrant"}

# a scheduled show: registration, check-in, the start and the ready-checks
_SCHEDULE: dict[str, EventText] = {
    "entrant_registered": Choice(
        "status",
        {
            "waiting": Line(gettext_noop("%(who)s registers (waiting list)"), _ENTRANT),
            "applied": Line(gettext_noop("%(who)s registers (awaiting approval)"), _ENTRANT),
        },
        Line(gettext_noop("%(who)s registers"), _ENTRANT),
    ),
    "entrant_withdrew": Line(gettext_noop("%(who)s withdraws"), _ENTRANT),
    "registration_approved": Line(
        gettext_noop("the registration of %(who)s is approved"), _ENTRANT
    ),
    "registration_declined": Line(
        gettext_noop("the registration of %(who)s is declined"), _ENTRANT
    ),
    "entrant_promoted": Line(gettext_noop("%(who)s takes a seat from the waiting list"), _ENTRANT),
    "check_in_opened": Line(gettext_noop("check-in is open")),
    "entrant_checked_in": Line(gettext_noop("%(who)s checks in"), _ENTRANT),
    "entrant_dropped": Line(
        gettext_noop("%(who)s is dropped: %(why)s"), {"who": "entrant", "why": "reason"}
    ),
    "entrant_replaced": Line(
        gettext_noop("%(new)s takes the seat of %(old)s"), {"new": "in", "old": "out"}
    ),
    "show_started": Line(
        gettext_noop("the show starts with %(n)s entrants"), {"n": _count("entrants")}
    ),
    "show_cancelled": Line(gettext_noop("the show is cancelled: %(why)s"), {"why": "reason"}),
    "player_ready": Line(gettext_noop("%(who)s is ready"), _ENTRANT),
    "ready_check_passed": Line(gettext_noop("ready-check passed: the match opens")),
    "no_show_forfeited": Line(
        gettext_noop("%(who)s did not show: %(loser)s forfeits to %(winner)s"),
        {"who": _joined("entrants")},
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
