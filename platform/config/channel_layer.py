"""channels-redis's layer with a group send in two round trips instead of
four: the group's expired members dropped and its members read in one
pipeline, then, per Redis connection, one script that drops each channel's
expired messages and adds the message where there is room (channels-redis
4.3 sends the first two and the clean-up apart, each waiting for its
answer). What it writes and when it refuses (a channel over its capacity)
are channels-redis's own; only the round trips are fewer. A version of a
match is one group send (live.groups), so this is a move's fan-out.
Written against channels-redis 4.3 (constraints.txt pins it): its
``_group_key``, ``_map_channel_keys_to_connection`` and ``connection``."""

from __future__ import annotations

import logging
import time

from channels_redis.core import RedisChannelLayer as _RedisChannelLayer

log = logging.getLogger("channels_redis.core")

# KEYS: the channels' keys; ARGV: a message per key, a capacity per key, then
# the time now, the messages' expiry (s) and the score before which they expired
GROUP_SEND_LUA = """
local n = #KEYS
local now, expiry, stale = ARGV[2 * n + 1], ARGV[2 * n + 2], ARGV[2 * n + 3]
local over_capacity = 0
for i = 1, n do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], 0, stale)
  if redis.call('ZCOUNT', KEYS[i], '-inf', '+inf') < tonumber(ARGV[i + n]) then
    redis.call('ZADD', KEYS[i], now, ARGV[i])
    redis.call('EXPIRE', KEYS[i], expiry)
  else
    over_capacity = over_capacity + 1
  end
end
return over_capacity
"""


class RedisChannelLayer(_RedisChannelLayer):
    async def group_send(self, group, message):
        """Sends a message to the entire group (as channels-redis does)."""
        assert self.require_valid_group_name(group), "Group name not valid"
        key = self._group_key(group)
        pipe = self.connection(self.consistent_hash(group)).pipeline(transaction=False)
        pipe.zremrangebyscore(key, min=0, max=int(time.time()) - self.group_expiry)
        pipe.zrange(key, 0, -1)
        _dropped, members = await pipe.execute()
        channel_names = [x.decode("utf8") for x in members]
        by_connection, messages, capacities = self._map_channel_keys_to_connection(
            channel_names, message
        )
        for index, keys in by_connection.items():
            now = time.time()
            args = [messages[k] for k in keys] + [capacities[k] for k in keys]
            args += [now, self.expiry, int(now) - int(self.expiry)]
            over = await self.connection(index).eval(GROUP_SEND_LUA, len(keys), *keys, *args)
            if over > 0:
                log.info(
                    "%s of %s channels over capacity in group %s", over, len(channel_names), group
                )
