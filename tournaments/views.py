from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from eventlog.commands import BadCommandId, command_args
from eventlog.store import CommandIdReused, ConcurrencyError
from games import services as match_services
from games import visibility
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal
from games.models import Match

from . import bracket_check_in, shows
from .bracket_services import bracket_output
from .bracket_tree import bracket_tree
from .models import BracketRecord, ShowRecord
from .readmodels import bracket_folded, show_status
from .show_page import PLAYER_DECISIONS, show_as_seen, show_context
from .show_services import acting_for, command
from .words import FORM_REUSED


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


def show_page(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    return render(request, "tournaments/show.html", show_context(request, record))


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
        context = show_context(request, record)
        context["refusal"] = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
        return render(request, "tournaments/show.html", context, status=400)
    chosen = ", ".join(value) if field == "candidates" else value
    messages.success(
        request,
        _("Done: %(step)s (%(chosen)s).") % {"step": _(kind).replace("_", " "), "chosen": chosen},
    )
    return redirect(record.get_absolute_url())


def _bracket_context(request, record: BracketRecord) -> dict:
    out = bracket_output(record.stream)
    (state, created, _links), _fresh = bracket_folded(record.stream)
    streams = {s["match_stream"] for s in out["series"] if s.get("match_stream")}
    rows = Match.objects.filter(stream__in=streams)
    matches = {m.stream: m for m in match_services.summaries_for(rows, request.user)}
    for s in out["series"]:
        s["match"] = matches.get(s.get("match_stream"))
    user_id = request.user.pk if request.user.is_authenticated else None
    checking = bracket_check_in.is_open(created)
    there = bracket_check_in.present(created) if checking else []
    check_in = {
        "open": checking,
        "present": there,
        "absent": [e for e in created.get("entrants", ()) if e not in there] if checking else [],
        "mine": [
            e
            for e in bracket_check_in.held_by(created, user_id)
            if e not in (created.get("checked_in") or ())
        ]
        if checking
        else [],
        "organizer": user_id is not None and created.get("organizer_id") == user_id,
        "dropped": list(created.get("dropped") or ()),
    }
    return {
        "bracket": record,
        "out": out,
        "tree": None if checking else bracket_tree(state, out["series"]),
        "check_in": check_in,
    }


def bracket_page(request, pk):
    record = get_object_or_404(BracketRecord, pk=pk)
    return render(request, "tournaments/bracket.html", _bracket_context(request, record))


@require_POST
def bracket_act(request, pk, kind):
    """A bracket's check-in before its draw: a person holding an entrant
    checks in (``check_in``); its organizer closes it and draws (``draw``)."""
    record = get_object_or_404(BracketRecord, pk=pk)
    if not request.user.is_authenticated:
        raise PermissionDenied(_("log in to check in"))
    try:
        if kind == "draw":
            dropped = bracket_check_in.draw(
                record.stream,
                request.user.pk,
                actor=request.user.username,
                command_id=command_args(request)["command_id"],
            )
            done = (
                _("The bracket is drawn; dropped (did not check in): %(names)s.")
                % {"names": ", ".join(dropped)}
                if dropped
                else _("The bracket is drawn: everyone checked in.")
            )
        else:
            names = bracket_check_in.check_in(
                record.stream, request.user.pk, command_id=command_args(request)["command_id"]
            )
            done = _("Checked in: %(names)s.") % {"names": ", ".join(names)}
    except (RuleError, ConcurrencyError, CommandIdReused, BadCommandId) as exc:
        context = _bracket_context(request, record)
        if isinstance(exc, RuleError):
            context["refusal"] = refusal(exc)
        elif isinstance(exc, CommandIdReused | BadCommandId):
            context["refusal"] = FORM_REUSED
        else:
            context["refusal"] = _(
                "Someone acted on this bracket at the same time: look again and retry."
            )
        return render(request, "tournaments/bracket.html", context, status=400)
    messages.success(request, done)
    return redirect("tournaments:bracket", pk=record.pk)
