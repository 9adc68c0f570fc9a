"""The channel layer production runs (config.channel_layer): channels-redis's,
its group send in two round trips. Delivered as channels-redis delivers:
every member once, a process's channels sharing one message, a channel at
its capacity refused the message; and counted: two round trips a send."""

import asyncio
import os
import uuid

import pytest
from asgiref.sync import async_to_sync

from config.channel_layer import RedisChannelLayer
from tests.helpers.move_cost import Census

pytestmark = pytest.mark.redis


def layer(prefix: str | None = None, **kw) -> RedisChannelLayer:
    prefix = prefix or f"layer-{uuid.uuid4().hex[:8]}"
    return RedisChannelLayer(hosts=[os.environ["REDIS_URL"]], prefix=prefix, **kw)


def test_a_group_send_reaches_every_member_once_in_two_round_trips():
    async def body():
        ours = layer()
        local = [await ours.new_channel() for _ in range(2)]  # one process: one key
        other = layer(prefix=ours.prefix)  # another process's channel
        remote = await other.new_channel()
        for channel in (*local, remote):
            await ours.group_add("g", channel)
        with Census() as census:
            await ours.group_send("g", {"type": "table.update", "version": 3})
            await ours.group_send("nobody", {"type": "table.update", "version": 3})
        got = [await asyncio.wait_for(ours.receive(c), 5) for c in local]
        got.append(await asyncio.wait_for(other.receive(remote), 5))
        await ours.flush()
        return census.counts, got

    counts, got = async_to_sync(body)()
    assert [m["version"] for m in got] == [3, 3, 3]
    # the group's members read: one pipeline; each connection's messages: one script;
    # a group with no member: the pipeline only
    assert counts.redis_round_trips == 2 + 1, counts.redis_commands
    assert counts.redis_commands["EVAL"] == 1


def test_a_channel_at_its_capacity_is_not_sent_more():
    async def body():
        ours = layer(capacity=1)
        full, free = layer(prefix=ours.prefix), layer(prefix=ours.prefix)
        a, b = await full.new_channel(), await free.new_channel()
        await ours.group_add("g", a)
        await ours.group_send("g", {"type": "x", "n": 1})
        await ours.group_add("g", b)
        await ours.group_send("g", {"type": "x", "n": 2})  # a is full: b only
        first = await asyncio.wait_for(full.receive(a), 5)
        to_b = await asyncio.wait_for(free.receive(b), 5)
        try:
            more = await asyncio.wait_for(full.receive(a), 0.5)
        except TimeoutError:
            more = None
        await ours.flush()
        return first, to_b, more

    first, to_b, more = async_to_sync(body)()
    assert (first["n"], to_b["n"], more) == (1, 2, None)
