"""The chat's pages: a room's messages (JSON, for chat.js: the newest, the
older ones on request, the news after the last shown), and its writes (a
message, a hiding, a timeout, slow mode, closing and opening a room, a
show's word list, a block) from a page's form or
chat.js's fetch. Refusals come back as 4xx with their words (JSON to a
fetch, a short page otherwise), nothing written."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import HttpResponseRedirect, JsonResponse
from django.shortcuts import render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from eventlog.store import CommandIdReused
from games.core.fields import whole
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal

from . import services
from .present import as_json
from .rooms import room_named

HISTORY = 100


def _wants_json(request) -> bool:
    return request.headers.get("X-Requested-With") == "fetch" or "json" in request.headers.get(
        "Accept", ""
    )


def _refused(request, words: str, status: int):
    if _wants_json(request):
        return JsonResponse({"message": words}, status=status)
    context = {"words": words, "back": _back(request)}
    return render(request, "chat/refused.html", context, status=status)


def _back(request) -> str:
    """Where the form came from (its ``next``, if on this site), else home."""
    target = request.POST.get("next", "")
    safe = url_has_allowed_host_and_scheme(target, {request.get_host()}, request.is_secure())
    return target if safe and target.startswith("/") else "/"


def _room_or_refusal(request, name):
    try:
        return room_named(name), None
    except RuleError as exc:
        return None, _refused(request, refusal(exc), 404)


def _number(request, field: str) -> int | None:
    raw = request.GET.get(field) or request.POST.get(field)
    return whole(raw) if raw else None


@require_GET
def messages(request, name):
    """GET: the newest messages of a room (``before``: older than that id;
    ``after``: newer than that id) and which of those from ``from`` on are
    hidden now."""
    try:
        room = room_named(name)
    except RuleError as exc:
        return JsonResponse({"message": refusal(exc)}, status=404)
    before, after, first = (_number(request, f) for f in ("before", "after", "from"))
    try:
        found = services.history(room, request.user, before=before, after=after or 0, limit=HISTORY)
    except RoleRequired as exc:
        return JsonResponse({"message": refusal(exc)}, status=403)
    hidden = services.hidden_since(room, request.user, first - 1) if first else []
    return JsonResponse(
        {"room": room.name, "messages": [as_json(m, request.user) for m in found], "hidden": hidden}
    )


def _done(request, answer: dict):
    if _wants_json(request):
        return JsonResponse(answer)
    return HttpResponseRedirect(_back(request))


def _write(request, name, act):
    """Run ``act(room)`` for a POST to room ``name``; its refusals in words."""
    room, refused = _room_or_refusal(request, name)
    if refused:
        return refused
    if not request.user.is_authenticated:
        return _refused(request, _("log in to write in the chat"), 403)
    try:
        return _done(request, act(room))
    except RoleRequired as exc:
        return _refused(request, refusal(exc), 403)
    except RuleError as exc:
        return _refused(request, refusal(exc), 422)
    except CommandIdReused:
        words = _("this form was already used for something else; try again")
        return _refused(request, words, 409)
    except RequestDataTooBig:  # read nothing of it: refused before any check
        return _refused(request, _too_large(), 413)


def _too_large() -> str:
    return _("this is far too long to send: a message is at most %(limit)s characters") % {
        "limit": settings.CHAT_MAX_CHARS
    }


def _command_id(request):
    return request.POST.get("command_id") or None


@require_POST
def post(request, name):
    def act(room):
        row = services.post(
            room, request.user, request.POST.get("text", ""), command_id=_command_id(request)
        )
        return {"message": as_json(services.ChatMessage.objects.get(pk=row.id), request.user)}

    return _write(request, name, act)


@require_POST
def hide(request, name):
    def act(room):
        message = _number(request, "message")
        reason = request.POST.get("reason", "")
        services.hide(room, request.user, message, reason, command_id=_command_id(request))
        return {"hidden": [message]}

    return _write(request, name, act)


@require_POST
def report(request, name):
    def act(room):
        message = _number(request, "message")
        reason = request.POST.get("reason", "")
        services.report(room, request.user, message, reason, command_id=_command_id(request))
        return {"reported": message, "message": _("Reported: the moderators will read it.")}

    return _write(request, name, act)


@require_POST
def time_out(request, name):
    def act(room):
        target, length = _number(request, "user"), request.POST.get("length", "")
        scope = request.POST.get("scope") or "room"
        services.time_out(
            room, request.user, target, length, scope=scope, command_id=_command_id(request)
        )
        words = _("Timed out: they still read the room but may not write in it until it ends.")
        return {"timed_out": target, "message": words}

    return _write(request, name, act)


@require_POST
def slow(request, name):
    def act(room):
        seconds = _number(request, "seconds")
        services.slow_mode(room, request.user, seconds, command_id=_command_id(request))
        return {"slow_s": seconds}

    return _write(request, name, act)


def _closing(closed: bool):
    @require_POST
    def view(request, name):
        def act(room):
            services.close_room(room, request.user, closed, command_id=_command_id(request))
            return {"closed": closed}

        return _write(request, name, act)

    return view


close, reopen = _closing(True), _closing(False)


@require_POST
def words(request, pk: int):
    """The show's word list, all of it (one a line), from its staff room's form."""

    def act(room):
        services.set_words(
            room.show, request.user, request.POST.get("words", ""), command_id=_command_id(request)
        )
        return {"words": "saved"}

    return _write(request, f"s{pk}-show", act)


@require_POST
def block(request):
    if not request.user.is_authenticated:
        raise PermissionDenied(_("log in to block someone"))
    blocked = request.POST.get("unblock") != "1"
    try:
        services.block(
            request.user,
            _number(request, "user"),
            blocked=blocked,
            command_id=_command_id(request),
        )
    except RuleError as exc:
        return _refused(request, refusal(exc), 422)
    except CommandIdReused:
        return _refused(request, _("this form was already used for something else; try again"), 409)
    return _done(request, {"blocked": blocked})
