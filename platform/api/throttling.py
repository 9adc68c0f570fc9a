"""Rate limits on command submission, per account (whatever token or
session it uses) and per address, kept in Django's cache (Redis in production, so every process
shares the counts). Rates come from settings, read on each request.
While Redis is away (restarting) commands go on unthrottled: the limits
guard the service, the log's guarantees never depend on them."""

from __future__ import annotations

import contextlib
import logging
import threading

from django.core.cache.backends.redis import RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

from api.client_address import client_address

log = logging.getLogger(__name__)


class CommandThrottle(SimpleRateThrottle):
    scope = "commands"

    def get_rate(self):
        return api_settings.DEFAULT_THROTTLE_RATES.get(self.scope)

    def allow_request(self, request, view):
        try:
            return super().allow_request(request, view)
        except RedisError as exc:
            log.warning("rate limit %s not counted, the cache is away: %s", self.scope, exc)
            return True

    def get_ident(self, request):
        # X-Forwarded-For only from the proxies in settings.TRUSTED_PROXIES
        return client_address(request)

    def get_cache_key(self, request, view):
        # per account: every token and session of one account share one count
        # (nine tokens are not nine limits); anonymous callers per address
        if request.user and request.user.is_authenticated:
            ident = f"user-{request.user.pk}"
        else:
            ident = f"ip-{self.get_ident(request)}"
        return self.cache_format % {"scope": self.scope, "ident": ident}


class AddressThrottle(CommandThrottle):
    """Per address as well, whoever is logged in: many accounts from one
    address share a (looser) limit."""

    scope = "commands_per_address"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class CommandBurstThrottle(CommandThrottle):
    scope = "commands_burst"


class CommandSustainedThrottle(CommandThrottle):
    scope = "commands_sustained"


BUCKETS = 60  # a limit's window is kept as at most this many counts (and one more)


class CommandThrottles(BaseThrottle):
    """The three command limits (burst and sustained per account, one per
    address), decided and counted together: on Redis in one script (one
    round trip, and atomic: requests sent at once cannot all read the same
    count and all pass), elsewhere (the in-memory cache of ``make run``) under
    a process lock. As with DRF's throttles one after another, a request
    refused by one limit is still counted by those that let it pass.

    A window is kept as counts per bucket of 1/BUCKETS of its duration, not
    as DRF's list of every request's time: its size, and what reading and
    writing it costs, stay the same at any rate (a busy address at 1,200 a
    minute made DRF's list 1,200 times long, read and written on every
    command). A bucket that overlaps the window counts whole, so no window
    ever holds more than the limit; a request may be refused up to one
    bucket (1/BUCKETS of the duration) earlier than DRF would."""

    limits = (CommandBurstThrottle, CommandSustainedThrottle, AddressThrottle)

    def __init__(self):
        self.refused: list[SimpleRateThrottle] = []
        self.waits: list[float] = []

    def allow_request(self, request, view):
        count = self.begin(request, view)
        try:
            return count.allowed()
        finally:
            count.close()

    def begin(self, request, view=None) -> Count:
        """The count of ``request`` under way: on Redis, its script is sent
        and its answer read by ``allowed()``, so the caller's own round trips
        (a command's read of its match) run meanwhile. ``close()`` it in any
        case: an answer never asked for is read and dropped, so the
        connection goes back to its pool clean."""
        throttles = [cls() for cls in self.limits]
        keyed = [(t, t.get_cache_key(request, view)) for t in throttles if t.rate is not None]
        return Count(self, [(t, f"w:{key}") for t, key in keyed if key is not None])

    def wait(self):
        return max(self.waits) if self.waits else None


