"""The Redis caches keep their connection pools for the process: Django makes
a cache instance per thread and async context (per request under ASGI), and
with its stock client each instance opened a Redis connection of its own."""

import asyncio
import os
import threading

import pytest
from asgiref.sync import sync_to_async
from django.core.cache import caches

from config.cache import JSONSerializer, RedisCache

pytestmark = pytest.mark.redis


def _backend() -> RedisCache:
    return RedisCache(
        os.environ["REDIS_URL"],
        {"KEY_PREFIX": "pool-test", "OPTIONS": {"serializer": "config.cache.JSONSerializer"}},
    )


def test_instances_share_one_pool_and_reuse_its_connection():
    first, second = _backend(), _backend()
    first.set("k", {"a": 1})
    assert second.get("k") == {"a": 1}
    pool = first._cache._get_connection_pool(write=True)
    assert second._cache._get_connection_pool(write=False) is pool
    # and one client over it: a new redis-py client per call cost more than the call
    assert second._cache.get_client(write=False) is first._cache.get_client(write=True)
    before = len(pool._available_connections) + len(pool._in_use_connections)
    for n in range(20):  # one request after another, each with its own instance
        _backend().set(f"k{n}", n)
    assert len(pool._available_connections) + len(pool._in_use_connections) == before


def test_requests_under_asgi_get_no_connection_of_their_own(settings):
    """Under ASGI each request's async context gets a cache instance of its
    own, made from the settings as ``caches.create_connection`` makes it:
    still one pool, a connection per request at once at most, not one per
    request made."""
    assert settings.CACHES["default"]["BACKEND"] == "config.cache.RedisCache"

    def request(n):
        cache = caches.create_connection("default")  # what a fresh context gets
        cache.set(f"pool-test-{n}", n)
        return cache, cache.get(f"pool-test-{n}")

    async def serve():
        return await asyncio.gather(*(sync_to_async(request)(n) for n in range(30)))

    pool = caches.create_connection("default")._cache._get_connection_pool(True)
    before = len(pool._available_connections) + len(pool._in_use_connections)
    served = [asyncio.run(serve()) for _ in range(2)]
    instances = {id(cache) for batch in served for cache, _ in batch}
    pools = {id(cache._cache._get_connection_pool(True)) for batch in served for cache, _ in batch}
    assert [value for batch in served for _, value in batch] == list(range(30)) * 2
    assert len(instances) == 60 and len(pools) == 1  # an instance per request, one pool
    assert served[0][0][0]._cache._get_connection_pool(True) is pool
    # sync_to_async runs them one after another on its thread: one connection more
    # at most (the pool is the process's: earlier tests may have left some in it)
    assert len(pool._available_connections) + len(pool._in_use_connections) - before <= 1


def test_a_pool_is_made_once_when_threads_ask_together():
    backends = [_backend() for _ in range(8)]
    pools, gate = [], threading.Barrier(8)

    def ask(backend):
        gate.wait(10)
        pools.append(backend._cache._get_connection_pool(write=True))

    threads = [threading.Thread(target=ask, args=(b,)) for b in backends]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(pools) == 8 and len({id(p) for p in pools}) == 1


def test_the_serializer_still_refuses_a_pickle():
    with pytest.raises(ValueError):
        JSONSerializer().loads(b"\x80\x04K\x01.")
