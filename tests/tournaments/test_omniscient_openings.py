"""A GET of a live match by a moderator records an omniscient opening at
most once per moderator and match per period (10 minutes), never per page,
poll or export; a cross-site request (another site's <img>, link or form)
gets no omniscient view and records nothing."""

import random
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from games.models import Match
from tournaments import show_services as ss
from tournaments.models import ShowRecord


@pytest.fixture
def live_final(db):
    for name in ("olga", "mia", "max"):
        User.objects.create_user(name)
    stream = ss.create_show(
        name="Watched",
        organizer="olga",
        entrants=["ana", "ben"],
        holders={"ana": "bot:random", "ben": "bot:random"},
        options={"step_deadline_s": 0, "spectator_delay_s": 300},
        rng=random.Random(1),
    )
    for m in ("mia", "max"):
        ss.command(
            stream, {"type": "appoint_moderator", "username": m}, ss.Acting("olga", "organizer")
        )
    return ShowRecord.objects.get(stream=stream), Match.objects.get(show_stream=stream)


def openings(record):
    state = ss.load(record.stream)[0]
    return [e for e in state.log if e.type == "match_viewed_omnisciently"]


def as_(name, **headers):
    client = Client(**headers)
    client.force_login(User.objects.get(username=name))
    return client


def test_twenty_gets_of_every_kind_record_one_opening(live_final):
    record, match = live_final
    client = as_("mia")
    for _ in range(5):
        assert client.get(f"/games/matches/{match.pk}/").status_code == 200
        assert client.get(f"/api/matches/{match.pk}/").status_code == 200
        assert client.get(f"/api/matches/{match.pk}/history").status_code == 200
        assert client.get(f"/api/matches/{match.pk}/export").status_code == 200
    assert len(openings(record)) == 1
    # another moderator's opening is theirs to record
    as_("max").get(f"/games/matches/{match.pk}/")
    assert len(openings(record)) == 2
    # after the period, the next opening is recorded again
    ss.record_omniscient_view(
        record.stream, User.objects.get(username="mia"), match.stream, now=time.time() + 601
    )
    assert len(openings(record)) == 3


@pytest.mark.parametrize(
    "headers",
    [
        {"HTTP_SEC_FETCH_SITE": "cross-site"},
        {"HTTP_ORIGIN": "https://evil.example"},
    ],
)
def test_a_cross_site_request_gets_no_omniscient_view_and_records_nothing(live_final, headers):
    record, match = live_final
    client = as_("mia", **headers)
    resp = client.get(f"/api/matches/{match.pk}/")
    # served as a spectator's: behind the delay, so nothing yet
    assert resp.status_code in (200, 404)
    if resp.status_code == 200:
        assert resp.json()["viewer"]["kind"] == "spectator"
    client.get(f"/games/matches/{match.pk}/")
    assert openings(record) == []
    # the same moderator from the site itself sees every card, recorded once
    same = as_("mia", HTTP_SEC_FETCH_SITE="same-origin")
    assert same.get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "moderator"
    assert len(openings(record)) == 1
