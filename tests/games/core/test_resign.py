"""A seat resigns the whole match (issue #43, point 5): the series layer
decides it, a forfeit with the reason recorded and a loss for that seat
(TOURNAMENTS.md, "A series"); refused in words where it is not open. Played
on the real games' rules, no database."""

import random

import pytest

from games.core.protocol import Ctx, RuleError
from games.core.registry import series_for
from games.core.series import RESIGNED


def _start(game, seats, options=None):
    series = series_for(game)
    ctx = Ctx(now=0.0, rng=random.Random(3), role="system")
    state = series.fold(series.start(ctx, seats, options or {"decision_s": 0}))
    return series, state


def _as(seat, now=1.0, role="player"):
    return Ctx(now=now, rng=random.Random(1), seat=seat, role=role)


@pytest.mark.parametrize("game", ["doubting-love-letter", "love-me-not", "higher-lower", "bleven"])
def test_a_seat_resigns_and_the_other_side_wins_the_match(game):
    series, state = _start(game, ["ana", "ben"])
    new = series.decide(state, {"type": "resign"}, _as("ben"))
    assert [e.type for e in new] == ["series_forfeited"]
    assert new[0].data["loser"] == "ben" and new[0].data["reason"] == RESIGNED
    for e in new:
        state = series.evolve(state, e)
    out = series.outcome(state)
    assert state.finished and out.winners == ("ana",) and out.reason == RESIGNED
    with pytest.raises(RuleError, match="the match is over"):  # once only
        series.decide(state, {"type": "resign"}, _as("ana"))
    with pytest.raises(RuleError, match="the match is over"):
        series.decide(state, {"type": "resign"}, _as("ben"))


def test_refused_for_a_stranger_a_moderator_and_a_stray_field():
    series, state = _start("love-me-not", ["ana", "ben"])
    with pytest.raises(RuleError, match="not seated"):
        series.decide(state, {"type": "resign"}, _as("cal"))
    with pytest.raises(RuleError, match="only a seated player may resign"):
        series.decide(state, {"type": "resign"}, _as(None, role="moderator"))
    with pytest.raises(RuleError, match="has no field"):
        series.decide(state, {"type": "resign", "loser": "ana"}, _as("ben"))


@pytest.mark.parametrize(("game", "seats"), [("love-letter", 3), ("bleven", 4)])
def test_more_than_two_seats_may_not_resign(game, seats):
    names = ["ana", "ben", "cal", "dee"][:seats]
    series, state = _start(game, names)
    with pytest.raises(RuleError, match="open only in a match of two players"):
        series.decide(state, {"type": "resign"}, _as("ana"))


def test_paused_clocks_do_not_hold_a_resignation_back():
    series, state = _start("love-me-not", ["ana", "ben"])
    mod = Ctx(now=1.0, rng=random.Random(1), role="moderator")
    for e in series.decide(state, {"type": "pause"}, mod):
        state = series.evolve(state, e)
    new = series.decide(state, {"type": "resign"}, _as("ana", now=2.0))
    assert new[-1].type == "series_forfeited" and new[-1].data["winners"] == ["ben"]


def test_a_bot_never_resigns():
    """Resigning is no legal move of the game: bots and timeouts never pick it."""
    series, state = _start("doubting-love-letter", ["ana", "ben"])
    legal = [c for s in ("ana", "ben") for c in series.rules.legal_commands(state.bout, s)]
    assert legal and all(c["type"] != "resign" for c in legal)
