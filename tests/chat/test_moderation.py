"""Moderation as events: hiding with a reason, timeouts (5 min, 1 h, the
show), slow mode; who may moderate (the match's or show's moderators and
organizer, staff; never a seat of the match); the staff room; the show's
audit in words."""

import pytest
from django.contrib.auth.models import User
from django.test import Client

from chat import services
from chat.rooms import PLAYERS, SHOW, SPECTATORS, STAFF, access, match_room, show_room
from games import visibility
from games.core.protocol import RoleRequired, RuleError
from tournaments import show_services as ss
from tournaments import shows


def test_a_timed_out_person_is_refused_in_words_until_it_ends(people, table, monkeypatch):
    stands = match_room(table, SPECTATORS)
    services.post(stands, people["sam"], "spam")
    services.time_out(stands, people["mo"], people["sam"].pk, "5m")
    with pytest.raises(RuleError, match="timed you out"):
        services.post(stands, people["sam"], "more spam")
    c = Client()
    c.force_login(people["sam"])
    c.cookies["django_language"] = "fr"
    page = c.post(f"/chat/rooms/{stands.name}/post", {"text": "x"}, HTTP_X_REQUESTED_WITH="fetch")
    assert page.status_code == 422 and "exclu" in page.json()["message"]
    later = visibility.clock() + 301
    monkeypatch.setattr(visibility, "clock", lambda: later)
    services.post(stands, people["sam"], "sorry")  # the timeout is over


def test_a_timeout_for_the_show_and_slow_mode(people, table):
    stands = match_room(table, SPECTATORS)
    services.post(stands, people["sam"], "one")
    services.slow_mode(stands, people["mo"], 30)
    with pytest.raises(RuleError, match="slow mode"):
        services.post(stands, people["sam"], "two")
    services.post(stands, people["mo"], "a moderator is not slowed")
    services.time_out(stands, people["mo"], people["sam"].pk, "show")
    with pytest.raises(RuleError, match="until it closes"):
        services.post(stands, people["sam"], "three")
    with pytest.raises(RuleError):
        services.time_out(stands, people["mo"], people["sam"].pk, "forever")
    with pytest.raises(RuleError):
        services.slow_mode(stands, people["mo"], 10**9)


def test_nobody_moderates_a_match_they_play_in_nor_without_the_role(people, table):
    players = match_room(table, PLAYERS)
    row = services.post(players, people["ben"], "gg")
    for who in ("ana", "ben", "sam"):
        with pytest.raises(RoleRequired):
            services.hide(players, people[who], row.id, "no")
    staff = User.objects.create_user("root", is_staff=True)
    services.hide(players, staff, row.id, "staff may")
    assert access(players, staff).moderate


def test_the_show_rooms_and_the_audit(olgas_show):
    olga, show = olgas_show
    mia = User.objects.create_user("mia")
    pat = User.objects.create_user("pat")
    ss.command(
        show.stream,
        {"type": "appoint_moderator", "username": "mia"},
        ss.Acting("olga", shows.ORGANIZER, olga.pk),
    )
    show.refresh_from_db()
    staff_room, room = show_room(show, STAFF), show_room(show, SHOW)
    services.post(staff_room, mia, "ready?")
    assert [m.text for m in services.history(staff_room, olga)] == ["ready?"]
    with pytest.raises(RoleRequired):
        services.history(staff_room, pat)
    with pytest.raises(RoleRequired):
        services.post(staff_room, pat, "let me in")
    row = services.post(room, pat, "<i>go ana</i> http://x.example")
    services.hide(room, mia, row.id, "a link to a stream with spoilers")
    assert services.history(room, pat) == []
    page = Client().get(f"/shows/{show.pk}/").content.decode()
    assert "Show room" in page and "Staff room" not in page
    audit = Client()
    audit.force_login(olga)
    text = audit.get(f"/shows/{show.pk}/dashboard/").content.decode()
    assert "mia hid a message of pat in the show room" in text
    assert "a link to a stream with spoilers" in text
