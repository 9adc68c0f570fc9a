"""Reactors follow the log by position (reactors app). On PostgreSQL each
event records the id of the transaction that wrote it (``tx``, xid8, set by
the database, not by the ORM), so a reader can tell which positions are
final: an id from a sequence is taken at insert but becomes visible at
commit, so a lower id may appear after a higher one was read. Readers take
only events whose ``tx`` is below the oldest transaction still running
(``pg_snapshot_xmin``) and go in (tx, id) order: nothing can appear below
that line any more. Each insert statement also NOTIFYs ``eventlog_appended``
(delivered at commit) to wake the followers.

SQLite writes one transaction at a time: ids commit in order, no column."""

from django.db import migrations

CHANNEL = "eventlog_appended"

POSTGRES_UP = [
    "ALTER TABLE eventlog_storedevent ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id()",
    "CREATE INDEX eventlog_tx_id_idx ON eventlog_storedevent (tx, id)",
    f"""CREATE OR REPLACE FUNCTION eventlog_notify_append() RETURNS trigger AS $$
        BEGIN PERFORM pg_notify('{CHANNEL}', ''); RETURN NULL; END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_append_notified AFTER INSERT ON eventlog_storedevent
        FOR EACH STATEMENT EXECUTE FUNCTION eventlog_notify_append();""",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_append_notified ON eventlog_storedevent;",
    "DROP FUNCTION IF EXISTS eventlog_notify_append();",
    "DROP INDEX IF EXISTS eventlog_tx_id_idx;",
    "ALTER TABLE eventlog_storedevent DROP COLUMN IF EXISTS tx;",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRES_UP:
            schema_editor.execute(sql, params=None)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRES_DOWN:
            schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0006_idem_command_records")]

    operations = [migrations.RunPython(install, remove)]
