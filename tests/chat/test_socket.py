"""The chat over the match socket the table page already holds: two seats
chat; the stands never reach a seat's socket while the match is live but
reach the other spectators; a hidden message is dropped from every open
socket; a socket asking for another match's room, or a role it lacks, is
refused in words and nothing is written."""

import asyncio

import pytest
from django.test import Client

from chat.models import ChatMessage
from tests.helpers.sockets import chat_news, opened, say, session, socket

from .conftest import make_table

pytestmark = pytest.mark.usefixtures("committed_db")


async def until(comm, text) -> list[dict]:
    """The chat messages on the socket up to one carrying ``text``."""
    seen = []
    while True:
        seen.append(await chat_news(comm))
        if text in [m["text"] for m in seen[-1].get("messages", [])]:
            return seen


def test_two_seats_chat_and_the_stands_never_reach_a_seat(people):
    match = make_table(people)
    players, stands = f"m{match.pk}-players", f"m{match.pk}-spectators"
    cookies = {n: session(people[n], match) for n in ("ana", "ben", "sam")}

    async def play():
        ana, ben, sam = (socket(match.pk, cookies[n]) for n in ("ana", "ben", "sam"))
        for comm in (ana, ben, sam):
            await opened(comm)
        ack = await say(ana, players, "<b>hi</b> ben", "a1")
        assert ack["type"] == "chat_ack" and ack["message"]["text"] == "<b>hi</b> ben"
        got = await chat_news(ben)
        assert got["room"] == players and [m["text"] for m in got["messages"]] == ["<b>hi</b> ben"]
        got = await chat_news(sam)  # the stands read the players' room (no delay here)
        assert [m["text"] for m in got["messages"]] == ["<b>hi</b> ben"]
        # the stands write: a spectator reads it, a seat never
        assert (await say(sam, stands, "ben holds the prince", "s1"))["type"] == "chat_ack"
        ack = await say(ben, players, "thanks", "b1")
        assert ack["type"] == "chat_ack"
        # all ana gets up to ben's thanks is of the players' room: nothing of the stands
        assert {got["room"] for got in await until(ana, "thanks")} == {players}
        assert "ben holds the prince" in [
            m["text"] for m in (await until(sam, "thanks"))[0]["messages"]
        ]
        # a seat asking for the stands, or another match's room, is refused in words
        refused = await say(ana, stands, "hello stands", "a2")
        assert refused["type"] == "refused" and refused["code"] == "permission_denied"
        refused = await say(ana, f"m{match.pk + 1000}-players", "elsewhere", "a3")
        assert refused["type"] == "refused" and "own match" in refused["message"]
        await ana.send_json_to({"chat": {"since": {stands: 0, players: 0}}})
        got = await chat_news(ana)
        assert got["room"] == players  # the catch-up brings the players' room alone
        for comm in (ana, ben, sam):
            await comm.disconnect()

    asyncio.run(play())
    texts = list(ChatMessage.objects.order_by("id").values_list("text", flat=True))
    assert texts == ["<b>hi</b> ben", "ben holds the prince", "thanks"]


def test_a_hidden_message_vanishes_from_open_sockets(people):
    match = make_table(people)
    stands = f"m{match.pk}-spectators"
    mod = Client()
    mod.force_login(people["mo"])
    cookie = session(people["sam"], match)

    async def play():
        sam = socket(match.pk, cookie)
        await opened(sam)
        ack = await say(sam, stands, "spam spam", "s1")
        message_id = ack["message"]["id"]

        def hide():
            return mod.post(
                f"/chat/rooms/{stands}/hide",
                {"message": message_id, "reason": "spam"},
                HTTP_X_REQUESTED_WITH="fetch",
            )

        from channels.db import database_sync_to_async

        assert (await database_sync_to_async(hide)()).status_code == 200
        while True:
            got = await chat_news(sam)
            if got.get("hidden"):
                break
        assert got["hidden"] == [message_id]
        await sam.disconnect()

    asyncio.run(play())
    page = Client().get(f"/chat/rooms/{stands}/messages").json()
    assert page["messages"] == []
