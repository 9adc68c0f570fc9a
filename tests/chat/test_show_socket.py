"""The show's chat over sockets (issue #44): the show page's socket
(ws/shows/<pk>/) carries the show room to everyone who may read it and the
staff room to its staff alone; the dashboard's socket carries the staff
room and says when a message is reported. The role is asked on every push:
a moderator removed from the show, or timed out of the staff room, gets
nothing more of it at once; a seat of a live match of the show gets only
the staff's messages in the show room; a socket asking for another show's
room, or a match's, is refused in words and nothing is written."""

import asyncio

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth.models import User

from chat import services as chat
from chat.models import ChatMessage
from chat.rooms import STAFF, show_room
from tests.helpers.sockets import chat_news, say, socket_as
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowRecord

from .test_show_room import SPOILER, make_show

pytestmark = pytest.mark.usefixtures("committed_db")


async def texts_until(comm, *texts) -> list[str]:
    """Every message text pushed to ``comm`` until each of ``texts`` came."""
    seen: list[str] = []
    while not set(texts) <= set(seen):
        msg = await chat_news(comm)
        seen += [m["text"] for m in msg.get("messages", [])]
    return seen


def test_the_show_socket_carries_each_room_to_whoever_may_read_it():
    people, show, match = make_show()
    room, staff = f"s{show.pk}-show", f"s{show.pk}-staff"
    path = f"/ws/shows/{show.pk}/"

    socks = {n: socket_as(path, people[n]) for n in ("sam", "ana", "mia", "olga")}
    socks["anon"] = socket_as(path)

    async def play():
        for comm in socks.values():
            assert (await comm.connect())[0]
        ack = await say(socks["sam"], room, SPOILER, "s1")
        assert ack["type"] == "chat_ack" and ack["message"]["text"] == SPOILER
        # the staff room, written over the moderator's socket
        assert (await say(socks["mia"], staff, "ana looks tired", "m1"))["type"] == "chat_ack"
        assert (await say(socks["mia"], room, "round 1 has begun", "m2"))["type"] == "chat_ack"
        # both rooms, each in its order (a push may carry several of a room's
        # messages, so the two rooms' pushes may come in either order)
        seen = await texts_until(socks["olga"], "round 1 has begun", "ana looks tired")
        assert sorted(seen) == sorted([SPOILER, "ana looks tired", "round 1 has begun"])
        assert seen.index(SPOILER) < seen.index("round 1 has begun")
        # a spectator and a visitor: the show room, never the staff room
        for who in ("sam", "anon"):
            seen = await texts_until(socks[who], "round 1 has begun")
            assert "ana looks tired" not in seen and SPOILER in seen
        # a seat of a live match: the staff's messages only (not even a hidden id)
        seen = await texts_until(socks["ana"], "round 1 has begun")
        assert seen == ["round 1 has begun"]
        # rooms it may not write in, or of another show, or of a match: refused in words
        refused = await say(socks["sam"], staff, "let me in", "s2")
        assert refused["type"] == "refused" and refused["code"] == "permission_denied"
        for name in (f"s{show.pk + 1}-show", f"m{match.pk}-spectators", "s1-show-x", 7):
            refused = await say(socks["sam"], name, "elsewhere", f"s-{name}")
            assert refused["type"] == "refused" and "own show's rooms" in refused["message"]
        refused = await say(socks["anon"], room, "hello", "x1")
        assert refused["type"] == "refused" and "log in" in refused["message"]
        # a catch-up asks only for its own rooms: another show's brings nothing
        await socks["sam"].send_json_to({"chat": {"since": {f"s{show.pk + 1}-show": 0}}})
        assert await socks["sam"].receive_nothing(timeout=0.3)
        for comm in socks.values():
            await comm.disconnect()

    asyncio.run(play())
    assert list(ChatMessage.objects.order_by("id").values_list("text", flat=True)) == [
        SPOILER,
        "ana looks tired",
        "round 1 has begun",
    ]


def test_a_moderator_removed_or_timed_out_stops_receiving_the_staff_room_at_once():
    people, show, _ = make_show()
    olga = ss.Acting("olga", shows.ORGANIZER, people["olga"].pk)
    people["kim"] = User.objects.create_user("kim", password="pw-123456", is_staff=True)

    @database_sync_to_async
    def write(who, text):
        return chat.post(show_room(ShowRecord.objects.get(pk=show.pk), STAFF), people[who], text)

    @database_sync_to_async
    def remove_mia():
        ss.command(
            show.stream, {"type": "remove_moderator", "username": "mia", "reason": "x"}, olga
        )

    @database_sync_to_async
    def time_out_olga():
        room = show_room(ShowRecord.objects.get(pk=show.pk), STAFF)
        chat.time_out(room, people["mia"], people["olga"].pk, "1h")

    mia = socket_as(f"/ws/shows/{show.pk}/", people["mia"])
    olga_dash = socket_as(f"/ws/shows/{show.pk}/dashboard/", people["olga"])

    async def play():
        for comm in (mia, olga_dash):
            assert (await comm.connect())[0]
        await write("olga", "first")
        assert await texts_until(mia, "first") == ["first"]
        assert await texts_until(olga_dash, "first") == ["first"]
        # olga, timed out of the staff room by mia: nothing more of it on her dashboard
        await time_out_olga()
        await write("mia", "after the timeout")
        assert await texts_until(mia, "after the timeout") == ["after the timeout"]
        assert await olga_dash.receive_nothing(timeout=0.5)
        # mia, removed from the show's moderators: nothing more of it on her socket
        await remove_mia()
        await write("kim", "after the removal")
        await asyncio.sleep(0.3)
        while not await mia.receive_nothing(timeout=0.3):
            msg = await mia.receive_json_from()
            assert "after the removal" not in str(msg)
        for comm in (mia, olga_dash):
            await comm.disconnect()

    asyncio.run(play())


def test_the_dashboard_is_told_of_a_report_and_anyone_else_of_nothing():
    people, show, match = make_show()
    room = f"s{show.pk}-show"

    @database_sync_to_async
    def report(room_name, text):
        row = chat.post(chat_room(room_name), people["sam"], text)
        chat.report(chat_room(room_name), people["cal"], row.id, "rude")

    def chat_room(name):
        from chat.rooms import room_named

        return room_named(name)

    mia = socket_as(f"/ws/shows/{show.pk}/dashboard/", people["mia"])
    sam = socket_as(f"/ws/shows/{show.pk}/dashboard/", people["sam"])

    async def play():
        assert (await mia.connect())[0] and (await sam.connect())[0]
        assert (await sam.receive_output(timeout=5))["code"] == 4403
        await report(room, "you all play badly")
        while (msg := await mia.receive_json_from(timeout=10))["type"] != "chat_reported":
            assert msg["type"] == "chat"  # only the staff room's news, here none
        assert msg == {"type": "chat_reported"}  # nothing of the message itself
        await report(f"m{match.pk}-spectators", "and you too")  # a match's room of the show
        while (msg := await mia.receive_json_from(timeout=10))["type"] != "chat_reported":
            pass
        await mia.disconnect()

    asyncio.run(play())


def test_a_socket_of_no_such_show_is_closed():
    async def play():
        comm = socket_as("/ws/shows/999999/")
        assert (await comm.connect())[0]
        return (await comm.receive_output(timeout=15))["code"]

    assert asyncio.run(play()) == 4404
