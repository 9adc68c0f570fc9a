"""Reactors follow the log (reactors.follow) on PostgreSQL: a reader never
passes an event whose transaction is still open, even when a lower position
commits after a higher one; followers share the partitions, one that dies
is taken over, nothing lost and nothing doubled; a restart resumes from the
checkpoint. An effect here is "handled": recorded when the reactor's
transaction (with its checkpoint) commits, as a database effect would be."""

import random
import threading
from collections import Counter

import pytest
from django.db import OperationalError, connection, transaction

from eventlog import store
from eventlog.store import NewEvent
from reactors import follow, listen, positions
from reactors.follow import Follower, Reactor
from reactors.models import ParkedAppend, ReactorFollower, ReactorPartition
from reactors.positions import partition_of

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

PARTITIONS = 8


class Handled:
    """What a test reactor did, by event id and by follower, once committed."""

    def __init__(self):
        self.lock = threading.Lock()
        self.ids: Counter = Counter()
        self.by: Counter = Counter()

    def reactor(self, owner: str = "") -> Reactor:
        def handle(rows):
            ids = [r.id for r in rows]

            def done():
                with self.lock:
                    self.ids.update(ids)
                    self.by[owner] += len(ids)

            transaction.on_commit(done)

        return Reactor("test", handle, ("t-",))

    def all_once(self, ids) -> bool:
        with self.lock:
            return set(self.ids) == set(ids)

    def doubled(self) -> list:
        with self.lock:
            return [i for i, n in self.ids.items() if n > 1]


def _follower(handled, name, lease_s=10.0):
    return Follower(name, reactors=[handled.reactor(name)], partitions=PARTITIONS, lease_s=lease_s)


def _append(stream, n=1) -> list[int]:
    rows = store.append(stream, store.stream_version(stream), [NewEvent("thing_done", {})] * n)
    return [r.id for r in rows]


