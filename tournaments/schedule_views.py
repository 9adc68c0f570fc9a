"""A scheduled show from the player's side, on its public page: register,
withdraw, check in, and confirm being there when a match is ready (the
show's calendar feed is reminders'). Thin views: one service decides each."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal

from .models import ShowRecord
from .show_page import show_context
from .show_services import acting_for, command, register
from .words import FORM_REUSED

# what a player does from the show page, and what the page says once done
ACTIONS = {
    "register": gettext_lazy("You are registered."),
    "withdraw": gettext_lazy("You have withdrawn."),
    "check_in": gettext_lazy("You are checked in."),
    "ready": gettext_lazy("You are there: the match opens once everyone is."),
}


@login_required
@require_POST
def show_act(request, pk, kind):
    record = get_object_or_404(ShowRecord, pk=pk)
    if kind not in ACTIONS:
        raise PermissionDenied(_("a show page has no action %(kind)r") % {"kind": kind})
    keys = command_args(request)
    try:
        if kind == "register":
            register(record.stream, request.user, command_id=keys["command_id"])
        else:
            acting = acting_for(record.stream, request.user)
            command(record.stream, {"type": kind}, acting, **keys)
    except RoleRequired as exc:
        raise PermissionDenied(refusal(exc)) from None
    except (RuleError, CommandIdReused) as exc:
        context = show_context(request, record)
        context["refusal"] = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
        return render(request, "tournaments/show.html", context, status=400)
    messages.success(request, ACTIONS[kind])
    return redirect(record.get_absolute_url())
