"""An append on PostgreSQL is one message with its BEGIN (a prepared
statement after the first), then the COMMIT: counted on the wire."""

import re
import uuid

import pytest
from django.db import connection

from eventlog.store import ConcurrencyError, NewEvent, append, read

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


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


def test_an_append_is_one_round_trip_and_its_commit(tmp_path):
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("first", {})])  # the statement is prepared by now
    sent = messages(lambda: append(stream, 1, [NewEvent("second", {"n": 2})]), tmp_path)
    assert len(sent) == 2, sent
    assert sent[0].startswith('Query "BEGIN; EXECUTE eventlog_append_1')
    assert sent[1] == 'Query "COMMIT"'
    assert [r.type for r in read(stream)] == ["first", "second"]


@pytest.mark.parametrize("size", [1, 3, 17])  # 17: over the prepared sizes, sent as text
def test_every_batch_size_checks_the_version_and_keeps_the_order(size):
    stream = f"rt-{uuid.uuid4().hex}"
    for _ in range(2):  # the second time on a connection that prepared it
        v = len(read(stream))
        rows = append(stream, v, [NewEvent("e", {"i": i}) for i in range(size)])
        assert [r.version for r in rows] == list(range(v + 1, v + size + 1))
        assert all(r.id and r.recorded_at for r in rows)
        with pytest.raises(ConcurrencyError):
            append(stream, v, [NewEvent("late", {})])
    assert [r.data["i"] for r in read(stream)] == list(range(size)) * 2


def test_a_new_connection_prepares_again():
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {})])
    connection.close()
    append(stream, 1, [NewEvent("b", {})])
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_prepared_statements WHERE name = 'eventlog_append_1'")
        assert cur.fetchone()[0] == 1
    assert [r.type for r in read(stream)] == ["a", "b"]