def _in_thread(fn):
    """``fn`` on a thread of its own (its own database connection)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the test
            out["error"] = e
        finally:
            connection.close()

    t = threading.Thread(target=run)
    t.start()
    return t, out


def _held(owner) -> int:
    return ReactorPartition.objects.filter(reactor="test", owner=owner).count()


def test_the_partition_of_a_stream_is_the_same_in_python_and_sql():
    streams = [f"t-{i}" for i in range(40)] + ["match-abc", "show-0b231276643b4eb3"]
    with connection.cursor() as cur:
        for s in streams:
            cur.execute(
                "SELECT " + positions._PARTITION_SQL.replace("stream", "%s"),
                [s, 8, partition_of(s, 8)],
            )
            assert cur.fetchone()[0] is True
    assert len({partition_of(s, 8) for s in streams}) == 8


def test_a_lower_position_committed_after_a_higher_one_is_not_skipped():
    handled = Handled()
    reader = _follower(handled, "reader")
    reader.beat()
    appended, release = threading.Event(), threading.Event()

    def slow_writer():  # takes its position first, commits last
        with transaction.atomic():
            ids = _append("t-slow")
            appended.set()
            assert release.wait(30)
        return ids

    slow, out = _in_thread(slow_writer)
    assert appended.wait(30)
    fast = _append("t-fast")  # a higher position, committed at once
    reader.catch_up()
    # the line stays below the open transaction: the higher position waits too
    assert not handled.ids
    release.set()
    slow.join(30)
    assert "error" not in out, out.get("error")
    assert out["value"][0] < fast[0]
    reader.catch_up()
    assert handled.ids == Counter(out["value"] + fast)


def test_concurrent_writers_lose_nothing_and_double_nothing(wait_for):
    handled = Handled()
    reader = _follower(handled, "reader")
    stop = threading.Event()
    written: list[int] = []
    lock = threading.Lock()
    start = threading.Barrier(4)

    def writer(k):
        rng = random.Random(k)
        start.wait(30)
        for i in range(15):
            with transaction.atomic():  # transactions of one or more appends, interleaved
                ids = _append(f"t-w{k}-{i % 3}", rng.randint(1, 3))
                if rng.random() < 0.5:
                    ids += _append(f"t-w{k}-x{i}")
            with lock:
                written.extend(ids)

    def follow_all():
        while not stop.is_set():
            reader.step(poll_s=0.01)
            stop.wait(0.01)

    threads = [_in_thread(lambda k=k: writer(k)) for k in range(4)]
    follower_thread, follower_out = _in_thread(follow_all)
    try:
        for t, out in threads:
            t.join(60)
            assert "error" not in out, out.get("error")
        assert wait_for(lambda: handled.all_once(written), 30), (len(written), len(handled.ids))
    finally:
        stop.set()
        follower_thread.join(30)
    assert "error" not in follower_out, follower_out.get("error")
    assert handled.doubled() == [] and len(written) >= 60


def test_two_followers_share_the_partitions_and_one_takes_over_when_the_other_dies(wait_for):
    handled = Handled()
    a, b = _follower(handled, "a", lease_s=1.0), _follower(handled, "b", lease_s=1.0)
    stops = {"a": threading.Event(), "b": threading.Event()}

    def loop(follower):
        # a crash: the loop ends, nothing given back (no leave)
        while not stops[follower.owner].is_set():
            follower.step(poll_s=0.02)
            stops[follower.owner].wait(0.02)

    runs = {"a": _in_thread(lambda: loop(a))}
    assert wait_for(lambda: _held("a") == PARTITIONS)
    runs["b"] = _in_thread(lambda: loop(b))
    assert wait_for(lambda: _held("a") == _held("b") == PARTITIONS // 2), (_held("a"), _held("b"))

    first = [i for k in range(24) for i in _append(f"t-s{k}")]
    assert wait_for(lambda: handled.all_once(first))
    assert handled.by["a"] and handled.by["b"]  # both followed their share

    stops["a"].set()  # a dies
    runs["a"][0].join(30)
    second = [i for k in range(24) for i in _append(f"t-s{k}", 2)]
    try:
        assert wait_for(lambda: handled.all_once(first + second), 30)
        assert wait_for(lambda: _held("b") == PARTITIONS)
    finally:
        stops["b"].set()
        runs["b"][0].join(30)
    assert handled.doubled() == []
    for _name, (_t, out) in runs.items():
        assert "error" not in out, out.get("error")


def test_a_follower_that_lost_its_lease_moves_nothing(monkeypatch):
    """Between its read and its commit, another took the partition over: its
    batch is dropped, the new holder handles it, once."""
    handled = Handled()
    a, b = _follower(handled, "a", lease_s=30), _follower(handled, "b", lease_s=30)
    a.beat()
    ids = [i for k in range(8) for i in _append(f"t-l{k}")]

    def read_then_lose(_partition, _got):
        # a's lease runs out and b (alone alive) takes every partition over
        ReactorPartition.objects.filter(owner="a").update(lease_until="2000-01-01T00:00Z")
        ReactorFollower.objects.filter(owner="a").delete()
        b.beat()

    _on_reads(monkeypatch, after=read_then_lose)
    assert a.catch_up() == 0 and not handled.ids and _held("a") == 0
    _reads_back(monkeypatch)
    assert _held("b") == PARTITIONS
    b.catch_up()
    assert handled.ids == Counter(ids) and handled.by["b"] == len(ids)


def test_a_restart_resumes_from_the_checkpoint():
    handled = Handled()
    first = _follower(handled, "first")
    first.beat()
    before = [i for k in range(10) for i in _append(f"t-r{k}")]
    first.catch_up()
    first.leave()  # a clean stop gives everything back at once
    assert ReactorPartition.objects.filter(reactor="test").exclude(owner="").count() == 0
    after = [i for k in range(10) for i in _append(f"t-r{k}")]
    again = _follower(handled, "again")
    again.beat()
    again.catch_up()
    assert handled.ids == Counter(before + after)
    assert handled.by["first"] == len(before) and handled.by["again"] == len(after)


def test_run_wakes_on_notify_and_gives_back_on_stop(wait_for):
    handled = Handled()
    follower = _follower(handled, "runner", lease_s=600)
    stop = threading.Event()
    # long polls and beats: only the NOTIFY of an append wakes it within the wait
    runner, out = _in_thread(lambda: follower.run(stop, poll_s=60))
    try:
        assert wait_for(lambda: _held("runner") == PARTITIONS)
        ids = _append("t-notified", 2)
        assert wait_for(lambda: handled.all_once(ids), 30)
    finally:
        stop.set()
        _append("t-wake")  # its NOTIFY ends the wait
        runner.join(30)
    assert "error" not in out, out.get("error")
    assert _held("runner") == 0 and not ReactorFollower.objects.filter(owner="runner").exists()


def _beside(handled, reactor: Reactor) -> Follower:
    """A follower "f" of ``reactor`` and the handled one, holding its partitions."""
    follower = Follower("f", reactors=[reactor, handled.reactor("f")], partitions=PARTITIONS)
    follower.beat()
    return follower


def test_a_failing_reactor_is_parked_and_the_others_go_on(settings, caplog):
    settings.REACTOR_RETRIES = 1  # parked at its first failure
    handled = Handled()

    def broken(rows):
        raise RuntimeError("a bug in one reactor")

    follower = _beside(handled, Reactor("broken", broken, ("t-",)))
    ids = _append("t-bug", 2)
    follower.catch_up()
    assert handled.ids == Counter(ids)
    assert "reactor broken failed on t-bug@2" in caplog.text
    moved = ReactorPartition.objects.get(reactor="broken", partition=partition_of("t-bug"))
    assert moved.after_id == ids[-1]  # logged, parked and passed, not retried forever
    parked = ParkedAppend.objects.get(reactor="broken")
    assert (parked.stream, parked.first_version, parked.last_version) == ("t-bug", 1, 2)
    assert "a bug in one reactor" in parked.error


def test_a_reactor_that_only_reads_runs_without_a_savepoint_and_a_failure_is_passed(
    settings, caplog
):
    settings.REACTOR_RETRIES = 1
    from django.db import connection as db
    from django.test.utils import CaptureQueriesContext

    handled = Handled()
    seen = []

    def reads(rows):
        seen.extend(r.id for r in rows)
        raise RuntimeError("a bug in a reactor that only reads")

    follower = _beside(handled, Reactor("reads", reads, ("t-",), writes=False))
    ids = _append("t-ro", 2)
    with CaptureQueriesContext(db) as queries:
        follower.catch_up()
    assert seen == ids and handled.ids == Counter(ids)
    savepoints = [q["sql"] for q in queries if q["sql"].startswith("SAVEPOINT")]
    assert len(savepoints) == 1  # the writing reactor's only
    assert "reactor reads failed on t-ro@2" in caplog.text
    moved = ReactorPartition.objects.get(reactor="reads", partition=partition_of("t-ro"))
    assert moved.after_id == ids[-1]


def test_a_database_error_in_a_reactor_that_only_reads_has_the_pass_tried_again():
    """With no savepoint of its own, its error leaves the pass's transaction
    unusable: the pass is undone and read again, nothing skipped."""
    from django.db import ProgrammingError

    handled = Handled()
    failing = [True]

    def reads(rows):
        if failing[0]:
            with connection.cursor() as cursor:
                cursor.execute("SELECT * FROM no_such_table_here")

    follower = _beside(handled, Reactor("reads", reads, ("t-",), writes=False))
    ids = _append("t-rodb", 2)
    with pytest.raises(ProgrammingError):
        follower.catch_up()
    part = ReactorPartition.objects.get(reactor="reads", partition=partition_of("t-rodb"))
    assert part.after_id < ids[0] and not handled.ids  # nothing moved, nothing done
    failing[0] = False
    follower.catch_up()
    assert handled.ids == Counter(ids)
    part.refresh_from_db()
    assert part.after_id == ids[-1]


def _counting(monkeypatch, name="once") -> Counter:
    """A registered reactor of the t- streams that counts its calls per event."""
    calls: Counter = Counter()
    monkeypatch.setitem(
        follow._reactors,
        name,
        Reactor(name, lambda rows: calls.update(r.id for r in rows), ("t-",)),
    )
    return calls


def test_embedded_mode_handles_each_event_once(settings, monkeypatch):
    settings.REACTORS_INLINE = True
    calls = _counting(monkeypatch)
    ids = [i for k in range(6) for i in _append(f"t-e{k}", 2)]
    assert calls == Counter(ids)  # right after each commit, by the appending process
    thread = Follower("embedded-thread", partitions=PARTITIONS)  # comes after, finds nothing
    thread.beat()
    thread.catch_up()
    assert calls == Counter(ids)
    assert ReactorPartition.objects.get(reactor="once", partition=partition_of("t-e0")).after_id


def test_embedded_mode_loses_nothing_when_the_process_dies_before_its_inline_pass(
    settings, monkeypatch
):
    calls = _counting(monkeypatch)
    settings.REACTORS_INLINE = False  # what runs after the commit never ran: a crash
    lost = _append("t-crash", 2)
    settings.REACTORS_INLINE = True
    after = _append("t-crash")  # the next append's pass takes the partition from its checkpoint
    assert calls == Counter(lost + after)
    thread = Follower("embedded-thread", partitions=PARTITIONS)
    thread.beat()
    thread.catch_up()
    assert calls == Counter(lost + after)


def test_embedded_mode_handles_at_once_what_its_pass_could_not_take(settings, monkeypatch):
    """The inline pass failed (the database): the events are handled anyway,
    and the follower comes to them again (at least once)."""
    settings.REACTORS_INLINE = True
    calls = _counting(monkeypatch)

    def down(_partition):
        raise OperationalError("the database went away")

    _on_reads(monkeypatch, before=down)
    ids = _append("t-down", 2)
    assert calls == Counter(ids)
    _reads_back(monkeypatch)
    thread = Follower("embedded-thread", partitions=PARTITIONS)
    thread.beat()
    thread.catch_up()
    assert calls == Counter(ids + ids)


def _on_reads(monkeypatch, before=None, after=None) -> None:
    """``before(partition)`` and ``after(partition, (rows, moved_to))`` around
    each partition's read, alone (read_after) or with others (read_after_many)."""
    real_one, real_many = positions.read_after, positions.read_after_many

    def one(position, partition, partitions, limit):
        if before:
            before(partition)
        got = real_one(position, partition, partitions, limit)
        if after:
            after(partition, got)
        return got

    def many(wanted, partitions, limit):
        for partition, _position in wanted:
            if before:
                before(partition)
        got = real_many(wanted, partitions, limit)
        for (partition, _position), read in zip(wanted, got, strict=True):
            if after:
                after(partition, read)
        return got

    monkeypatch.setattr(positions, "read_after", one)
    monkeypatch.setattr(positions, "read_after_many", many)


