"""Opening a live show match with every card shown is a write (a POST,
recorded on the show at most once per moderator and match per period); a
read never writes: until their opening is recorded, a moderator's GETs get
what a spectator gets, and after it every card until the match ends."""

import random
import time

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from eventlog.models import StoredEvent
from games import services
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW
from games.models import Match
from tests.visibility.leaks import assert_no_undealt, undealt_fields
from tournaments import show_services as ss
from tournaments.models import ShowRecord

WRITES = ("INSERT", "UPDATE", "DELETE")


def make_show(name, organizer, moderators, delay):
    stream = ss.create_show(
        name=name,
        organizer=organizer,
        entrants=["ana", "ben"],
        holders={"ana": "bot:random", "ben": "bot:random"},
        options={"step_deadline_s": 0, "spectator_delay_s": delay},
        rng=random.Random(1),
    )
    for m in moderators:
        ss.command(
            stream, {"type": "appoint_moderator", "username": m}, ss.Acting(organizer, "organizer")
        )
    return ShowRecord.objects.get(stream=stream), Match.objects.get(show_stream=stream)


@pytest.fixture
def live_final(db):
    for name in ("olga", "mia", "max", "sam", "otto", "oz"):
        User.objects.create_user(name)
    make_show("Elsewhere", "otto", ["oz"], 0)  # another show, moderated by oz
    return make_show("Watched", "olga", ["mia", "max"], 0)


def openings(record):
    state = ss.load(record.stream)[0]
    return [e for e in state.log if e.type == "match_viewed_omnisciently"]


def as_(name, **headers):
    client = Client(**headers)
    if name is not None:
        client.force_login(User.objects.get(username=name))
    return client


def open_api(client, match, **body):
    return client.post(f"/api/matches/{match.pk}/open", body, content_type="application/json")


def every_get(client, match) -> dict:
    """Every read a moderator makes of a match: the page, its polled
    fragment, the API's view, history, export and legal moves."""
    pk = match.pk
    return {
        "page": client.get(f"/games/matches/{pk}/"),
        "fragment": client.get(f"/games/matches/{pk}/", headers={"HX-Request": "true"}),
        "view": client.get(f"/api/matches/{pk}/"),
        "history": client.get(f"/api/matches/{pk}/history"),
        "export": client.get(f"/api/matches/{pk}/export"),
        "legal": client.get(f"/api/matches/{pk}/legal"),
    }


def test_no_read_of_a_moderator_writes_and_none_shows_a_card_before_the_opening(live_final):
    record, match = live_final
    client = as_("mia")
    events = StoredEvent.objects.count()
    with CaptureQueriesContext(connection) as queries:
        got = every_get(client, match)
    assert [q["sql"] for q in queries if q["sql"].lstrip().upper().startswith(WRITES)] == []
    assert StoredEvent.objects.count() == events and openings(record) == []
    assert {kind: r.status_code for kind, r in got.items()} == dict.fromkeys(got, 200)
    # what a spectator gets, and no card a spectator may not see
    assert got["view"].json() == services.view_for(match, SPECTATOR_VIEW)
    assert got["history"].json()["events"] == services.history_for(match, SPECTATOR_VIEW)
    now = time.time()
    assert_no_undealt(got["view"].json(), match.stream, now)
    assert_no_undealt(got["history"].json(), match.stream, now)
    for kind in ("page", "fragment", "export"):
        assert_no_undealt({}, match.stream, now, text=got[kind].content.decode())
    page = got["page"].content.decode()
    assert "you are watching as spectator" in page
    assert f'action="/games/matches/{match.pk}/open"' in page
    assert "Show every card (written in the show" in page


def test_after_the_opening_every_read_shows_every_card_and_writes_nothing(live_final):
    record, match = live_final
    client = as_("mia")
    resp = client.post(f"/games/matches/{match.pk}/open")
    assert resp.status_code == 302 and resp["Location"] == f"/games/matches/{match.pk}/"
    assert len(openings(record)) == 1
    got = every_get(client, match)
    assert len(openings(record)) == 1
    assert got["view"].json() == services.view_for(match, MODERATOR_VIEW)
    assert undealt_fields(got["view"].json())  # the deck: every card
    assert got["history"].json()["events"] == services.history_for(match, MODERATOR_VIEW)
    page = got["page"].content.decode()
    assert "you are watching as moderator" in page and "/open" not in page
    # another moderator's opening is theirs to make
    assert as_("max").get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "spectator"


def test_an_opening_is_recorded_once_per_period_and_a_retry_writes_once(live_final):
    record, match = live_final
    client = as_("mia")
    first = open_api(client, match, command_id="open-1")
    assert first.status_code == 201 and first.json()["viewer"]["kind"] == "moderator"
    again = open_api(client, match)
    assert again.status_code == 200 and again.json()["viewer"]["kind"] == "moderator"
    assert open_api(client, match, command_id="open-1").status_code == 200
    assert len(openings(record)) == 1
    # after the period, the next opening is recorded again; its retry is not
    mia = User.objects.get(username="mia")
    later = time.time() + 601
    assert services.open_every_card(match, mia, now=later, command_id="open-2") is True
    assert services.open_every_card(match, mia, now=later + 601, command_id="open-2") is False
    assert len(openings(record)) == 2


def test_an_opening_is_refused_in_words_to_anyone_but_the_shows_staff(live_final):
    record, match = live_final
    ana = match.holders.get(seat=match.seats[0])
    ana.user, ana.bot = User.objects.create_user("ana_staff", is_staff=True), ""
    ana.save()  # a seat holder, even one who is staff
    for name in ("sam", "oz", "ana_staff"):
        resp = open_api(as_(name), match)
        assert resp.status_code == 403, name
        assert "only the organizer or a moderator" in resp.json()["message"]
        page = as_(name).post(f"/games/matches/{match.pk}/open")
        assert (
            page.status_code == 403 and "only the organizer or a moderator" in page.content.decode()
        )
    resp = open_api(as_(None), match)
    assert resp.status_code == 401 and "log in" in resp.json()["message"]
    page = as_(None).post(f"/games/matches/{match.pk}/open")
    assert page.status_code == 403 and "log in" in page.content.decode()
    assert open_api(as_("mia"), match, command_id="not an id!").status_code == 400
    assert openings(record) == []


def test_a_cross_site_request_neither_opens_nor_sees_every_card(live_final):
    record, match = live_final
    other_site = {"HTTP_ORIGIN": "http://127.0.0.1:9"}
    for headers in ({"HTTP_SEC_FETCH_SITE": "cross-site"}, other_site):
        client = as_("mia", **headers)
        assert open_api(client, match).status_code == 403
    forged = Client(enforce_csrf_checks=True, **other_site)
    forged.force_login(User.objects.get(username="mia"))
    assert forged.post(f"/games/matches/{match.pk}/open").status_code == 403
    assert openings(record) == []
    as_("mia").post(f"/games/matches/{match.pk}/open")
    # opened, but a read another site makes still gets a spectator's view
    cross = as_("mia", HTTP_SEC_FETCH_SITE="cross-site")
    assert cross.get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "spectator"
    assert len(openings(record)) == 1


def test_a_finished_show_match_needs_no_opening(live_final):
    record, match = live_final
    services.play_bots(match)
    match.refresh_from_db()
    assert match.status == "finished"
    client = as_("mia")
    assert client.get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "moderator"
    assert open_api(client, match).status_code == 200
    assert openings(record) == []
