"""The log's positions as the reactors read them (reactors.positions): the
portable reading (ids in order, position (0, id)) on any database, and on
PostgreSQL its own reading ((tx, id) below the line) compared with the
portable one over the same log: the same events of each partition."""

from types import SimpleNamespace

import pytest
from django.db import connection, transaction

from eventlog import store
from eventlog.models import StoredEvent
from eventlog.store import NewEvent
from reactors import positions
from reactors.positions import PortablePositions, PostgresPositions, partition_of

pytestmark = pytest.mark.django_db(transaction=True)

PARTITIONS = 4


def _append(stream, n=1) -> list[int]:
    rows = store.append(stream, store.stream_version(stream), [NewEvent("thing_done", {})] * n)
    return [r.id for r in rows]


def _a_log() -> dict[int, list[int]]:
    """Appends to streams of every partition (one transaction holding two of
    them); the event ids of each partition, in id order."""
    streams = [f"t-p{i}" for i in range(12)]
    with transaction.atomic():
        _append(streams[0], 2)
        _append(streams[1])
    for stream in streams:
        _append(stream, 2)
    by_partition: dict[int, list[int]] = {p: [] for p in range(PARTITIONS)}
    for row in StoredEvent.objects.order_by("id"):
        by_partition[partition_of(row.stream, PARTITIONS)].append(row.id)
    assert all(by_partition.values())  # every partition has events
    return by_partition


def _read_all(way, partition) -> tuple[list[int], tuple[int, int] | None]:
    rows, moved_to = way.read_after((0, 0), partition, PARTITIONS, 500)
    return [r.id for r in rows], moved_to


def test_the_one_choice_of_positions_is_by_the_database():
    assert isinstance(positions.positions_of(SimpleNamespace(vendor="sqlite")), PortablePositions)
    assert isinstance(
        positions.positions_of(SimpleNamespace(vendor="postgresql")), PostgresPositions
    )


def test_the_portable_positions_are_the_ids_in_order():
    log = _a_log()
    last = max(i for ids in log.values() for i in ids)
    portable = PortablePositions()
    for partition, ids in log.items():
        read, moved_to = _read_all(portable, partition)
        assert read == ids
        assert moved_to == (0, last)  # past the other partitions' rows too
        assert portable.read_after(moved_to, partition, PARTITIONS, 500) == ([], None)
    assert portable.tip(connection, PARTITIONS) == {p: (0, last) for p in range(PARTITIONS)}
    assert portable.position_of(last) == (0, last)


@pytest.mark.postgres
def test_postgres_reads_the_same_events_as_the_portable_positions_by_transaction():
    log = _a_log()
    portable, postgres = PortablePositions(), PostgresPositions()
    assert isinstance(positions.positions_of(connection), PostgresPositions)
    tip = postgres.tip(connection, PARTITIONS)
    for partition, ids in log.items():
        read, moved_to = _read_all(postgres, partition)
        assert sorted(read) == sorted(_read_all(portable, partition)[0]) == ids
        # the position is the last event's (tx, id), where that partition's tip is
        assert moved_to == postgres.position_of(moved_to[1]) == tip[partition]
        assert moved_to[0] > 0
        assert postgres.read_after(moved_to, partition, PARTITIONS, 500) == ([], None)
    # the tips name each partition's last event; the portable one the log's last
    assert {p: at[1] for p, at in tip.items()} == {p: ids[-1] for p, ids in log.items()}
    last = max(at[1] for at in tip.values())
    assert set(portable.tip(connection, PARTITIONS).values()) == {(0, last)}
    assert portable.position_of(last) == (0, last)


@pytest.mark.postgres
def test_many_partitions_read_at_once_are_each_partitions_own_read():
    log = _a_log()
    postgres = PostgresPositions()
    firsts = {p: ids[0] for p, ids in log.items()}
    # each partition past its own first event: the positions differ
    wanted = [(p, postgres.position_of(firsts[p])) for p in sorted(log)]
    together = postgres.read_after_many(wanted, PARTITIONS, 500)
    alone = [postgres.read_after(position, p, PARTITIONS, 500) for p, position in wanted]
    assert [([r.id for r in rows], to) for rows, to in together] == [
        ([r.id for r in rows], to) for rows, to in alone
    ]
    assert [[r.id for r in rows] for rows, _to in together] == [log[p][1:] for p in sorted(log)]
    assert all(r.tx == postgres.position_of(r.id)[0] for rows, _ in together for r in rows)
    # a limit cuts each partition's batch on its own, whole transactions kept
    cut = postgres.read_after_many([(p, (0, 0)) for p in sorted(log)], PARTITIONS, 1)
    one_by_one = [postgres.read_after((0, 0), p, PARTITIONS, 1) for p in sorted(log)]
    assert [[r.id for r in rows] for rows, _ in cut] == [
        [r.id for r in rows] for rows, _ in one_by_one
    ]
    # nothing new anywhere: nothing read, no position
    ends = [(p, to) for (p, _), (_rows, to) in zip(wanted, together, strict=True)]
    assert postgres.read_after_many(ends, PARTITIONS, 500) == [([], None)] * len(ends)


def test_the_portable_positions_read_many_partitions_one_by_one():
    log = _a_log()
    portable = PortablePositions()
    got = portable.read_after_many([(p, (0, 0)) for p in sorted(log)], PARTITIONS, 500)
    assert [[r.id for r in rows] for rows, _ in got] == [log[p] for p in sorted(log)]
