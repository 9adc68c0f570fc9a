import asyncio
import importlib
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

triggers = importlib.import_module("eventlog.migrations.0002_append_only_triggers")


@pytest.fixture(autouse=True)
def _empty_channel_layer():
    """Each test starts with an empty in-process channel layer (group names
    repeat across tests: match ids restart with the database)."""
    layer = get_channel_layer()
    if not hasattr(layer, "flush"):
        return
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        async_to_sync(layer.flush)()
        return
    # a loop already runs in this thread (the browser tests' Playwright, in the
    # same worker): flush on a thread of its own
    with ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, layer.flush()).result()


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
