"""A poll or a push never rereads nor refolds the whole stream: the rows and
the folds of a version are kept and shared by every viewer, and the state a
command leaves is the one its viewers are shown (games/states.py)."""

import random
from types import SimpleNamespace

import pytest

from eventlog.store import read
from games import services, states
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Viewer
from games.core.registry import series_for

pytestmark = pytest.mark.django_db


def states_cache():
    from django.core.cache import caches

    return caches[states.CACHE_ALIAS]


VIEWERS = [Viewer.of_seat("ana"), Viewer.of_seat("ben"), MODERATOR_VIEW, SPECTATOR_VIEW]


def test_every_viewer_of_a_version_shares_one_read_and_one_fold(counted, bot_moves):
    rng = random.Random(4)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    for _ in range(6):
        bot_moves(match, rng)
    total = len(read(match.stream))
    counted["rows"].clear()
    counted["folds"] = 0
    views = [services.view_for(match, v) for v in VIEWERS]
    assert counted["rows"][0] <= total  # the first read of this process's copy
    assert all(n <= 1 for n in counted["rows"][1:])  # then the last kept row only
    assert counted["folds"] == 0  # the last command's state serves all four viewers
    # and what they see is what a fresh fold gives each of them
    state = services.fold_rows(match.game, read(match.stream))
    for viewer, view in zip(VIEWERS[:3], views, strict=False):
        assert view["bout"] == series_for(match.game).view(state, viewer)["bout"]
    # the next move: only its rows are read, and its version folded once
    bot_moves(match, rng)
    counted["rows"].clear()
    counted["folds"] = 0
    for v in VIEWERS:
        services.view_for(match, v)
    new = len(read(match.stream)) - total
    assert counted["rows"][0] == 1 + new and all(n <= 1 for n in counted["rows"][1:])
    assert counted["folds"] == 0
    # a process that kept nothing folds this version once for every viewer
    services._kept_folds.clear()
    states.forget_local()
    states_cache().clear()
    for v in VIEWERS:
        services.view_for(match, v)
    assert counted["folds"] == 1


def test_kept_rows_that_are_no_longer_the_logs_are_read_again():
    rng = random.Random(5)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    kept = services.rows_kept(match.stream)

    class Gone:  # a kept row the log does not have (a rolled-back write's)
        id, version, recorded_at, stream = -1, kept[-1].version, kept[-1].recorded_at, "x"

    services._kept_rows[match.stream] = [*kept[:-1], Gone()]
    again = services.rows_kept(match.stream)
    assert [(r.id, r.version) for r in again] == [(r.id, r.version) for r in kept]


def test_rows_read_in_commit_order_are_kept_where_they_follow_on():
    def row(stream, version):
        return SimpleNamespace(stream=stream, version=version, id=version)

    services._kept_rows.clear()
    a, b, c = "match-a", "match-b", "match-c"
    services.keep_read_rows([row(a, 1), row(b, 4), row(a, 2), row("show-1", 1)])
    assert [r.version for r in services._kept_rows[a]] == [1, 2]
    assert b not in services._kept_rows  # not from its first row: nothing to follow on from
    assert "show-1" not in services._kept_rows  # match streams only
    services.keep_read_rows([row(a, 2), row(a, 3), row(c, 1)])  # read again by another reactor
    assert [r.version for r in services._kept_rows[a]] == [1, 2, 3]
    services.keep_read_rows([row(a, 5), row(c, 2)])  # a gap: read whole next time
    assert a not in services._kept_rows
    assert [r.version for r in services._kept_rows[c]] == [1, 2]
    services._kept_rows.clear()


def test_rows_read_that_contradict_the_kept_ones_start_the_stream_again():
    """A stream of the same name rolled back and written again (a test's, or
    a derived name): its rows are another log's, never extended."""

    def row(version, id_):
        return SimpleNamespace(stream="match-again", version=version, id=id_)

    services._kept_rows.clear()
    services.keep_read_rows([row(1, 10), row(2, 11), row(3, 12)])  # then rolled back
    services.keep_read_rows([row(1, 20)])  # the stream again, from its first row
    assert [(r.version, r.id) for r in services._kept_rows["match-again"]] == [(1, 20)]
    services.keep_read_rows([row(2, 21), row(3, 22), row(4, 23)])
    assert [r.id for r in services._kept_rows["match-again"]] == [20, 21, 22, 23]
    services.keep_read_rows([row(4, 99), row(5, 100)])  # contradicts, not from the first row
    assert "match-again" not in services._kept_rows
    services._kept_rows.clear()


def test_kept_rows_are_bounded_by_the_rows_they_hold(monkeypatch):
    def rows(stream, n):
        return [SimpleNamespace(stream=stream, version=v, id=v) for v in range(1, n + 1)]

    services._kept_rows.clear()
    monkeypatch.setattr(services, "_KEPT_ROWS_MAX", 10)
    services.keep_read_rows(rows("match-a", 4) + rows("match-b", 4))
    services.keep_read_rows(rows("match-c", 3))  # 11 rows: the least recent stream goes
    assert list(services._kept_rows) == ["match-b", "match-c"]
    services.keep_read_rows(rows("match-b", 9)[4:])  # b grows to 9: c goes, then b stays alone
    assert list(services._kept_rows) == ["match-b"]
    assert services._kept_row_count == 9
    services._kept_rows.clear()
