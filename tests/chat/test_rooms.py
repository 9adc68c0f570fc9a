"""The chat's rooms played by their people: who reads and writes where, the
stands never reaching a seat while the match is live, the delay, the
limits and refusals in words (English and French), a rebuild bringing the
rooms back."""

import json

import pytest
from django.test import Client, override_settings
from django.utils import translation

from chat import services
from chat.models import ChatMessage
from chat.rooms import PLAYERS, SPECTATORS, match_room, room_named
from eventlog.models import StoredEvent
from eventlog.readmodels import rebuild_all
from games import visibility
from games.core.protocol import RoleRequired, RuleError

from .conftest import make_table


def client(user=None) -> Client:
    c = Client()
    if user is not None:
        c.force_login(user)
    return c


def say(user, room_name, text, **extra):
    return client(user).post(
        f"/chat/rooms/{room_name}/post",
        {"text": text, **extra},
        HTTP_X_REQUESTED_WITH="fetch",
    )


def texts(user, room_name):
    answer = client(user).get(f"/chat/rooms/{room_name}/messages")
    return answer.status_code, [m["text"] for m in answer.json().get("messages", [])]


def test_two_seats_chat_and_the_page_shows_it(people, table):
    room = f"m{table.pk}-players"
    assert say(people["ana"], room, "good luck!").status_code == 200
    assert say(people["ben"], room, "you too").status_code == 200
    assert texts(people["ben"], room) == (200, ["good luck!", "you too"])
    page = client(people["ana"]).get(f"/games/matches/{table.pk}/").content.decode()
    assert "good luck!" in page and "you too" in page and 'aria-live="polite"' in page
    # a spectator may read the players' room but not write in it
    assert texts(people["sam"], room) == (200, ["good luck!", "you too"])
    refused = say(people["sam"], room, "psst")
    assert refused.status_code == 403 and "players" in refused.json()["message"]


def test_the_stands_never_reach_a_seat_while_the_match_is_live(people, table):
    stands = f"m{table.pk}-spectators"
    assert say(people["sam"], stands, "ana holds the princess").status_code == 200
    assert texts(people["sam"], stands) == (200, ["ana holds the princess"])
    assert texts(people["mo"], stands) == (200, ["ana holds the princess"])
    for seat in ("ana", "ben"):
        status, _ = texts(people[seat], stands)
        assert status == 403
        page = client(people[seat]).get(f"/games/matches/{table.pk}/").content.decode()
        assert "princess" not in page and f"chat-{stands}" not in page
        assert say(people[seat], stands, "hi stands").status_code == 403
    # once the match is over, the players may read the stands
    table.status = "finished"
    table.save(update_fields=["status"])
    assert texts(people["ana"], stands) == (200, ["ana holds the princess"])


def test_spectators_read_both_rooms_behind_the_delay(people, monkeypatch):
    match = make_table(people, delay=60)
    players, stands = f"m{match.pk}-players", f"m{match.pk}-spectators"
    assert say(people["ana"], players, "hello").status_code == 200
    assert say(people["mo"], stands, "welcome all").status_code == 200
    assert texts(people["sam"], players) == (200, [])  # too recent for the stands
    assert texts(people["sam"], stands) == (200, [])
    assert texts(people["ben"], players) == (200, ["hello"])  # a seat reads it live
    assert texts(people["mo"], players) == (200, ["hello"])  # so does its moderator
    later = visibility.clock() + 61
    monkeypatch.setattr(visibility, "clock", lambda: later)
    assert texts(people["sam"], players) == (200, ["hello"])
    assert texts(people["sam"], stands) == (200, ["welcome all"])


def test_another_room_or_nonsense_is_refused_in_words(people, table):
    for name in ("m999999-players", "x1-players", "m1-lobby", "m0-players", "m١-players"):
        answer = client(people["ana"]).get(f"/chat/rooms/{name}/messages")
        assert answer.status_code == 404, name
    assert client().post(f"/chat/rooms/m{table.pk}-players/post", {"text": "x"}).status_code == 403


def test_text_is_escaped_and_links_are_text(people, table):
    room = f"m{table.pk}-players"
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)> https://evil.example"
    assert say(people["ana"], room, evil).status_code == 200
    page = client(people["ben"]).get(f"/games/matches/{table.pk}/").content.decode()
    assert "<script>alert(1)" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert '<a href="https://evil' not in page
    # the JSON gives the text as text: chat.js sets it with textContent
    assert texts(people["ben"], room)[1] == [evil]


