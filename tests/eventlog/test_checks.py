"""The append-only triggers check (eventlog/checks.py) knows each vendor's
triggers: the migrated test database has every one it expects."""

import pytest
from django.db import connection

from eventlog.checks import _triggers_of, append_only_triggers, installed_triggers


@pytest.mark.django_db
def test_the_migrated_database_has_every_trigger_its_vendor_expects():
    expected = {t for names in _triggers_of(connection).expected.values() for t in names}
    assert expected and expected <= installed_triggers(connection)
    assert append_only_triggers(databases=["default"]) == []


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_log_ahead_of_the_servers_transactions_is_named():
    """A log restored into a server whose transaction counter is behind it
    (docs/operations/backup.md): its events' tx are ahead of every new
    transaction, so the reactors would skip each new event. The check says so."""
    from eventlog.checks import log_transactions_behind_the_server

    assert log_transactions_behind_the_server(databases=["default"]) == []
    with connection.cursor() as cur:
        cur.execute("SET LOCAL session_replication_role = replica")  # as a restore writes it
        cur.execute(
            "INSERT INTO eventlog_storedevent (stream, version, type, data, metadata, "
            "command_seq, recorded_at, tx) VALUES ('restored-1', 1, 'x', '{}', '{}', 0, now(), "
            "(pg_snapshot_xmax(pg_current_snapshot())::text::bigint + 100000)::text::xid8)"
        )
        cur.execute("RESET session_replication_role")
    errors = log_transactions_behind_the_server(databases=["default"])
    assert [e.id for e in errors] == ["eventlog.E002"]
    assert "the reactors would skip every new event" in errors[0].msg
    assert "pg_resetwal" in errors[0].hint


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_missing_append_function_is_named():
    from eventlog.checks import append_not_whole_function

    assert append_not_whole_function(databases=["default"]) == []
    with connection.cursor() as cur:  # undone with the test's transaction
        cur.execute("DROP FUNCTION eventlog_append_not_whole()")
    errors = append_not_whole_function(databases=["default"])
    assert [e.id for e in errors] == ["eventlog.E003"]
    assert "every move would fail" in errors[0].msg
