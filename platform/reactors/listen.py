"""Waiting for the next append: the one place where PostgreSQL and the other
databases part for it. On PostgreSQL (``Listening``) a follower LISTENs on a
connection of its own and every insert of events NOTIFYs (eventlog migration
0008) the writing transaction and the streams it wrote; elsewhere
(``Polling``) a wait is its timeout alone (embedded mode wakes its thread)."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

log = logging.getLogger(__name__)

CHANNEL = "eventlog_appended"  # NOTIFYed by every insert of events: tx, streams (eventlog 0008)


@dataclass
class Woken:
    """What the notifications of a wait named: each stream appended to, with
    the highest transaction that wrote it; ``everything`` when one of them
    named no stream (too many for a payload), so that all is read."""

    streams: dict[str, int] = field(default_factory=dict)
    everything: bool = False

    def add(self, payload: str) -> None:
        """A payload of the trigger (eventlog 0008): the transaction id, then
        a line per stream written."""
        tx, *streams = payload.split("\n")
        streams = [s for s in streams if s]
        if not tx.isdigit() or not streams:
            self.everything = True
            return
        for stream in streams:
            self.streams[stream] = max(int(tx), self.streams.get(stream, 0))


class Polling:
    """Any database: nothing notifies; a wait is the timeout, after which
    everything is read."""

    def listen(self):
        """The listening connection: none."""
        return None

    def wait(self, timeout: float) -> Woken | None:
        """``timeout`` slept; None: read everything."""
        time.sleep(timeout)
        return None

    def close(self) -> None:
        pass


class Listening(Polling):
    """PostgreSQL: LISTEN on a connection of its own; polling while it cannot."""

    def __init__(self):
        self._conn = None

    def listen(self):
        """The listening connection (None: polling only)."""
        if self._conn is None:
            try:
                import psycopg

                # a connection of its own, never one of a pool (DB_POOL_SIZE)
                conn = psycopg.connect(**connection.get_connection_params(), autocommit=True)
                conn.execute(f"LISTEN {CHANNEL}")
                self._conn = conn
            except Exception:
                log.exception("reactors: cannot LISTEN; polling")
        return self._conn

    def wait(self, timeout: float) -> Woken | None:
        """Until an append commits or ``timeout``: what the notifications
        received named (empty on a timeout), None when there is no LISTEN
        (read everything). Once the listening connection failed, the next wait
        listens again and returns at once: what was appended meanwhile is
        read by the next full catch-up."""
        fresh = self._conn is None
        conn = self.listen()
        if conn is None:
            return super().wait(timeout)
        if fresh:
            return None
        woken = Woken()
        try:
            for note in conn.notifies(timeout=timeout, stop_after=1):
                woken.add(note.payload)
            if woken.streams or woken.everything:  # and the next few ms': one catch-up
                for note in conn.notifies(timeout=settings.REACTOR_GATHER_S):
                    woken.add(note.payload)
        except Exception:
            log.exception("reactors: the LISTEN connection failed; polling")
            self.close()
            return None
        return woken  # empty: the wait timed out

    def close(self) -> None:
        if self._conn is not None:
            try:
                self._conn.close()
            finally:
                self._conn = None


def wakeup(db=connection) -> Polling:
    """The one choice: LISTEN on PostgreSQL, polling elsewhere."""
    return Listening() if db.vendor == "postgresql" else Polling()
