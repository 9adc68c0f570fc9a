from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games import services as match_services
from games import visibility
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal
from games.models import Match
from games.views import opening_of

from . import shows
from .bracket_services import bracket_output
from .bracket_tree import bracket_tree
from .log_words import log_lines
from .models import BracketRecord, ShowRecord
from .readmodels import bracket_folded, show_status
from .schedule_views import schedule_context
from .show_services import acting_for, command, load
from .words import FORM_REUSED


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


def _show_line(record: ShowRecord, user, now: float) -> dict:
    seen, _cut = show_as_seen(record.stream, user, now)
    return {
        "pk": record.pk,
        "name": record.name,
        "url": record.get_absolute_url(),
        "status": show_status(seen),
        "champion": seen.champion,
    }


def show_lines(records, user, now: float | None = None) -> list[dict]:
    now = visibility.clock() if now is None else now
    return [_show_line(r, user, now) for r in records]


def show_list(request):
    return render(
        request,
        "tournaments/show_list.html",
        {
            "shows": show_lines(ShowRecord.objects.all()[:50], request.user),
            "brackets": BracketRecord.objects.all()[:50],
        },
    )


# the decisions a show waits on from a player, and the field each one names
PLAYER_DECISIONS = {
    "give_token": "to",
    "choose_candidate": "candidates",
    "nominate": "dmo",
    "ban_game": "game",
}


def _my_decisions(state, acting) -> list[dict]:
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


def _show_context(request, record) -> dict:
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
        "decisions": _my_decisions(seen, acting) if cut is None else [],
        "now": now,
        "delayed_s": None if cut is None else round(now - cut),
    }


def not_open_yet(matches, seen) -> list[dict]:
    """The matches not open to this viewer yet (behind the delay), each by its
    number only (its title would name who plays before the show says so) and
    when it opens."""
    shown = {s.match.pk for s in seen}
    return [opening_of(m) for m in matches if m.pk not in shown]


def show_page(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    return render(request, "tournaments/show.html", _show_context(request, record))


@require_POST
def show_decide(request, pk):
    """A player's show decision from the show page: give the token, choose
    the candidates, nominate the death-match opponent, ban a game."""
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = acting_for(record.stream, request.user, request.POST.get("entrant") or None)
    if acting.role != shows.PLAYER:
        raise PermissionDenied(_("only an entrant of this show may make a player's decision"))
    kind = request.POST.get("type", "")
    field = PLAYER_DECISIONS.get(kind, "")
    value = request.POST.getlist(field) if field == "candidates" else request.POST.get(field, "")
    try:
        if not field:
            raise RuleError(
                "decide here one of: {decisions}", decisions=", ".join(PLAYER_DECISIONS)
            )
        command(
            record.stream,
            {"type": kind, field: value},
            acting,
            **command_args(request),
        )
    except RoleRequired as exc:
        raise PermissionDenied(refusal(exc)) from None
    except (RuleError, CommandIdReused) as exc:
        context = _show_context(request, record)
        context["refusal"] = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
        return render(request, "tournaments/show.html", context, status=400)
    chosen = ", ".join(value) if field == "candidates" else value
    messages.success(
        request,
        _("Done: %(step)s (%(chosen)s).") % {"step": _(kind).replace("_", " "), "chosen": chosen},
    )
    return redirect(record.get_absolute_url())


def bracket_page(request, pk):
    record = get_object_or_404(BracketRecord, pk=pk)
    out = bracket_output(record.stream)
    (state, _v, _h), _fresh = bracket_folded(record.stream)
    streams = {s["match_stream"] for s in out["series"] if s.get("match_stream")}
    rows = Match.objects.filter(stream__in=streams)
    matches = {m.stream: m for m in match_services.summaries_for(rows, request.user)}
    for s in out["series"]:
        s["match"] = matches.get(s.get("match_stream"))
    tree = bracket_tree(state, out["series"])
    return render(
        request, "tournaments/bracket.html", {"bracket": record, "out": out, "tree": tree}
    )
