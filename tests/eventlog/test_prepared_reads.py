"""The hot reads (eventlog.rows.run) on PostgreSQL: PREPAREd once per
connection, in the message of their first EXECUTE, then one EXECUTE each;
kept through a ROLLBACK, with the appends' statements (psycopg's own
preparing would DEALLOCATE ALL there). Counted on the wire."""

import uuid

import pytest
from django.db import connection, transaction

from eventlog import rows, store
from eventlog.store import NewEvent, append, read
from tests.helpers.wire import messages

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _prepared_on_the_server() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_prepared_statements")
        return {name for (name,) in cursor.fetchall()}


def test_a_read_is_prepared_with_its_first_execute_then_executed_alone(tmp_path):
    stream = f"pr-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {"n": 1})])
    connection.close()  # a new connection: nothing prepared on it yet
    first = messages(lambda: read(stream), tmp_path)
    name = rows.prepared_name(store._READ)
    # what the connection has prepared is listed once, then the PREPARE and
    # its EXECUTE go in one message
    assert len(first) == 2 and first[1].startswith(f'Query "PREPARE {name} AS SELECT'), first
    assert name in _prepared_on_the_server()
    again = messages(lambda: read(stream), tmp_path)
    assert again == [m for m in again if m.startswith(f'Query "EXECUTE {name} (')], again
    assert len(again) == 1
    assert [(r.type, r.data) for r in read(stream)] == [("a", {"n": 1})]


def test_a_rollback_keeps_the_reads_and_the_appends_statements():
    stream = f"pr-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {})])
    append(stream, 1, [NewEvent("b", {}), NewEvent("c", {})])
    read(stream)
    kept = _prepared_on_the_server()
    assert rows.prepared_name(store._READ) in kept
    with pytest.raises(RuntimeError), transaction.atomic():
        read(stream)
        raise RuntimeError("undo")  # a ROLLBACK, as a refused move's
    with pytest.raises(RuntimeError), transaction.atomic():
        with transaction.atomic():  # a savepoint rolled back
            read(stream)
            raise RuntimeError("undo")
    append(stream, 3, [NewEvent("d", {})])
    append(stream, 4, [NewEvent("e", {}), NewEvent("f", {})])
    assert [r.type for r in read(stream)] == ["a", "b", "c", "d", "e", "f"]
    assert kept <= _prepared_on_the_server()


def test_a_literal_percent_and_parameters_of_every_kind():
    found = rows.run(
        "SELECT 7 %% %s, %s::text, %s::bigint IS NULL, %s::jsonb ->> 'k'",
        [4, "x'y", None, '{"k": "v"}'],
    )
    assert found == [(3, "x'y", True, "v")]
    assert rows.run("SELECT %s::int + 1", [1]) == [(2,)]  # the same text prepared once


def test_a_failed_first_run_leaves_the_next_one_working():
    with pytest.raises(Exception, match="division by zero"):
        rows.run("SELECT 1 / %s", [0])
    assert rows.run("SELECT 1 / %s", [1]) == [(1,)]
