from django.shortcuts import get_object_or_404, render

from games import services as match_services
from games import visibility
from games.models import Match

from . import shows
from .bracket_services import bracket_output
from .dashboard import bracket_tree
from .models import BracketRecord, ShowRecord
from .readmodels import bracket_folded
from .show_services import acting_for, load


def show_as_seen(stream: str, user, now: float | None = None):
    """(state, cut): the show as ``user`` may see it, visibility.show_cut
    deciding when: live (cut None) for its staff and active entrants, else
    as of the spectator delay."""
    state, _, holders = load(stream)
    active = {h for e, h in holders.items() if state.status.get(e) == shows.ACTIVE}
    live_for = frozenset(h for h in active if isinstance(h, int))
    cut = visibility.show_cut(stream, user, live_for=live_for, now=now)
    if cut is None:
        return state, None
    # the announcement (name, entrants, options) is public from the start
    opened = state.log[0].data.get("at", cut) if state.log else cut
    return shows.as_of(state, max(cut, opened)), cut


def _show_line(record: ShowRecord, user, now: float) -> dict:
    seen, _ = show_as_seen(record.stream, user, now)
    return {
        "pk": record.pk,
        "name": record.name,
        "url": record.get_absolute_url(),
        "status": "finished" if seen.champion else "running",
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


def show_page(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = acting_for(record.stream, request.user)
    now = visibility.clock()
    seen, cut = show_as_seen(record.stream, request.user, now)
    matches = Match.objects.filter(show_stream=record.stream).order_by("id")
    return render(
        request,
        "tournaments/show.html",
        {
            "show": record,
            "acting": acting,
            "view": shows.view(seen, acting.role, acting.actor),
            "log": shows.public_log(seen)[-60:],
            "matches": match_services.summaries_for(matches, request.user, now=now),
            "pending": shows.pending(seen),
            "delayed_s": None if cut is None else round(now - cut),
        },
    )


def bracket_page(request, pk):
    record = get_object_or_404(BracketRecord, pk=pk)
    out = bracket_output(record.stream)
    (state, _, _), _ = bracket_folded(record.stream)
    streams = {s["match_stream"] for s in out["series"] if s.get("match_stream")}
    rows = Match.objects.filter(stream__in=streams)
    matches = {m.stream: m for m in match_services.summaries_for(rows, request.user)}
    for s in out["series"]:
        s["match"] = matches.get(s.get("match_stream"))
    tree = bracket_tree(state, out["series"])
    return render(
        request, "tournaments/bracket.html", {"bracket": record, "out": out, "tree": tree}
    )
