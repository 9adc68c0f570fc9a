"""The moderation and limits of issue #44 played: a room closed and opened,
a show's word list, a timeout of all the show's rooms, a room's own rate
limit, site staff in every room but a match they play in (or a show where
they hold an entrant); each refused in words (English and French), nothing
written, and each act in the show's audit in words."""

import html

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext

from chat import limits
from chat import services as chat
from chat.models import ChatMessage, ChatRoomState
from chat.rooms import PLAYERS, SHOW, SPECTATORS, STAFF, access, match_room, moderates, show_room
from eventlog.models import StoredEvent
from games import visibility
from games.core.protocol import RoleRequired, RuleError
from tests.chat.conftest import make_table
from tests.chat.test_show_room import SPOILER, make_show, seat_match

pytestmark = pytest.mark.django_db


def fetch(user, url, data, lang="en"):
    c = Client()
    c.force_login(user)
    c.cookies["django_language"] = lang
    return c.post(url, data, HTTP_X_REQUESTED_WITH="fetch")


def audit_of(show, user) -> str:
    c = Client()
    c.force_login(user)
    return html.unescape(c.get(f"/shows/{show.pk}/dashboard/").content.decode())


def test_a_closed_room_refuses_all_but_its_moderators_and_is_still_read():
    people, show, _ = make_show()
    room = show_room(show, SHOW)
    chat.post(room, people["sam"], "before")
    assert fetch(people["sam"], f"/chat/rooms/{room.name}/close", {}).status_code == 403
    assert not ChatRoomState.objects.filter(closed=True).exists()
    assert fetch(people["mia"], f"/chat/rooms/{room.name}/close", {}).status_code == 200
    refused = fetch(people["sam"], f"/chat/rooms/{room.name}/post", {"text": "hello?"})
    assert refused.status_code == 422 and "closed this room" in refused.json()["message"]
    fr = fetch(people["sam"], f"/chat/rooms/{room.name}/post", {"text": "allo ?"}, "fr")
    assert "fermé ce salon" in fr.json()["message"]
    chat.post(room, people["mia"], "closed for the break")  # its moderators still write
    assert [m.text for m in chat.history(room, people["sam"])] == ["before", "closed for the break"]
    c = Client()
    c.force_login(people["sam"])
    page = c.get(f"/shows/{show.pk}/").content.decode()
    assert "you may read it but not write in it" in page
    assert f'action="/chat/rooms/{room.name}/post"' not in page
    chat.close_room(room, people["olga"], False)
    chat.post(room, people["sam"], "open again")
    audit = audit_of(show, people["olga"])
    assert "mia closed the show room" in audit and "olga opened the show room again" in audit


def test_the_word_list_refuses_a_listed_word_in_any_case_or_width_without_naming_it():
    people, show, match = make_show()
    room = show_room(show, SHOW)
    chat.set_words(show, people["olga"], ["Bad", " spoiler   ALERT ", "bad", ""])
    assert chat.words_for(show, people["mia"]) == ["bad", "spoiler alert"]
    for text in ("ＢＡＤ move", "so Bad!", "SPOILER alert: ana wins", "ｂａｄ"):
        with pytest.raises(RuleError, match="does not allow a word") as refused:
            chat.post(room, people["sam"], text)
        assert "bad" not in str(refused.value).lower() and "spoiler" not in str(refused.value)
    chat.post(room, people["sam"], "a badge, a spoilers alert")  # whole words only
    # every room of the show: its matches' too; moderators as well; not the staff room
    with pytest.raises(RuleError, match="does not allow"):
        chat.post(match_room(match, SPECTATORS), people["sam"], "bad")
    with pytest.raises(RuleError, match="does not allow"):
        chat.post(room, people["mia"], "bad")
    chat.post(show_room(show, STAFF), people["mia"], "should we list bad?")
    # in French, in words, and nothing written
    before = StoredEvent.objects.count()
    fr = fetch(people["sam"], f"/chat/rooms/{room.name}/post", {"text": "Bad"}, "fr")
    assert fr.status_code == 422 and "bad" not in fr.json()["message"].lower()
    assert "ne permet pas" in fr.json()["message"]
    assert StoredEvent.objects.count() == before
    # only its moderators read or set it; an attacker's list is refused
    for who in ("sam", "ana"):
        with pytest.raises(RoleRequired):
            chat.words_for(show, people[who])
        with pytest.raises(RoleRequired):
            chat.set_words(show, people[who], [])
    with pytest.raises(RuleError, match="control characters"):
        chat.post(room, people["sam"], "nul\x00here")
    for hostile in ("x" * 41, [f"w{n}" for n in range(201)], [1], {"bad": 1}, None, ["a\x00"]):
        with pytest.raises(RuleError):
            chat.set_words(show, people["olga"], hostile)
    assert StoredEvent.objects.count() == before
    # the page's form (staff room only) sets it; an empty list clears it
    form = fetch(people["mia"], f"/chat/shows/{show.pk}/words", {"words": "worse\nBAD"})
    assert form.status_code == 200 and chat.show_words(show) == ["bad", "worse"]
    c = Client()
    c.force_login(people["sam"])
    assert "worse" not in c.get(f"/shows/{show.pk}/").content.decode()
    c.force_login(people["mia"])
    assert "worse" in c.get(f"/shows/{show.pk}/").content.decode()
    assert fetch(people["sam"], f"/chat/shows/{show.pk}/words", {"words": ""}).status_code == 403
    chat.set_words(show, people["olga"], [])
    chat.post(room, people["sam"], "bad")
    audit = audit_of(show, people["olga"])
    assert "mia set the chat's word list: 2 words" in audit
    assert "olga set the chat's word list: 0 words" in audit and "worse" not in audit


