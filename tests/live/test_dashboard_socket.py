"""The dashboard's socket: a show's staff hear of a new dispute at once (not
only by the page's 2 s refresh); anyone else is closed with a reason and
hears nothing."""

import random

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.models import User

from games.models import Match
from live import publisher
from live.dashboard import NOT_STAFF
from tests.helpers.sockets import socket_as
from tournaments import show_services as ss
from tournaments.models import ShowRecord

pytestmark = pytest.mark.usefixtures("live_db")


def test_the_staff_hear_of_a_new_dispute_and_no_one_else():
    olga, mia, pat = (
        User.objects.create_user(n, password="pw-123456") for n in ("olga_d", "mia_d", "pat_d")
    )
    stream = ss.create_show(
        name="Socket night",
        organizer="olga_d",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={"ana": pat.pk, "ben": "bot:heuristic"},
        rng=random.Random(2),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia_d"}, ss.Acting("olga_d", "organizer")
    )
    record = ShowRecord.objects.get(stream=stream)
    final = Match.objects.get(show_stream=stream, kind="final")
    sockets = {
        "mia": socket_as(f"/ws/shows/{record.pk}/dashboard/", mia),
        "pat": socket_as(f"/ws/shows/{record.pk}/dashboard/", pat),
        "anon": socket_as(f"/ws/shows/{record.pk}/dashboard/", None),
    }

    async def body():
        closed = {}
        for who in ("pat", "anon"):
            connected, _ = await sockets[who].connect()
            assert connected
            closed[who] = (await sockets[who].receive_output(timeout=5))["code"]
        connected, _ = await sockets["mia"].connect()
        assert connected
        assert await sockets["mia"].receive_nothing(timeout=0.2)
        await file()
        told = await sockets["mia"].receive_json_from(timeout=5)
        await sockets["mia"].disconnect()
        return closed, told

    from channels.db import database_sync_to_async

    @database_sync_to_async
    def file():
        ss.command(
            stream,
            {
                "type": "file_dispute",
                "target_stream": final.stream,
                "target_version": 2,
                "text": "x",
            },
            ss.acting_for(stream, pat),
        )
        publisher.flush()

    closed, told = async_to_sync(body)()
    assert closed == {"pat": NOT_STAFF, "anon": NOT_STAFF}
    assert told == {"type": "dispute_filed", "open": 1}  # no text, no card: the page fetches
