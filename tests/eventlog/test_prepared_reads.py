"""The hot reads (eventlog.rows.run) on PostgreSQL: PREPAREd once per
connection, in the message of their first EXECUTE, then one EXECUTE each;
kept through a ROLLBACK, with the appends' statements (psycopg's own
preparing would DEALLOCATE ALL there). Counted on the wire."""

import datetime
import uuid

import pytest
from django.db import connection, transaction
from psycopg import pq

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


def test_every_character_and_kind_is_bound_as_psycopgs_cursor_binds_it():
    """The reads and appends go past psycopg's cursor (rows.message), bound
    by psycopg's own adapters: what comes back is what went in."""
    import datetime
    import decimal

    tricky = 'a\'b\\c %s %% "d"; DROP TABLE x; -- é ✓ 🂡\n\tend'
    moment = datetime.datetime(2026, 12, 7, 10, 0, 0, 123456, tzinfo=datetime.UTC)
    found = rows.run(
        "SELECT %s::text, %s::timestamptz, %s::numeric, %s::int, %s::boolean, %s::text IS NULL",
        [tricky, moment, decimal.Decimal("-1e-30"), -2147483648, False, None],
    )
    assert found == [(tricky, moment, decimal.Decimal("-1e-30"), -2147483648, False, True)]
    stream = f"pr-{uuid.uuid4().hex}-{tricky}"
    append(stream, 0, [NewEvent("a", {"text": tricky})])
    assert [(r.stream, r.data) for r in read(stream)] == [(stream, {"text": tricky})]


def test_an_error_is_djangos_and_the_connection_goes_on():
    from django.db import DataError

    with pytest.raises(DataError, match="division by zero"):
        rows.run("SELECT 2 / %s", [0])
    assert rows.run("SELECT 2 / %s", [2]) == [(1,)]


def test_in_a_block_not_yet_begun_a_read_runs_in_its_transaction():
    """psycopg begins the transaction of Django's block on its first
    statement: a read that is the block's first goes through psycopg's
    cursor, so it and what follows share one transaction."""
    rows.run("SELECT pg_current_xact_id()::text", [])  # the statements on the connection listed
    with transaction.atomic():
        (first,) = rows.run("SELECT pg_current_xact_id()::text", [])[0]
        (second,) = rows.run("SELECT pg_current_xact_id()::text || %s", [""])[0]
        assert connection.connection.info.transaction_status.name == "INTRANS"
    assert first == second


def test_times_are_loaded_by_psycopgs_own_loader_as_the_orm_loads_them():
    stream = f"pr-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {}), NewEvent("b", {})])
    through_orm = list(
        store.StoredEvent.objects.filter(stream=stream)
        .order_by("version")
        .values_list("recorded_at", flat=True)
    )
    loaded = [r.recorded_at for r in read(stream)]
    assert loaded == through_orm
    assert {t.tzinfo for t in loaded} == {datetime.UTC}
    raw = connection.connection
    loader = rows._loading(raw).adapters.get_loader(1184, pq.Format.TEXT)  # timestamptz
    # not Django's loader in Python (psycopg_any.BaseTzLoader), 12 times slower
    assert not hasattr(loader, "timezone"), loader


def test_a_session_in_another_zone_keeps_djangos_loader():
    stream = f"pr-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {})])
    connection.close()
    connection.ensure_connection()
    with connection.cursor() as cursor:
        cursor.execute("SET TIME ZONE 'Europe/Paris'")
    try:
        raw = connection.connection
        assert rows._loading(raw) is raw
        # as the ORM loads it in that session (Django expects its own zone there)
        orm = store.StoredEvent.objects.get(stream=stream).recorded_at
        assert read(stream)[0].recorded_at == orm
    finally:
        connection.close()