def test_a_timeout_of_the_show_holds_in_every_room_of_the_show():
    people, show, match = make_show()
    room, stands = show_room(show, SHOW), match_room(match, SPECTATORS)
    chat.post(room, people["sam"], "spam")
    chat.post(stands, people["sam"], "spam too")
    chat.post(room, people["cal"], "hi")
    # a timeout of the room stays in the room
    chat.time_out(room, people["mia"], people["cal"].pk, "5m")
    chat.post(stands, people["cal"], "still here")
    # of the show's rooms: from one room, every room of the show
    answer = fetch(
        people["mia"],
        f"/chat/rooms/{room.name}/timeout",
        {"user": people["sam"].pk, "length": "1h", "scope": "show"},
    )
    assert answer.status_code == 200
    for where in (room, stands):
        with pytest.raises(RuleError, match="out of this show's rooms: try again in 60 min"):
            chat.post(where, people["sam"], "more")
    fr = fetch(people["sam"], f"/chat/rooms/{stands.name}/post", {"text": "x"}, "fr")
    assert fr.status_code == 422 and "salons de ce show" in fr.json()["message"]
    chat.time_out(stands, people["olga"], people["sam"].pk, "show", scope="show")
    with pytest.raises(RuleError, match="until it is over"):
        chat.post(room, people["sam"], "more")
    # another show's rooms are not this show's
    other = make_table({**people, "mo": people["mia"]})
    chat.post(match_room(other, SPECTATORS), people["sam"], "elsewhere")
    # the words in the audit
    audit = audit_of(show, people["olga"])
    assert "mia timed sam out of all the show's rooms (from the show room) for 1 h" in audit


def test_a_timeout_of_the_show_takes_the_show_s_role_and_a_show():
    people, show, match = make_show()
    mo = User.objects.create_user("mo")
    lone = make_table({**people, "mo": mo})  # mo moderates this match only, of no show
    stands = match_room(lone, SPECTATORS)
    chat.post(stands, people["sam"], "hi")
    with pytest.raises(RuleError, match="belongs to no show"):
        chat.time_out(stands, mo, people["sam"].pk, "5m", scope="show")
    with pytest.raises(RuleError, match="in this room or in all"):
        chat.time_out(stands, mo, people["sam"].pk, "5m", scope="everywhere")
    in_show = seat_match(people, show.stream, "cal", "ben", seed=7)
    chat.post(match_room(in_show, PLAYERS), people["cal"], "hi")
    with pytest.raises(RoleRequired):  # a seat moderates nothing of its match
        chat.time_out(match_room(in_show, PLAYERS), people["ben"], people["cal"].pk, "5m")
    assert not StoredEvent.objects.filter(type="chat_timed_out").exists()


def test_a_room_s_own_rate_limit_counts_everyone_but_its_moderators():
    people, show, _ = make_show()
    room = show_room(show, SHOW)
    with override_settings(CHAT_ROOM_RATE=3, CHAT_BURST=10):
        for who in ("sam", "cal", "sam"):
            chat.post(room, people[who], f"{who} says hi")
        chat.post(room, people["mia"], "a moderator is never held")
        refused = fetch(people["cal"], f"/chat/rooms/{room.name}/post", {"text": "me too"})
        assert refused.status_code == 422 and "too busy" in refused.json()["message"]
        fr = fetch(people["cal"], f"/chat/rooms/{room.name}/post", {"text": "moi"}, "fr")
        assert "trop animé" in fr.json()["message"]
        chat.post(show_room(show, STAFF), people["olga"], "another room is its own")
    assert ChatMessage.objects.filter(stream=room.stream).count() == 4


