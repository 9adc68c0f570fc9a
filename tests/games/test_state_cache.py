"""The states kept by stream version (games/states.py): a command or a view
reads the stream's tip and the kept state, never a stale one; an older entry
is folded on, anything unusable is folded again from the log."""

import itertools
import json
import logging
import random

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from eventlog.store import read
from games import services, states
from games.core.protocol import RuleError

pytestmark = pytest.mark.django_db


def another_process(entry_or_none=None, stream=None):
    """What a process that kept nothing (or only ``entry``) starts from."""
    states.forget_local()
    caches[states.CACHE_ALIAS].clear()
    if entry_or_none is not None:
        states._keep_local(stream, entry_or_none)


def full_fold(match):
    return services.fold_rows(match.game, read(match.stream))


def test_an_older_entry_is_folded_on_never_served(counted, bot_moves):
    rng = random.Random(11)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    bot_moves(match, rng, 2)
    old = states.local_entry(match.stream)
    bot_moves(match, rng, 3)
    tip = states.tip(match.stream)
    assert old.version < tip[0]

    another_process(old, match.stream)
    counted["rows"].clear()
    counted["folds"] = 0
    loaded = services.load(match)
    assert loaded.version == tip[0] and loaded.state != old.state
    assert loaded.state == full_fold(match)
    # folded on from the old entry: its own row and the newer ones, no full fold
    assert counted["rows"][0] == 1 + tip[0] - old.version
    assert counted["folds"] == 1  # the one full_fold above, for the comparison


def test_an_entry_that_is_not_the_logs_is_never_served(counted, bot_moves):
    rng = random.Random(12)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    bot_moves(match, rng, 3)
    truth = full_fold(match)
    tip = states.tip(match.stream)
    kept = states.local_entry(match.stream)
    wrong = services.fold_rows(match.game, read(match.stream)[:-2])
    assert wrong != truth
    impostors = [
        # the tip's version, another row (a rolled-back append's)
        states.Entry((tip[0], -1, tip[2]), wrong, False),
        # an older version whose row is not the log's
        states.Entry((tip[0] - 2, -1, tip[2]), wrong, False),
        # a version the log does not have yet
        states.Entry((tip[0] + 5, tip[1], tip[2]), wrong, False),
    ]
    for impostor in impostors:
        another_process(impostor, match.stream)
        counted["folds"] = 0
        assert services.load(match).state == truth
        assert counted["folds"] == 1, impostor.tag  # refolded from the log
    assert kept.state == truth


@pytest.mark.parametrize(
    "bad",
    [
        "garbage",
        {"tag": "no tag", "state": None, "abandoned": False},
        {"tag": [1, 2, "not a time"], "state": None, "abandoned": False},
        {"tag": [1, 2, "2030-01-01T00:00:00+00:00"], "state": {"c": "nowhere:X", "v": []}},
    ],
)
def test_an_unreadable_shared_entry_falls_back_to_a_full_fold(counted, bot_moves, caplog, bad):
    # (a planted pickle: tests/games/test_state_json.py)
    rng = random.Random(13)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    bot_moves(match, rng, 2)
    truth = full_fold(match)
    another_process()
    caches[states.CACHE_ALIAS].set(states._key(match.stream), bad)
    counted["folds"] = 0
    with caplog.at_level(logging.WARNING, logger="games.states"):
        loaded = services.load(match)
    assert loaded.state == truth and counted["folds"] == 1
    assert "unreadable" in caplog.text


def test_a_committed_state_is_shared_with_every_process(
    counted, django_capture_on_commit_callbacks, bot_moves, every_version_shared
):
    rng = random.Random(14)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    another_process()
    with django_capture_on_commit_callbacks(execute=True):
        bot_moves(match, rng, 3)
    truth = full_fold(match)
    states.forget_local()  # another process: only the shared tier
    counted["rows"].clear()
    counted["folds"] = 0
    loaded = services.load(match)
    assert loaded.state == truth and loaded.version == states.tip(match.stream)[0]
    assert counted == {"rows": [], "folds": 0}  # nothing read but the tip


