#!/usr/bin/env python
"""What the gapless-version trigger (eventlog migration 0005) costs an append.

Appends ``N`` one-event commands (each on a stream 20 events long, as a
match's) with the trigger on, then with it disabled, alternately in rounds,
and prints the median time per append and the ratio. PostgreSQL only, as a
role that may disable a trigger (the table's owner); run against a scratch
database: ``DATABASE_URL=... python bench/append_trigger_cost.py``. The
trigger is enabled again whatever happens."""

from __future__ import annotations

import os
import statistics
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "platform")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DJANGO_DEBUG", "1")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402

from eventlog.models import StoredEvent  # noqa: E402
from eventlog.store import NewEvent, append  # noqa: E402

N, ROUNDS, STREAM_LENGTH = 400, 5, 20
TABLE = StoredEvent._meta.db_table


def per_append_ms() -> float:
    streams = [f"bench-{uuid.uuid4().hex[:12]}" for _ in range(N // STREAM_LENGTH)]
    start = time.perf_counter()
    for v in range(STREAM_LENGTH):
        for s in streams:
            append(s, v, [NewEvent("card_played", {"card": "3", "v": v})], actor="bench")
    return (time.perf_counter() - start) * 1000 / (len(streams) * STREAM_LENGTH)


def trigger(on: bool) -> None:
    with connection.cursor() as cur:
        cur.execute(
            f"ALTER TABLE {TABLE} {'ENABLE' if on else 'DISABLE'} TRIGGER eventlog_append_checked"
        )


def main() -> None:
    assert connection.vendor == "postgresql", "set DATABASE_URL to a PostgreSQL database"
    call_command("migrate", "--noinput", verbosity=0)
    per_append_ms()  # warm up: prepared statements, caches
    with_trigger, without = [], []
    try:
        for _ in range(ROUNDS):
            trigger(True)
            with_trigger.append(per_append_ms())
            trigger(False)
            without.append(per_append_ms())
    finally:
        trigger(True)
    on, off = statistics.median(with_trigger), statistics.median(without)
    print(f"{N} appends x {ROUNDS} rounds, streams {STREAM_LENGTH} events long")
    print(
        f"with the trigger:    {on:.3f} ms per append (rounds: {[round(x, 2) for x in with_trigger]})"
    )
    print(
        f"without the trigger: {off:.3f} ms per append (rounds: {[round(x, 2) for x in without]})"
    )
    print(f"ratio: {on / off:.3f}")


if __name__ == "__main__":
    main()