def test_a_huge_message_is_refused_and_nothing_written(people, table):
    room = f"m{table.pk}-players"
    before = StoredEvent.objects.count()
    huge = say(people["ana"], room, "x" * 1_000_000)
    assert 400 <= huge.status_code < 500
    long = say(people["ana"], room, "x" * 501)
    assert long.status_code == 422 and "500" in long.json()["message"]
    assert say(people["ana"], room, "   ").status_code == 422
    assert StoredEvent.objects.count() == before


def test_a_retry_writes_once_per_account(people, table):
    room = f"m{table.pk}-players"
    assert say(people["ana"], room, "once", command_id="abc").status_code == 200
    assert say(people["ana"], room, "once", command_id="abc").status_code == 200
    assert say(people["ben"], room, "mine", command_id="abc").status_code == 200  # ben's own id
    assert say(people["ana"], room, "other", command_id="abc").status_code == 409
    assert texts(people["ana"], room)[1] == ["once", "mine"]


def test_rate_limit_with_a_burst(people, table):
    room = f"m{table.pk}-players"
    with override_settings(CHAT_BURST=3):
        for n in range(3):
            assert say(people["ana"], room, f"m{n}").status_code == 200
        too_fast = say(people["ana"], room, "one more")
    assert too_fast.status_code == 422 and "too fast" in too_fast.json()["message"]
    assert say(people["ben"], room, "ben is not limited by ana").status_code == 200


def test_a_new_account_reads_but_does_not_write(people, table):
    room = f"m{table.pk}-players"
    with override_settings(CHAT_NEW_ACCOUNT_WAIT_S=600):
        refused = say(people["ana"], room, "first!")
        assert refused.status_code == 422 and "new account" in refused.json()["message"]
        assert texts(people["ana"], room) == (200, [])
        with translation.override("fr"):
            c = client(people["ana"])
            c.cookies["django_language"] = "fr"
            fr = c.post(f"/chat/rooms/{room}/post", {"text": "x"}, HTTP_X_REQUESTED_WITH="fetch")
        assert "nouveau compte" in fr.json()["message"]


def test_refusals_in_french(people, table):
    c = client(people["sam"])
    c.cookies["django_language"] = "fr"
    answer = c.post(
        f"/chat/rooms/m{table.pk}-players/post", {"text": "x"}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert answer.status_code == 403
    assert "joueurs" in answer.json()["message"]
    page = client(people["ana"])
    page.cookies["django_language"] = "fr"
    assert "Salon des joueurs" in page.get(f"/games/matches/{table.pk}/").content.decode()


def test_blocking_hides_a_person_everywhere(people, table):
    room = f"m{table.pk}-players"
    say(people["ben"], room, "annoying")
    say(people["ana"], room, "fine")
    blocked = client(people["ana"]).post(
        "/chat/block", {"user": people["ben"].pk}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert blocked.status_code == 200
    assert texts(people["ana"], room)[1] == ["fine"]
    assert texts(people["sam"], room)[1] == ["annoying", "fine"]  # for ana only
    other = make_table(people)
    say(people["ben"], f"m{other.pk}-players", "again")
    assert texts(people["ana"], f"m{other.pk}-players")[1] == []


def test_a_rebuild_brings_the_rooms_back(people, table):
    room = f"m{table.pk}-players"
    say(people["ana"], room, "kept")
    say(people["ben"], room, "also kept")
    client(people["ana"]).post("/chat/block", {"user": people["ben"].pk})
    before = list(ChatMessage.objects.values_list("id", "text", "author_id"))
    rebuild_all()
    assert list(ChatMessage.objects.values_list("id", "text", "author_id")) == before
    assert texts(people["ana"], room)[1] == ["kept"]
    stored = StoredEvent.objects.filter(stream=f"chat-{room}", type="chat_message")
    assert [e.data["author_id"] for e in stored] == [people["ana"].pk, people["ben"].pk]


def test_the_service_refuses_the_wrong_role(people, table):
    stands = match_room(table, SPECTATORS)
    with pytest.raises(RoleRequired):
        services.post(stands, people["ana"], "hi")
    with pytest.raises(RoleRequired):
        services.post(match_room(table, PLAYERS), people["sam"], "hi")
    with pytest.raises(RuleError):
        room_named("m1-staff")
    assert json.dumps(room_named(f"m{table.pk}-players").name)
