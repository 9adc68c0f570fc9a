import json
import time

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from eventlog.store import ConcurrencyError
from games.core.protocol import SEAT, RuleError
from games.core.registry import available, rules_for

from . import services
from .models import Match


def index(request):
    return render(request, "games/index.html", {"games": available()})


def rules(request, slug):
    try:
        game = rules_for(slug)
    except (RuleError, ModuleNotFoundError):
        raise Http404("no such game") from None
    return render(request, game.rules_template, {"game": game, "options": game.options})


def match_page(request, pk):
    match = get_object_or_404(Match, pk=pk)
    viewer = services.viewer_for(match, request.user)
    view = services.view_for(match, viewer)
    history = services.history_for(match, viewer)
    template = "games/_match_body.html" if request.htmx else "games/match.html"
    return render(
        request,
        template,
        {
            "match": match,
            "viewer": viewer,
            "view": view,
            "view_json": json.dumps(view, indent=1),
            "history": history[-40:],
            "can_act": viewer.kind == SEAT,
            "server_now": f"{time.time():.3f}",
        },
    )


@require_POST
def match_command(request, pk):
    match = get_object_or_404(Match, pk=pk)
    viewer = services.viewer_for(match, request.user)
    if viewer.kind != SEAT:
        messages.error(request, "only a seated player may send moves in this match")
        return redirect("games:match", pk=pk)
    try:
        command = json.loads(request.POST.get("command", ""))
    except json.JSONDecodeError:
        messages.error(request, 'the move must be a JSON object, e.g. {"type": "pass"}')
        return redirect("games:match", pk=pk)
    try:
        services.submit(
            match,
            viewer.seat,
            command,
            actor=request.user.username,
            command_id=request.POST.get("command_id") or None,
        )
    except RuleError as exc:
        messages.error(request, str(exc))
    except ConcurrencyError:
        messages.error(request, "the match moved on while you were deciding; look again")
    return redirect("games:match", pk=pk)
