"""Positions in the log as the reactors read it (reactors.follow says why):
the partition of a stream, reading past a position, the log's tip, an
event's position. The one place where PostgreSQL and the other databases
part for them: on PostgreSQL (``PostgresPositions``) a position is (writing
transaction, id), read below the line of the oldest transaction still
running; elsewhere (``PortablePositions``: SQLite writes one transaction at
a time, so ids commit in order) it is (0, id). The portable statements run
on PostgreSQL too, where the tests compare the two."""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db import connection

from eventlog import rows as db_rows
from eventlog.models import StoredEvent


def partition_of(stream: str, partitions: int | None = None) -> int:
    """The partition of a stream; the same as ``_PARTITION_SQL``."""
    n = partitions or settings.REACTOR_PARTITIONS
    return int(hashlib.md5(stream.encode()).hexdigest()[:8], 16) % n


# a stream's partition of %s (the same as ``partition_of``)
_PARTITION_OF_SQL = "('x' || substr(md5(stream), 1, 8))::bit(32)::bigint %% %s"
_PARTITION_SQL = f"{_PARTITION_OF_SQL} = %s"
_TABLE = StoredEvent._meta.db_table
_COLUMNS = "id, stream, version, type, data, metadata, command_id, command_seq, recorded_at"
# The line: the oldest transaction still running when the snapshot was taken
# (pg_snapshot_xmin), except those seen running in another database (they never
# write here; on a shared server they would hold every reactor back).
_LINE_PG = (
    "WITH snap AS (SELECT pg_current_snapshot() AS s) "
    "SELECT COALESCE((SELECT min(x) FROM snap, pg_snapshot_xip(snap.s) AS x "
    "WHERE (x::text::bigint & 4294967295) NOT IN (SELECT backend_xid::text::bigint "
    "FROM pg_stat_activity WHERE datname <> current_database() AND backend_xid IS NOT NULL)), "
    "(SELECT pg_snapshot_xmax(s) FROM snap))"
)
_READ_PG = (
    f"SELECT {_COLUMNS}, tx::text AS tx_text FROM {_TABLE} "
    f"WHERE (tx, id) > (%s::text::xid8, %s) AND tx < ({_LINE_PG}) "
    f"AND {_PARTITION_SQL} ORDER BY tx, id LIMIT %s"
)
# several partitions' reads at once, each past its own position (``read_after_many``):
# the line taken once for all, each partition's rows in order, tagged with its index
_READ_MANY_PG = (
    f"WITH line AS MATERIALIZED (SELECT ({_LINE_PG}) AS x), "
    "wanted AS (SELECT * FROM unnest(%s::int[], %s::int[], %s::text[], %s::bigint[]) "
    "AS w(i, part, after_tx, after_id)) "
    "SELECT e.*, w.i FROM wanted w CROSS JOIN LATERAL ("
    f"SELECT {_COLUMNS}, tx::text AS tx_text FROM {_TABLE} "
    "WHERE (tx, id) > (w.after_tx::xid8, w.after_id) AND tx < (SELECT x FROM line) "
    f"AND {_PARTITION_OF_SQL} = w.part "
    "ORDER BY tx, id LIMIT %s) e ORDER BY w.i, e.tx_text::xid8, e.id"
)
# the rest of a transaction a full batch cut (it has ended: its rows are all there)
_REST_OF_TX_PG = (
    f"SELECT {_COLUMNS}, tx::text AS tx_text FROM {_TABLE} "
    f"WHERE tx = %s::text::xid8 AND id > %s AND {_PARTITION_SQL} ORDER BY id"
)
_LAST_OF_PARTITION_PG = (
    f"SELECT tx::text, id FROM {_TABLE} WHERE {_PARTITION_SQL} ORDER BY tx DESC, id DESC LIMIT 1"
)


class PortablePositions:
    """Any database: one writer at a time, ids commit in order, every
    position is (0, id), the same in every partition."""

    def read_after(self, position, partition, partitions, limit):
        # other partitions' rows are skipped; the position moves past them too
        scanned = list(StoredEvent.objects.filter(id__gt=position[1]).order_by("id")[:limit])
        if not scanned:
            return [], None
        rows = [r for r in scanned if partition_of(r.stream, partitions) == partition]
        for row in rows:
            row.tx = None
        return rows, (0, scanned[-1].id)

    def read_after_many(self, wanted, partitions, limit):
        return [self.read_after(position, p, partitions, limit) for p, position in wanted]

    def tip(self, db, partitions):
        with db.cursor() as cursor:
            cursor.execute(f"SELECT max(id) FROM {_TABLE}")
            last = cursor.fetchone()[0]
        return {} if last is None else {p: (0, last) for p in range(partitions)}

    def position_of(self, event_id):
        return (0, event_id)


