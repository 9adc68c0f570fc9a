"""What a test counts on PostgreSQL's wire (tests/eventlog/test_round_trips.py,
tests/clocks/test_clock_batch.py)."""

import re

from django.db import connection


def messages(fn, tmp_path) -> list[str]:
    """The queries the client sent while ``fn`` ran (libpq's trace)."""
    connection.ensure_connection()
    path = tmp_path / "trace"
    with open(path, "w") as f:
        connection.connection.pgconn.trace(f.fileno())
        try:
            fn()
        finally:
            connection.connection.pgconn.untrace()
    sent = re.findall(r"\tF\t\d+\t(\w+)\t *(.*)", path.read_text())
    return [f"{kind} {text[:60]}" for kind, text in sent]
