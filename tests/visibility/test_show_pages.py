"""A live show seen by an anonymous visitor: the show page, the list of
shows, the home page and the API tell nothing newer than the show's delay;
its organizer sees it live."""

import re

import pytest

from games import visibility
from games.models import Match
from tournaments import shows

from .helpers import ENTRANTS, played_show

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished_show():
    t0 = visibility.clock()
    olga, record, state, end = played_show(t0)
    return olga, record, state, t0, end


def text(resp):
    return re.sub(r"\s+", " ", resp.content.decode())


def test_an_anonymous_visitor_sees_the_live_show_only_as_of_the_delay(client, finished_show, at):
    olga, record, state, t0, end = finished_show
    champion = state.champion
    eliminated = [e for e in ENTRANTS if state.status[e] == shows.ELIMINATED]
    assert Match.objects.filter(show_stream=record.stream).exists()

    at(t0 + 1)  # the show has only just begun for the audience
    page = text(client.get(record.get_absolute_url()))
    assert "Friday night" in page and "Champion" not in page
    assert "eliminated" not in page
    # its matches are listed only as not open yet, by number, with no player's name
    listed = re.findall(r"<h2>Matches</h2> <ul>(.*?)</ul>", page)[0]
    assert listed.count("<li") == listed.count('<li class="opening">') > 0
    assert not any(re.search(rf"\b{name}\b", listed) for name in ENTRANTS)
    assert "Spectators see this show 300 s late" in page
    listing = text(client.get("/shows/"))
    assert "champion" not in listing and "running" in listing
    home = text(client.get("/"))
    assert champion not in re.findall(r"<h2>Shows</h2>.*?</ul>", home)[0]
    assert client.get("/api/matches/").json() == []

    client.force_login(olga)  # the organizer sees it live
    live = text(client.get(record.get_absolute_url()))
    assert f"Champion: {champion}" in live and all(f"{e} · eliminated" in live for e in eliminated)
    assert "300 s late" not in live

    client.logout()
    at(max(end, visibility.clock()) + 301)  # long after: everything has reached the audience
    later = text(client.get(record.get_absolute_url()))
    assert f"Champion: {champion}" in later
    assert f"champion {champion}" in text(client.get("/shows/"))
    assert len(client.get("/api/matches/").json()) == Match.objects.count()


def test_the_public_log_carries_no_user_ids(client, finished_show, at):
    olga, record, state, t0, end = finished_show
    at(max(end, visibility.clock()) + 301)
    page = text(client.get(record.get_absolute_url()))
    assert "holders" not in page and "bot:heuristic" not in page
