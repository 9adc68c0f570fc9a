"""What a test counts on PostgreSQL's wire (tests/eventlog/test_round_trips.py,
tests/clocks/test_clock_batch.py)."""

import re

from django.db import connection


def messages(fn, tmp_path, width: int | None = 60) -> list[str]:
    """The queries the client sent while ``fn`` ran (libpq's trace), each
    cut to ``width`` characters (``None``: whole)."""
    connection.ensure_connection()
    path = tmp_path / "trace"
    with open(path, "w") as f:
        connection.connection.pgconn.trace(f.fileno())
        try:
            fn()
        finally:
            connection.connection.pgconn.untrace()
    sent = re.findall(r"\tF\t\d+\t(\w+)\t *(.*)", path.read_text())
    return [f"{kind} {text[:width]}" for kind, text in sent]
