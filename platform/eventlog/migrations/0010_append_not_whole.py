"""An append that runs alone in autocommit (its events and its ``Inline``
writes in one statement, committed with it) must land whole or not at all:
its statement calls ``eventlog_append_not_whole()`` when fewer rows went in
than were sent or its writes found no row, and the error undoes the
statement. The store then makes the append again in a transaction, where a
lost race or a rebuild is handled as before (eventlog.store)."""

import importlib

from django.db import migrations

NOT_WHOLE = "EV001"  # the error's SQLSTATE (eventlog.store.NOT_WHOLE)
SAFE_PATH = "SET search_path = pg_catalog, pg_temp"


# where the event table is (the schema 0009 found it in)
_table_schema = importlib.import_module(
    "eventlog.migrations.0009_guards_qualified_tx_set"
)._table_schema


def install(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema = _table_schema(schema_editor)
    schema_editor.execute(
        f"""CREATE OR REPLACE FUNCTION {schema}.eventlog_append_not_whole() RETURNS boolean
            LANGUAGE plpgsql VOLATILE {SAFE_PATH} AS $$
            BEGIN
                RAISE EXCEPTION USING ERRCODE = '{NOT_WHOLE}',
                    MESSAGE = 'the append did not land whole: made again in a transaction';
            END; $$;""",
        params=None,
    )


def remove(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema = _table_schema(schema_editor)
        schema_editor.execute(
            f"DROP FUNCTION IF EXISTS {schema}.eventlog_append_not_whole()", params=None
        )


class Migration(migrations.Migration):
    dependencies = [("eventlog", "0009_guards_qualified_tx_set")]

    operations = [migrations.RunPython(install, remove)]