def test_site_staff_moderate_every_room_but_of_a_match_or_show_they_play_in():
    people, show, match = make_show()
    root = User.objects.create_user("root", is_staff=True)
    for room in (show_room(show, SHOW), show_room(show, STAFF), match_room(match, SPECTATORS)):
        assert access(room, root).moderate, room.name
    # ana made staff: a seat of her match, and a player of her show
    ana = people["ana"]
    ana.is_staff = True
    ana.save()
    assert not access(match_room(match, PLAYERS), ana).moderate
    assert not access(match_room(match, SPECTATORS), ana).read
    assert not access(show_room(show, STAFF), ana).read
    chat.post(show_room(show, SHOW), people["sam"], SPOILER)
    assert access(show_room(show, SHOW), ana).staff_only_after is not None
    assert SPOILER not in [m.text for m in chat.history(show_room(show, SHOW), ana)]
    # another match of the show (she plays not in it): staff
    other = seat_match(people, show.stream, "cal", "ben", seed=9)
    assert access(match_room(other, SPECTATORS), ana).moderate


def test_the_flood_guard_s_moderators_are_access_s_and_a_reader_costs_no_extra_read():
    """One rule (chat.rooms.moderates) for who moderates a room, as access
    says it and as the flood guard spares them: site staff that play (ana)
    are held with the players; a reader's check reads nothing past the
    match's facts (the show's row alone in a show room)."""
    people, show, match = make_show()
    root = User.objects.create_user("root", is_staff=True)
    ana = people["ana"]
    ana.is_staff = True
    ana.save()
    rooms = [show_room(show, kind) for kind in (SHOW, STAFF)]
    rooms += [match_room(match, kind) for kind in (PLAYERS, SPECTATORS)]
    with override_settings(CHAT_ROOM_RATE=0):  # every message over the room's rate
        for room in rooms:
            for user in [*people.values(), root]:
                try:
                    limits.guard_room(room, user)
                    spared = True
                except RuleError:
                    spared = False
                assert spared == access(room, user).moderate == moderates(room, user), (
                    room.name,
                    user.username,
                )
    reader = people["sam"]
    with CaptureQueriesContext(connection) as reads:
        assert not moderates(show_room(show, SHOW), reader)
    assert len(reads) == 0
    with CaptureQueriesContext(connection) as facts:
        visibility.match_facts(match)
    with CaptureQueriesContext(connection) as reads:
        assert not moderates(match_room(match, SPECTATORS), reader)
    assert len(reads) == len(facts)


def test_the_moderators_page_has_the_room_s_controls_and_no_one_else_s():
    people, show, match = make_show()
    c = Client()
    c.force_login(people["mia"])
    page = c.get(f"/shows/{show.pk}/").content.decode()
    for room in (f"s{show.pk}-show", f"s{show.pk}-staff"):
        assert f'action="/chat/rooms/{room}/slow"' in page
        assert f'action="/chat/rooms/{room}/close"' in page
        assert f'id="chat-wide-{room}"' in page  # a timeout of all the show's rooms
    assert 'data-timeout-hour-label="Time out 1 h"' in page
    assert page.count(f'action="/chat/shows/{show.pk}/words"') == 1  # in the staff room
    chat.close_room(show_room(show, SHOW), people["mia"])
    chat.slow_mode(show_room(show, SHOW), people["mia"], 30)
    chat.slow_mode(show_room(show, STAFF), people["mia"], 45)  # not a choice of the page's
    page = c.get(f"/shows/{show.pk}/").content.decode()
    assert f'action="/chat/rooms/s{show.pk}-show/open"' in page
    assert '<option value="30" selected>' in page and '<option value="45" selected>' in page
    c.force_login(people["sam"])
    page = c.get(f"/shows/{show.pk}/").content.decode()
    assert "/slow" not in page and "/close" not in page and "/words" not in page
    # a match's own moderator of a show match: no timeout of all the show's rooms
    mo = User.objects.create_user("mo")
    lone = make_table({**people, "mo": mo})
    c.force_login(mo)
    page = c.get(f"/games/matches/{lone.pk}/").content.decode()
    assert f'action="/chat/rooms/m{lone.pk}-players/slow"' in page and "chat-wide" not in page


def test_a_room_whose_every_write_races_another_is_refused_in_words(monkeypatch):
    """Past its retries (another writer moved the room's stream each time), a
    message is refused as a busy room is, in the reader's words, not with the
    log's version numbers; nothing is written."""
    from eventlog.store import ConcurrencyError

    people, show, _ = make_show()
    room = show_room(show, SHOW)

    def raced(stream, expected, *args, **kwargs):
        raise ConcurrencyError(stream, expected, expected + 1)

    monkeypatch.setattr(chat, "append", raced)
    monkeypatch.setattr(chat.time, "sleep", lambda s: None)
    before = StoredEvent.objects.count()
    refused = fetch(people["sam"], f"/chat/rooms/{room.name}/post", {"text": "hi"}, "fr")
    assert refused.status_code == 422, refused.content
    assert "trop animé" in refused.json()["message"]
    assert "version" not in refused.json()["message"]
    assert StoredEvent.objects.count() == before
