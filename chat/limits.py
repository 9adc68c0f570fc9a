"""The chat's flood guard: how many messages one account, and one room, may
take in a short window, counted atomically in the cache (Redis in
production, shared by every process), so that a thousand messages sent at
once from one account or from many meet the limit exactly, not each after
its own read of the log (the services' own count of the log stays behind
it: the cache away, the guard lets through and that count still holds).

Settings (as the services' counts): CHAT_BURST messages per account per
CHAT_BURST_WINDOW_S seconds, CHAT_ROOM_RATE messages per room per
CHAT_ROOM_RATE_WINDOW_S (its moderators are never refused)."""

from __future__ import annotations

import logging
from contextlib import contextmanager

from django.conf import settings
from django.core.cache import caches
from django.utils.translation import gettext_noop

from games.core.protocol import RuleError

from .rooms import moderates

log = logging.getLogger(__name__)

ROOM_BUSY = gettext_noop("this room is too busy right now: wait a few seconds and send it again")


def counts():
    """The cache the counts are kept in (the tests give each its own)."""
    return caches["default"]


def _over(key: str, limit: int, window: float) -> bool:
    """Count one more under ``key`` for ``window`` seconds: over ``limit``?"""
    store = counts()
    try:
        store.add(key, 0, timeout=max(1, int(window)))
        try:
            n = store.incr(key)
        except ValueError:  # gone since (its window ended): this one opens the next
            store.add(key, 1, timeout=max(1, int(window)))
            n = 1
    except Exception as exc:  # the cache away (Redis restarting): the log's count holds
        log.warning("chat flood guard not counted (%s)", type(exc).__name__)
        return False
    return n > limit


def guard_account(user) -> None:
    """Refused in words when ``user`` writes too fast (in any room)."""
    burst = int(getattr(settings, "CHAT_BURST", 5))
    window = float(getattr(settings, "CHAT_BURST_WINDOW_S", 10))
    if _over(f"chat-flood:u{user.pk}", burst, window):
        raise RuleError(gettext_noop("you are writing too fast: wait a few seconds"))


def guard_room(room, user) -> None:
    """Refused in words when ``room`` takes too many messages at once (from
    anyone but its moderators: they still speak in a flood). Before any
    other read: a flood's refusals cost the cache's count alone."""
    limit = int(getattr(settings, "CHAT_ROOM_RATE", 30))
    span = float(getattr(settings, "CHAT_ROOM_RATE_WINDOW_S", 10))
    if _over(f"chat-flood:{room.stream}", limit, span) and not moderates(room, user):
        raise RuleError(ROOM_BUSY)


def _refund(key: str) -> None:
    try:
        counts().decr(key)
    except Exception:  # gone (its window ended) or the cache away: nothing to give back
        pass


@contextmanager
def counted(room, user):
    """Both guards on entry; a message refused (or not written) inside is
    given back, so only what is written counts, as in the log's own count."""
    guard_account(user)
    try:
        guard_room(room, user)
    except Exception:
        _refund(f"chat-flood:u{user.pk}")
        raise
    try:
        yield
    except Exception:
        _refund(f"chat-flood:u{user.pk}")
        _refund(f"chat-flood:{room.stream}")
        raise
