"""A command id belongs to its stream; PostgreSQL refuses TRUNCATE too.

Ids stored before this migration keep their spelling: new ones are always
``c:<id>`` or ``s:<...>``, so an old id can never answer for a new command.

TRUNCATE (what ``manage.py flush`` runs) is refused by a statement trigger
unless the session set ``eventlog.test_allow_truncate = on``: the test
suite's connections do (tests/conftest.py), so pytest-django can empty the
database between transactional tests; nothing else sets it."""

from django.db import migrations, models

TRUNCATE_MESSAGE = "events are append-only: TRUNCATE is refused"

POSTGRES_UP = [
    f"""CREATE OR REPLACE FUNCTION eventlog_refuse_truncate() RETURNS trigger AS $$
        BEGIN
            IF current_setting('eventlog.test_allow_truncate', true) = 'on' THEN
                RETURN NULL;
            END IF;
            RAISE EXCEPTION '{TRUNCATE_MESSAGE}';
        END; $$ LANGUAGE plpgsql;""",
    """CREATE TRIGGER eventlog_no_truncate BEFORE TRUNCATE ON eventlog_storedevent
        FOR EACH STATEMENT EXECUTE FUNCTION eventlog_refuse_truncate();""",
]
POSTGRES_DOWN = [
    "DROP TRIGGER IF EXISTS eventlog_no_truncate ON eventlog_storedevent;",
    "DROP FUNCTION IF EXISTS eventlog_refuse_truncate();",
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
    dependencies = [("eventlog", "0002_append_only_triggers")]
    operations = [
        migrations.RemoveConstraint(model_name="storedevent", name="event_command_uniq"),
        migrations.AddConstraint(
            model_name="storedevent",
            constraint=models.UniqueConstraint(
                condition=models.Q(("command_id__isnull", False)),
                fields=("stream", "command_id", "command_seq"),
                name="event_stream_command_uniq",
            ),
        ),
        migrations.RunPython(install, remove),
    ]
