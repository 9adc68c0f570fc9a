"""A rating shown is the fold of the public results alone: a result whose end
is still behind its spectator delay counts nowhere (leaderboard, its page and
export, profile and its history, seeding by rating), not even inside a later
result that is public already."""

import json
import random
import time

import pytest
from django.contrib.auth.models import User

from games import visibility
from ratings import skill
from ratings.models import PlayedMatch
from ratings.readmodels import rated_result
from ratings.seeding import by_rating
from tests.ratings.direct import replay, results_from_log
from tests.ratings.helpers import accounts, play_out, rated_match

GAME = "love-me-not"


def _public_fold(now: float) -> dict[str, skill.Skill]:
    """username -> skill, by the project's own fold of the results public at ``now``."""
    played = PlayedMatch.objects.filter(game=GAME, rated=True).order_by("position")
    skills: dict[str, skill.Skill] = {}
    for _res, _before, after in skill.fold(
        rated_result(pm) for pm in played if pm.public_at.timestamp() <= now
    ):
        skills.update(after)
    names = dict(User.objects.values_list("pk", "username"))
    return {names[int(k.removeprefix("u:"))]: s for k, s in skills.items()}


def _shown(client) -> dict:
    """What each surface shows of every player: board, export, profiles."""
    board = {x["player"]: x for x in client.get(f"/api/leaderboards/{GAME}/").json()["people"]}
    export = client.get(f"/api/leaderboards/{GAME}/export").content.decode().splitlines()
    lines = {x["player"]: x for x in map(json.loads, export)}
    profiles = {n: client.get(f"/api/players/{n}/").json() for n in ("ana", "ben", "cy")}
    return {"board": board, "export": lines, "profiles": profiles}


def _assert_shows(client, expected: dict[str, skill.Skill]) -> None:
    shown = _shown(client)
    assert set(shown["board"]) == set(shown["export"]) == set(expected)
    for name, s in expected.items():
        for line in (shown["board"][name], shown["export"][name]):
            assert line["games"] == s.games
            assert line["mu"] == pytest.approx(s.mu, abs=1e-9)
            assert line["sigma"] == pytest.approx(s.sigma, abs=1e-9)
        (rating,) = shown["profiles"][name]["ratings"]
        assert (rating["games"], rating["mu"]) == (s.games, pytest.approx(s.mu, abs=1e-9))
        (history,) = shown["profiles"][name]["history"]
        assert len(history["points"]) == s.games
        assert history["points"][-1]["mu"] == pytest.approx(s.mu, abs=1e-9)
        page = client.get(f"/players/{name}/").content.decode()
        assert f">{s.ordinal:.1f}<" in page and page.count("<circle") == s.games
    for name in {"ana", "ben", "cy"} - set(expected):
        profile = shown["profiles"][name]
        assert profile["ratings"] == [] and profile["history"] == []
    # seeding by rating orders by the same figures, the unrated last
    best = sorted(expected, key=lambda n: -expected[n].ordinal)
    unrated = [n for n in ("ana", "ben", "cy") if n not in expected]
    holders = {n: User.objects.get(username=n).pk for n in ("ana", "ben", "cy")}
    assert by_rating(GAME, sorted(holders), holders) == best + unrated


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_result_behind_its_delay_counts_in_no_rating_shown(client, monkeypatch):
    users = accounts("ana", "ben", "cy")
    rng = random.Random(31)
    start = time.time() - 60
    # A: ana v ben, its end behind a 300 s delay; then B: ana v cy, public at once
    a = rated_match(
        GAME, {n: users[n].pk for n in ("ana", "ben")}, now=start, rng=rng, spectator_delay_s=300
    )
    t = play_out(a, rng, now=start)
    b = rated_match(GAME, {n: users[n].pk for n in ("ana", "cy")}, now=t, rng=rng)
    play_out(b, rng, now=t)
    now = time.time()
    monkeypatch.setattr(visibility, "clock", lambda: now)
    held, shown = (PlayedMatch.objects.get(stream=m.stream) for m in (a, b))
    assert held.position < shown.position
    assert held.public_at.timestamp() > now >= shown.public_at.timestamp()

    b_alone = _public_fold(now)
    assert set(b_alone) == {"ana", "cy"} and b_alone["ana"].games == 1
    _assert_shows(client, b_alone)

    # once A's end is older than its delay, both count: as openskill rates the log
    later = held.public_at.timestamp() + 1
    monkeypatch.setattr(visibility, "clock", lambda: later)
    both = _public_fold(later)
    direct = replay(results_from_log(GAME))
    assert set(both) == set(direct) == {"ana", "ben", "cy"}
    for name, (mu, sigma, games) in direct.items():
        assert (both[name].mu, both[name].sigma) == pytest.approx((mu, sigma), abs=1e-9)
        assert both[name].games == games
    assert both["ana"].games == 2
    _assert_shows(client, both)
