"""The show room never carries the stands to a seat (issue #44): while
someone sits in a live match of the show, a message of anyone but the show's
staff written since that match began reaches them nowhere (page, API, the
room's JSON, the socket, not even a hidden id), their own still do, a
moderator's at once; once the match is over they read it all. The staff
room stays the staff's, the spectators' room rule holds."""

import asyncio
import random

import pytest
from django.contrib.auth.models import User
from django.test import Client

from chat import services as chat
from chat.rooms import SHOW, show_room
from games import services
from tests.helpers.sockets import opened, session, socket
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowRecord

SPOILER = "ana holds the princess"


def make_show():
    """olga's show (policy "everything", no delay) of ana, ben and cal, mia
    its moderator, sam a spectator; a live match of ana and ben in it."""
    people = {
        n: User.objects.create_user(n, password="pw-123456")
        for n in "olga mia ana ben cal sam".split()
    }
    stream = ss.create_show(
        name="Olga's show",
        organizer="olga",
        entrants=["ana", "ben", "cal"],
        holders={n: people[n].pk for n in ("ana", "ben", "cal")},
        options={"spectator_policy": "everything", "spectator_delay_s": 0},
        organizer_id=people["olga"].pk,
    )
    olga = ss.Acting("olga", shows.ORGANIZER, people["olga"].pk)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga)
    match = seat_match(people, stream, "ana", "ben", seed=5)
    return people, ShowRecord.objects.get(stream=stream), match


def seat_match(people, show_stream: str, a: str, b: str, *, seed: int):
    """A live Love Me Not match of ``a`` and ``b`` (their accounts) in the show."""
    return services.create_match(
        "love-me-not",
        [a, b],
        holders={a: people[a].pk, b: people[b].pk},
        options={"decision_s": 0},
        rng=random.Random(seed),
        show_stream=show_stream,
    )


def client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def say(user, room, text):
    answer = client(user).post(
        f"/chat/rooms/{room}/post", {"text": text}, HTTP_X_REQUESTED_WITH="fetch"
    )
    assert answer.status_code == 200, answer.content
    return answer.json()["message"]["id"]


def read_everywhere(user, show, room) -> tuple[list[str], list[str], str, list[int]]:
    """What ``user`` reads of ``room``: its JSON, the API, the show page, and
    the ids the JSON says were hidden since the first message."""
    c = client(user)
    page = c.get(f"/chat/rooms/{room}/messages", {"from": "1"}).json()
    api = c.get(f"/api/chat/rooms/{room}/messages").json()
    show_page = c.get(f"/shows/{show.pk}/").content.decode()
    return (
        [m["text"] for m in page["messages"]],
        [m["text"] for m in api["messages"]],
        show_page,
        page["hidden"],
    )


@pytest.mark.django_db
def test_a_seat_reads_the_show_room_of_staff_and_its_own_until_its_match_ends():
    people, show, match = make_show()
    room = f"s{show.pk}-show"
    # cal sits in no live match: he reads everyone live
    assert say(people["sam"], room, SPOILER)
    hidden_id = say(people["sam"], room, "ben has two guards")
    assert say(people["ana"], room, "good luck all")
    assert say(people["mia"], room, "round 1 has begun")
    chat.hide(show_room(show, SHOW), people["mia"], hidden_id, "spoiler")
    assert read_everywhere(people["cal"], show, room)[0] == [
        SPOILER,
        "good luck all",
        "round 1 has begun",
    ]
    for seat in ("ana", "ben"):
        page, api, show_page, hidden = read_everywhere(people[seat], show, room)
        mine = ["good luck all"] if seat == "ana" else []
        assert page == api == [*mine, "round 1 has begun"]
        assert SPOILER not in show_page and "round 1 has begun" in show_page
        assert hidden == []  # not even the id of a hidden spectator's message
    # the organizer and the moderators read everything
    for staff in ("olga", "mia"):
        assert SPOILER in read_everywhere(people[staff], show, room)[0]
    # the match over (ana resigns), its seats read it all
    services.submit(match, "ana", {"type": "resign"}, actor="ana")
    match.refresh_from_db()
    assert match.status == "finished"
    page, api, show_page, hidden = read_everywhere(people["ana"], show, room)
    assert page == api == [SPOILER, "good luck all", "round 1 has begun"]
    assert SPOILER in show_page and hidden == [hidden_id]


@pytest.mark.django_db
def test_what_was_written_before_the_match_began_stays_and_the_staff_room_stays_staffs():
    people, show, match = make_show()
    room = f"s{show.pk}-show"
    services.submit(match, "ana", {"type": "resign"}, actor="ana")
    assert say(people["sam"], room, "welcome to the show")
    second = seat_match(people, show.stream, "ana", "cal", seed=6)
    assert say(people["sam"], room, SPOILER)
    assert read_everywhere(people["ana"], show, room)[0] == ["welcome to the show"]
    assert read_everywhere(people["ben"], show, room)[0] == ["welcome to the show", SPOILER]
    # the staff room: entrants never read it, seated or not
    staff = f"s{show.pk}-staff"
    assert say(people["mia"], staff, "ana's hand is strong")
    for who in ("ana", "ben", "sam"):
        c = client(people[who])
        assert c.get(f"/chat/rooms/{staff}/messages").status_code == 403
        assert c.get(f"/api/chat/rooms/{staff}/messages").status_code == 403
        assert "ana's hand is strong" not in c.get(f"/shows/{show.pk}/").content.decode()
    # the match's spectators' room: never a seat of it while it is live
    stands = f"m{second.pk}-spectators"
    assert say(people["sam"], stands, "cal bluffs")
    assert client(people["cal"]).get(f"/chat/rooms/{stands}/messages").status_code == 403
    assert client(people["ben"]).get(f"/chat/rooms/{stands}/messages").status_code == 200


@pytest.mark.usefixtures("committed_db")
def test_the_socket_of_a_seat_carries_nothing_of_the_show_room():
    people, show, match = make_show()
    room, players = f"s{show.pk}-show", f"m{match.pk}-players"
    cookie = session(people["ana"], match)

    async def play():
        ana = socket(match.pk, cookie)
        await opened(ana)
        # asking for the show room over the match's socket brings nothing
        await ana.send_json_to({"chat": {"since": {room: 0}}})
        await asyncio.to_thread(say, people["sam"], room, SPOILER)
        await asyncio.to_thread(say, people["ben"], players, "your move")
        seen = []
        while "your move" not in [m.get("text") for m in seen]:
            msg = await ana.receive_json_from(timeout=10)
            assert SPOILER not in str(msg)
            if msg.get("type") == "chat":
                assert msg["room"] == players and msg["hidden"] == []
                seen += msg["messages"]
        await ana.disconnect()

    asyncio.run(play())
