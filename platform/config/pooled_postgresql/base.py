"""Django's PostgreSQL backend, its pool (DB_POOL_SIZE: the web role's) checking
a connection before lending it only when it sat idle a while. psycopg_pool's
own check (Django's, with health checks on) is a round trip to PostgreSQL at
every checkout, and a socket's work checks one out per call (live.pool): two
of a move's round trips. A connection given back a moment ago was working
then; one that broke since (a connection cut, the server restarted) fails its
first use, that request answered 503 (config.middleware), and the pool discards it
when it comes back.

When it came back is marked as Django gives it back, not by the pool's
``reset``: psycopg_pool runs a reset on its worker thread, so every request
handed its connection to that thread (a queue, a wake, the GIL twice) and the
connection stayed out of the pool until the thread got to it (the hand-off
alone 2.8 % of the web workers' samples under the peer benchmark's load,
2026-12-07)."""

from __future__ import annotations

from time import monotonic

from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

# a connection idle longer than this is checked before it is lent again
RECHECK_AFTER_IDLE_S = 1.0


def check_when_idle(conn) -> None:
    """The pool's ``check``: psycopg_pool's, for a connection idle a while."""
    if monotonic() - getattr(conn, "_returned_at", float("-inf")) < RECHECK_AFTER_IDLE_S:
        return
    ConnectionPool.check_connection(conn)


class DatabaseWrapper(base.DatabaseWrapper):
    @property
    def pool(self):
        pool = super().pool
        # Django builds the pool with its own check or none (health checks off
        # here): ours set before it opens (psycopg_pool 3.3's attribute;
        # tests/config/test_db_pool.py fails if it stops working)
        if pool is not None and pool._check is None:
            pool._check = check_when_idle
        return pool

    def _close(self):
        if self.connection is not None and self.pool:
            self.connection._returned_at = monotonic()  # given back to the pool now
        return super()._close()
