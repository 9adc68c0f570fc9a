"""A message as the pages and the sockets give it: plain values only (the
text is never HTML: chat.js sets it as text, the pages escape it), so a
message's markup is shown as the characters it is. A moderator's message
(``staff``) has its http and https links made links, everyone else's show
as text (``as_html`` here, chat.js the same in the browser). A message that
names its reader (``@name``) says so (``mentions_me``): a blocked person's
messages never reach whoever blocked them, so neither do their mentions."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from .models import ChatMessage

# a link: http(s)://, then anything but spaces, quotes and angle brackets;
# the punctuation that ends a sentence is not part of it
LINK = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
_TRAILING = ".,;:!?)]}"
REL = "nofollow noopener ugc"


def _link_parts(text: str):
    """(piece, is_link) in order: the links a staff message's text holds."""
    at = 0
    for found in LINK.finditer(text):
        url = found.group(0).rstrip(_TRAILING)
        start, end = found.start(), found.start() + len(url)
        try:
            parts = urlsplit(url)
            host = parts.hostname
        except ValueError:  # e.g. "http://[": not a link
            continue
        if parts.scheme.lower() not in ("http", "https") or not host:
            continue
        yield text[at:start], False
        yield url, True
        at = end
    yield text[at:], False


def as_html(message: ChatMessage) -> SafeString:
    """The text as HTML: escaped, and a staff message's links as links."""
    if not message.staff:
        return escape(message.text)
    out = [
        format_html('<a href="{}" rel="{}">{}</a>', piece, REL, piece) if is_link else escape(piece)
        for piece, is_link in _link_parts(message.text)
    ]
    return mark_safe("".join(out))  # every piece escaped above


def mentions(text: str, username: str) -> bool:
    """Whether ``text`` names ``username`` as ``@username`` (any case)."""
    name = re.escape(username)
    return re.search(rf"(?<![\w@])@{name}(?![\w@+-])(?!\.\w)", text, re.IGNORECASE) is not None


def as_json(message: ChatMessage, user=None) -> dict:
    uid = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    return {
        "id": message.id,
        "author": message.author,
        "author_id": message.author_id,
        "text": message.text,
        "at": message.at.isoformat(),
        "mine": uid == message.author_id,
        "staff": message.staff,
        "mentions_me": uid is not None
        and uid != message.author_id
        and mentions(message.text, user.username),
    }
