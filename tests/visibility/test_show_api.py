"""The API's shows (list, detail, pending, items, disputes, log, export) as an
anonymous caller gets them: as of the show's delay, like the show pages.
And one clock: a show is cut by the time its events were recorded (the
database's), as matches are, never by the time a command says it is."""

import re

import pytest
from django.contrib.auth.models import User

from games import visibility

from .helpers import played_show

pytestmark = pytest.mark.django_db


def _finished_show(t0):
    _olga, record, state, end = played_show(t0)
    return record, state, end


def _listed(client, record):
    return next(s for s in client.get("/api/shows/").json() if s["id"] == record.pk)


def _everything_the_api_says(client, record) -> str:
    pk = record.pk
    parts = [
        client.get("/api/shows/").content,
        client.get(f"/api/shows/{pk}/").content,
        client.get(f"/api/shows/{pk}/pending").content,
        client.get(f"/api/shows/{pk}/items").content,
        client.get(f"/api/shows/{pk}/disputes").content,
        client.get(f"/api/shows/{pk}/log").content,
        client.get(f"/api/shows/{pk}/export").content,
    ]
    return " ".join(p.decode() for p in parts)


def test_the_api_tells_an_anonymous_caller_the_show_only_as_of_the_delay(client, at):
    t0 = visibility.clock()
    record, state, end = _finished_show(t0)
    assert record.champion == state.champion  # the record itself is live

    at(t0 + 1)  # the show has only just begun for the audience
    listed = _listed(client, record)
    assert listed["champion"] == "" and listed["status"] == "running"
    assert listed["version"] < record.version
    detail = client.get(f"/api/shows/{record.pk}/").json()["show"]
    assert detail["champion"] is None and detail["status"] != "over"
    said = _everything_the_api_says(client, record)
    assert not re.search(rf"\b{state.champion}\b[^\n]{{0,40}}(champion|won the show)", said)
    assert '"champion":"' + state.champion not in said.replace(" ", "")

    at(max(end, visibility.clock()) + 301)  # long after: everything has reached the audience
    listed = _listed(client, record)
    assert listed["champion"] == state.champion and listed["status"] == "finished"
    assert listed["version"] == record.version
    assert client.get(f"/api/shows/{record.pk}/").json()["show"]["champion"] == state.champion


def test_the_organizer_gets_the_show_live_from_the_api(client, at):
    t0 = visibility.clock()
    record, state, _end = _finished_show(t0)
    at(t0 + 1)
    client.force_login(User.objects.get(username="olga"))
    assert _listed(client, record)["champion"] == state.champion
    assert client.get(f"/api/shows/{record.pk}/").json()["show"]["champion"] == state.champion


def test_a_show_is_cut_by_the_time_its_events_were_recorded(client, at):
    """Commands stamped far in the past (a clock behind, a bot's simulated
    time) were still recorded just now: the audience waits the delay."""
    now = visibility.clock()
    record, state, _end = _finished_show(now - 10_000)  # every step says it is old
    at(now + 1)  # recorded a second ago: behind the 300 s delay
    page = re.sub(r"\s+", " ", client.get(record.get_absolute_url()).content.decode())
    assert "Champion" not in page
    listed = re.findall(r"<h2>Matches</h2> <ul>(.*?)</ul>", page)[0]
    assert listed.count("<li") == listed.count('<li class="opening">') > 0  # none open yet
    home = client.get("/").content.decode()
    assert state.champion not in re.findall(r"<h2>Shows</h2>.*?</ul>", home, re.S)[0]
    assert _listed(client, record)["champion"] == ""
    assert client.get(f"/api/shows/{record.pk}/").json()["show"]["champion"] is None
    events = client.get(f"/api/shows/{record.pk}/log").json()["events"]
    assert events and max(e["version"] for e in events) < record.version
