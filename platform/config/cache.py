"""The Redis caches' serializer: JSON, never pickle. Django's own unpickles
whatever a key holds, so anyone who can write to Redis could run code in
every process that reads it; this one reads JSON or refuses."""

import json
from typing import Any


class JSONSerializer:
    def dumps(self, obj: Any) -> bytes | int:
        if type(obj) is int:  # stored as a Redis integer, so incr() works
            return obj
        return json.dumps(obj, separators=(",", ":")).encode()

    def loads(self, data: bytes | int) -> Any:
        if isinstance(data, int):
            return data
        return json.loads(data)  # a pickle (or any non-JSON) raises: never unpickled
