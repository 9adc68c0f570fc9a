"""A statement that inserted no event (an append that lost its race, a
command id the stream already held) notifies nothing. The notify trigger
fired for it anyway, with a payload naming no stream, which the reactors
read as "too many streams to name": every partition read again for an
append that wrote nothing."""

import importlib

from django.db import migrations

_notify = importlib.import_module("eventlog.migrations.0011_notify_after_commit")


def install(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema = _notify._table_schema(schema_editor)
        schema_editor.execute(_notify._notify_function(schema, True, True), params=None)


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        _notify.install(apps, schema_editor)


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0011_notify_after_commit")]
    operations = [migrations.RunPython(install, remove)]