def _reads_back(monkeypatch) -> None:
    monkeypatch.setattr(positions, "read_after", _REAL_READS[0])
    monkeypatch.setattr(positions, "read_after_many", _REAL_READS[1])


_REAL_READS = (positions.read_after, positions.read_after_many)


def _reads(monkeypatch) -> list[int]:
    """The partitions read, in order."""
    read: list[int] = []
    _on_reads(monkeypatch, before=read.append)
    return read


def _read_sizes(monkeypatch) -> list[int]:
    """How many events each partition's read found, in order."""
    sizes: list[int] = []
    _on_reads(monkeypatch, after=lambda _partition, got: sizes.append(len(got[0])))
    return sizes


def test_a_wake_after_one_append_reads_its_partition_only(monkeypatch):
    handled = Handled()
    follower = _follower(handled, "woken", lease_s=600)
    read = _reads(monkeypatch)
    follower.step(poll_s=600)  # on start: every partition
    assert set(read) == set(range(PARTITIONS))
    wakeup = listen.wakeup()
    wakeup.listen()
    try:
        ids = _append("t-one", 2)
        woken = wakeup.wait(30)
    finally:
        wakeup.close()
    assert woken is not None and set(woken.streams) == {"t-one"} and not woken.everything
    read.clear()
    follower.step(poll_s=600, woken=woken)
    # once: a batch shorter than the limit held all that was final, so no
    # second read finds nothing, and the partition is not kept waiting
    assert read == [partition_of("t-one", PARTITIONS)]
    assert handled.ids == Counter(ids)
    assert follower.waiting == {}


