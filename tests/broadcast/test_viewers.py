"""Viewer counts from the open spectator sockets, with the in-memory channel
layer as with Redis: a socket counts while it is open, on its match and on
its show; seats and moderators do not count; a dead process's rows expire."""

import random
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from django.contrib.auth.models import User
from django.test import Client
from django.utils import timezone

from broadcast import viewers
from broadcast.models import Watcher
from games import services
from tests.helpers.sockets import cookie, socket

pytestmark = pytest.mark.usefixtures("committed_db")


def test_open_spectator_sockets_are_counted_on_the_match_and_the_show(make_live_show):
    record, match, _olga, _t0 = make_live_show(delay=0)
    ana = User.objects.create_user("ana-player", password="pw-123456")
    seated = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": "bot:heuristic"},
        rng=random.Random(1),
    )

    ana_cookie = cookie(ana)

    async def watch():
        one, two = socket(match.pk), socket(match.pk)
        player = socket(seated.pk, ana_cookie)
        for s in (one, two, player):
            connected, _ = await s.connect()
            assert connected
            # the accept comes before the socket is counted; a consumer takes
            # its messages in turn, so an answer means its connect() ended
            await s.send_json_to({"since": 0})
            assert "version" in await s.receive_json_from(timeout=10)
        count = database_sync_to_async(viewers.match_count)
        counted = await count(match.pk), await count(seated.pk)
        shown = await database_sync_to_async(viewers.show_counts)(record.stream)
        await one.disconnect()
        after = await count(match.pk)
        await two.disconnect()
        await player.disconnect()
        return counted, shown, after

    counted, shown, after = async_to_sync(watch)()
    assert counted == (2, 0)  # a seated player is no spectator
    assert shown == (2, {match.pk: 2})
    assert after == 1
    assert viewers.match_count(match.pk) == 0

    board = Client().get(f"/shows/{record.pk}/board/").content.decode()
    assert "0 spectators watching" in board


def test_rows_not_refreshed_stop_counting_and_are_swept(make_live_show):
    record, match, _olga, _t0 = make_live_show(delay=0, moves=0)
    old = timezone.now() - timedelta(seconds=viewers.STALE_S + 1)
    Watcher.objects.create(
        channel_name="gone", match_id=match.pk, show_stream=record.stream, seen_at=old
    )
    Watcher.objects.create(
        channel_name="here", match_id=match.pk, show_stream=record.stream, seen_at=timezone.now()
    )
    assert viewers.match_count(match.pk) == 1
    assert viewers.show_counts(record.stream) == (1, {match.pk: 1})
    viewers._refresh(["here"])
    assert list(Watcher.objects.values_list("channel_name", flat=True)) == ["here"]
    board = Client().get(f"/shows/{record.pk}/board/").content.decode()
    assert "1 spectator watching" in board
