"""What the database itself guarantees about the log: no TRUNCATE (so no
`flush`), an application role that may only read and append events, a check
that the triggers are there, and a read model's error reported as itself."""

import importlib
import os
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from django.core.checks import run_checks
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import DatabaseError, IntegrityError, connection, transaction

from eventlog import store
from eventlog.models import StoredEvent
from eventlog.store import ConcurrencyError, NewEvent, append, read

ROOT = Path(__file__).resolve().parents[2]
TABLE = StoredEvent._meta.db_table


def ev(n=1, **data):
    return [NewEvent("thing_happened", {"n": i, **data}) for i in range(n)]


def refused(sql, match):
    with pytest.raises(DatabaseError, match=match), transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(sql)


@pytest.mark.postgres
@pytest.mark.django_db
def test_truncate_is_refused_on_postgresql():
    append("s-t", 0, ev(2))
    refused(f"TRUNCATE {TABLE}", "append-only")
    refused(f"TRUNCATE {TABLE} CASCADE", "append-only")
    with pytest.raises(CommandError, match="couldn't be flushed") as flushed:
        with transaction.atomic():
            call_command("flush", "--noinput", verbosity=0)
    assert "append-only" in str(flushed.value.__cause__)
    assert len(read("s-t")) == 2


@pytest.mark.postgres
@pytest.mark.django_db
def test_no_setting_a_session_may_flip_lets_truncate_through():
    """Not even a role granted TRUNCATE (an owner's helper, a careless grant)
    gets past the trigger by setting a custom option: there is no switch."""
    append("s-t", 0, ev(2))
    role = f"gs_test_trunc_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cur:
        cur.execute(f"CREATE ROLE {role} NOLOGIN NOSUPERUSER")
        cur.execute(f"GRANT SELECT, TRUNCATE ON {TABLE} TO {role}")
        cur.execute(f"SET ROLE {role}")
        cur.execute("SET eventlog.test_allow_truncate = 'on'")
    try:
        refused(f"TRUNCATE {TABLE}", "append-only")
        # what lets the test suite's own flush through is a superuser's alone
        refused("SET session_replication_role = replica", "permission denied")
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
            cur.execute("RESET eventlog.test_allow_truncate")
    assert len(read("s-t")) == 2


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_app_role_may_only_select_and_insert_events():
    from games import services

    role = f"gs_test_app_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cur:
        cur.execute(f"CREATE ROLE {role} NOLOGIN")
    call_command("grant_app_role", role, verbosity=0)
    (row,) = append("s-r", 0, ev(1))
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {role}")
    # what the app does still works: read, append, project into read models
    assert read("s-r")[0].id == row.id
    match = services.create_match("love-me-not", ["ana", "ben"])
    assert len(read(match.stream)) >= 2
    denied = "permission denied|must be owner"
    for sql in (
        f"UPDATE {TABLE} SET type = 'forged'",
        f"DELETE FROM {TABLE}",
        f"TRUNCATE {TABLE}",
        f"ALTER TABLE {TABLE} ADD COLUMN forged text",
        f"ALTER TABLE {TABLE} DISABLE TRIGGER ALL",
        f"ALTER TABLE {TABLE} DISABLE TRIGGER eventlog_no_update_delete",
        f"DROP TRIGGER eventlog_no_truncate ON {TABLE}",
        f"DROP TABLE {TABLE}",
        "SET session_replication_role = replica",
        "DELETE FROM django_migrations",
    ):
        refused(sql, denied)
    with connection.cursor() as cur:
        cur.execute(f"GRANT UPDATE ON {TABLE} TO {role}")  # not its to give: a warning only
        cur.execute("RESET ROLE")
        rights = {}
        for right in ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER", "REFERENCES"):
            cur.execute("SELECT has_table_privilege(%s, %s, %s)", [role, TABLE, right])
            rights[right] = cur.fetchone()[0]
    assert {r for r, has in rights.items() if has} == {"SELECT", "INSERT"}
    assert StoredEvent.objects.get(pk=row.pk).type == "thing_happened"


@pytest.mark.postgres
@pytest.mark.django_db
def test_grant_app_role_refuses_the_owner():
    with connection.cursor() as cur:
        cur.execute("SELECT current_user")
        (owner,) = cur.fetchone()
    with pytest.raises(CommandError, match="owner"):
        call_command("grant_app_role", owner, verbosity=0)


def _trigger_errors():
    return [e for e in run_checks(databases=["default"]) if e.id.startswith("eventlog.")]


@pytest.mark.django_db
def test_the_check_passes_when_the_triggers_are_installed_and_fails_without():
    assert _trigger_errors() == []
    trigger = {"sqlite": "eventlog_no_delete", "postgresql": "eventlog_no_update_delete"}
    drop = f"DROP TRIGGER {trigger[connection.vendor]}"
    if connection.vendor == "postgresql":
        drop += f" ON {TABLE}"
    with transaction.atomic():
        with connection.cursor() as cur:
            cur.execute(drop)
        errors = _trigger_errors()
        transaction.set_rollback(True)
    assert [e.id for e in errors] == ["eventlog.E001"]
    assert trigger[connection.vendor] in errors[0].msg
    assert _trigger_errors() == []


