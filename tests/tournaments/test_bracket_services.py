"""Brackets played on the platform: matches opened per series, winners
advancing the moment a series ends, overturns resetting dependents."""

import random

import pytest
from django.core.management import call_command

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import bracket_services as bs
from tournaments.models import BracketRecord, BracketSeriesRecord

BOTS = {n: "bot:heuristic" for n in ("ana", "ben", "cal", "dee", "eve")}


def play_all(stream, rng, t=1_000_000.0, limit=50):
    for _ in range(limit):
        live = list(Match.objects.filter(show_stream=stream, status="live"))
        if not live:
            return t
        for m in live:
            t = match_services.run_bots(m, start=t, rng=rng)
    raise AssertionError("bracket did not finish")


def snapshot():
    return (
        list(
            BracketRecord.objects.values("stream", "standings", "champion", "status").order_by(
                "stream"
            )
        ),
        list(
            BracketSeriesRecord.objects.values(
                "series_id", "a", "b", "winner", "match_stream"
            ).order_by("bracket__stream", "position")
        ),
        list(Match.objects.values("stream", "scores", "status", "winners").order_by("stream")),
    )


@pytest.mark.django_db
def test_single_elimination_bracket_plays_to_a_champion_through_matches():
    rng = random.Random(7)
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben", "cal", "dee", "eve"],
        options={"third_place": True},
        holders=BOTS,
        rng=rng,
    )
    record = BracketRecord.objects.get(stream=stream)
    # 5 entrants: size 8, three byes; only ana has... R1 has one real series
    r1 = list(record.series.filter(round="R1"))
    assert len([s for s in r1 if s.b]) == 1 and len([s for s in r1 if not s.b]) == 3
    assert all(s.match_stream for s in r1 if s.b)
    play_all(stream, rng)
    record.refresh_from_db()
    assert record.status == "finished" and record.champion
    out = bs.bracket_output(stream)
    assert out["champion"] == record.champion
    # every played series has a finished match whose winner is the series winner
    for s in out["series"]:
        if s["b"]:
            m = Match.objects.get(stream=s["match_stream"])
            assert m.status == "finished" and m.winners == [s["winner"]]
    before = snapshot()
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert snapshot() == before


@pytest.mark.django_db
def test_round_robin_bracket_standings_come_from_match_results():
    rng = random.Random(3)
    stream = bs.create_bracket(
        name="League",
        game="higher-lower",
        format="round_robin",
        entrants=["ana", "ben", "cal"],
        holders=BOTS,
        rng=rng,
    )
    play_all(stream, rng)
    record = BracketRecord.objects.get(stream=stream)
    assert record.status == "finished"
    assert sorted(record.standings) == ["ana", "ben", "cal"]
    assert record.series.exclude(b="").count() == 3


@pytest.mark.django_db
def test_overturn_voids_the_series_and_its_dependents_and_reopens_them():
    rng = random.Random(11)
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben", "cal", "dee"],
        holders=BOTS,
        rng=rng,
    )
    play_all(stream, rng)
    out = bs.bracket_output(stream)
    first = next(s for s in out["series"] if s["round"] == "R1")
    dropped = bs.void_series(stream, first["id"], actor="mod", reason="dispute upheld")
    assert dropped[0] == first["id"] and "R2-1" in dropped
    out2 = bs.bracket_output(stream)
    assert out2["champion"] is None
    reopened = next(s for s in out2["series"] if s["id"] == first["id"])
    assert reopened["winner"] is None and reopened["match_stream"] != first["match_stream"]
    assert Match.objects.get(stream=reopened["match_stream"]).status == "live"
    play_all(stream, rng, t=2_000_000.0)
    assert bs.bracket_output(stream)["champion"] is not None
    # the old match's late result does not count twice
    assert [r.type for r in read(stream)].count("bracket_series_voided") == 1


@pytest.mark.django_db
def test_bad_bracket_requests_are_refused_with_words():
    with pytest.raises(RuleError, match="no game"):
        bs.create_bracket(name="x", game="chess", format="single", entrants=["a", "b"])
    with pytest.raises(RuleError):
        bs.create_bracket(name="x", game="higher-lower", format="knockout", entrants=["a", "b"])
    with pytest.raises(RuleError, match="name"):
        bs.create_bracket(name=" ", game="higher-lower", format="single", entrants=["a", "b"])
    assert not BracketRecord.objects.exists()


@pytest.mark.django_db
def test_players_are_told_when_their_next_series_opens(client):
    from django.contrib.auth.models import User

    from games.models import Notification

    ana = User.objects.create_user("ana", password="pw-123456")
    rng = random.Random(4)
    stream = bs.create_bracket(
        name="Cup",
        game="love-me-not",
        format="single",
        entrants=["ana", "ben", "cal", "dee"],
        holders={
            "ana": ana.pk,
            "ben": "bot:heuristic",
            "cal": "bot:heuristic",
            "dee": "bot:heuristic",
        },
        rng=rng,
    )
    opened = Notification.objects.filter(text__startswith="Your match has opened")
    first = opened.get(user=ana)
    assert "ana" in first.match.seats and "(you play ana)" in first.text
    # ben/cal's series is played; ana's opponent in the final is not known yet
    other = Match.objects.filter(show_stream=stream).exclude(pk=first.match.pk).get()
    match_services.run_bots(other, start=1_000_000.0, rng=rng)
    assert opened.filter(user=ana).count() == 1
    client.force_login(ana)
    assert b"Your match has opened" in client.get("/").content
    before = list(Notification.objects.values("user_id", "match__stream", "text"))
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert list(Notification.objects.values("user_id", "match__stream", "text")) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fmt,entrants,options",
    [
        ("single", 5, {"third_place": True}),
        ("double", 6, {"grand_final_reset": True}),
        ("round_robin", 4, {}),
        ("swiss", 7, {}),
    ],
)
def test_every_format_runs_to_a_champion_through_the_services(fmt, entrants, options):
    names = ["ana", "ben", "cal", "dee", "eve", "fay", "gus"][:entrants]
    rng = random.Random(entrants)
    stream = bs.create_bracket(
        name=f"{fmt} cup",
        game="love-me-not",
        format=fmt,
        entrants=names,
        options=options,
        holders={n: "bot:random" for n in names},
        first_to=1,
        rng=rng,
    )
    play_all(stream, rng, limit=100)
    out = bs.bracket_output(stream)
    assert out["champion"] in names
    assert sorted(out["standings"]) == sorted(names)
    played = [s for s in out["series"] if s["b"]]
    for s in played:  # every series was a real match won by the series winner
        assert Match.objects.get(stream=s["match_stream"]).winners == [s["winner"]]
    assert BracketRecord.objects.get(stream=stream).champion == out["champion"]