def test_a_matchs_state_is_shared_every_few_versions_and_folded_on_from(
    counted, django_capture_on_commit_callbacks, bot_moves
):
    """A process shares the first state it keeps of a match, then one every
    SHARE_EVERY versions or more (encoding each cost a sixth of the web's
    CPU): another process folds on from the shared one, and a process that
    kept one that near folds on from its own without asking the shared
    tier; either reads only the rows after it, and plays as the log says."""
    rng = random.Random(18)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    another_process()
    shared = []
    for _ in range(40):
        if match.status != "live":
            break
        with django_capture_on_commit_callbacks(execute=True):  # each move committed
            bot_moves(match, rng, 1)
        match.refresh_from_db()
        shared.append(states.KEPT.shared(match.stream).version)
    versions = sorted(set(shared))
    assert len(versions) >= 2 and versions[0] < versions[-1]  # shared more than once
    assert all(b - a >= states.SHARE_EVERY for a, b in itertools.pairwise(versions))
    assert match.version - versions[-1] < states.SHARE_EVERY + 10  # at most a move past
    truth, tip = full_fold(match), states.tip(match.stream)
    # another process: folds on from the shared state, the rows after it only
    states.forget_local()
    counted["rows"].clear()
    counted["folds"] = 0
    assert services.load(match).state == truth
    # the rows from the shared state on, the last the tip; none when the last
    # move was itself shared (the later deals are shuffled afresh, so the
    # versions a move takes vary from run to run)
    behind = tip[0] - versions[-1]
    assert counted["rows"] == ([1 + behind] if behind else []) and counted["folds"] == 0
    # this process, its own entry a few versions old: not the shared tier's
    near = services._state_of_rows(match.game, read(match.stream)[: tip[0] - 3])
    states.forget_local()
    states._keep_local(match.stream, near)
    caches[states.CACHE_ALIAS].clear()  # were it asked, it would have nothing
    counted["rows"].clear()
    with CaptureQueriesContext(connection) as queries:
        assert services.load(match).state == truth
    assert counted["rows"] == [4]  # its own row and the three after it
    assert len(queries) == 1  # those rows: the last is the tip, not read apart


def test_an_append_that_rolls_back_shares_nothing(
    counted, bot_moves, django_capture_on_commit_callbacks
):
    rng = random.Random(15)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    another_process()
    with django_capture_on_commit_callbacks(execute=False) as published:
        bot_moves(match, rng, 1)
    # the test's transaction never commits: the state waits for a commit that
    # never comes, and the shared tier stays empty
    assert published and caches[states.CACHE_ALIAS].get(states._key(match.stream)) is None


@pytest.mark.redis
def test_the_shared_tier_is_redis_when_there_is_one():
    from django.core.cache.backends.redis import RedisCache

    assert isinstance(caches[states.CACHE_ALIAS], RedisCache)


@pytest.mark.parametrize(
    "game, seats", [("love-me-not", ["ana", "ben"]), ("bleven", ["a", "b", "c", "d"])]
)
def test_a_new_match_is_kept_so_its_first_move_reads_no_log(
    counted, bot_moves, django_capture_on_commit_callbacks, game, seats
):
    """Its creation keeps the state it started (here, and in the shared tier
    once committed): the first move, here or in another process, folds
    nothing and reads no row of the log, and plays as the log says."""
    rng = random.Random(16)
    with django_capture_on_commit_callbacks(execute=True):
        match = services.create_match(game, seats, rng=rng)
    kept = services._vouched(match)
    assert kept is not None and kept.version == states.tip(match.stream)[0]
    assert kept.state == full_fold(match)
    states.forget_local()  # another process: only the shared tier
    counted["rows"].clear()
    counted["folds"] = 0
    bot_moves(match, rng, 1)
    assert counted == {"rows": [], "folds": 0}
    assert services.load(match).state == full_fold(match)


def test_a_shared_entry_with_a_wrong_state_for_its_version_is_not_decided_from(
    next_bot_move, django_capture_on_commit_callbacks, every_version_shared
):
    """Someone with the cache's credential writes, under the tip's own tag,
    the state before the last move: that seat may then play again. The
    command is decided from the log (not its turn), and nothing is written."""
    rng = random.Random(17)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    with django_capture_on_commit_callbacks(execute=True):
        seat, command = next_bot_move(match, rng)
        before = states.local_entry(match.stream)
        services.submit(match, seat, command, actor=seat)
    tip = states.tip(match.stream)
    cache, key = caches[states.CACHE_ALIAS], states._key(match.stream)
    kept = cache.get(key)
    forged = states._entry_json(states.Entry(tip, before.state, False))
    if "mac" in kept:  # sealed: the forger keeps the seal, having no key to make one
        forged = {**kept, "json": json.dumps(forged, separators=(",", ":"))}
    states.forget_local()  # another process: only the shared tier
    cache.set(key, forged)
    match.refresh_from_db()
    with pytest.raises(RuleError):
        services.submit(match, seat, command, actor=seat)
    assert len(read(match.stream)) == tip[0]
    assert services.load(match).state == full_fold(match)
