"""A scheduled show from the player's side, on its public page: register,
withdraw, check in, and confirm being there when a match is ready; the
show's calendar feed. Thin views: one service decides each."""

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

from . import shows
from .models import ShowRecord
from .show_services import acting_for, command, load, register
from .words import FORM_REUSED

# what a player does from the show page, and what the page says once done
ACTIONS = {
    "register": gettext_lazy("You are registered."),
    "withdraw": gettext_lazy("You have withdrawn."),
    "check_in": gettext_lazy("You are checked in."),
    "ready": gettext_lazy("You are there: the match opens once everyone is."),
}


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
        from .views import _show_context

        context = _show_context(request, record)
        context["refusal"] = FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc)
        return render(request, "tournaments/show.html", context, status=400)
    messages.success(request, ACTIONS[kind])
    return redirect(record.get_absolute_url())


def show_calendar(request, pk):
    """The show's iCalendar feed: its start (and check-in window), public."""
    from reminders.calendars import calendar_response, show_events

    record = get_object_or_404(ShowRecord, pk=pk)
    return calendar_response(show_events([record], request), f"show-{record.pk}.ics")
