"""A show command costs the same at any length of the show, from the process
that wrote last and from any other: it reads the show's fold kept at the
stream's tip (tournaments/kept_folds.py), never the stream, and what it reads
does not grow with the show's log. A fold kept elsewhere (shared by another
process, lost, or tampered with) decides as a full fold of the log."""

import json

import pytest
from django.core.cache import caches
from django.db import connection
from django.test.utils import CaptureQueriesContext

from eventlog.readmodels import compare_with_rebuild, rebuild_stream
from eventlog.store import read
from games.core.adapt import as_game_event
from games.core.protocol import RuleError
from games.states import CACHE_ALIAS
from tournaments import kept_folds, readmodels, shows
from tournaments import show_services as ss

from .test_show_services import MOD1, T0, show

pytestmark = pytest.mark.django_db


def full_fold(stream):
    return shows.fold(as_game_event(r) for r in read(stream))


def another_process(shared=True):
    kept_folds.forget_local()
    if not shared:
        caches[CACHE_ALIAS].clear()


class Show:
    """A show whose log grows by an item handed to and fro by a moderator:
    its state keeps its size, only its log grows."""

    def __init__(self, events):
        self.stream = show()
        grant = {"type": "grant_item", "entrant": "ana", "item": "plus_one", "given_by": "mia"}
        ss.command(self.stream, grant, MOD1, now=T0)
        self.item = next(iter(ss.load(self.stream)[0].items))
        self.holder, self.other = "ana", "ben"
        while len(read(self.stream)) < events:
            self.hand_on()

    def transfer(self, src, dst):
        cmd = {"type": "transfer_item", "item_id": self.item, "from": src, "to": dst}
        return ss.command(self.stream, cmd, MOD1, now=T0)

    def hand_on(self):
        rows = self.transfer(self.holder, self.other)
        self.holder, self.other = self.other, self.holder
        return rows


@pytest.fixture
def folds_counted(monkeypatch):
    counted = {"folds": 0, "rows": 0}
    real = readmodels._fold_show_rows

    def counting(start, rows):
        counted["folds"] += 1
        counted["rows"] += len(rows)
        return real(start, rows)

    monkeypatch.setattr(readmodels, "_fold_show_rows", counting)
    return counted


def cost(a_show, folds_counted, commits, before=None):
    """(queries, folds, rows folded) of one show command (committed: its fold
    is shared), after ``before()``."""
    if before is not None:
        before()
    folds_counted.update(folds=0, rows=0)
    with commits(execute=True), CaptureQueriesContext(connection) as queries:
        a_show.hand_on()
    return len(queries), folds_counted["folds"], folds_counted["rows"]


def test_a_show_commands_cost_does_not_grow_with_the_shows_length(
    folds_counted, django_capture_on_commit_callbacks
):
    short_show = Show(12)
    long_show = Show(12 + 2 * kept_folds.SNAPSHOT_EVERY + 7)
    costs = {}
    for name, a_show in (("short", short_show), ("long", long_show)):
        with django_capture_on_commit_callbacks(execute=True):
            a_show.hand_on()  # the fold at the tip is shared once committed
        commits = django_capture_on_commit_callbacks
        costs[name] = {
            "warm": cost(a_show, folds_counted, commits),  # the process that wrote last
            "cold": cost(a_show, folds_counted, commits, another_process),
        }
    assert costs["short"] == costs["long"]
    # one fold of one row (the new event, projected), nothing read from the stream
    assert costs["long"]["warm"][1:] == costs["long"]["cold"][1:] == (1, 1)
    # what another process reads does not grow with the log: the log is not in it
    sizes = [
        len(caches[CACHE_ALIAS].get(kept_folds._key(s.stream))["json"])
        for s in (short_show, long_show)
    ]
    assert abs(sizes[1] - sizes[0]) < 100, sizes


def test_without_the_shared_fold_a_command_folds_on_from_the_records_snapshot(
    folds_counted, django_capture_on_commit_callbacks
):
    short_show = Show(12)
    long_show = Show(12 + 2 * kept_folds.SNAPSHOT_EVERY)
    counts = []
    for a_show in (short_show, long_show):
        queries, _folds, rows = cost(
            a_show,
            folds_counted,
            django_capture_on_commit_callbacks,
            lambda: another_process(False),
        )
        assert rows <= kept_folds.SNAPSHOT_EVERY + 1
        counts.append(queries)
    assert counts[0] == counts[1]


@pytest.mark.parametrize("kept", ["shared", "missing", "tampered"])
def test_a_fold_kept_by_another_process_decides_as_a_full_fold(
    kept, django_capture_on_commit_callbacks
):
    a_show = Show(30)
    with django_capture_on_commit_callbacks(execute=True):
        a_show.hand_on()
    cache, key = caches[CACHE_ALIAS], kept_folds._key(a_show.stream)
    if kept == "tampered":  # the item back with its earlier holder, under the real seal
        text = cache.get(key)["json"].replace(f'"{a_show.holder}"', '"zzz"')
        cache.set(key, {**cache.get(key), "json": text})
    another_process(shared=kept != "missing")
    state, version, _ = ss.load(a_show.stream)
    assert state == full_fold(a_show.stream) and version == len(read(a_show.stream))
    # the same decisions: the holder may hand it on, the one before may not
    with pytest.raises(RuleError, match="does not hold item"):
        a_show.transfer(a_show.other, a_show.holder)
    assert len(read(a_show.stream)) == version
    another_process(shared=kept != "missing")
    a_show.hand_on()
    assert ss.load(a_show.stream)[0] == full_fold(a_show.stream)


def test_a_shared_shows_log_is_read_only_when_read(django_capture_on_commit_callbacks):
    a_show = Show(40)
    with django_capture_on_commit_callbacks(execute=True):
        a_show.hand_on()
    another_process()
    state = ss.load(a_show.stream)[0]
    assert isinstance(state.log, kept_folds.KeptLog) and state.log._head.events is None
    a_show.hand_on()
    after = ss.load(a_show.stream)[0]
    assert after.log._head.events is None  # a command decided, nothing read the log
    truth = full_fold(a_show.stream)
    assert list(reversed(after.log)) == list(reversed(truth.log))
    assert after.log._head.events is None  # read from its end, a chunk at a time
    assert after.log == truth.log and after.log[3] == truth.log[3]
    assert len(after.log) == len(truth.log) == after.version
    assert shows.upto(after, 5) == shows.upto(truth, 5)


def test_a_rebuild_during_a_command_stays_consistent(monkeypatch):
    a_show = Show(20)
    real = ss._full_command
    rebuilt = []

    def rebuild_then(stream, *args):
        if not rebuilt:  # between the command's load and its append
            rebuilt.append(rebuild_stream(stream))
        return real(stream, *args)

    monkeypatch.setattr(ss, "_full_command", rebuild_then)
    a_show.hand_on()
    assert rebuilt
    assert ss.load(a_show.stream)[0] == full_fold(a_show.stream)
    assert compare_with_rebuild().differ == []
    another_process(shared=False)
    a_show.hand_on()
    assert ss.load(a_show.stream)[0] == full_fold(a_show.stream)
    assert json.loads(bytes(readmodels.ShowRecord.objects.get().folded))["mac"]
