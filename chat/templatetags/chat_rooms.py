"""The chat panel a page shows: ``{% chat_for_match match %}`` (the table and
the spectators' page), ``{% chat_for_show show %}`` (the show page),
``{% chat_for_dashboard show %}`` (the staff room on the dashboard),
``{% chat_overlay show %}`` (the show room on a stream's overlay). Each
room its visitor may read, with its last messages; loaded by the template
engine, so the pages of lower layers show it without importing the chat."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.utils.translation import gettext_lazy

from chat import services
from chat.rooms import PLAYERS, SHOW, SPECTATORS, STAFF, rooms_of_match, rooms_of_show, show_room

register = template.Library()

TITLES = {
    PLAYERS: gettext_lazy("Players' room"),
    SPECTATORS: gettext_lazy("Spectators' room"),
    SHOW: gettext_lazy("Show room"),
    STAFF: gettext_lazy("Staff room"),
}


def _panel(context, found, socket: str = "") -> dict:
    """The panel of rooms ``found``; ``socket``: the socket the panel opens
    for its news (the pages that hold none of their own: the show's)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    rooms = [
        {
            "name": room.name,
            "title": TITLES[room.kind],
            "access": may,
            "messages": services.history(room, user, limit=100),
        }
        for room, may in found
    ]
    return {
        "rooms": rooms,
        "socket": socket,
        "me": user.pk if user is not None and user.is_authenticated else "",
        "max_chars": settings.CHAT_MAX_CHARS,
        "request": request,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("chat/_panel.html", takes_context=True)
def chat_for_match(context, match):
    request = context.get("request")
    return _panel(context, rooms_of_match(match, getattr(request, "user", None)))


@register.inclusion_tag("chat/_panel.html", takes_context=True)
def chat_for_show(context, show):
    request = context.get("request")
    found = rooms_of_show(show, getattr(request, "user", None))
    return _panel(context, found, socket=f"/ws/shows/{show.pk}/")


@register.inclusion_tag("chat/_panel.html", takes_context=True)
def chat_for_dashboard(context, show):
    """The staff room on the moderators' dashboard (its news over the
    dashboard's own socket, opened by the page)."""
    request = context.get("request")
    found = rooms_of_show(show, getattr(request, "user", None))
    return _panel(context, [(room, may) for room, may in found if room.kind == STAFF])


OVERLAY_MESSAGES = 12


@register.inclusion_tag("chat/_overlay.html")
def chat_overlay(show):
    """The show room as a stream's overlay shows it (broadcast's chat
    overlay): its newest messages as a spectator reads them, at the show's
    delay, never a hidden one (the overlay's poll drops one hidden since)."""
    from django.contrib.auth.models import AnonymousUser

    room = show_room(show, SHOW)
    return {"messages": services.history(room, AnonymousUser(), limit=OVERLAY_MESSAGES)}
