"""Match states in the shared cache are JSON, never pickles (issue #21: a
stolen Redis credential must not become code execution). Every state of
every game round-trips exactly (same values, same types), and a pickle
planted in the cache is never unpickled: the state is folded from the log."""

from __future__ import annotations

import json
import math
import pickle
import random
from dataclasses import fields, is_dataclass

import pytest
from django.conf import settings
from django.core.cache import caches
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st

from eventlog.store import read
from games import services, states
from games.core.playout import play_match
from games.core.protocol import RuleError
from games.core.registry import GAME_MODULES, rules_for, series_for


def same(a, b) -> bool:
    """Equal values of exactly the same types, all the way down (``==`` alone
    takes a set for a frozenset, and a list for nothing but a list)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    if isinstance(a, (set, frozenset)):
        return a == b
    if is_dataclass(a):
        return all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    return a == b


def through_the_cache(state):
    return states.from_json(json.loads(json.dumps(states.to_json(state))))


def test_same_tells_types_apart():
    # the checker itself: a state read back with the wrong types would not pass
    assert same((1, {2}), (1, {2}))
    assert not same((1, 2), [1, 2])
    assert not same({1}, frozenset({1}))
    assert not same({"a": (1,)}, {"a": [1]})
    assert not same(1, 1.0) and not same(True, 1)


def playable(rules, n: int) -> bool:
    try:
        rules.resolve_options(None, n)
    except RuleError:
        return False
    return True


@pytest.mark.parametrize("game", list(GAME_MODULES))
@given(seed=st.integers(0, 2**32 - 1))
@hsettings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_every_state_of_a_match_round_trips_exactly(game, seed):
    rules = rules_for(game)
    rng = random.Random(seed)
    counts = [n for n in range(rules.min_seats, rules.max_seats + 1) if playable(rules, n)]
    seats = [f"p{i}" for i in range(rng.choice(counts))]
    series = series_for(game)
    events, final = play_match(series, seats, {s: "random" for s in seats}, rng)
    state = series.fold(events[:1])
    for event in events[1:]:
        state = series.evolve(state, event)
        back = through_the_cache(state)
        assert same(back, state), event.type
    assert same(through_the_cache(final), final)


def test_a_class_outside_the_games_is_refused():
    import os

    with pytest.raises(ValueError):
        states.from_json({"c": "os:system", "v": ["echo owned"]})
    with pytest.raises(ValueError):  # a games module, but not one of its dataclasses
        states.from_json({"c": "games.states:Entry.__init__", "v": []})
    with pytest.raises(TypeError):
        states.to_json(os.environ)
    # exact types only: a subclass of a container, or a dataclass from outside
    # the games (asked twice: a refusal is not remembered as an encoder)
    from collections import OrderedDict
    from dataclasses import make_dataclass

    outsider = make_dataclass("Outsider", ["x"])
    for _twice in range(2):
        for value in (OrderedDict(a=1), outsider(1), (1, outsider(2))):
            with pytest.raises(TypeError):
                states.to_json(value)


# ---- a pickle planted in Redis ------------------------------------------------------
EXPLODED: list[str] = []


def _explode():
    EXPLODED.append("unpickled")
    return "anything"


class Payload:
    """What an attacker with the Redis credential would plant: unpickling it
    runs a function of their choice (here: one that leaves a mark)."""

    def __reduce__(self):
        return (_explode, ())


def plant(key: str, raw: bytes) -> None:
    """Write ``raw`` under the cache's key straight into Redis, as anyone
    holding its credential could."""
    import redis

    cache = caches[states.CACHE_ALIAS]
    client = redis.Redis.from_url(settings.CACHES[states.CACHE_ALIAS]["LOCATION"])
    client.set(cache.make_and_validate_key(key), raw)


@pytest.mark.redis
@pytest.mark.django_db
@pytest.mark.parametrize(
    "raw",
    [
        pickle.dumps(Payload()),
        # a pickled Entry of the right shape: still a pickle, still refused
        pickle.dumps(states.Entry((1, 1, None), Payload(), False)),
        b"garbage",
        json.dumps({"tag": "no tag"}).encode(),
        json.dumps(
            {
                "tag": [1, 1, "2030-01-01T00:00:00+00:00"],
                "state": {"c": "os:system", "v": ["x"]},
                "abandoned": False,
            }
        ).encode(),
    ],
    ids=["pickle", "pickled-entry", "garbage", "wrong-shape", "foreign-class"],
)
def test_a_planted_entry_is_never_unpickled_and_the_log_is_folded(counted, bot_moves, raw):
    rng = random.Random(21)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    bot_moves(match, rng, 2)
    truth = services.fold_rows(match.game, read(match.stream))
    states.forget_local()  # another process: only the shared tier
    plant(states._key(match.stream), raw)
    EXPLODED.clear()
    counted["folds"] = 0
    loaded = services.load(match)
    assert EXPLODED == []  # never unpickled
    assert loaded.state == truth and counted["folds"] == 1  # folded again from the log


@pytest.mark.redis
@pytest.mark.django_db
def test_the_shared_tier_holds_json(
    bot_moves, django_capture_on_commit_callbacks, every_version_shared
):
    import redis

    rng = random.Random(22)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    with django_capture_on_commit_callbacks(execute=True):
        bot_moves(match, rng, 2)
    cache = caches[states.CACHE_ALIAS]
    client = redis.Redis.from_url(settings.CACHES[states.CACHE_ALIAS]["LOCATION"])
    raw = client.get(cache.make_and_validate_key(states._key(match.stream)))
    sealed = json.loads(raw)  # JSON, read without pickle
    stored = json.loads(sealed["json"])  # its seal beside it (test_state_cache.py)
    assert stored["tag"][0] == states.tip(match.stream)[0]
    states.forget_local()
    assert same(
        states.lookup(match.stream, states.tip(match.stream))[0].state,
        states.from_json(stored["state"]),
    )
