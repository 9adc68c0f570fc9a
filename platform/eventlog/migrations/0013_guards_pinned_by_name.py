"""The two triggers every append fires name everything they use by its
schema, operators included (``OPERATOR(pg_catalog.=)``), instead of
running with ``search_path = pg_catalog, pg_temp`` (0009).

The path held them against a shadowing object, but PostgreSQL sets and
restores it on every call, and changing the path makes the statement look
its names up again: an append's statement ran 0.08 ms with the trigger
unpinned and 0.10 to 0.13 ms pinned (EXPLAIN ANALYZE, 2026-12-07), a fifth
of what an append costs the server. Named in full, nothing a session's path
or temporary objects hold can stand in for what they use, as before:
relations, types and operators all come from the log's schema or
``pg_catalog``. The two guards that fire only to refuse (a change, a
TRUNCATE) keep the pinned path: they cost nothing to an append."""

import importlib

from django.db import migrations

_guards = importlib.import_module("eventlog.migrations.0009_guards_qualified_tx_set")
_notify = importlib.import_module("eventlog.migrations.0011_notify_after_commit")


def _op(name: str) -> str:
    return f"OPERATOR(pg_catalog.{name})"


def _check_function(schema: str) -> str:
    return f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_check_append() RETURNS trigger
            LANGUAGE plpgsql AS $$
            DECLARE last pg_catalog.int4;
            BEGIN
                SELECT e.version INTO last FROM {schema}.eventlog_storedevent e
                    WHERE e.stream {_op("=")} NEW.stream ORDER BY e.version DESC LIMIT 1;
                last := COALESCE(last, 0);
                IF (NEW.version {_op("<")} 1)
                        OR (NEW.version {_op(">")} (last {_op("+")} 1)) THEN
                    RAISE EXCEPTION '{_guards.GAP_MESSAGE} (stream %, version % after %)',
                        NEW.stream, NEW.version, last;
                END IF;
                NEW.recorded_at := pg_catalog.statement_timestamp();
                NEW.tx := pg_catalog.pg_current_xact_id();
                RETURN NEW;
            END; $$;"""


def _notify_function(schema: str) -> str:
    """0012's: quiet for an append that notifies after its commit and for a
    statement that inserted nothing."""
    return f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_notify_append() RETURNS trigger
            LANGUAGE plpgsql AS $$
            DECLARE streams pg_catalog.text;
            BEGIN
                IF pg_catalog.current_setting('eventlog.notify_after', true) {_op("=")} 'on' THEN
                    RETURN NULL;
                END IF;
                SELECT pg_catalog.string_agg(DISTINCT a.stream, E'\\n') INTO streams
                    FROM appended a;
                IF streams IS NULL THEN
                    RETURN NULL;
                END IF;
                IF pg_catalog.octet_length(streams) {_op(">")} {_notify.PAYLOAD_MAX} THEN
                    streams := '';
                END IF;
                PERFORM pg_catalog.pg_notify('{_notify.CHANNEL}',
                    (pg_catalog.pg_current_xact_id()::pg_catalog.text) {_op("||")} E'\\n'
                    {_op("||")} streams);
                RETURN NULL;
            END; $$;"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema = _guards._table_schema(schema_editor)
        for sql in (_check_function(schema), _notify_function(schema)):
            schema_editor.execute(sql, params=None)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema = _guards._table_schema(schema_editor)
        schema_editor.execute(_guards._postgres_up(schema)[0], params=None)
        schema_editor.execute(_notify._notify_function(schema, True, True), params=None)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0012_notify_only_what_was_appended")]
    operations = [migrations.RunPython(install, remove)]