def test_a_pass_reads_locks_and_moves_its_checkpoints_without_compiling_a_query(monkeypatch):
    """The checkpoints' statements and the log's read are made once: building
    and compiling ORM queries cost more than running them, once a pass."""
    from django.db.models.sql.compiler import SQLCompiler

    handled = Handled()
    follower = _follower(handled, "fixed", lease_s=600)
    follower.beat()
    ids = _append("t-fixed", 2)
    compiled = []
    real = SQLCompiler.as_sql
    monkeypatch.setattr(
        SQLCompiler, "as_sql", lambda self, *a, **kw: compiled.append(1) or real(self, *a, **kw)
    )
    assert follower.catch_up(only={partition_of("t-fixed", PARTITIONS)}) == 2
    assert handled.ids == Counter(ids)
    assert compiled == []
    position = ReactorPartition.objects.get(
        reactor="test", partition=partition_of("t-fixed", PARTITIONS)
    )
    assert position.after_id == ids[-1] and position.after_tx == _tx_of(ids[-1])


def test_a_full_batch_is_read_on_until_the_partition_is_caught_up(monkeypatch):
    handled = Handled()
    follower = Follower(
        "small", reactors=[handled.reactor("small")], partitions=PARTITIONS, batch=2
    )
    follower.beat()
    ids = [i for _ in range(5) for i in _append("t-many")]
    sizes = _read_sizes(monkeypatch)
    # Another database's transaction ending between the line's snapshot and its
    # look at pg_stat_activity holds the line back for one read (safe: read
    # again on the next wake), so catch up as a wake would until all is handled.
    rounds = []
    for _ in range(10):
        start = len(sizes)
        follower.catch_up(only={partition_of("t-many", PARTITIONS)})
        rounds.append(sizes[start:])
        if sum(handled.ids.values()) == 5:
            break
    assert handled.ids == Counter(ids)
    # within a catch-up, a full batch of 2 is followed by another read; a short one ends it
    for reads in rounds:
        assert all(n == 2 for n in reads[:-1]) and reads[-1] < 2, rounds


