"""An append alone in autocommit (eventlog.store's whole path) notifies the
reactors after its commit, not within it.

PostgreSQL serializes every transaction that NOTIFYs from its pre-commit to
its end under one lock, its WAL flush included: under load the appends
queued for it one behind the other (in the peer benchmark, 2026-12-06,
sampling pg_stat_activity: of an append's samples, 1,163 waited on that lock
and 559 on the WAL flush of the one holding it, 351 ran). Such an append now
sets ``eventlog.notify_after`` for its transaction, which the notify trigger
reads to stay quiet, and leaves its transaction and stream in
``eventlog.appended``; the same message then sends the NOTIFY in a
transaction of its own, without waiting for a flush (a notification is not
durable anyway), so the lock is held for a moment only. Every other append
notifies from the trigger as before."""

import importlib

from django.db import migrations

CHANNEL = "eventlog_appended"
PAYLOAD_MAX = 7900
SAFE_PATH = "SET search_path = pg_catalog, pg_temp"

_table_schema = importlib.import_module(
    "eventlog.migrations.0009_guards_qualified_tx_set"
)._table_schema


def _notify_function(schema: str, quiet_when_asked: bool, quiet_when_empty: bool = False) -> str:
    quiet = (
        "IF pg_catalog.current_setting('eventlog.notify_after', true) = 'on' THEN\n"
        "                    RETURN NULL;\n"
        "                END IF;"
        if quiet_when_asked
        else ""
    )
    # (0012) a statement that inserted no row (a lost race, a command id
    # already recorded) has nothing to tell: a stream-less payload would make
    # every reactor read every partition
    empty = (
        "IF streams IS NULL THEN\n                    RETURN NULL;\n                END IF;"
        if quiet_when_empty
        else ""
    )
    return f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_notify_append() RETURNS trigger
            LANGUAGE plpgsql {SAFE_PATH} AS $$
            DECLARE streams text;
            BEGIN
                {quiet}
                SELECT pg_catalog.string_agg(DISTINCT a.stream, E'\\n') INTO streams
                    FROM appended a;
                {empty}
                IF streams IS NULL OR pg_catalog.octet_length(streams) > {PAYLOAD_MAX} THEN
                    streams := '';
                END IF;
                PERFORM pg_catalog.pg_notify(
                    '{CHANNEL}', pg_catalog.pg_current_xact_id()::text || E'\\n' || streams);
                RETURN NULL;
            END; $$;"""


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_notify_function(_table_schema(schema_editor), True), params=None)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(_notify_function(_table_schema(schema_editor), False), params=None)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0010_append_not_whole")]

    operations = [migrations.RunPython(install, remove)]
