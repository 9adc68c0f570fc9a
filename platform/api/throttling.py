"""Rate limits on command submission, per account (whatever token or
session it uses) and per address, kept in Django's cache (Redis in production, so every process
shares the counts). Rates come from settings, read on each request.
While Redis is away (restarting) commands go on unthrottled: the limits
guard the service, the log's guarantees never depend on them."""

from __future__ import annotations

import logging

from redis.exceptions import RedisError
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

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


COMMAND_THROTTLES = [CommandBurstThrottle, CommandSustainedThrottle, AddressThrottle]


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
