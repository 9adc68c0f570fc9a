"""The table's resign button (issue #43, point 5), played through the one
service path: a confirmation step, the match ended as a loss for the seat
that resigned, and refusals in words with nothing written (no confirmation,
a spectator, a seat of another match, a match of more than two players, a
match already over)."""

import random

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.store import read
from games import services
from games.core.protocol import Viewer
from games.models import Match
from games.presenters.table import table_for


@pytest.fixture(autouse=True)
def _no_move_rate_limit(monkeypatch):
    monkeypatch.setattr("games.views.wait_before_next", lambda request: None)


def _seat(name):
    user = User.objects.create_user(name, password="pw-123456")
    client = Client()
    client.force_login(user)
    return user, client


def _match(seats, holders, game="love-me-not"):
    return services.create_match(
        game, seats, options={"decision_s": 0}, holders=holders, rng=random.Random(4)
    )


def _resign(client, match, **extra):
    form = {"control": "resign", "confirm": "yes", **extra}
    return client.post(f"/games/matches/{match.pk}/command", form, HTTP_HX_REQUEST="true")


def _events(match) -> int:
    return len(read(match.stream))


@pytest.mark.django_db
def test_resigning_takes_its_confirmation_then_ends_the_match_as_a_loss():
    ana, ana_c = _seat("ana_r")
    match = _match(["ana", "ben"], {"ana": ana.pk, "ben": "bot:level:1"})
    page = ana_c.get(f"/games/matches/{match.pk}/").content.decode()
    assert '<details class="resign">' in page and 'name="confirm" value="yes"' in page
    before = _events(match)
    # the first step alone (no confirmation) is refused in words, nothing written
    resp = ana_c.post(
        f"/games/matches/{match.pk}/command", {"control": "resign"}, HTTP_HX_REQUEST="true"
    )
    assert resp.status_code == 422 and b"needs its confirmation" in resp.content
    assert _events(match) == before
    resp = _resign(ana_c, match)
    assert resp.status_code == 200
    match.refresh_from_db()
    assert match.status == "finished" and match.winners == ["ben"]
    last = read(match.stream)[-1]
    assert last.type == "series_forfeited" and last.data["loser"] == "ana"
    page = resp.content.decode()
    assert "You resigned: ben won the match." in page and 'details class="resign"' not in page
    ben_view = table_for(match, Viewer.of_seat("ben"))
    assert ben_view.history[-1].text == "ana resigned: you won the match."
    # again, on the finished match: refused, nothing written
    after = _events(match)
    resp = _resign(ana_c, match)
    assert resp.status_code == 422 and b"the match is over" in resp.content
    assert _events(match) == after


@pytest.mark.django_db
def test_a_spectator_and_a_seat_of_another_match_may_not_resign_it():
    ana, ana_c = _seat("ana_r")
    cal, cal_c = _seat("cal_r")
    mine = _match(["ana", "ben"], {"ana": ana.pk, "ben": "bot:level:1"})
    other = _match(["cal", "dan"], {"cal": cal.pk, "dan": "bot:level:1"})
    before = _events(mine)
    # cal holds a seat, in another match: this match's id is not theirs to resign
    resp = _resign(cal_c, mine)
    assert resp.status_code == 403 and b"only a seated player" in resp.content
    resp = _resign(Client(), mine)  # nobody logged in
    assert resp.status_code == 403
    assert _events(mine) == before and Match.objects.get(pk=mine.pk).status == "live"
    page = cal_c.get(f"/games/matches/{mine.pk}/").content.decode()
    assert "resign" not in page.lower()  # no button for a spectator
    assert Match.objects.get(pk=other.pk).status == "live"


@pytest.mark.django_db
def test_a_match_of_three_shows_why_it_cannot_be_resigned_and_refuses_it():
    ana, ana_c = _seat("ana_r")
    match = _match(
        ["ana", "ben", "cal"],
        {"ana": ana.pk, "ben": "bot:level:1", "cal": "bot:level:1"},
        game="love-letter",
    )
    page = ana_c.get(f"/games/matches/{match.pk}/").content.decode()
    assert "You cannot resign here" in page and "open only in a match of two players" in page
    assert '<details class="resign">' not in page
    before = _events(match)
    resp = _resign(ana_c, match)
    assert resp.status_code == 422 and b"open only in a match of two players" in resp.content
    assert _events(match) == before


@pytest.mark.django_db
def test_resigning_through_the_service_as_the_api_does():
    ana = User.objects.create_user("ana_r", password="pw-123456")
    match = _match(["ana", "ben"], {"ana": ana.pk, "ben": "bot:level:1"})
    services.submit(match, "ben", {"type": "resign"}, actor="ben", command_id="r1")
    again = services.submit(match, "ben", {"type": "resign"}, actor="ben", command_id="r1")
    assert [e.type for e in again] == ["series_forfeited"]  # a retry: its first result
    match.refresh_from_db()
    assert match.winners == ["ana"] and _events(match) == len(read(match.stream))
