"""What one move costs the server in round trips, counted whatever the load:
PostgreSQL statements and transactions, Redis round trips, Celery
publishes and channel-layer sends, process-wide (every thread, the event
loop's too), while ``Census`` is open.

Counted at the clients' lowest common calls, so nothing that bypasses
Django (the event store's raw psycopg cursor, channels-redis's asyncio
client, kombu's producer) is missed:

- PostgreSQL: each ``psycopg.Cursor.execute``/``executemany`` is one round
  trip, its text split on ``;`` into statements; a transaction is a COMMIT
  (or ROLLBACK) sent for an open one, or a statement run in autocommit
  outside any (its own implicit transaction);
- Redis: each ``send_packed_command`` (sync or asyncio; a pipeline or a
  script is one) is a round trip, with the commands it carries; the channel
  layer's idle receive loop (BZPOPMIN: a socket waiting for its next
  message) is counted apart, as it runs whether or not anyone moves;
- Celery: each ``kombu.Producer.publish``;
- channel layer: each ``group_send``, ``send``, ``group_add`` and
  ``group_discard`` of the layer's class.

bench/move_cost.py and tests/live/test_move_cost.py print and bound these."""

from __future__ import annotations

import re
import sys
import threading
from collections import Counter
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from unittest import mock

WAITING = {"BZPOPMIN", "BLPOP", "BRPOP", "BZPOPMAX"}  # an idle socket's receive loop

_RESP_NAME = re.compile(rb"\*\d+\r\n\$\d+\r\n([A-Za-z]+)\r\n")


def _names(packed) -> list[str]:
    """The command names a packed RESP buffer holds (one, or a pipeline's)."""
    if isinstance(packed, str):
        packed = packed.encode()
    if not isinstance(packed, bytes | bytearray | memoryview):
        packed = b"".join(bytes(p) for p in packed)
    return [n.decode().upper() for n in _RESP_NAME.findall(bytes(packed))]


def _statements(sql) -> list[str]:
    if not isinstance(sql, str):
        sql = getattr(sql, "as_string", lambda *_: str(sql))(None)
    parts = [p.strip() for p in sql.split(";")]
    return [p for p in parts if p] or [""]


_ROOT = str(Path(__file__).resolve().parents[2])


def _caller() -> str:
    """The innermost frame of the project's own code (not a library's, not this file's)."""
    frame, library = sys._getframe(2), "?"
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith(_ROOT) and "/.venv/" not in name and not name.endswith("move_cost.py"):
            return f"{Path(name).stem}.{frame.f_code.co_name}"
        if library == "?" and "channels_redis" in name:  # a task of the layer's own
            library = f"channels_redis.{frame.f_code.co_name}"
        frame = frame.f_back
    return library


def _kind(statement: str) -> str:
    word = statement.split(None, 1)[0].upper() if statement else "?"
    return word


@dataclass
class Counts:
    pg_round_trips: int = 0
    pg_statements: Counter = field(default_factory=Counter)  # by first word
    pg_transactions: int = 0
    redis_round_trips: int = 0
    redis_commands: Counter = field(default_factory=Counter)
    redis_waiting: int = 0  # receive loops' blocking pops, apart
    celery_publishes: Counter = field(default_factory=Counter)  # by routing key
    layer_calls: Counter = field(default_factory=Counter)  # group_send, send, ...
    sql: list = field(default_factory=list)  # each round trip's text (shortened)
    where: Counter = field(default_factory=Counter)  # (kind, the project's caller) per trip

    def per(self, n: int) -> dict:
        """These counts divided by ``n`` moves (a dict for a report)."""

        def each(x):
            return round(x / n, 2)

        return {
            "pg_round_trips": each(self.pg_round_trips),
            "pg_statements": each(sum(self.pg_statements.values())),
            "pg_by_kind": {k: each(v) for k, v in sorted(self.pg_statements.items())},
            "pg_transactions": each(self.pg_transactions),
            "redis_round_trips": each(self.redis_round_trips),
            "redis_by_command": {k: each(v) for k, v in sorted(self.redis_commands.items())},
            "celery_publishes": each(sum(self.celery_publishes.values())),
            "layer_calls": {k: each(v) for k, v in sorted(self.layer_calls.items())},
        }