class Count:
    """One request's count under its limits (``CommandThrottles.begin``)."""

    def __init__(self, limits: CommandThrottles, keyed: list):
        self.limits, self.keyed = limits, keyed
        self.waits: list[float | None] | None = None if keyed else []
        self.on_redis: _OnRedis | None = None
        if not keyed:
            return
        cache, now = keyed[0][0].cache, keyed[0][0].timer()
        try:
            if isinstance(getattr(cache, "_cache", None), RedisCacheClient):
                self.on_redis = _OnRedis(cache, keyed, now)
            else:
                with _counting:
                    self.waits = _count_in(cache, keyed, now)
        except RedisError as exc:
            self._away(exc)

    def allowed(self) -> bool:
        if self.waits is None:
            on_redis, self.on_redis = self.on_redis, None
            try:
                self.waits = on_redis.answer()
            except RedisError as exc:
                self._away(exc)
        pairs = list(zip(self.keyed, self.waits, strict=True)) if self.waits else []
        self.limits.refused = [t for (t, _), wait in pairs if wait is not None]
        self.limits.waits = [wait for _, wait in pairs if wait is not None]
        return not self.limits.refused

    def close(self) -> None:
        if self.on_redis is not None:
            on_redis, self.on_redis = self.on_redis, None
            on_redis.drop()

    def _away(self, exc: RedisError) -> None:
        log.warning("rate limits not counted, the cache is away: %s", exc)
        self.waits = []


_counting = threading.Lock()  # one process's in-memory windows, read and written in turn