def test_a_woken_partition_held_back_by_an_open_transaction_is_read_again():
    handled = Handled()
    follower = _follower(handled, "woken", lease_s=600)
    follower.step(poll_s=600)
    appended, release = threading.Event(), threading.Event()

    def slow_writer():
        with transaction.atomic():
            ids = _append("t-slow")
            appended.set()
            assert release.wait(30)
        return ids

    slow, out = _in_thread(slow_writer)
    assert appended.wait(30)
    fast = _append("t-fast")
    woken = listen.Woken()
    woken.add(f"{_tx_of(fast[0])}\nt-fast")
    follower.step(poll_s=600, woken=woken)
    assert not handled.ids  # below the line: not yet
    assert partition_of("t-fast", PARTITIONS) in follower.waiting
    release.set()
    slow.join(30)
    assert "error" not in out, out.get("error")
    woken = listen.Woken()
    woken.add(f"{_tx_of(out['value'][0])}\nt-slow")
    follower.step(poll_s=600, woken=woken)  # the slow one's wake reads the fast one's too
    assert handled.ids == Counter(out["value"] + fast)
    assert follower.waiting == {}


def _tx_of(event_id) -> int:
    return positions.position_of(event_id)[0]


def test_a_partition_held_back_by_a_transaction_that_appends_nothing_is_read_soon():
    """The older transaction writes no event, so no NOTIFY says it ended: the
    follower reads its waiting partition again after a short wait, not at
    the next full catch-up (POLL_S), and the timed-out wait is empty, not
    a full read."""
    handled = Handled()
    follower = _follower(handled, "woken", lease_s=600)
    follower.step(poll_s=600)
    began, release = threading.Event(), threading.Event()

    def other_write():
        with transaction.atomic():
            ReactorFollower.objects.create(owner="someone-else", alive_until="2000-01-01T00:00Z")
            began.set()
            assert release.wait(30)

    other, out = _in_thread(other_write)
    assert began.wait(30)
    fast = _append("t-fast")
    woken = listen.Woken()
    woken.add(f"{_tx_of(fast[0])}\nt-fast")
    wait = follower.step(poll_s=600, woken=woken)
    assert not handled.ids and partition_of("t-fast", PARTITIONS) in follower.waiting
    assert wait <= follow.RETRY_S
    assert follower.step(poll_s=600, woken=listen.Woken()) <= 2 * follow.RETRY_S  # still held
    release.set()
    other.join(30)
    assert "error" not in out, out.get("error")
    wakeup = listen.wakeup()
    wakeup.listen()
    try:
        timed_out = wakeup.wait(wait)
    finally:
        wakeup.close()
    assert timed_out is not None and not timed_out.streams and not timed_out.everything
    follower.step(poll_s=600, woken=timed_out)
    assert handled.ids == Counter(fast)
    assert follower.waiting == {}
    assert follower.step(poll_s=600, woken=listen.Woken()) > follow.RETRY_MAX_S


