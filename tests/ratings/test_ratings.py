"""Ratings are a fold of the log: replaying the finished matches through
openskill directly gives what the pages and the API show, a rebuild gives
the same, and a ruling that changes a result re-rates what followed."""

import random
import re
import time

import pytest
from django.contrib.auth.models import Permission, User
from openskill.models import PlackettLuce

from eventlog.readmodels import rebuild_all
from games import services
from ratings import seasons, skill
from ratings.models import Entry, Participation, PlayedMatch, Rating, RatingPoint, Season
from tests.ratings.direct import replay, results_from_log
from tests.ratings.helpers import DAY, accounts, play_matches, play_out, rated_match

PAIRS = [
    ("ana", "ben"),
    ("cy", "dee"),
    ("ana", "cy"),
    ("ben", "dee"),
    ("ana", "dee"),
    ("ben", "cy"),
]


def _board(client, game="love-me-not"):
    resp = client.get(f"/api/leaderboards/{game}/")
    assert resp.status_code == 200
    return {x["player"]: x for x in resp.json()["people"]}


def _league(rng, start=None):
    users = accounts("ana", "ben", "cy", "dee")
    start = start or time.time() - 8 * DAY  # all played within the grace period
    matches, _ = play_matches("love-me-not", PAIRS, users, start=start, rng=rng)
    return users, matches


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_replaying_the_log_through_openskill_gives_the_ratings_pages_show(client):
    _league(random.Random(11))
    expected = replay(results_from_log("love-me-not"))
    assert len(expected) == 4
    board = _board(client)
    for name, (mu, sigma, games) in expected.items():
        shown = board[name]
        assert shown["mu"] == pytest.approx(mu, abs=1e-9)
        assert shown["sigma"] == pytest.approx(sigma, abs=1e-9)
        assert shown["games"] == games == 3
        assert shown["rating"] == pytest.approx(mu - 3 * sigma, abs=1e-6)
        assert shown["provisional"] is True  # three games: fewer than five
    # the page shows the same numbers, best first
    page = client.get("/players/leaderboards/love-me-not/").content.decode()
    order = sorted(expected, key=lambda n: -(expected[n][0] - 3 * expected[n][1]))
    rows = re.findall(r'<a href="/players/(\w+)/">\1</a></td><td class="num">(-?[\d.]+)', page)
    assert [n for n, _ in rows] == order
    for name, text in rows:
        mu, sigma, _ = expected[name]
        assert text == f"{mu - 3 * sigma:.1f}"
    profile = client.get("/players/ana/").content.decode()
    mu, sigma, _ = expected["ana"]
    assert f">{mu - 3 * sigma:.1f}<" in profile
    assert "<svg" in profile and profile.count("<circle") == 3  # one point a rated match


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_rebuild_gives_the_same_ratings(client):
    users, _ = _league(random.Random(12))
    from tournaments import bracket_services as bs

    bs.create_bracket(
        name="Cup",
        game="love-me-not",
        format="single",
        entrants=["ana", "ben"],
        holders={"ana": users["ana"].pk, "ben": "bot:random"},
        actor="olga",
    )
    org = User.objects.create_user("olga")
    org.user_permissions.add(Permission.objects.get(codename="add_match"))
    seasons.name_season(org, name="Autumn", starts="2030-09-01", ends="2030-11-30")

    def snapshot():
        return (
            sorted(
                Rating.objects.values_list(
                    "player", "game", "mu", "sigma", "games", "last_at", "public_at"
                )
            ),
            sorted(
                RatingPoint.objects.values_list("player", "played__stream", "mu", "sigma", "games")
            ),
            sorted(
                PlayedMatch.objects.values_list(
                    "stream", "position", "rated", "played_at", "public_at"
                )
            ),
            sorted(
                Participation.objects.values_list(
                    "player", "played__stream", "rank", "stats", "items"
                )
            ),
            sorted(Entry.objects.values_list("player", "stream", "entrant", "name", "created_at")),
            sorted(Season.objects.values_list("season_id", "name", "starts", "ends", "named_by")),
        )

    before, board = snapshot(), _board(client)
    assert before[4] and before[5]  # entries and the season are there to compare
    rebuild_all()
    assert snapshot() == before
    assert _board(client) == board


