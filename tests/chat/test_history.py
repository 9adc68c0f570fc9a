"""The history (issue #44): a page loads a room's last 100 messages, the
older ones come on request (the panel's "Older messages": ``before=`` the
oldest shown), a hundred at a time, until there are none."""

import re

import pytest
from django.test import Client, override_settings

from chat import services as chat
from chat.rooms import SHOW, show_room

from .test_show_room import make_show


@pytest.mark.django_db
@override_settings(CHAT_BURST=1000, CHAT_ROOM_RATE=1000)
def test_the_page_loads_the_last_hundred_and_the_older_ones_come_on_request():
    people, show, _match = make_show()
    room = show_room(show, SHOW)
    ids = [chat.post(room, people["sam"], f"message {n}").id for n in range(105)]
    c = Client()
    c.force_login(people["cal"])
    page = c.get(f"/shows/{show.pk}/").content.decode()
    shown = [int(i) for i in re.findall(r'<li class="chat-message" data-id="(\d+)"', page)]
    assert shown == ids[5:]  # the newest hundred, oldest first
    assert "Older messages" in page
    older = c.get(f"/chat/rooms/{room.name}/messages", {"before": shown[0]}).json()
    assert [m["id"] for m in older["messages"]] == ids[:5]
    assert c.get(f"/chat/rooms/{room.name}/messages", {"before": ids[0]}).json()["messages"] == []
