import asyncio
from concurrent.futures import ThreadPoolExecutor

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer


@pytest.fixture(autouse=True)
def _empty_channel_layer():
    """Each test starts with an empty in-process channel layer (group names
    repeat across tests: match ids restart with the database)."""
    from live.render import spectator_tables

    spectator_tables.clear()  # match ids restart with the database: so would the keys
    layer = get_channel_layer()
    if isinstance(layer, RedisPubSubChannelLayer):
        return  # a fresh one each test (tests/conftest.py), and nothing of it kept in Redis
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
def live_db(committed_db):
    """A database whose commits the sockets' threads see (tests/conftest.py)."""