def _count_in(cache, keyed, now: float) -> list[float | None]:
    """Each limit's wait (None: it counted this request), through the
    cache's get_many and set_many."""
    found, counted, waits = cache.get_many([key for _, key in keyed]), {}, []
    for throttle, key in keyed:
        width = throttle.duration / BUCKETS
        at = int(now // width)
        # the buckets still overlapping (now - duration, now], oldest first
        buckets = [
            b for b in _buckets(found.get(key)) if (b[0] + 1) * width > now - throttle.duration
        ]
        if sum(n for _, n in buckets) >= throttle.num_requests:
            waits.append(_wait(buckets, throttle, width, now))
            continue
        if buckets and buckets[-1][0] == at:
            buckets[-1][1] += 1
        else:
            buckets.append([at, 1])
        counted[key] = buckets
        waits.append(None)
    if counted:
        cache.set_many(counted, max(t.duration for t, _ in keyed))
    return waits


def _buckets(value) -> list[list[int]]:
    """A stored window as [bucket, count] pairs in bucket order; anything
    else (another format, a damaged value) as an empty window."""
    if not isinstance(value, list) or not all(
        isinstance(p, list) and len(p) == 2 and type(p[0]) is int and type(p[1]) is int and p[1] > 0
        for p in value
    ):
        return []
    return sorted(value)


def _wait(buckets: list[list[int]], throttle, width: float, now: float) -> float:
    """Seconds until enough of the oldest buckets leave the window for one
    more request to fit."""
    over = sum(n for _, n in buckets) - throttle.num_requests + 1
    for bucket, n in buckets:
        over -= n
        if over <= 0:
            return max(0.0, (bucket + 1) * width + throttle.duration - now)
    return throttle.duration


# _count_in in one script on Redis: KEYS the windows, ARGV now then each
# window's rate and duration; a wait per window ('' when it counted)
_COUNT_LUA = """
local now = tonumber(ARGV[1])
local ttl, waits, keep = 1, {}, {}
for i, key in ipairs(KEYS) do
  local limit, duration = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  if duration > ttl then ttl = duration end
  local width = duration / BUCKETS
  local at = math.floor(now / width)
  local buckets = {}
  local raw = redis.call('GET', key)
  if raw then
    local ok, value = pcall(cjson.decode, raw)
    if ok and type(value) == 'table' then
      for _, p in ipairs(value) do
        if type(p) ~= 'table' or #p ~= 2 or type(p[1]) ~= 'number' or type(p[2]) ~= 'number'
            or p[1] ~= math.floor(p[1]) or p[2] ~= math.floor(p[2]) or p[2] <= 0 then
          buckets = {}
          break
        end
        if (p[1] + 1) * width > now - duration then table.insert(buckets, {p[1], p[2]}) end
      end
    end
  end
  table.sort(buckets, function(a, b) return a[1] < b[1] end)
  local total = 0
  for _, p in ipairs(buckets) do total = total + p[2] end
  if total >= limit then
    local over, wait = total - limit + 1, duration
    for _, p in ipairs(buckets) do
      over = over - p[2]
      if over <= 0 then wait = math.max(0, (p[1] + 1) * width + duration - now) break end
    end
    waits[i] = string.format('%.6f', wait)
  else
    local last = buckets[#buckets]
    if last and last[1] == at then last[2] = last[2] + 1 else table.insert(buckets, {at, 1}) end
    keep[i] = buckets
    waits[i] = ''
  end
end
for i, key in ipairs(KEYS) do
  if keep[i] then redis.call('SET', key, cjson.encode(keep[i]), 'EX', math.ceil(ttl)) end
end
return waits
""".replace("BUCKETS", str(BUCKETS))
_script = None  # the script (its hash made once), run on whichever client asks


class _OnRedis:
    """_count_in's script sent to Redis (EVALSHA) on a connection of the
    cache's pool, held until its answer is read: ``answer()`` (each limit's
    wait), or ``drop()`` when nobody asks for it. A connection Redis dropped
    (it restarted) is closed and the script run again through the client, on
    a fresh one with the client's retries, as a plain call would be."""

    def __init__(self, cache, keyed, now: float):
        global _script
        self.keys = [cache.make_and_validate_key(key) for _, key in keyed]
        self.client = cache._cache.get_client(self.keys[0], write=True)
        if _script is None:
            _script = self.client.register_script(_COUNT_LUA)
        self.args = [repr(now)]
        for throttle, _ in keyed:
            self.args += [throttle.num_requests, throttle.duration]
        self.connection = self.client.connection_pool.get_connection()
        try:
            self.connection.send_command(
                "EVALSHA", _script.sha, len(self.keys), *self.keys, *self.args
            )
        except (RedisConnectionError, RedisTimeoutError):
            self._release(broken=True)  # answer() runs it anew
        except BaseException:
            self._release(broken=True)
            raise

    def answer(self) -> list[float | None]:
        answers = None
        if self.connection is not None:
            try:
                answers = self._read()
            except NoScriptError:  # Redis restarted or flushed its scripts: loaded and run again
                pass
            except (RedisConnectionError, RedisTimeoutError):
                pass  # dropped: run anew below
        if answers is None:
            answers = _script(keys=self.keys, args=self.args, client=self.client)
        return [float(a) if a else None for a in answers]

    def drop(self) -> None:
        if self.connection is not None:
            with contextlib.suppress(RedisError):  # nobody waits for this count
                self._read()

    def _read(self):
        """The held connection's answer; the connection goes back to its
        pool either way, closed unless its answer was read whole."""
        clean = False
        try:
            answer = self.connection.read_response()
            clean = True
            return answer
        except ResponseError:  # an error's answer, read whole
            clean = True
            raise
        finally:
            self._release(broken=not clean)

    def _release(self, broken: bool = False) -> None:
        connection, self.connection = self.connection, None
        if connection is None:
            return
        if broken:  # an answer may still be on its way: never hand it to the next caller
            connection.disconnect()
        self.client.connection_pool.release(connection)


COMMAND_THROTTLES = [CommandThrottles]


class PasswordResetThrottle(AddressThrottle):
    """Password-reset mails asked from one address."""

    scope = "password_reset"


class PasswordResetLimits(CommandThrottles):
    """That limit counted as the commands' are (atomic on Redis: resets asked
    at once cannot all pass and mail an address more than its rate)."""

    limits = (PasswordResetThrottle,)


def wait_before_next(request, throttles=COMMAND_THROTTLES) -> float | None:
    """For the HTML forms: counts this request under the API's own limits;
    None if it may go on, else the seconds to wait."""
    for cls in throttles:
        throttle = cls()
        if not throttle.allow_request(request, None):
            return throttle.wait() or 1.0
    return None


class PlayerSearchThrottle(AddressThrottle):
    """The player search's suggestions asked from one address."""

    scope = "player_search"


class PlayerSearchLimits(CommandThrottles):
    limits = (PlayerSearchThrottle,)
