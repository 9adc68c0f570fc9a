import time

from django.shortcuts import get_object_or_404, render

from games.models import Match

from . import shows
from .bracket_services import bracket_output
from .models import BracketRecord, ShowRecord
from .show_services import acting_for, load


def show_list(request):
    return render(
        request,
        "tournaments/show_list.html",
        {
            "shows": ShowRecord.objects.all()[:50],
            "brackets": BracketRecord.objects.all()[:50],
        },
    )


def show_page(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    state, _, _ = load(record.stream)
    acting = acting_for(record.stream, request.user)
    view = shows.view(state, acting.role, acting.actor, now=time.time())
    log = shows.public_log(state, now=None if acting.role != shows.SPECTATOR else time.time())
    return render(
        request,
        "tournaments/show.html",
        {
            "show": record,
            "acting": acting,
            "view": view,
            "log": log[-60:],
            "matches": Match.objects.filter(show_stream=record.stream).order_by("id"),
            "pending": shows.pending(state),
        },
    )


def bracket_page(request, pk):
    record = get_object_or_404(BracketRecord, pk=pk)
    out = bracket_output(record.stream)
    streams = {s["match_stream"] for s in out["series"] if s.get("match_stream")}
    matches = {m.stream: m for m in Match.objects.filter(stream__in=streams)}
    for s in out["series"]:
        s["match"] = matches.get(s.get("match_stream"))
    return render(request, "tournaments/bracket.html", {"bracket": record, "out": out})
