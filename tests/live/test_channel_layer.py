"""The channel layer production runs: channels-redis's pub/sub layer. A
process subscribes once to a group its sockets joined and hands each message
to them in memory: a group send is one PUBLISH, whatever the group's size,
and nothing queues in Redis for a process that is slow to read. After a
Redis restart the process subscribes again by itself; what was published
while it was away is lost, and the sockets' rejoin (LIVE_REJOIN_S) catches
up (tests/live/test_consumers.py)."""

import asyncio
import os
import socket
import subprocess
import time
import uuid

import pytest
import redis
from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from channels_redis.pubsub import RedisPubSubChannelLayer

from tests.helpers.move_cost import Census

pytestmark = pytest.mark.redis


def layer(address: str | None = None, prefix: str | None = None) -> RedisPubSubChannelLayer:
    return RedisPubSubChannelLayer(
        hosts=[{"address": address or os.environ["REDIS_URL"], "socket_timeout": 15}],
        prefix=prefix or f"layer-{uuid.uuid4().hex[:8]}",
    )


async def next_or_none(ours, channel, timeout: float = 0.3):
    """The next message on ``channel``, or None when none comes in ``timeout``."""
    try:
        return await asyncio.wait_for(ours.receive(channel), timeout)
    except TimeoutError:
        return None


def test_the_settings_run_the_pub_sub_layer():
    assert isinstance(get_channel_layer(), RedisPubSubChannelLayer)


def test_two_sites_on_one_redis_server_do_not_hear_each_other():
    """Pub/sub channels are the server's, not a database's: the layer's names
    carry REDIS_URL's database, so a site on database 1 and one on 2 keep
    apart, as their keys do."""
    from config.settings import channel_layer_prefix

    url = os.environ["REDIS_URL"].rsplit("/", 1)[0]
    one, two = channel_layer_prefix(f"{url}/1"), channel_layer_prefix(f"{url}/2")
    assert (one, two, channel_layer_prefix(url)) == ("asgi-1-", "asgi-2-", "asgi-0-")

    async def body():
        run = uuid.uuid4().hex[:6]  # this test's own names on the shared server
        first, second = layer(prefix=one + run), layer(prefix=two + run)
        a, b = await first.new_channel(), await second.new_channel()
        await first.group_add("match-1.seat-p1", a)
        await second.group_add("match-1.seat-p1", b)
        await first.group_send("match-1.seat-p1", {"type": "x", "site": 1})
        got = await asyncio.wait_for(first.receive(a), 5)
        heard = await next_or_none(second, b)
        await first.flush()
        await second.flush()
        return got, heard

    got, heard = async_to_sync(body)()
    assert got["site"] == 1 and heard is None


def test_a_group_send_reaches_every_member_once_in_one_round_trip():
    async def body():
        ours = layer()
        other = layer(prefix=ours.prefix)  # another process
        local = [await ours.new_channel() for _ in range(2)]
        remote = await other.new_channel()
        for channel in local:
            await ours.group_add("g", channel)
        await other.group_add("g", remote)
        await ours.group_send("warm", {"type": "x"})  # its publishing connection opened
        with Census() as census:
            await ours.group_send("g", {"type": "table.update", "version": 3})
            await ours.group_send("nobody", {"type": "table.update", "version": 3})
        got = [await asyncio.wait_for(ours.receive(c), 5) for c in local]
        got.append(await asyncio.wait_for(other.receive(remote), 5))
        more = await next_or_none(ours, local[0])
        await ours.flush()
        await other.flush()
        return census.counts, got, more

    counts, got, more = async_to_sync(body)()
    assert [m["version"] for m in got] == [3, 3, 3] and more is None
    assert counts.redis_round_trips == 2, counts.redis_commands  # one PUBLISH a send
    assert counts.redis_commands["PUBLISH"] == 2


def test_a_member_that_left_hears_nothing_more():
    async def body():
        ours = layer()
        stays, leaves = await ours.new_channel(), await ours.new_channel()
        for channel in (stays, leaves):
            await ours.group_add("g", channel)
        await ours.group_discard("g", leaves)
        await ours.group_send("g", {"type": "x", "n": 1})
        to_stays = await asyncio.wait_for(ours.receive(stays), 5)
        to_leaves = await next_or_none(ours, leaves)
        await ours.flush()
        return to_stays, to_leaves

    to_stays, to_leaves = async_to_sync(body)()
    assert (to_stays["n"], to_leaves) == (1, None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _redis_server(port: int) -> subprocess.Popen:
    server = subprocess.Popen(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        + ["--appendonly", "no"],
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return server
        except OSError:
            time.sleep(0.05)
    server.kill()
    raise RuntimeError("redis-server did not start")


def test_after_a_redis_restart_the_groups_hear_again_without_joining_again():
    port = _free_port()
    address = f"redis://127.0.0.1:{port}"
    server = _redis_server(port)

    async def body():
        nonlocal server
        ours = layer(address)
        other = layer(address, prefix=ours.prefix)  # another process
        channel = await ours.new_channel()
        await ours.group_add("g", channel)
        await other.group_send("g", {"type": "x", "n": 1})
        before = await asyncio.wait_for(ours.receive(channel), 5)
        server.terminate()
        server.wait()
        await asyncio.sleep(0.5)
        server = _redis_server(port)
        # published until the subscriber is back (its reader retries each second)
        after = None
        # (the publisher's first send on its dead connection fails: the live
        # publisher logs it as a lost message)
        for n in range(2, 40):
            try:
                await other.group_send("g", {"type": "x", "n": n})
                after = await asyncio.wait_for(ours.receive(channel), 0.25)
                break
            except (TimeoutError, redis.ConnectionError):
                continue
        await ours.flush()
        await other.flush()
        return before, after

    try:
        before, after = async_to_sync(body)()
    finally:
        server.kill()
        server.wait()
    assert before["n"] == 1
    assert after is not None and after["n"] >= 2  # heard again, no group_add since


def test_the_configured_layer_keeps_an_idle_receiver_past_redis_py_s_read_timeout():
    """redis-py 8 reads with a 5 s timeout by default: an idle socket's
    consumer must still hear a message sent after 7 s of silence."""
    ours = get_channel_layer()

    async def body():
        channel = await ours.new_channel()
        waiting = asyncio.ensure_future(ours.receive(channel))
        await asyncio.sleep(7)
        if waiting.done():
            waiting.result()  # raises what ended it
        await ours.send(channel, {"type": "still.here"})
        return await asyncio.wait_for(waiting, 5)

    assert async_to_sync(body)() == {"type": "still.here"}
