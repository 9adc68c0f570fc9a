import importlib

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

triggers = importlib.import_module("eventlog.migrations.0002_append_only_triggers")


@pytest.fixture(autouse=True)
def _empty_channel_layer():
    """Each test starts with an empty in-process channel layer (group names
    repeat across tests: match ids restart with the database)."""
    layer = get_channel_layer()
    if hasattr(layer, "flush"):
        async_to_sync(layer.flush)()


@pytest.fixture
def live_db(transactional_db):
    """A database whose commits the sockets' threads see (and whose
    after-commit hooks run). On SQLite the append-only trigger would refuse
    the flush between tests: the events are emptied first, with the
    trigger lifted for that statement only (PostgreSQL's suite sessions may
    TRUNCATE, see tests/conftest.py)."""
    yield
    from django.db import connection

    if connection.vendor != "sqlite":
        return
    with connection.cursor() as cur:
        cur.execute("DROP TRIGGER IF EXISTS eventlog_no_delete;")
        cur.execute("DELETE FROM eventlog_storedevent;")
        cur.execute(triggers.SQLITE_UP[1])