def test_embedded_mode_handles_what_its_pass_could_not_take_under_the_reactors_locks(
    settings, monkeypatch, wait_for
):
    """Two appends whose inline pass failed: each reactor runs at once, in a
    transaction of its own, so a lock it takes (a game's ratings) holds until
    its effects commit: the second waits for the first (no lost update)."""
    from ratings.readmodels import lock_game

    settings.REACTORS_INLINE = True
    release, inside = threading.Event(), []

    def rates(rows):
        lock_game("love-me-not")
        inside.append(rows[0].stream)
        if rows[0].stream == "t-first":
            release.wait(10)

    monkeypatch.setitem(follow._reactors, "rates", Reactor("rates", rates, ("t-",)))

    def down(_partition):
        raise OperationalError("the database went away")

    _on_reads(monkeypatch, before=down)
    first, out1 = _in_thread(lambda: _append("t-first"))
    assert wait_for(lambda: inside == ["t-first"])
    second, out2 = _in_thread(lambda: _append("t-second"))

    def waiting_for_the_lock() -> bool:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            )
            return cursor.fetchone()[0] == 1

    assert wait_for(waiting_for_the_lock)
    assert inside == ["t-first"]  # the second waits for the first's commit
    release.set()
    first.join(10)
    second.join(10)
    assert "error" not in out1 and "error" not in out2
    assert inside == ["t-first", "t-second"]


def _beside_in_its_partition(stream: str) -> str:
    """Another t- stream of ``stream``'s partition."""
    at = partition_of(stream, PARTITIONS)
    return next(s for s in (f"t-n{i}" for i in range(1000)) if partition_of(s, PARTITIONS) == at)


