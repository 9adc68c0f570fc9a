"""Seasons, seeding in the console, the rated note, the export, and the
refusals: clear 4xx with words, nothing written."""

import json
import random
import time
from datetime import date

import pytest
from django.contrib.auth.models import Permission, User

from eventlog.models import StoredEvent
from ratings.models import Season
from tests.ratings.helpers import DAY, accounts, play_matches
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.models import BracketRecord, ShowRecord

PAIRS = [("ana", "ben"), ("ana", "cy"), ("ben", "cy")]


@pytest.fixture
def organizer(db):
    user = User.objects.create_user("olga", password="pw-olga-123")
    user.user_permissions.add(Permission.objects.get(codename="add_match"))
    return user


def _day(ts: float) -> str:
    return date.fromtimestamp(ts).isoformat()


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_season_rates_only_its_own_matches(client, organizer):
    users = accounts("ana", "ben", "cy")
    rng = random.Random(21)
    old = time.time() - 40 * DAY
    play_matches("love-me-not", PAIRS, users, start=old, rng=rng)
    recent = time.time() - 4 * DAY
    play_matches("love-me-not", [("ana", "ben")], users, start=recent, rng=rng)
    client.force_login(organizer)
    resp = client.post(
        "/api/seasons/",
        {"name": "Winter", "starts": _day(recent - DAY), "ends": _day(time.time() + DAY)},
        content_type="application/json",
    )
    assert resp.status_code == 201, resp.content
    season = resp.json()["id"]
    board = client.get(f"/api/leaderboards/love-me-not/?season={season}").json()
    assert board["season"]["name"] == "Winter"
    assert sorted((x["player"], x["games"]) for x in board["people"]) == [("ana", 1), ("ben", 1)]
    all_time = client.get("/api/leaderboards/love-me-not/").json()
    assert {x["player"]: x["games"] for x in all_time["people"]} == {"ana": 3, "ben": 3, "cy": 2}
    # the export: one rating a line, best first, the same as the board
    export = client.get(f"/api/leaderboards/love-me-not/export?season={season}")
    assert export["Content-Type"] == "application/x-ndjson"
    lines = [json.loads(x) for x in export.content.decode().splitlines()]
    assert [(x["place"], x["player"]) for x in lines] == [
        (i, x["player"]) for i, x in enumerate(board["people"], 1)
    ]
    page = client.get(f"/players/leaderboards/love-me-not/?season={season}").content.decode()
    assert "Winter" in page and "cy" not in page.split("<h2>Bots</h2>")[0].split("</select>")[1]
    # named on the page too
    resp = client.post(
        "/players/seasons/",
        {"name": "Spring", "starts": "2030-03-01", "ends": "2030-05-31"},
    )
    assert resp.status_code == 302
    assert set(Season.objects.values_list("name", flat=True)) == {"Winter", "Spring"}


@pytest.mark.django_db
def test_season_refusals_are_clear_and_write_nothing(client, organizer):
    accounts("ana")
    events = StoredEvent.objects.count()
    body = {"name": "X", "starts": "2030-01-01", "ends": "2030-02-01"}
    assert client.post("/api/seasons/", body, content_type="application/json").status_code == 401
    client.login(username="ana", password="pw-123456")
    resp = client.post("/api/seasons/", body, content_type="application/json")
    assert resp.status_code == 403 and "organizer" in resp.json()["message"]
    assert client.post("/players/seasons/", body).status_code == 403
    client.force_login(organizer)
    for bad in (
        {**body, "ends": "2029-12-31"},  # before it starts
        {**body, "name": "   "},
        {**body, "starts": "1e308"},
        {**body, "starts": "２０３０-01-01"},  # Unicode digits
        {**body, "name": "x" * 101},
    ):
        resp = client.post("/api/seasons/", bad, content_type="application/json")
        assert resp.status_code in (400, 422), (bad, resp.content)
        assert resp.json()["message"]
    assert StoredEvent.objects.count() == events
    deep = '{"name": "X", "starts": "2030-01-01", "ends": "2030-02-01", "x": ' + "[" * 1000
    deep += "]" * 1000 + "}"
    resp = client.post("/api/seasons/", deep, content_type="application/json")
    assert resp.status_code == 400
    assert StoredEvent.objects.count() == events


