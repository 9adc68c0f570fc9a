"""A player's reminders: the choices page, the header's badge, push
subscriptions from the browser, the service worker, and the calendar feeds
(the player's own, and each show's public one)."""

from __future__ import annotations

import base64
import binascii
from pathlib import Path

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db import IntegrityError, transaction
from django.http import Http404, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from api.parsers import BoundedJSONError, parse_bounded_json
from eventlog.commands import BadCommandId, command_args, once
from eventlog.store import CommandIdReused
from games.core.protocol import RuleError
from games.engine_words import refusal
from tournaments.models import ShowRecord
from tournaments.words import FORM_REUSED

from . import calendars, push
from .forms import ReminderForm
from .models import DEFAULT_CHANNELS, SITE, PushSubscription, Reminder, ReminderSettings, new_nonce
from .words import text, title

MAX_SUBSCRIPTIONS = 10  # browsers one player may receive push reminders in


def _prefs(user) -> ReminderSettings:
    return ReminderSettings.objects.get_or_create(
        user=user, defaults={"channels": {k: list(v) for k, v in DEFAULT_CHANNELS.items()}}
    )[0]


def shown(reminders) -> list[dict]:
    return [
        {"title": title(r.kind), "text": text(r.kind, r.params), "url": r.url, "at": r.created_at}
        for r in reminders
    ]


@login_required
def settings_page(request):
    prefs = _prefs(request.user)
    form = ReminderForm(
        request.POST or None,
        channels=prefs.channels,
        initial={"time_zone": prefs.time_zone},
    )
    if request.method == "POST" and form.is_valid():
        prefs.channels = form.channels()
        prefs.time_zone = form.cleaned_data["time_zone"]
        prefs.save(update_fields=["channels", "time_zone"])
        messages.success(request, _("Your reminder choices are saved."))
        return redirect("reminders:settings")
    recent = Reminder.objects.filter(user=request.user, channel=SITE)[:20]
    link = request.build_absolute_uri(
        reverse("reminders:calendar", args=[calendars.token_for(prefs)])
    )
    return render(
        request,
        "reminders/settings.html",
        {
            "form": form,
            "recent": shown(recent),
            "calendar_link": link,
            "vapid_public_key": push.public_key(),
            "browsers": PushSubscription.objects.filter(user=request.user).count(),
            "has_email": bool(request.user.email),
        },
        status=400 if form.errors else 200,
    )


@login_required
@require_POST
def seen(request):
    Reminder.objects.filter(user=request.user, channel=SITE, seen=False).update(seen=True)
    back = request.POST.get("next", "")
    if not (back.startswith("/") and _same_site(request, back)):
        back = reverse("reminders:settings")  # another site, a script, a view's name: no
    return HttpResponseRedirect(back)


def _same_site(request, url: str) -> bool:
    return url_has_allowed_host_and_scheme(
        url, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    )


def badge(request):
    """The header's reminders alone, which every page re-asks now and then."""
    return render(request, "_reminders.html")


@login_required
@require_POST
def new_calendar_link(request):
    prefs = _prefs(request.user)

    def renew() -> dict:
        prefs.calendar_nonce = new_nonce()
        prefs.save(update_fields=["calendar_nonce"])
        return {}

    try:  # a resent form (a double click) makes one new link, not two
        once("calendar-link", {"user": request.user.pk}, renew, **command_args(request))
    except (CommandIdReused, RuleError, BadCommandId) as exc:  # reused, or not an id at all
        messages.error(request, FORM_REUSED if isinstance(exc, CommandIdReused) else refusal(exc))
        return redirect("reminders:settings")
    messages.success(request, _("Your calendar has a new link; the old one no longer works."))
    return redirect("reminders:settings")


def calendar(request, token):
    user = calendars.user_for(token)
    if user is None:
        raise Http404(_("no calendar has this link (a new one may have replaced it)"))
    cal = calendars.show_events(
        calendars.player_shows(user), request, name=f"Showtable: {user.username}"
    )
    return calendars.calendar_response(cal, "showtable.ics")


def show_calendar(request, pk):
    """The show's iCalendar feed: its start (and check-in window), public."""
    record = get_object_or_404(ShowRecord, pk=pk)
    cal = calendars.show_events([record], request)
    return calendars.calendar_response(cal, f"show-{record.pk}.ics")


def _key(value, size: int, what: str) -> str:
    if not isinstance(value, str) or len(value) > 200:
        raise ValueError(f"{what} is missing")
    try:
        raw = base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise ValueError(f"{what} is not base64url") from None
    if len(raw) != size or (size == 65 and raw[0] != 4):
        raise ValueError(f"{what} is not a key of the right kind")
    return value


def _subscription(raw: bytes) -> tuple[str, str, str]:
    """endpoint, p256dh and auth from PushManager.subscribe()'s JSON;
    ValueError (a BoundedJSONError with its code) in words if not."""
    body = parse_bounded_json(raw or b"null")
    if not isinstance(body, dict) or not isinstance(body.get("keys"), dict):
        raise ValueError("send the subscription: endpoint and keys")
    endpoint = body.get("endpoint")
    push.check_endpoint(endpoint)
    p256dh = _key(body["keys"].get("p256dh"), 65, "p256dh")
    auth = _key(body["keys"].get("auth"), 16, "auth")
    return endpoint, p256dh, auth


def _refused(code: str, message: str, status: int = 400) -> JsonResponse:
    return JsonResponse({"code": code, "message": message}, status=status)


TAKEN = "this browser receives another account's push reminders: turn them off there first"


@login_required
@require_POST
def subscribe(request):
    """Store this browser's push subscription (PushManager.subscribe()'s JSON).
    An endpoint another account holds stays theirs: refused, nothing written."""
    try:
        endpoint, p256dh, auth = _subscription(request.body)
    except BoundedJSONError as exc:
        return _refused(exc.code, str(exc), 413 if exc.code == "too_large" else 400)
    except ValueError as exc:
        return _refused("invalid", str(exc))
    if PushSubscription.objects.filter(endpoint=endpoint).exclude(user=request.user).exists():
        return _refused("taken", TAKEN, 409)
    mine = PushSubscription.objects.filter(user=request.user)
    if not mine.filter(endpoint=endpoint).exists() and mine.count() >= MAX_SUBSCRIPTIONS:
        return _refused("invalid", f"at most {MAX_SUBSCRIPTIONS} browsers")
    try:
        with transaction.atomic():
            PushSubscription.objects.update_or_create(
                endpoint=endpoint,
                user=request.user,
                defaults={"p256dh": p256dh, "auth": auth},
            )
    except IntegrityError:  # another account stored it meanwhile
        return _refused("taken", TAKEN, 409)
    return JsonResponse({"ok": True, "browsers": mine.count()}, status=201)


@login_required
@require_POST
def unsubscribe(request):
    PushSubscription.objects.filter(user=request.user).delete()
    messages.success(request, _("No browser receives your push reminders any more."))
    return redirect("reminders:settings")


SERVICE_WORKER = Path(settings.BASE_DIR) / "static" / "js" / "sw.js"


def service_worker(request):
    """The push service worker, served at the site's root so it may show every page."""
    response = HttpResponse(SERVICE_WORKER.read_bytes(), content_type="application/javascript")
    response["Service-Worker-Allowed"] = "/"
    response["Cache-Control"] = "no-cache"
    return response
