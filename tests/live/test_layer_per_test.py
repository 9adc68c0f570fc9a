"""A socket left receiving when its server's event loop went away (a browser
test's server stopped mid-socket) must not refuse later tests' sockets (the
list-based channels_redis layer let one event loop at a time receive on a
layer object; the pub/sub layer keeps one per loop, and each test gets a layer
of its own: tests/conftest.py). The two tests run in this order, in one worker
(--dist loadfile)."""

import asyncio

import pytest
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

pytestmark = pytest.mark.redis

ABANDONED = []  # the loop and its pending receive, kept from the collector


def _redis_layer():
    layer = get_channel_layer()  # with REDIS_URL set, the settings' layer
    assert type(layer).__name__ == "RedisPubSubChannelLayer"
    return layer


def test_a_socket_left_receiving_on_a_loop_that_stopped():
    layer = _redis_layer()
    loop = asyncio.new_event_loop()
    name = loop.run_until_complete(layer.new_channel())
    pending = loop.create_task(layer.receive(name))
    loop.run_until_complete(asyncio.sleep(0.05))
    assert not pending.done()
    ABANDONED.append((loop, pending))


def test_a_later_socket_receives_on_its_own_loop():
    layer = _redis_layer()

    async def round_trip():
        name = await layer.new_channel()
        await layer.send(name, {"type": "hello"})
        return await layer.receive(name)

    assert async_to_sync(round_trip)() == {"type": "hello"}
