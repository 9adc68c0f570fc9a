"""The NOTIFY of an append names what it wrote, so a follower woken by it
reads only those streams' partitions: the payload is the writing
transaction's id, then one line per stream of the statement's rows (from
its transition table). Too many streams for a payload (8000 bytes): the id
alone, and the follower reads every partition."""

from django.db import migrations

CHANNEL = "eventlog_appended"
PAYLOAD_MAX = 7900

POSTGRES_UP = [
    "DROP TRIGGER IF EXISTS eventlog_append_notified ON eventlog_storedevent;",
    f"""CREATE OR REPLACE FUNCTION eventlog_notify_append() RETURNS trigger AS $$
        DECLARE streams text;
        BEGIN
            SELECT string_agg(DISTINCT stream, E'\\n') INTO streams FROM appended;
            IF streams IS NULL OR octet_length(streams) > {PAYLOAD_MAX} THEN streams := ''; END IF;
            PERFORM pg_notify('{CHANNEL}', pg_current_xact_id()::text || E'\\n' || streams);
            RETURN NULL;
        END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_append_notified AFTER INSERT ON eventlog_storedevent
        REFERENCING NEW TABLE AS appended
        FOR EACH STATEMENT EXECUTE FUNCTION eventlog_notify_append();""",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_append_notified ON eventlog_storedevent;",
    f"""CREATE OR REPLACE FUNCTION eventlog_notify_append() RETURNS trigger AS $$
        BEGIN PERFORM pg_notify('{CHANNEL}', ''); RETURN NULL; END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_append_notified AFTER INSERT ON eventlog_storedevent
        FOR EACH STATEMENT EXECUTE FUNCTION eventlog_notify_append();""",
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
    dependencies = [("eventlog", "0007_reactors_event_tx")]

    operations = [migrations.RunPython(install, remove)]
