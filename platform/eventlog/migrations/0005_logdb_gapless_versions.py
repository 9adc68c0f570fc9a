"""The database itself keeps each stream gapless and dates every event.

A BEFORE INSERT trigger refuses a version other than the stream's next
(first = 1; a version already taken is left to the unique constraint, so a
writer that lost a race still meets ON CONFLICT, not an error) and sets
``recorded_at`` from the database's clock, whatever the insert said: the
spectator delay is measured from it, so no writer may backdate an event."""

from django.db import migrations

GAP_MESSAGE = "events are gapless: each version of a stream is the last + 1"

POSTGRES_UP = [
    f"""CREATE OR REPLACE FUNCTION eventlog_check_append() RETURNS trigger AS $$
        DECLARE last integer;
        BEGIN
            SELECT version INTO last FROM eventlog_storedevent
                WHERE stream = NEW.stream ORDER BY version DESC LIMIT 1;
            IF NEW.version < 1 OR NEW.version > COALESCE(last, 0) + 1 THEN
                RAISE EXCEPTION '{GAP_MESSAGE} (stream %, version % after %)',
                    NEW.stream, NEW.version, COALESCE(last, 0);
            END IF;
            NEW.recorded_at := statement_timestamp();
            RETURN NEW;
        END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_append_checked BEFORE INSERT ON eventlog_storedevent
        FOR EACH ROW EXECUTE FUNCTION eventlog_check_append();""",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_append_checked ON eventlog_storedevent;",
    "DROP FUNCTION IF EXISTS eventlog_check_append();",
]
SQLITE_UP = [
    f"""CREATE TRIGGER eventlog_append_checked BEFORE INSERT ON eventlog_storedevent
        WHEN NEW.version < 1 OR NEW.version > 1 + COALESCE(
            (SELECT MAX(version) FROM eventlog_storedevent WHERE stream = NEW.stream), 0)
        BEGIN SELECT RAISE(ABORT, '{GAP_MESSAGE}'); END;""",
]
SQLITE_DOWN = ["DROP TRIGGER IF EXISTS eventlog_append_checked;"]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(vendor, []):
        schema_editor.execute(sql, params=None)


def remove(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}.get(vendor, []):
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0004_logdb_truncate_no_switch")]
    operations = [migrations.RunPython(install, remove)]
