"""The public show page's context, as its visitor may see it: the show cut by
the visibility policy (``show_as_seen``, which the broadcast and the API read
too), the decisions it waits on from the visitor, the matches not open yet and
the schedule section. Shared by the views that render the page (views.py for
the page and a player's decisions, schedule_views.py for registering and
checking in)."""

from __future__ import annotations

from games import services as match_services
from games import visibility
from games.models import Match
from games.views import opening_of

from . import shows
from .log_words import log_lines
from .models import ShowRecord
from .show_services import acting_for, load


def show_as_seen(stream: str, user, now: float | None = None):
    """(state, cut): the show as ``user`` may see it, visibility.show_cut
    deciding when: live (cut None) for its staff and active entrants, else
    as of the spectator delay."""
    state, _version, holders = load(stream)
    active = {h for e, h in holders.items() if state.status.get(e) == shows.ACTIVE}
    live_for = frozenset(h for h in active if isinstance(h, int))
    cut = visibility.show_cut(stream, user, live_for=live_for, now=now)
    if cut is None:
        return state, None
    # one clock with the matches: what was recorded by the cut (the announcement always)
    return shows.upto(state, visibility.version_at(stream, cut)), cut


def schedule_context(record: ShowRecord, user) -> dict:
    """What the show page's schedule section shows this visitor."""
    state, _version, _holders = load(record.stream)
    acting = acting_for(record.stream, user)
    mine = acting.actor if acting.role == shows.PLAYER else None
    status = state.status.get(mine) if mine else None
    ready = [d for d in shows.pending(state) if d.seat == mine and d.kind == shows.READY]
    scheduled = state.phase == shows.SCHEDULED
    return {
        "phase": state.phase,
        "starts_at": state.starts_at,
        "check_in_opens_at": shows.check_in_opens_at(state),
        "check_in_open": state.check_in_open,
        "options": state.options,
        "entrant": mine,
        "status": status,
        "checked_in": mine in state.checked_in,
        "waiting": list(state.waiting),
        # those holding a seat (not the waiting list, nor those awaiting approval)
        "registered": [e for e in state.entrants if state.status.get(e) == shows.ACTIVE],
        "can_register": scheduled
        and state.options.get("registration") == "open"
        and user.is_authenticated
        and acting.role == shows.SPECTATOR,
        "can_withdraw": scheduled and status in (shows.ACTIVE, shows.WAITING, shows.APPLIED),
        "can_check_in": scheduled
        and state.check_in_open
        and status in (shows.ACTIVE, shows.WAITING)
        and mine not in state.checked_in,
        "ready": ready[0] if ready else None,
    }


# the decisions a show waits on from a player, and the field each one names
PLAYER_DECISIONS = {
    "give_token": "to",
    "choose_candidate": "candidates",
    "nominate": "dmo",
    "ban_game": "game",
}


def player_decisions(state, acting) -> list[dict]:
    """The decisions ``state`` waits on from ``acting``'s entrant, each with
    its legal options (the engine's own lists) and its deadline."""
    rnd = shows.current_round(state)
    if acting.role != shows.PLAYER or rnd is None:
        return []
    out = []
    for d in shows.pending(state):
        if d.seat != acting.actor or d.kind not in PLAYER_DECISIONS:
            continue
        pick = 1
        if d.kind == "give_token":
            options = shows.gift_options(state, rnd)
        elif d.kind == "choose_candidate":
            _forced, options, pick = shows.candidate_split(state, rnd)
        elif d.kind == "nominate":
            options = shows.dmo_options(state, rnd, acting.actor)
        else:
            duel = next(x for x in rnd.duels if acting.actor in (x.candidate, x.dmo))
            options = shows.ban_options(state, duel)
        out.append(
            {
                "kind": d.kind,
                "field": PLAYER_DECISIONS[d.kind],
                "options": options,
                "pick": pick,
                "deadline": d.deadline,
            }
        )
    return out


def show_context(request, record) -> dict:
    """What the show page shows the visitor of ``request``."""
    acting = acting_for(record.stream, request.user)
    now = visibility.clock()
    seen, cut = show_as_seen(record.stream, request.user, now)
    matches = Match.objects.filter(show_stream=record.stream).order_by("id")
    seen_matches = match_services.summaries_for(matches, request.user, now=now)
    return {
        "show": record,
        "schedule": schedule_context(record, request.user),
        "acting": acting,
        "view": shows.view(seen, acting.role, acting.actor, viewer_id=acting.user_id),
        "log": log_lines(shows.public_log(seen)[-60:], record.stream),
        "matches": seen_matches,
        "opening": not_open_yet(matches, seen_matches),
        "pending": shows.pending(seen),
        # only an entrant who sees the show live is asked anything
        "decisions": player_decisions(seen, acting) if cut is None else [],
        "now": now,
        "delayed_s": None if cut is None else round(now - cut),
    }


def not_open_yet(matches, seen) -> list[dict]:
    """The matches not open to this viewer yet (behind the delay), each by its
    number only (its title would name who plays before the show says so) and
    when it opens."""
    shown = {s.match.pk for s in seen}
    return [opening_of(m) for m in matches if m.pk not in shown]
