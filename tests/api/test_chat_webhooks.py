"""A show room forwarded by a webhook (the kind "chat", issue #44): each
message of the show room goes out at the spectators' delay (even to the
organizer's live endpoint), one hidden before it is due is withdrawn and
never sent, nothing of the staff room; the body carries the text as text
(JSON), and to Discord as typed (markdown escaped, no mention pings)."""

import json
import time

import pytest
from django.contrib.auth.models import User

from chat import services as chat
from chat.rooms import SHOW, STAFF, show_room
from hooks import outbox
from hooks.models import DEFAULT_KINDS, KINDS, WebhookDelivery, WebhookEndpoint
from tournaments.models import ShowRecord

from .test_hooks_outbox import _follow_once, _show

XSS = "<script>alert(1)</script> @everyone **bold** [x](https://evil.example)"


@pytest.mark.usefixtures("committed_db")
def test_a_show_room_goes_to_discord_at_the_delay_and_a_hidden_message_never(receiver):
    stream, olga = _show(delay=60)
    record = ShowRecord.objects.get(stream=stream)
    sam = User.objects.create_user("sam")
    hooks = {
        fmt: WebhookEndpoint.objects.create(
            show_stream=stream,
            url=receiver.url,
            kinds=["chat"],
            format=fmt,
            secret="k" * 64,
            owner_id=olga.pk,
            live=True,  # the organizer's live endpoint: the chat still waits for the delay
        )
        for fmt in ("discord", "json")
    }
    room = show_room(record, SHOW)
    shown = chat.post(room, sam, XSS)
    spam = chat.post(room, sam, "buy cheap chips")
    chat.post(show_room(record, STAFF), olga, "staff only: ana cheats?")
    _follow_once()
    written = WebhookDelivery.objects.order_by("id")
    assert written.count() == 4  # the show room's two, for each endpoint; nothing of the staff's
    assert "staff only" not in "".join(d.body for d in written)
    for delivery in written:
        assert delivery.due_at.timestamp() >= shown.recorded_at.timestamp() + 59
    assert outbox.sweep(time.time())[0] == 0 and receiver.got == []  # behind the delay
    chat.hide(room, olga, spam.id, "spam")
    outbox.sweep(time.time() + 61)
    bodies = [json.loads(body) for _h, body in receiver.got]
    assert len(bodies) == 2 and "buy cheap chips" not in str(bodies)
    assert set(
        written.filter(stream=room.stream, version=spam.version).values_list("status", flat=True)
    ) == {"withdrawn"}
    discord = next(b for b in bodies if "content" in b)
    assert discord["allowed_mentions"] == {"parse": []}
    assert "\\*\\*bold\\*\\*" in discord["content"] and "\\@everyone" in discord["content"]
    assert "<script>" not in discord["content"]
    plain = next(b for b in bodies if "content" not in b)
    assert plain["message"] == XSS and plain["kind"] == "chat" and plain["author"] == "sam"
    assert "discord" not in plain
    # a withdrawn delivery is no failure of the endpoint
    assert {h.consecutive_failures for h in WebhookEndpoint.objects.all()} == {0}
    assert all(
        h.active for h in WebhookEndpoint.objects.filter(pk__in=[h.pk for h in hooks.values()])
    )


def test_the_chat_is_asked_for_by_name():
    assert "chat" in KINDS and "chat" not in DEFAULT_KINDS
