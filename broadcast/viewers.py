"""Viewer counts: the spectator sockets open on each match, whatever the
channel layer (in memory or Redis). A socket is a row; its process refreshes
the rows of its own sockets now and then, so the rows of a process that died
stop counting after ``STALE_S`` and are swept."""

from __future__ import annotations

import asyncio
import logging
from datetime import timedelta

from channels.db import database_sync_to_async
from django.db.models import Count
from django.utils import timezone

from games.core.protocol import SPECTATOR_VIEW

from .models import Watcher

log = logging.getLogger(__name__)

REFRESH_S = 30.0
STALE_S = 90.0

_mine: set[str] = set()  # channel names of this process's spectator sockets
_keepers: dict[asyncio.AbstractEventLoop, asyncio.Task] = {}


def _add(channel_name: str, match_pk: int) -> None:
    from games.models import Match

    show_stream = Match.objects.filter(pk=match_pk).values_list("show_stream", flat=True).first()
    Watcher.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "match_id": match_pk,
            "show_stream": show_stream or "",
            "seen_at": timezone.now(),
        },
    )


def _remove(channel_name: str) -> None:
    Watcher.objects.filter(channel_name=channel_name).delete()


def _refresh(names: list[str]) -> None:
    now = timezone.now()
    Watcher.objects.filter(channel_name__in=names).update(seen_at=now)
    Watcher.objects.filter(seen_at__lt=now - timedelta(seconds=STALE_S)).delete()


async def joined(consumer) -> None:
    """A socket was accepted: count it if its viewer is a spectator."""
    viewer = getattr(consumer, "viewer", None)
    if viewer is None or viewer.kind != SPECTATOR_VIEW.kind:
        return
    try:
        await database_sync_to_async(_add)(consumer.channel_name, int(consumer.pk))
    except Exception as exc:  # the database away: the socket works, uncounted
        log.warning("socket of match %s not counted (%s)", consumer.pk, type(exc).__name__)
        return
    _mine.add(consumer.channel_name)
    loop = asyncio.get_running_loop()
    if loop not in _keepers or _keepers[loop].done():
        _keepers[loop] = loop.create_task(_keep())


async def left(consumer) -> None:
    """A socket closed (or was refused): it no longer counts."""
    name = getattr(consumer, "channel_name", None)
    if name is None or name not in _mine:
        return
    _mine.discard(name)
    try:
        await database_sync_to_async(_remove)(name)
    except Exception as exc:  # the database away: the row expires by itself
        log.warning("socket %s not uncounted (%s)", name, type(exc).__name__)


async def _keep() -> None:
    """Refresh this process's rows while it has sockets open."""
    while _mine:
        await asyncio.sleep(REFRESH_S)
        try:
            await database_sync_to_async(_refresh)(sorted(_mine))
        except Exception:  # the database away: the next round refreshes them
            continue


def _live(queryset):
    return queryset.filter(seen_at__gte=timezone.now() - timedelta(seconds=STALE_S))


def match_count(match_pk: int) -> int:
    return _live(Watcher.objects.filter(match_id=match_pk)).count()


def show_counts(show_stream: str) -> tuple[int, dict[int, int]]:
    """(spectators of the show's matches in all, spectators of each match)."""
    rows = (
        _live(Watcher.objects.filter(show_stream=show_stream))
        .values("match_id")
        .annotate(n=Count("id"))
    )
    per_match = {r["match_id"]: r["n"] for r in rows}
    return sum(per_match.values()), per_match