REMAKE = """
import django
django.setup()
from django.db import connection
from eventlog.models import StoredEvent
with connection.schema_editor() as editor:
    editor._remake_table(StoredEvent)  # what a later AlterField does on SQLite
"""


def test_sqlite_triggers_lost_to_a_table_rebuild_fail_the_check(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env.update(
        SQLITE_PATH=str(tmp_path / "t.sqlite3"),
        VAR_DIR=str(tmp_path),
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "platform")]),
    )

    def run(*args):
        return subprocess.run(
            [sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True
        )

    # the event log's own migrations (and what they need) are enough for its check
    assert run("manage.py", "migrate", "eventlog", "--noinput").returncode == 0
    ok = run("manage.py", "check", "--database", "default")
    assert ok.returncode == 0, ok.stderr
    assert run("-c", REMAKE).returncode == 0
    bad = run("manage.py", "check", "--database", "default")
    assert bad.returncode != 0 and "eventlog.E001" in bad.stderr, bad.stderr


@pytest.mark.django_db
def test_a_read_model_error_is_reported_as_itself_and_writes_nothing():
    def broken(row):
        raise IntegrityError("read model broke")

    store.register_projector(broken)
    try:
        with pytest.raises(IntegrityError, match="read model broke"):
            append("s-p", 0, ev(2))
    finally:
        store._projectors.remove(broken)
    assert read("s-p") == []
    assert not isinstance(IntegrityError("x"), ConcurrencyError)


@pytest.mark.django_db
def test_ids_are_matched_to_rows_by_version():
    rows = append("s-v", 0, ev(5))
    stored = {r.version: r.id for r in read("s-v")}
    assert {r.version: r.id for r in rows} == stored


def _raw_insert(stream, version, recorded_at="now()"):
    with connection.cursor() as cur:
        cur.execute(
            f"INSERT INTO {TABLE} (stream, version, type, data, metadata, command_seq, recorded_at)"
            f" VALUES (%s, %s, 'forged', '{{}}', '{{\"role\": \"moderator\"}}', 0, {recorded_at})"
            " RETURNING recorded_at",
            [stream, version],
        )
        return cur.fetchone()[0]


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_database_keeps_streams_gapless_and_dates_every_event():
    """Raw INSERTs as the app's role, past append(): a gap, a first version
    other than 1, and a backdated event."""
    role = f"gs_test_app_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cur:
        cur.execute(f"CREATE ROLE {role} NOLOGIN")
    call_command("grant_app_role", role, verbosity=0)
    append("s-g", 0, ev(2))
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {role}")
        cur.execute("SELECT statement_timestamp()")
        (before,) = cur.fetchone()
    try:
        for stream, version in (("s-g", 7), ("s-g", 4), ("s-new", 2), ("s-new", 0), ("s-new", -1)):
            with pytest.raises(DatabaseError, match="gapless"), transaction.atomic():
                _raw_insert(stream, version)
        with pytest.raises(IntegrityError), transaction.atomic():
            _raw_insert("s-g", 2)  # taken: the unique constraint's to refuse
        at = _raw_insert("s-g", 3, "'2001-01-01T00:00:00Z'")
        assert at >= before and at.year > 2001
        assert _raw_insert("s-new", 1, "'2999-01-01T00:00:00Z'").year < 2999
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
    assert [r.version for r in read("s-g")] == [1, 2, 3]
    assert read("s-g")[-1].recorded_at == at


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_appends_racing_for_one_version_still_lose_as_concurrency_errors():
    """The trigger leaves a taken version to the unique constraint, so a
    writer that lost the race gets ConcurrencyError, not a database error."""
    import threading

    append("s-race", 0, ev(1))
    outcomes, barrier = [], threading.Barrier(6)

    def write():
        try:
            barrier.wait(timeout=30)
            append("s-race", 1, ev(2))
            outcomes.append("won")
        except ConcurrencyError:
            outcomes.append("lost")
        except Exception as exc:  # asserted on below
            outcomes.append(repr(exc))
        finally:
            connection.close()

    threads = [threading.Thread(target=write) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes) == ["lost"] * 5 + ["won"], outcomes
    assert [r.version for r in read("s-race")] == [1, 2, 3]


def _app_role():
    role = f"gs_test_app_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cur:
        cur.execute(f"CREATE ROLE {role} NOLOGIN")
        cur.execute("SELECT current_database(), current_schema()")
        database, schema = cur.fetchone()
        cur.execute(f'GRANT TEMPORARY ON DATABASE "{database}" TO {role}')
    call_command("grant_app_role", role, verbosity=0)
    return role, schema


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_temp_table_of_the_same_name_does_not_blind_the_gap_check():
    """The app's role shadows the log with a temporary table holding a made-up
    version 8, then appends version 9 to the real table: still refused."""
    role, schema = _app_role()
    append("s-tmp", 0, ev(2))
    real = f'"{schema}".{TABLE}'
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {role}")
    try:
        with pytest.raises(DatabaseError, match="gapless"), transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(f"CREATE TEMP TABLE {TABLE} (stream text, version integer)")
                cur.execute(f"INSERT INTO pg_temp.{TABLE} VALUES ('s-tmp', 8)")
                cur.execute(
                    f"INSERT INTO {real} (stream, version, type, data, metadata, command_seq,"
                    " recorded_at) VALUES ('s-tmp', 9, 'forged', '{}', '{}', 0, now())"
                )
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
    assert [r.version for r in read("s-tmp")] == [1, 2]


@pytest.mark.postgres
@pytest.mark.django_db
def test_operators_on_the_search_path_do_not_blind_the_gap_check():
    """A schema the app's role may use (as ``public`` is to every role before
    PostgreSQL 15) holds an ``=`` that no two streams pass and a ``>`` that
    no version passes, put before ``pg_catalog`` on the session's path; then
    version 9 is appended after 2: still refused (the triggers name their
    operators by schema, eventlog 0013)."""
    role, schema = _app_role()
    append("s-ops", 0, ev(2))
    evil = f"gs_test_ops_{uuid.uuid4().hex[:8]}"
    with connection.cursor() as cur:
        cur.execute(f"CREATE SCHEMA {evil}")
        cur.execute(
            f"CREATE FUNCTION {evil}.never(varchar, varchar) RETURNS boolean "
            "LANGUAGE sql IMMUTABLE AS 'SELECT false'"
        )
        cur.execute(
            f"CREATE FUNCTION {evil}.never_int(integer, integer) RETURNS boolean "
            "LANGUAGE sql IMMUTABLE AS 'SELECT false'"
        )
        cur.execute(
            f"CREATE OPERATOR {evil}.= (LEFTARG = varchar, RIGHTARG = varchar, "
            f"FUNCTION = {evil}.never)"
        )
        cur.execute(
            f"CREATE OPERATOR {evil}.> (LEFTARG = integer, RIGHTARG = integer, "
            f"FUNCTION = {evil}.never_int)"
        )
        cur.execute(f"GRANT USAGE ON SCHEMA {evil} TO {role}")
        cur.execute(f"SET ROLE {role}")
        cur.execute(f'SET search_path = {evil}, pg_catalog, "{schema}"')
    try:
        with pytest.raises(DatabaseError, match="gapless"), transaction.atomic():
            with connection.cursor() as cur:
                cur.execute(
                    f"INSERT INTO {TABLE} (stream, version, type, data, metadata, command_seq,"
                    " recorded_at) VALUES ('s-ops', 9, 'forged', '{}', '{}', 0, now())"
                )
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
            cur.execute("RESET search_path")
    assert [r.version for r in read("s-ops")] == [1, 2]


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_database_sets_each_event_tx_whatever_the_insert_says():
    """``tx`` is what reactors order and cut the log by: a small value would
    hide an event from them, a huge one move a new reactor past the log's end."""
    role, _ = _app_role()
    with connection.cursor() as cur:
        cur.execute(f"SET ROLE {role}")
    try:
        written = {}
        for version, tx in ((1, "3"), (2, "9000000000000000000")):
            with connection.cursor() as cur:
                cur.execute(
                    f"INSERT INTO {TABLE} (stream, version, type, data, metadata, command_seq,"
                    " recorded_at, tx) VALUES ('s-tx', %s, 'forged', '{}', '{}', 0, now(), %s)"
                    " RETURNING tx::text, pg_current_xact_id()::text",
                    [version, tx],
                )
                written[version] = cur.fetchone()
    finally:
        with connection.cursor() as cur:
            cur.execute("RESET ROLE")
    assert all(tx == current for tx, current in written.values()), written


def test_sqlite_triggers_read_the_log_not_a_temp_table_of_its_name():
    """SQLite resolves a trigger's table names in the trigger's own schema."""
    gapless = importlib.import_module("eventlog.migrations.0005_logdb_gapless_versions")
    db = sqlite3.connect(":memory:")
    db.execute(f"CREATE TABLE {TABLE} (stream text, version integer)")
    for sql in gapless.SQLITE_UP:
        db.execute(sql)
    db.execute(f"INSERT INTO {TABLE} VALUES ('s', 1)")
    db.execute(f"CREATE TEMP TABLE {TABLE} (stream text, version integer)")
    db.execute(f"INSERT INTO temp.{TABLE} VALUES ('s', 8)")
    with pytest.raises(sqlite3.DatabaseError, match="gapless"):
        db.execute(f"INSERT INTO main.{TABLE} VALUES ('s', 9)")
