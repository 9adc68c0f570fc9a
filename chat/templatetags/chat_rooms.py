"""The chat panel a page shows: ``{% chat_for_match match %}`` (the table and
the spectators' page), ``{% chat_for_show show %}`` (the show page),
``{% chat_for_dashboard show %}`` (the staff room on the dashboard),
``{% chat_overlay show %}`` (the show room on a stream's overlay). Each
room its visitor may read, with its last messages, whether it is closed,
and for its moderators the room's controls (slow mode, closing, the
timeouts of the show's rooms; in the staff room, the show's word list);
loaded by the template engine, so the pages of lower layers show it
without importing the chat."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.utils.translation import gettext_lazy

from chat import services
from chat.present import as_html, mentions
from chat.rooms import (
    PLAYERS,
    SHOW,
    SPECTATORS,
    STAFF,
    access,
    rooms_of_match,
    rooms_of_show,
    show_of_room,
    show_room,
)

register = template.Library()

TITLES = {
    PLAYERS: gettext_lazy("Players' room"),
    SPECTATORS: gettext_lazy("Spectators' room"),
    SHOW: gettext_lazy("Show room"),
    STAFF: gettext_lazy("Staff room"),
}
SLOW_CHOICES = (0, 5, 10, 30, 60, 120)


def _room(room, may, user) -> dict:
    state = services.room_state(room)
    entry = {
        "name": room.name,
        "title": TITLES[room.kind],
        "access": may,
        "messages": services.history(room, user, limit=100),
        "closed": state.closed,
        "may_write": may.write and (may.moderate or not state.closed),
    }
    if may.moderate:
        show = show_of_room(room)
        wide = show is not None and access(show_room(show, SHOW), user).moderate
        choices = sorted({*SLOW_CHOICES, state.slow_s})  # one set by the API shows too
        entry.update(slow_s=state.slow_s, slow_choices=choices, show_wide=wide)
        if room.kind == STAFF and wide:  # the word list: its moderators only
            entry.update(show_pk=show.pk, words_text="\n".join(services.show_words(show)))
    return entry


def _panel(context, found, socket: str = "") -> dict:
    """The panel of rooms ``found``; ``socket``: the socket the panel opens
    for its news (the pages that hold none of their own: the show's)."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return {
        "rooms": [_room(room, may, user) for room, may in found],
        "socket": socket,
        "me": user.pk if user is not None and user.is_authenticated else "",
        "me_name": user.username if user is not None and user.is_authenticated else "",
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


@register.filter
def chat_html(message):
    """A message's text as HTML: escaped; a moderator's links as links."""
    return as_html(message)


@register.filter
def chat_mentions(message, username) -> bool:
    """Whether ``message`` names ``username`` (not their own)."""
    return bool(username) and message.author != username and mentions(message.text, username)