def test_a_failing_reactor_retries_with_backoff_then_parks_the_append_and_goes_on(
    settings, monkeypatch, client
):
    """Its checkpoint stops before the append it failed on (nothing lost), it
    tries again after a backoff, and after REACTOR_RETRIES tries in a row the
    append is parked (admin, /healthz) and the rest goes on; a parked append
    is tried again by `manage.py retry_parked`."""
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    settings.REACTORS_INLINE = False  # its own process follows the log
    settings.REACTOR_RETRIES, settings.REACTOR_BACKOFF_S = 3, 60
    handled, tries, broken = Handled(), Counter(), [True]

    def flaky(rows):
        tries[rows[0].stream] += 1
        if broken[0] and rows[0].stream == "t-flaky":
            raise RuntimeError("the mail server is down")

    reactor = Reactor("flaky", flaky, ("t-",))
    monkeypatch.setitem(follow._reactors, "flaky", reactor)
    follower = _beside(handled, reactor)
    after = _beside_in_its_partition("t-flaky")
    bad, good = _append("t-flaky", 2), _append(after)

    def checkpoint():
        return ReactorPartition.objects.get(reactor="flaky", partition=partition_of("t-flaky"))

    follower.catch_up()
    assert handled.ids == Counter(bad + good)  # the other reactor goes on
    part = checkpoint()
    assert part.after_id < bad[0] and part.failures == 1 and "mail server" in part.last_error
    assert part.retry_at > timezone.now() + timedelta(seconds=50)
    follower.catch_up()
    assert tries == Counter({"t-flaky": 1})  # backing off: not tried again yet
    for n in (2, 3):
        ReactorPartition.objects.filter(pk=part.pk).update(retry_at=timezone.now())  # time passed
        follower.catch_up()
        assert tries["t-flaky"] == n
    part = checkpoint()
    assert part.after_id == good[-1] and part.failures == 0 and tries[after] == 1
    parked = ParkedAppend.objects.get(reactor="flaky")
    assert (parked.stream, parked.first_version, parked.last_version) == ("t-flaky", 1, 2)
    assert parked.attempts == 3 and not parked.handled
    assert client.get("/healthz").json()["reactors"] == {"parked": 1, "retrying": 0}

    broken[0] = False  # the mail server is back
    call_command("retry_parked")
    parked.refresh_from_db()
    assert parked.handled and tries["t-flaky"] == 4
    assert client.get("/healthz").json()["reactors"] == {"parked": 0, "retrying": 0}


def test_a_superuser_tries_a_parked_append_again_from_the_admin(settings, monkeypatch, client):
    from django.contrib.auth.models import User

    settings.REACTORS_INLINE = False
    tried = []
    monkeypatch.setitem(
        follow._reactors, "later", Reactor("later", lambda rows: tried.extend(rows), ("t-",))
    )
    ids = _append("t-parked", 2)
    parked = ParkedAppend.objects.create(
        reactor="later", stream="t-parked", first_version=1, last_version=2, error="E", attempts=5
    )
    url = "/admin/reactors/parkedappend/"
    action = {"action": "try_again", "_selected_action": [parked.pk]}
    client.force_login(User.objects.create_user("stan", is_staff=True))
    assert client.post(url, action).status_code == 403  # staff sees nothing of the log
    assert not tried
    client.force_login(User.objects.create_user("root", is_staff=True, is_superuser=True))
    assert client.get(url).status_code == 200
    assert client.post(url, action, follow=True).status_code == 200
    parked.refresh_from_db()
    assert parked.handled and [r.id for r in tried] == ids


def test_a_wake_over_many_partitions_is_one_read_and_one_transaction():
    """The issue's ask: a reactors' pass handles every event a wake brings in
    one transaction, read in one statement, its checkpoints moved in one."""
    from django.test.utils import CaptureQueriesContext

    handled = Handled()
    follower = _follower(handled, "together", lease_s=600)
    follower.beat()
    follower.catch_up()
    streams = [f"t-many{i}" for i in range(40)]
    partitions = {partition_of(s, PARTITIONS) for s in streams}
    assert len(partitions) > 3
    ids = [i for s in streams for i in _append(s)]
    with CaptureQueriesContext(connection) as seen:
        assert follower.catch_up(only=partitions) == len(ids)
    assert handled.ids == Counter(ids)
    sql = [q["sql"] for q in seen.captured_queries]
    assert len([q for q in sql if "pg_current_snapshot" in q]) == 1, sql  # one read
    assert len([q for q in sql if q.startswith("UPDATE")]) == 1, sql  # one move
    assert len([q for q in sql if "FOR UPDATE" in q]) == 1, sql  # one lock
    for p in partitions:  # every checkpoint past its partition's last event
        last = max(i for s, i in zip(streams, ids, strict=True) if partition_of(s, PARTITIONS) == p)
        assert ReactorPartition.objects.get(reactor="test", partition=p).after_id == last
    assert follower.catch_up(only=partitions) == 0
