"""Rate limits on command submission, per account (whatever token or
session it uses) and per address, kept in Django's cache (Redis in production, so every process
shares the counts). Rates come from settings, read on each request.
While Redis is away (restarting) commands go on unthrottled: the limits
guard the service, the log's guarantees never depend on them."""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import BaseThrottle, SimpleRateThrottle

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
    address) in two cache round trips: every window read at once, the windows
    that counted this request written at once. As with DRF's throttles one
    after another, a request refused by one limit is still counted by those
    that let it pass.

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
        throttles = [cls() for cls in self.limits]
        keyed = [(t, t.get_cache_key(request, view)) for t in throttles if t.rate is not None]
        keyed = [(t, f"w:{key}") for t, key in keyed if key is not None]
        if not keyed:
            return True
        cache = keyed[0][0].cache
        try:
            found = cache.get_many([key for _, key in keyed])
        except RedisError as exc:
            log.warning("rate limits not counted, the cache is away: %s", exc)
            return True
        now, counted = keyed[0][0].timer(), {}
        self.refused, self.waits = [], []
        for throttle, key in keyed:
            width = throttle.duration / BUCKETS
            at = int(now // width)
            # the buckets still overlapping (now - duration, now], oldest first
            buckets = [
                b for b in _buckets(found.get(key)) if (b[0] + 1) * width > now - throttle.duration
            ]
            if sum(n for _, n in buckets) >= throttle.num_requests:
                self.refused.append(throttle)
                self.waits.append(_wait(buckets, throttle, width, now))
                continue
            if buckets and buckets[-1][0] == at:
                buckets[-1][1] += 1
            else:
                buckets.append([at, 1])
            counted[key] = buckets
        if counted:
            try:
                cache.set_many(counted, max(t.duration for t, _ in keyed))
            except RedisError as exc:
                log.warning("rate limits not counted, the cache is away: %s", exc)
        return not self.refused

    def wait(self):
        return max(self.waits) if self.waits else None


def _buckets(value) -> list[list[int]]:
    """A stored window as [bucket, count] pairs in bucket order; anything
    else (another format, a damaged value) as an empty window."""
    if not isinstance(value, list):
        return []
    pairs = [p for p in value if isinstance(p, list) and len(p) == 2]
    if not all(type(b) is int and type(n) is int and n > 0 for b, n in pairs):
        return []
    return sorted(pairs)


def _wait(buckets: list[list[int]], throttle, width: float, now: float) -> float:
    """Seconds until enough of the oldest buckets leave the window for one
    more request to fit."""
    over = sum(n for _, n in buckets) - throttle.num_requests + 1
    for bucket, n in buckets:
        over -= n
        if over <= 0:
            return max(0.0, (bucket + 1) * width + throttle.duration - now)
    return throttle.duration


COMMAND_THROTTLES = [CommandThrottles]


class PasswordResetThrottle(AddressThrottle):
    """Password-reset mails asked from one address."""

    scope = "password_reset"


def wait_before_next(request, throttles=COMMAND_THROTTLES) -> float | None:
    """For the HTML forms: counts this request under the API's own limits;
    None if it may go on, else the seconds to wait."""
    for cls in throttles:
        throttle = cls()
        if not throttle.allow_request(request, None):
            return throttle.wait() or 1.0
    return None
