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


class CommandThrottles(BaseThrottle):
    """The three command limits (burst and sustained per account, one per
    address) counted as DRF counts each (a sliding window of request times
    per key, the same keys), in two cache round trips instead of six: every
    window read at once, the windows that counted this request written at
    once. As with DRF's throttles one after another, a request refused by one
    limit is still counted by those that let it pass."""

    limits = (CommandBurstThrottle, CommandSustainedThrottle, AddressThrottle)

    def __init__(self):
        self.refused: list[SimpleRateThrottle] = []

    def allow_request(self, request, view):
        throttles = [cls() for cls in self.limits]
        keyed = [(t, t.get_cache_key(request, view)) for t in throttles if t.rate is not None]
        keyed = [(t, key) for t, key in keyed if key is not None]
        if not keyed:
            return True
        cache = keyed[0][0].cache
        try:
            found = cache.get_many([key for _, key in keyed])
        except RedisError as exc:
            log.warning("rate limits not counted, the cache is away: %s", exc)
            return True
        now, counted = keyed[0][0].timer(), {}
        self.refused = []
        for throttle, key in keyed:
            throttle.key, throttle.now = key, now
            # newest first, as DRF keeps it; only the times still inside the window
            throttle.history = [at for at in found.get(key, []) if at > now - throttle.duration]
            if len(throttle.history) >= throttle.num_requests:
                self.refused.append(throttle)
            else:
                throttle.history.insert(0, now)
                counted[key] = throttle.history
        if counted:
            try:
                cache.set_many(counted, max(t.duration for t, _ in keyed))
            except RedisError as exc:
                log.warning("rate limits not counted, the cache is away: %s", exc)
        return not self.refused

    def wait(self):
        waits = [w for w in (t.wait() for t in self.refused) if w is not None]
        return max(waits) if waits else None


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
