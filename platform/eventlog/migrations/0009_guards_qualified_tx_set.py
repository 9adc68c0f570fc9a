"""The log's PostgreSQL triggers hold against whatever a connection does.

Their functions named the event table bare, so a session's ``CREATE TEMP
TABLE eventlog_storedevent`` (searched first) blinded the gap check. Every
name is now qualified by the table's schema or ``pg_catalog``, and each
function runs with ``search_path = pg_catalog, pg_temp`` (temporary objects
last, never first).

``tx`` (0007) was only a column default, which an INSERT may override: a
small value hid an event from every reactor, a huge one moved a new
reactor's start past the log's end. The gap check's trigger now sets it to
the writing transaction's id, as it sets ``recorded_at``.

SQLite resolves a trigger's names in the trigger's own schema, and has no
``tx`` (the embedded mode has one process; readers go by id)."""

import importlib

from django.db import migrations

GAP_MESSAGE = "events are gapless: each version of a stream is the last + 1"
CHANNEL = "eventlog_appended"
PAYLOAD_MAX = 7900
SAFE_PATH = "SET search_path = pg_catalog, pg_temp"


def _postgres_up(schema: str) -> list[str]:
    table = f"{schema}.eventlog_storedevent"
    return [
        f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_check_append() RETURNS trigger
            LANGUAGE plpgsql {SAFE_PATH} AS $$
            DECLARE last integer;
            BEGIN
                SELECT e.version INTO last FROM {table} e
                    WHERE e.stream = NEW.stream ORDER BY e.version DESC LIMIT 1;
                IF NEW.version < 1 OR NEW.version > COALESCE(last, 0) + 1 THEN
                    RAISE EXCEPTION '{GAP_MESSAGE} (stream %, version % after %)',
                        NEW.stream, NEW.version, COALESCE(last, 0);
                END IF;
                NEW.recorded_at := pg_catalog.statement_timestamp();
                NEW.tx := pg_catalog.pg_current_xact_id();
                RETURN NEW;
            END; $$;""",
        # ``appended`` is the trigger's transition table: a statement's own
        # name, found before any table
        f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_notify_append() RETURNS trigger
            LANGUAGE plpgsql {SAFE_PATH} AS $$
            DECLARE streams text;
            BEGIN
                SELECT pg_catalog.string_agg(DISTINCT a.stream, E'\\n') INTO streams
                    FROM appended a;
                IF streams IS NULL OR pg_catalog.octet_length(streams) > {PAYLOAD_MAX} THEN
                    streams := '';
                END IF;
                PERFORM pg_catalog.pg_notify(
                    '{CHANNEL}', pg_catalog.pg_current_xact_id()::text || E'\\n' || streams);
                RETURN NULL;
            END; $$;""",
        f"ALTER FUNCTION {schema}.eventlog_refuse_change() {SAFE_PATH}",
        f"ALTER FUNCTION {schema}.eventlog_refuse_truncate() {SAFE_PATH}",
    ]


def _table_schema(schema_editor) -> str:
    with schema_editor.connection.cursor() as cur:
        cur.execute(
            "SELECT quote_ident(n.nspname) FROM pg_class c "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.oid = 'eventlog_storedevent'::regclass"
        )
        return cur.fetchone()[0]


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        for sql in _postgres_up(_table_schema(schema_editor)):
            schema_editor.execute(sql, params=None)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema = _table_schema(schema_editor)
    for name in ("eventlog_refuse_change", "eventlog_refuse_truncate"):
        schema_editor.execute(f"ALTER FUNCTION {schema}.{name}() RESET search_path", params=None)
    gapless = importlib.import_module("eventlog.migrations.0005_logdb_gapless_versions")
    notify = importlib.import_module("eventlog.migrations.0008_reactfix_notify_streams")
    for sql in (gapless.POSTGRES_UP[0], notify.POSTGRES_UP[1]):  # replaced whole, path too
        schema_editor.execute(sql, params=None)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0008_reactfix_notify_streams")]

    operations = [migrations.RunPython(install, remove)]