def _overturn(match, winner, now):
    services.submit(
        match,
        None,
        {"type": "overturn", "winner": winner, "reason": "ruled"},
        role="moderator",
        now=now,
    )


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_an_overturned_result_re_rates_what_followed(client):
    rng = random.Random(13)
    users, matches = _league(rng)
    first = matches[0]
    old_points = dict(
        RatingPoint.objects.filter(played__stream__in=[m.stream for m in matches[1:]]).values_list(
            "played__stream", "mu"
        )
    )
    loser = next(s for s in first.seats if s not in services.load(first).state.winners)
    _overturn(first, loser, now=time.time())
    expected = replay(results_from_log("love-me-not"))
    board = _board(client)
    for name, (mu, sigma, _games) in expected.items():
        assert board[name]["mu"] == pytest.approx(mu, abs=1e-9)
        assert board[name]["sigma"] == pytest.approx(sigma, abs=1e-9)
    # the overturned match keeps its place: what followed was rated again
    first_played = PlayedMatch.objects.get(stream=first.stream)
    assert first_played.position < PlayedMatch.objects.get(stream=matches[1].stream).position
    winner_side = next(s for s in first_played.sides if s["rank"] == 1)
    assert winner_side["players"] == [f"u:{users[loser].pk}"]
    new_points = dict(
        RatingPoint.objects.filter(played__stream__in=[m.stream for m in matches[1:]]).values_list(
            "played__stream", "mu"
        )
    )
    assert new_points.keys() == old_points.keys()
    changed = [s for s in new_points if new_points[s] != pytest.approx(old_points[s], abs=1e-12)]
    assert changed, "the matches after the overturned one were not rated again"


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_void_of_the_end_withdraws_the_result_and_re_rates(client):
    rng = random.Random(14)
    _users, matches = _league(rng)
    first = matches[0]
    loaded = services.load(first)
    # back to the last move boundary before the end: the match is live again
    rows = loaded.events
    end = next(r.version for r in rows if r.type == "series_ended")
    boundary = max(r.version for r in rows if r.version < end and r.command_seq == 1) - 1
    services.void_to(first, boundary, actor="mod", reason="misdeal")
    assert not PlayedMatch.objects.filter(stream=first.stream).exists()
    expected = replay(results_from_log("love-me-not", skip={first.stream}))
    board = _board(client)
    for name, (mu, sigma, games) in expected.items():
        assert board[name]["mu"] == pytest.approx(mu, abs=1e-9)
        assert board[name]["sigma"] == pytest.approx(sigma, abs=1e-9)
        assert board[name]["games"] == games
    # played on to a new end, it counts again, in its new place
    play_out(first, rng, now=time.time())
    assert PlayedMatch.objects.filter(stream=first.stream).exists()
    expected = replay(results_from_log("love-me-not", skip=set()))
    assert _board(client)["ana"]["games"] == expected["ana"][2]


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_teams_of_two_and_several_players_are_rated_as_openskill_rates_them(client):
    users = accounts("ana", "ben", "cy", "dee")
    t = time.time() - 5 * DAY
    # Bleven 2 v 2: partners ana and cy (first and third seats) against ben and dee
    bleven = rated_match("bleven", {n: users[n].pk for n in ("ana", "ben", "cy", "dee")}, now=t)
    services.submit(
        bleven,
        None,
        {"type": "forfeit", "loser": "dee", "reason": "left"},
        role="moderator",
        now=t + 60,
    )
    model = PlackettLuce()
    a, b, c, d = (model.rating() for _ in range(4))
    [[a, c], [b, d]] = model.rate([[a, c], [b, d]], ranks=[1, 2])
    board = _board(client, "bleven")
    assert board["ana"]["mu"] == pytest.approx(a.mu) and board["cy"]["mu"] == pytest.approx(c.mu)
    assert board["dee"]["sigma"] == pytest.approx(d.sigma)
    # Love Letter for three: the winner first, the others by their tokens
    ll = rated_match("love-letter", {n: users[n].pk for n in ("ana", "ben", "cy")}, now=t + DAY)
    play_out(ll, random.Random(3), now=t + DAY)
    state = services.load(ll).state
    order = sorted(state.seats, key=lambda s: (s not in state.winners, -state.scores[s]))
    places = {}
    for s in order:
        key = (s in state.winners, state.scores[s])
        places.setdefault(key, len(places) + 1)
    ranks = [places[(s in state.winners, state.scores[s])] for s in state.seats]
    m = PlackettLuce()
    expected = m.rate([[m.rating()] for _ in state.seats], ranks=ranks)
    board = _board(client, "love-letter")
    for seat, (r,) in zip(state.seats, expected, strict=True):
        assert board[seat]["mu"] == pytest.approx(r.mu)
        assert board[seat]["sigma"] == pytest.approx(r.sigma)


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_inactivity_widens_sigma_as_the_library_recommends(client):
    users = accounts("ana", "ben")
    rng = random.Random(4)
    t0 = time.time() - 100 * DAY
    m1 = rated_match("love-me-not", {n: users[n].pk for n in ("ana", "ben")}, now=t0)
    t1 = play_out(m1, rng, now=t0)
    later = t1 + 40 * DAY  # 26 days past the grace period
    m2 = rated_match("love-me-not", {n: users[n].pk for n in ("ana", "ben")}, now=later)
    t2 = play_out(m2, rng, now=later)
    model = PlackettLuce()
    first = {s: model.rating() for s in ("ana", "ben")}
    w1 = services.load(m1).state.winners[0]
    r = model.rate(
        [[first[s]] for s in ("ana", "ben")], ranks=[1 if s == w1 else 2 for s in ("ana", "ben")]
    )
    after1 = {s: x for s, (x,) in zip(("ana", "ben"), r, strict=True)}
    idle = services.load(m2).events[-1].metadata["at"] - t1
    # sigma grows by SIGMA_PER_IDLE_DAY for each day past GRACE_DAYS (never above the start)
    grown = {
        s: min(skill.SIGMA, x.sigma + skill.SIGMA_PER_IDLE_DAY * (idle / DAY - skill.GRACE_DAYS))
        for s, x in after1.items()
    }
    assert all(grown[s] > after1[s].sigma for s in grown)
    w2 = services.load(m2).state.winners[0]
    r = model.rate(
        [[model.rating(mu=after1[s].mu, sigma=grown[s])] for s in ("ana", "ben")],
        ranks=[1 if s == w2 else 2 for s in ("ana", "ben")],
    )
    stored = {x.player: x for x in Rating.objects.all()}
    for s, (x,) in zip(("ana", "ben"), r, strict=True):
        assert stored[f"u:{users[s].pk}"].mu == pytest.approx(x.mu, abs=1e-6)
        assert stored[f"u:{users[s].pk}"].sigma == pytest.approx(x.sigma, abs=1e-6)
    # shown now: another stretch of inactivity since the last match
    shown = _board(client)
    assert shown["ana"]["sigma"] > stored[f"u:{users['ana'].pk}"].sigma
    assert t2 < time.time()


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_bots_are_rated_apart_and_marked(client):
    users = accounts("ana")
    rng = random.Random(5)
    t = time.time() - 3 * DAY
    m = rated_match("love-me-not", {"ana": users["ana"].pk, "robo": "bot:heuristic"}, now=t)
    play_out(m, rng, now=t)
    body = client.get("/api/leaderboards/love-me-not/").json()
    assert [x["player"] for x in body["people"]] == ["ana"]
    assert [(x["player"], x["bot"]) for x in body["bots"]] == [("bot:heuristic", True)]
    page = client.get("/players/leaderboards/love-me-not/").content.decode()
    people = page.split("<h2>Bots</h2>")[0]
    assert "bot:heuristic" not in people and 'class="bot-mark"' in page
    profile = client.get("/players/bots/heuristic/")
    assert profile.status_code == 200 and 'class="bot-mark"' in profile.content.decode()
    # a bot against a bot of its own kind teaches nothing of its strength
    m2 = rated_match("love-me-not", {"a": "bot:heuristic", "b": "bot:heuristic"}, now=t + DAY)
    play_out(m2, rng, now=t + DAY)
    assert Rating.objects.get(player="bot:heuristic").games == 1
    assert not PlayedMatch.objects.get(stream=m2.stream).rated


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_unrated_matches_leave_the_ratings_alone(client):
    users = accounts("ana", "ben")
    rng = random.Random(6)
    t = time.time() - 3 * DAY
    m = rated_match("love-me-not", {n: users[n].pk for n in ("ana", "ben")}, now=t, rated=False)
    play_out(m, rng, now=t)
    assert not Rating.objects.exists()
    assert PlayedMatch.objects.get(stream=m.stream).rated is False
    assert _board(client) == {}
