"""A player's home (what waits for them now, their matches, shows, brackets
and ratings) and the player search that suggests usernames wherever one is
typed. Reads only: every write stays on the pages it belongs to."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import JsonResponse
from django.shortcuts import render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from games import services as match_services
from games import visibility
from games.models import Match, SeatHolder
from tournaments import shows
from tournaments.models import BracketSeriesRecord
from tournaments.selectors import shows_held_by
from tournaments.show_page import show_as_seen
from tournaments.show_services import load as load_show

from . import identity, selectors
from .models import Entry, Participation

FINISHED_SHOWN = 10  # the newest finished matches the home lists
SUGGESTIONS = 10  # names a search answers with at most
CANDIDATES = 200  # accounts a search looks at, in name order
SEARCH_MAX = 150
ORGANIZER_PERMISSION = "games.add_match"  # a username's length at most: a longer query finds nobody


# ---- the home -----------------------------------------------------------------------
def _my_matches(user, now: float) -> dict:
    """Live (those waiting on me first) and the newest finished, as I see them."""
    held = SeatHolder.objects.filter(user=user)
    live = Match.objects.filter(holders__in=held, status="live").distinct().order_by("id")
    done = Match.objects.filter(holders__in=held).exclude(status="live").distinct()
    seats = {}
    for pk, seat in held.values_list("match_id", "seat"):
        seats.setdefault(pk, []).append(seat)
    lines = []
    for s in match_services.summaries_for(live, user, now=now):
        mine = seats.get(s.pk, [])
        lines.append({"m": s, "seats": mine, "my_turn": any(x in s.waiting_on for x in mine)})
    lines.sort(key=lambda x: not x["my_turn"])
    finished = []
    for s in match_services.summaries_for(done.order_by("-id")[:FINISHED_SHOWN], user, now=now):
        mine = seats.get(s.pk, [])
        finished.append({"m": s, "seats": mine, "won": any(x in s.winners for x in mine)})
    return {"live": lines, "finished": finished}


def _show_line(record, uid: int, user, now: float) -> dict:
    """One show I entered: what stage it is at, and where I stand in it."""
    state, _version, _holders = load_show(record.stream)
    seen, _cut = show_as_seen(record.stream, user, now)
    mine = [e for e, held in state.held.items() if held == uid]
    entrant = mine[0] if mine else ""
    if seen.champion:
        stage = "finished"
    elif state.phase == shows.SCHEDULED:
        stage = "checking in" if state.check_in_open else "registered"
    elif state.phase == shows.CANCELLED:
        stage = "cancelled"
    else:
        stage = "running"
    decisions = [d for d in shows.pending(state) if d.seat in mine]
    return {
        "record": record,
        "entrant": entrant,
        "stage": stage,
        "status": state.status.get(entrant, ""),
        "starts_at": match_services.to_datetime(state.starts_at),
        "checked_in": entrant in state.checked_in,
        "decisions": decisions,
        "champion": seen.champion,
    }


def _next_series(player_key: str) -> list[dict]:
    """Bracket series of mine that wait for their opponent or their start."""
    entries = Entry.objects.filter(player=player_key, stream__startswith="bracket-")
    out = []
    for e in entries:
        rows = BracketSeriesRecord.objects.filter(
            Q(a=e.entrant) | Q(b=e.entrant), bracket__stream=e.stream, winner="", match_stream=""
        ).select_related("bracket")
        for r in rows:
            other = r.b if r.a == e.entrant else r.a
            # "R2" is round 2 (a double elimination's other names stay as they are)
            number = r.round[1:] if r.round[:1] == "R" and r.round[1:].isdigit() else r.round
            out.append({"bracket": r.bracket, "round": number, "against": other})
    return out


def _my_shows(user, now: float) -> list[dict]:
    return [_show_line(r, user.pk, user, now) for r in shows_held_by(user.pk)]


def _my_brackets(player_key: str) -> list[dict]:
    from tournaments.models import BracketRecord

    entries = {
        e.stream: e.entrant
        for e in Entry.objects.filter(player=player_key, stream__startswith="bracket-")
    }
    records = BracketRecord.objects.filter(stream__in=list(entries))
    return [{"record": r, "entrant": entries[r.stream]} for r in records]


@login_required
@require_safe
def my_home(request):
    user = request.user
    now = visibility.clock()
    key = identity.user_key(user.pk)
    my_shows = _my_shows(user, now)
    matches = _my_matches(user, now)
    context = {
        **matches,
        "waiting": [x for x in matches["live"] if x["my_turn"]],
        "show_decisions": [s for s in my_shows if s["decisions"]],
        "check_in": [s for s in my_shows if s["stage"] == "checking in" and not s["checked_in"]],
        "next_series": _next_series(key),
        "upcoming": [s for s in my_shows if s["stage"] in ("registered", "checking in")],
        "shows": my_shows,
        "brackets": _my_brackets(key),
        "ratings": selectors.profile(key, now=now, recent=0).ratings,
    }
    return render(request, "ratings/home.html", context)


# ---- the search ---------------------------------------------------------------------
def _publicly_seen(prefix: str, now: float) -> list[str]:
    """Usernames starting with ``prefix`` that a page already shows everyone:
    a player of a match whose end is public, or an entrant of a show or a
    bracket (its page names them). Never an account that did nothing public."""
    people = get_user_model().objects.filter(username__istartswith=prefix)
    candidates = list(people.order_by("username").values_list("pk", flat=True)[:CANDIDATES])
    played = Participation.objects.filter(
        user_id__in=candidates, played__public_at__lte=match_services.to_datetime(now)
    ).values_list("user_id", flat=True)
    keys = [identity.user_key(pk) for pk in candidates]
    entered = Entry.objects.filter(player__in=keys).values_list("player", flat=True)
    ids = set(played) | {identity.user_id_of(k) for k in entered}
    rows = people.filter(pk__in=ids).order_by("username").values_list("username", flat=True)
    return list(rows[:SUGGESTIONS])


@require_safe
def player_search(request):
    """``?q=<the start of a username>`` -> ``{"players": [...]}``, at most ten,
    in name order; limited per address (a 429 says when to come back). A
    visitor is offered only the players a page already shows everyone; an
    organizer, whose console lists every account, any active account."""
    from api.throttling import PlayerSearchLimits, wait_before_next

    wait = wait_before_next(request, [PlayerSearchLimits])
    if wait is not None:
        message = _("Too many searches from this address: try again in %(s)s seconds.") % {
            "s": max(1, round(wait))
        }
        return JsonResponse({"detail": message}, status=429)
    q = (request.GET.get("q") or "").strip()
    if not q or len(q) > SEARCH_MAX or not q.isprintable():
        return JsonResponse({"players": []})
    if request.user.has_perm(ORGANIZER_PERMISSION):  # the console lists every account to them
        found = get_user_model().objects.filter(username__istartswith=q, is_active=True)
        return JsonResponse(
            {"players": list(found.order_by("username").values_list("username", flat=True)[:10])}
        )
    return JsonResponse({"players": _publicly_seen(q, visibility.clock())})