@pytest.mark.django_db
def test_unknown_players_games_and_seasons_are_a_404_in_words(client):
    accounts("ana")
    for url in (
        "/api/players/nobody/",
        "/api/players/bot:no%20such/",
        "/api/players/" + "x" * 300 + "/",
        "/api/leaderboards/chess/",
        "/api/leaderboards/love-me-not/?season=s999",
        "/api/leaderboards/chess/export",
    ):
        resp = client.get(url)
        assert resp.status_code == 404, url
        assert resp.json()["message"], url
    assert client.get("/api/head-to-head", {"a": "ana"}).status_code == 400
    for url in ("/players/nobody/", "/players/leaderboards/chess/", "/players/bots/zzz-/"):
        assert client.get(url).status_code == 404, url
    assert client.get("/players/leaderboards/love-me-not/?season=nope").status_code == 404


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_the_console_seeds_a_bracket_and_a_show_by_rating(client, organizer):
    users = accounts("ana", "ben", "cy")
    rng = random.Random(22)
    # cy beats everyone, ben beats ana: order cy, ben, ana (whoever wins, a fold decides)
    play_matches("love-me-not", PAIRS, users, start=time.time() - 5 * DAY, rng=rng)
    from ratings.selectors import leaderboard

    best = [x.name for x in leaderboard("love-me-not")]
    client.force_login(organizer)
    form = {
        "name": "Cup",
        "game": "love-me-not",
        "format": "single",
        "entrants": "Ana = ana\nBot = bot:heuristic\nBen = ben\nCy = cy",
        "seed": "1",
    }
    resp = client.post("/console/brackets/new/", form)
    assert resp.status_code == 200 and not BracketRecord.objects.exists()
    body = resp.content.decode()
    seeded = body.split('name="entrants"')[1].split(">", 1)[1].split("</textarea>")[0]
    expected = [{"ana": "Ana = ana", "ben": "Ben = ben", "cy": "Cy = cy"}[n] for n in best]
    assert seeded.strip().splitlines() == [*expected, "Bot = bot:heuristic"]  # unrated last
    assert "Seeded by rating" in body
    # the organizer may still reorder: the order sent is the order created
    form.pop("seed")
    form["entrants"] = "Bot = bot:heuristic\n" + "\n".join(expected)
    assert client.post("/console/brackets/new/", form).status_code == 302
    record = BracketRecord.objects.get()
    assert record.entrants == ["Bot", *[e.split(" =")[0] for e in expected]]
    # a show: the accounts ordered by their rating in the final's game
    show = {
        "name": "Night",
        "players": [users[n].pk for n in ("ana", "ben", "cy")],
        "bots": 1,
        "bot_kind": "level:1",
        "game_pool": ["love-me-not", "higher-lower", "bleven"],
        "game_pick": "organizer",
        "final_game": "love-me-not",
        "candidates_per_round": 1,
        "candidate_rule": "last",
        "step_deadline_s": 0,
        "spectator_delay_s": 0,
        "spectator_policy": "public",
        "rated": "on",
        "seed": "1",
    }
    resp = client.post("/console/shows/new/", show)
    assert resp.status_code == 200 and not ShowRecord.objects.exists()
    order = resp.content.decode().split('name="order"')[1].split(">", 1)[1].split("</textarea>")[0]
    assert order.strip().splitlines() == [*best, "bot-1"]
    show.pop("seed")
    show["order"] = "\n".join(["bot-1", *best])
    show["rated"] = ""
    assert client.post("/console/shows/new/", show).status_code == 302
    record = ShowRecord.objects.get()
    assert [e.name for e in record.entrants.all()] == ["bot-1", *best]
    page = client.get(record.get_absolute_url()).content.decode()
    assert 'data-rated="no"' in page and "Not rated" in page
    # an order that leaves someone out is refused beside the field
    show["order"] = "ana"
    resp = client.post("/console/shows/new/", show)
    assert resp.status_code == 400 and "every entrant once" in resp.content.decode()


@pytest.mark.django_db
def test_shows_and_brackets_say_whether_they_are_rated(client):
    accounts("ana", "ben")
    rated = bs.create_bracket(
        name="Rated cup", game="love-me-not", format="single", entrants=["a", "b"], actor="x"
    )
    casual = bs.create_bracket(
        name="Casual cup",
        game="love-me-not",
        format="single",
        entrants=["a", "b"],
        actor="x",
        rated=False,
    )
    for stream, word in ((rated, "yes"), (casual, "no")):
        record = BracketRecord.objects.get(stream=stream)
        page = client.get(f"/shows/brackets/{record.pk}/").content.decode()
        assert f'data-rated="{word}"' in page
    stream = ss.create_show(name="N", organizer="olga", entrants=["a", "b", "c"])
    page = client.get(ShowRecord.objects.get(stream=stream).get_absolute_url()).content.decode()
    assert 'data-rated="yes"' in page  # the default
    with pytest.raises(Exception, match="rated must be true or false"):
        ss.create_show(name="N", organizer="olga", entrants=["a", "b"], options={"rated": "no"})


@pytest.mark.django_db
def test_a_nul_or_a_control_character_is_a_404_not_a_500(client):
    accounts("ana")
    for url in (
        "/api/players/a%00b/",
        "/api/leaderboards/love-me-not/?season=s%001",
        "/api/head-to-head?a=ana&b=%00",
        "/players/a%00b/",
        "/players/leaderboards/love-me-not/?season=%0A",
    ):
        assert client.get(url).status_code == 404, url
