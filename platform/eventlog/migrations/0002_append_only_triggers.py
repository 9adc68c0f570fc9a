"""The database itself refuses UPDATE and DELETE of events."""

from django.db import migrations

MESSAGE = "events are append-only: UPDATE and DELETE are refused"

SQLITE_UP = [
    f"""CREATE TRIGGER eventlog_no_update BEFORE UPDATE ON eventlog_storedevent
        BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END;""",
    f"""CREATE TRIGGER eventlog_no_delete BEFORE DELETE ON eventlog_storedevent
        BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END;""",
]
SQLITE_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_no_update;",
    "DROP TRIGGER IF EXISTS eventlog_no_delete;",
]
POSTGRES_UP = [
    f"""CREATE OR REPLACE FUNCTION eventlog_refuse_change() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION '{MESSAGE}'; END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_no_update_delete BEFORE UPDATE OR DELETE ON eventlog_storedevent
        FOR EACH ROW EXECUTE FUNCTION eventlog_refuse_change();""",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_no_update_delete ON eventlog_storedevent;",
    "DROP FUNCTION IF EXISTS eventlog_refuse_change();",
]


def install(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_UP, "postgresql": POSTGRES_UP}.get(vendor, []):
        schema_editor.execute(sql)


def remove(apps, schema_editor):
    vendor = schema_editor.connection.vendor
    for sql in {"sqlite": SQLITE_DOWN, "postgresql": POSTGRES_DOWN}.get(vendor, []):
        schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0001_initial")]
    operations = [migrations.RunPython(install, remove)]