class Census:
    """Counts while open (``with Census() as c: ...``; ``c.counts``);
    ``reset()`` starts the counts again (after the set-up's own traffic)."""

    def __init__(self):
        self.counts = Counts()
        self._lock = threading.Lock()
        self._stack: ExitStack | None = None

    def reset(self) -> Counts:
        with self._lock:
            before, self.counts = self.counts, Counts()
        return before

    # -- the patched calls
    def _pg(self, conn, sql):
        from psycopg.pq import TransactionStatus

        statements = _statements(sql)
        kinds = [_kind(s) for s in statements]
        idle = conn.pgconn.transaction_status == TransactionStatus.IDLE
        with self._lock:
            c = self.counts
            c.pg_round_trips += 1
            c.where[("pg", _caller())] += 1
            c.sql.append(" ; ".join(s[:100] for s in statements))
            if idle and not conn.autocommit:
                # psycopg begins the transaction first, alone: a round trip of its own
                c.pg_round_trips += 1
                c.pg_statements["BEGIN"] += 1
                c.sql.insert(len(c.sql) - 1, "BEGIN (psycopg's own)")
            c.pg_statements.update(kinds)
            ends = sum(k in ("COMMIT", "ROLLBACK") for k in kinds)
            c.pg_transactions += ends
            if idle and conn.autocommit and "BEGIN" not in kinds and not ends:
                c.pg_transactions += 1  # in autocommit: its own implicit transaction

    def _pg_end(self, conn, kind: str):
        from psycopg.pq import TransactionStatus

        if conn.pgconn.transaction_status != TransactionStatus.IDLE:
            with self._lock:
                self.counts.pg_round_trips += 1
                self.counts.pg_statements[kind] += 1
                self.counts.pg_transactions += 1
                self.counts.sql.append(kind)

    def _redis(self, packed):
        names = _names(packed)
        with self._lock:
            if names and all(n in WAITING for n in names):
                self.counts.redis_waiting += 1
                return
            self.counts.redis_round_trips += 1
            self.counts.redis_commands.update(names or ["?"])
            self.counts.where[("redis " + "+".join(names), _caller())] += 1

    def __enter__(self) -> Census:
        import psycopg
        import redis.asyncio.connection as aredis
        import redis.connection as sredis
        from channels.layers import InMemoryChannelLayer
        from channels_redis.core import RedisChannelLayer
        from channels_redis.pubsub import RedisPubSubLoopLayer
        from kombu import messaging

        census = self
        stack = ExitStack()

        real_execute = psycopg.Cursor.execute
        real_many = psycopg.Cursor.executemany
        real_commit = psycopg.Connection.commit
        real_rollback = psycopg.Connection.rollback

        def execute(cur, query, *a, **kw):
            census._pg(cur.connection, query)
            return real_execute(cur, query, *a, **kw)

        def executemany(cur, query, *a, **kw):
            census._pg(cur.connection, query)
            return real_many(cur, query, *a, **kw)

        def commit(conn):
            census._pg_end(conn, "COMMIT")
            return real_commit(conn)

        def rollback(conn):
            census._pg_end(conn, "ROLLBACK")
            return real_rollback(conn)

        real_sync_send = sredis.AbstractConnection.send_packed_command
        real_async_send = aredis.AbstractConnection.send_packed_command

        def sync_send(conn, command, *a, **kw):
            census._redis(command)
            return real_sync_send(conn, command, *a, **kw)

        async def async_send(conn, command, *a, **kw):
            census._redis(command)
            return await real_async_send(conn, command, *a, **kw)

        real_publish = messaging.Producer.publish

        def publish(producer, body, *a, routing_key=None, **kw):
            task = (kw.get("headers") or {}).get("task") or routing_key or "?"
            with census._lock:
                census.counts.celery_publishes[task] += 1
                census.counts.where[("celery " + task, _caller())] += 1
            return real_publish(producer, body, *a, routing_key=routing_key, **kw)

        patches = [
            mock.patch.object(psycopg.Cursor, "execute", execute),
            mock.patch.object(psycopg.Cursor, "executemany", executemany),
            mock.patch.object(psycopg.Connection, "commit", commit),
            mock.patch.object(psycopg.Connection, "rollback", rollback),
            mock.patch.object(sredis.AbstractConnection, "send_packed_command", sync_send),
            mock.patch.object(aredis.AbstractConnection, "send_packed_command", async_send),
            mock.patch.object(messaging.Producer, "publish", publish),
        ]
        for layer_class in (RedisChannelLayer, RedisPubSubLoopLayer, InMemoryChannelLayer):
            for name in ("group_send", "send", "group_add", "group_discard"):
                if name not in vars(layer_class):  # counted where it is defined, once
                    continue
                patches.append(
                    mock.patch.object(layer_class, name, _layer_call(census, layer_class, name))
                )
        for p in patches:
            stack.enter_context(p)
        self._stack = stack
        return self

    def __exit__(self, *exc):
        assert self._stack is not None
        self._stack.close()
        self._stack = None


def _layer_call(census: Census, cls, name: str):
    real = getattr(cls, name)

    async def call(layer, *a, **kw):
        with census._lock:
            census.counts.layer_calls[name] += 1
            census.counts.where[("layer " + name, _caller())] += 1
        return await real(layer, *a, **kw)

    return call


@contextmanager
def counting():
    with Census() as census:
        yield census
