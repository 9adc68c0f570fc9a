"""The Redis caches: their serializer is JSON, never pickle (Django's own
unpickles whatever a key holds, so anyone who can write to Redis could run
code in every process that reads it; this one reads JSON or refuses), and
their connection pools are kept for the process (RedisCache below)."""

import json
import threading
from typing import Any

from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient


class JSONSerializer:
    def dumps(self, obj: Any) -> bytes | int:
        if type(obj) is int:  # stored as a Redis integer, so incr() works
            return obj
        return json.dumps(obj, separators=(",", ":")).encode()

    def loads(self, data: bytes | int) -> Any:
        if isinstance(data, int):
            return data
        return json.loads(data)  # a pickle (or any non-JSON) raises: never unpickled


class _SharedPoolsClient(RedisCacheClient):
    """Django's Redis cache client, its connection pools kept for the process.

    Django makes a cache instance per thread and per async context, and each
    instance its own pool: under ASGI every request got a new pool, so it
    opened a new Redis connection for its first cache call (a sixth of a
    command's time in the web workers). The pools are shared here instead
    (redis-py's pools are thread-safe and reset themselves after a fork), and
    so is one client per pool: making a redis-py client fills its table of
    reply callbacks, a third of a millisecond on every cache call."""

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = _CLIENTS.get(id(pool))
        if client is None or client.connection_pool is not pool:
            client = _CLIENTS[id(pool)] = self._client(connection_pool=pool)
        return client

    def _get_connection_pool(self, write):
        index = self._get_connection_pool_index(write)
        key = (self._servers[index], self._pool_class, repr(sorted(self._pool_options.items())))
        pool = _POOLS.get(key)
        if pool is None:
            with _POOLS_LOCK:
                pool = _POOLS.get(key)
                if pool is None:
                    pool = _POOLS[key] = self._pool_class.from_url(
                        self._servers[index], **self._pool_options
                    )
        return pool


_POOLS: dict = {}
_CLIENTS: dict = {}  # id(pool) -> its client
_POOLS_LOCK = threading.Lock()


class RedisCache(DjangoRedisCache):
    """The Redis cache backend, with connection pools shared by its instances."""

    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _SharedPoolsClient
