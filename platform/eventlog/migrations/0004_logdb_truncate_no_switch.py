"""TRUNCATE of the log is refused with no switch: migration 0003 let any
session that set ``eventlog.test_allow_truncate = on`` through, and any
connection may set a custom setting. Now only what a superuser alone may do
gets past the trigger (``session_replication_role = replica``, which the
test suite sets around its own flush, tests/conftest.py)."""

from django.db import migrations

TRUNCATE_MESSAGE = "events are append-only: TRUNCATE is refused"

POSTGRES_UP = [
    f"""CREATE OR REPLACE FUNCTION eventlog_refuse_truncate() RETURNS trigger AS $$
        BEGIN RAISE EXCEPTION '{TRUNCATE_MESSAGE}'; END; $$ LANGUAGE plpgsql;""",
]
POSTGRES_DOWN = [
    f"""CREATE OR REPLACE FUNCTION eventlog_refuse_truncate() RETURNS trigger AS $$
        BEGIN
            IF current_setting('eventlog.test_allow_truncate', true) = 'on' THEN
                RETURN NULL;
            END IF;
            RAISE EXCEPTION '{TRUNCATE_MESSAGE}';
        END; $$ LANGUAGE plpgsql;""",
]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRES_UP:
            schema_editor.execute(sql)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in POSTGRES_DOWN:
            schema_editor.execute(sql)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0003_command_id_per_stream_no_truncate")]
    operations = [migrations.RunPython(install, remove)]