class PostgresPositions:
    """PostgreSQL: positions (tx, id) below the line of the oldest
    transaction still running."""

    def read_after(self, position, partition, partitions, limit):
        after_tx, after_id = position
        rows = _events(_READ_PG, [str(after_tx), after_id, partitions, partition, limit])
        if len(rows) == limit:
            rows += _events(_REST_OF_TX_PG, [str(rows[-1].tx), rows[-1].id, partitions, partition])
        return rows, ((rows[-1].tx, rows[-1].id) if rows else None)

    def read_after_many(self, wanted, partitions, limit):
        found: dict[int, list[StoredEvent]] = {i: [] for i in range(len(wanted))}
        params = [
            list(range(len(wanted))),
            [p for p, _ in wanted],
            [str(tx) for _, (tx, _id) in wanted],
            [after_id for _, (_tx, after_id) in wanted],
            partitions,
            limit,
        ]
        for row in db_rows.run(_READ_MANY_PG, params):
            event = db_rows.instance(StoredEvent, row)
            event.tx = int(row[-2])
            found[row[-1]].append(event)
        out = []
        for i, (partition, _position) in enumerate(wanted):
            rows = found[i]
            if len(rows) == limit:
                rows += _events(
                    _REST_OF_TX_PG, [str(rows[-1].tx), rows[-1].id, partitions, partition]
                )
            out.append((rows, (rows[-1].tx, rows[-1].id) if rows else None))
        return out

    def tip(self, db, partitions):
        tip = {}
        with db.cursor() as cursor:
            for p in range(partitions):  # each a short walk back along the (tx, id) index
                cursor.execute(_LAST_OF_PARTITION_PG, [partitions, p])
                row = cursor.fetchone()
                if row:
                    tip[p] = (int(row[0]), row[1])
        return tip

    def position_of(self, event_id):
        with connection.cursor() as cur:
            cur.execute(f"SELECT tx::text FROM {_TABLE} WHERE id = %s", [event_id])
            found = cur.fetchone()
        return (int(found[0]) if found else 0, event_id)


def _events(sql: str, params: list) -> list[StoredEvent]:
    """The events a ``_READ_PG``-like statement finds, each with its ``tx``."""
    events = []
    for row in db_rows.run(sql, params):
        event = db_rows.instance(StoredEvent, row)
        event.tx = int(row[-1])
        events.append(event)
    return events


def positions_of(db=connection) -> PortablePositions | PostgresPositions:
    """The one choice: PostgreSQL's positions there, the portable ones elsewhere."""
    return PostgresPositions() if db.vendor == "postgresql" else PortablePositions()


def read_after(
    position: tuple[int, int], partition: int, partitions: int, limit: int
) -> tuple[list[StoredEvent], tuple[int, int] | None]:
    """The events of ``partition`` past ``position`` that no open transaction
    can still precede, in log order, whole transactions only; and the
    position the reader may move to (None: nothing new). Run it outside any
    transaction of one's own (its snapshot would hold the line back)."""
    return positions_of(connection).read_after(position, partition, partitions, limit)


def read_after_many(
    wanted: list[tuple[int, tuple[int, int]]], partitions: int, limit: int
) -> list[tuple[list[StoredEvent], tuple[int, int] | None]]:
    """``read_after`` of each (partition, position) of ``wanted``, in one
    statement on PostgreSQL (a wake's appends over many partitions)."""
    return positions_of(connection).read_after_many(wanted, partitions, limit)


def the_tip(db=connection, partitions: int | None = None) -> dict[int, tuple[int, int]]:
    """Where each partition's log ends now, as a reader there would have
    moved: the position of its last event (SQLite: the last id of the log,
    the same for every partition); partitions without events left out."""
    return positions_of(db).tip(db, partitions or settings.REACTOR_PARTITIONS)


def position_of(event_id: int) -> tuple[int, int]:
    """An event's position in the log: (writing transaction, id)."""
    return positions_of(connection).position_of(event_id)
