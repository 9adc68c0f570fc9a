"""Hostile input (issue 12): any field of any command of any game, given a
wrong type, a unicode digit, a huge number, 1e308, NaN, a bool, a list, a
dict, left out or joined by a field that does not exist, gives a RuleError
with clear words and changes nothing, never another exception.

One hypothesis test per game: random play reaches a state, then a legal
command of a seat is spoiled in one field and thrown at ``decide``. It must
raise RuleError, unless the spoilt field was one the command ignores (then
the result equals the command without that field)."""

from __future__ import annotations

import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core.fields import shown, whole
from games.core.playout import bot_command
from games.core.protocol import Ctx, RuleError
from games.core.registry import series_for
from games.love_letter_family.cards import parse_rank

HOSTILE = [
    "²",
    "٣",
    "３",
    "𝟑",
    "1" * 4300,
    "9" * 5000,
    10**5000,
    -(10**5000),
    1e308,
    -1e308,
    math.nan,
    math.inf,
    True,
    False,
    [],
    ["²"],
    [10**5000],
    [None],
    {},
    {"card": "1"},
    "",
    " ",
    "\x00",
    3.5,
    -1,
    2**64,
    "8" * 13,
    "1e308",
    "NaN",
    "0x10",
    " 1 2 ",
]
EXTRA_KEYS = ["extra", "Card", "cards", "__class__", "seat", 7, ""]

# game -> (seats, options, items) for the random play that reaches a state
GAMES = {
    "doubting-love-letter": (
        ("ana", "ben"),
        {"first_to": 3},
        {
            "ana": ["deck_rigging", "insurance", "plus_one", "dmo"],
            "ben": ["deck_rigging", "plus_one"],
        },
    ),
    "love-letter": (("ana", "ben", "cy"), {"first_to": 2}, None),
    "love-me-not": (("ana", "ben"), {"first_to": 2}, None),
    "higher-lower": (("ana", "ben"), {}, None),
    "bleven": (("ana", "ben", "cy", "di"), {}, None),
}


def test_whole_numbers_and_their_words():
    assert [whole(x) for x in ("3", " 12 ", 7, "007")] == [3, 12, 7, 7]
    for bad in ("²", "٣", "３", "1" * 4300, 10**5000, True, 3.0, math.nan, "", "-1", None, []):
        assert whole(bad) is None, bad
    assert whole(3.0, floats=True) == 3 and whole(1e308, floats=True) is None
    assert whole(math.nan, floats=True) is None and whole(math.inf, floats=True) is None
    assert parse_rank("²") is None and parse_rank("1" * 4300) is None and parse_rank("8") == 8
    assert shown(10**5000) == "a number that long" and shown("x" * 100).endswith("...'")
    assert shown([1]) == "a list" and shown({}) == "an object" and shown(math.nan) == "nan"


def reach(game, seed, steps):
    """A state reached by ``steps`` random legal moves (and clock runs)."""
    seats, options, items = GAMES[game]
    series = series_for(game)
    rng = random.Random(seed)
    now = 0.0
    events = series.start(Ctx(now=now, rng=rng, role="system"), seats, options, items)
    state = series.fold(events)
    for _ in range(steps):
        if state.finished:
            break
        moves = [
            (d.seat, c)
            for d in series.pending(state)
            if (c := bot_command(series, state, d.seat, "random", rng)) is not None
        ]
        if moves:
            seat, command = moves[rng.randrange(len(moves))]
            now += 1
            new = series.decide(state, command, Ctx(now=now, rng=rng, seat=seat))
        else:
            now = max(now + 1, series.next_deadline(state))
            new = series.decide(state, {"type": "timeout"}, Ctx(now=now, rng=rng, role="system"))
        for e in new:
            state = series.evolve(state, e)
        events += new
    return series, state, events, now


def decide(series, state, command, seat, now):
    return series.decide(state, command, Ctx(now=now, rng=random.Random(7), seat=seat))


def spoil(data, command):
    """The command with one field spoilt: a hostile value, left out, or an
    extra field; and the field (None for an extra one)."""
    fields = [k for k in command if k != "type"]
    how = data.draw(
        st.sampled_from(["value", "value", "missing", "extra"] if fields else ["extra"])
    )
    if how == "extra":
        key = data.draw(st.sampled_from(EXTRA_KEYS))
        return {**command, key: data.draw(st.sampled_from(HOSTILE + ["1"]))}, None
    field = data.draw(st.sampled_from(fields))
    if how == "missing":
        return {k: v for k, v in command.items() if k != field}, field
    return {**command, field: data.draw(st.sampled_from(HOSTILE))}, field


def throw(series, state, events, now, seat, command, field):
    try:
        new = decide(series, state, command, seat, now)
    except RuleError as exc:
        message = str(exc)
        assert 0 < len(message) < 300 and "\x00" not in message, message
        # decide is pure: the state is still the fold of the log
        assert series.fold(events) == state
        return
    assert field is not None, f"a command with an extra field was accepted: {command!r:.200}"
    # accepted: the spoilt field was one this command ignores
    without = {k: v for k, v in command.items() if k != field}
    assert new == decide(series, state, without, seat, now), f"{field} {command!r:.200}"
    json.dumps([e.to_json() for e in new])  # and what it recorded is plain JSON


@pytest.mark.parametrize("game", list(GAMES))
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 80), data=st.data())
def test_spoilt_commands_give_rule_errors_only(game, seed, steps, data):
    series, state, events, now = reach(game, seed, steps)
    if state.finished:
        return
    seats = GAMES[game][0]
    asked = [d.seat for d in series.pending(state)]
    seat = data.draw(st.sampled_from(asked + list(seats) if asked else list(seats)))
    legal = series.rules.legal_commands(state.bout, seat) if state.bout is not None else []
    if not legal:
        fields = series.rules.command_fields
        kind = data.draw(st.sampled_from(sorted(fields)))
        legal = [{"type": kind, **{f: "1" for f in fields[kind]}}]
    base = data.draw(st.sampled_from(legal))
    command, field = spoil(data, base)
    throw(series, state, events, now, seat, command, field)


@pytest.mark.parametrize("game", list(GAMES))
def test_junk_commands_and_types(game):
    series, state, events, now = reach(game, 3, 5)
    seat = series.pending(state)[0].seat
    for junk in (
        None,
        [],
        "play",
        {},
        {"type": None},
        {"type": 10**5000},
        {"type": ["play"]},
        {"type": {"a": 1}},
        {"type": "²"},
        {"type": "x" * 10_000},
        {"type": "play", "card": {"nested": [10**5000]}},
    ):
        with pytest.raises(RuleError) as exc:
            decide(series, state, junk, seat, now)
        assert len(str(exc.value)) < 300
    assert series.fold(events) == state
