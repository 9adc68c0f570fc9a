"""One attempt at a delivery: POST the signed body, record the outcome,
say when to retry (exponential backoff), disable an endpoint that keeps
failing. The receiver's address is checked (hooks.addresses) and connected
to as checked; a redirect is an answer, never followed."""

from __future__ import annotations

import http.client
import socket
import ssl
import time

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import addresses, signing
from .models import WebhookDelivery, WebhookEndpoint


def _setting(name: str, default):
    return getattr(settings, name, default)


def max_attempts() -> int:
    return _setting("HOOKS_MAX_ATTEMPTS", 5)


def disable_after() -> int:
    return _setting("HOOKS_DISABLE_AFTER", 5)


def backoff_s(attempts: int) -> float:
    """Seconds before the next try after ``attempts`` failed ones: 10, 20, 40..."""
    return _setting("HOOKS_BACKOFF_S", 10) * 2 ** (attempts - 1)


class _PinnedHTTP(http.client.HTTPConnection):
    """HTTP to the address checked, whatever the name resolves to by now."""

    def __init__(self, target: addresses.Target, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self.ip = target.ip

    def connect(self):
        self.sock = socket.create_connection((self.ip, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, target: addresses.Target, timeout: float):
        super().__init__(
            target.host, target.port, timeout=timeout, context=ssl.create_default_context()
        )
        self.ip = target.ip

    def connect(self):
        sock = socket.create_connection((self.ip, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


def send(url: str, body: bytes, headers: dict, timeout: float) -> int:
    """POST and return the status code (3xx included: redirects are not
    followed). Raises RefusedAddress for an internal address, OSError when
    unreachable."""
    target = addresses.target(url)
    connection = (_PinnedHTTPS if target.scheme == "https" else _PinnedHTTP)(target, timeout)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def attempt(delivery_id: int, now: float | None = None) -> float | None:
    """Try once, if it is due. Returns seconds to wait before the next try (or
    until it is due), or None when done. The delivery's row stays locked
    while it is sent: a worker that finds it locked leaves it (another is
    sending it), so a task and the sweeper never send it twice."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != WebhookDelivery.PENDING:
            return None  # gone, done, or being sent right now
        moment = time.time() if now is None else now
        due = delivery.due_at.timestamp() if delivery.due_at is not None else 0.0
        if due > moment:
            return due - moment  # behind the spectator delay
        return _attempt(delivery, now)


def _attempt(delivery: WebhookDelivery, now: float | None) -> float | None:
    endpoint = delivery.endpoint
    if not endpoint.active:
        delivery.status, delivery.error = WebhookDelivery.FAILED, "the endpoint is disabled"
        delivery.save(update_fields=["status", "error"])
        return None
    body = delivery.body.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": "showtable-hooks/1",
        signing.HEADER: signing.sign(endpoint.secret, body, now),
        "X-Showtable-Event": delivery.kind,
        "X-Showtable-Delivery": str(delivery.pk),
    }
    code, error, refused = None, "", False
    try:
        code = send(endpoint.url, body, headers, _setting("HOOKS_TIMEOUT_S", 5))
        if not 200 <= code < 300:
            error = f"the receiver answered {code}"
            if 300 <= code < 400:
                error += " (a redirect: not followed)"
    except addresses.RefusedAddress as exc:
        error, refused = f"refused: {exc}"[:300], True  # no retry: it would be refused again
    except (OSError, ValueError, http.client.HTTPException) as exc:
        error = f"could not deliver: {exc}"[:300]
    delivery.attempts += 1
    delivery.status_code, delivery.error = code, error
    delivery.last_attempt_at = timezone.now()
    with transaction.atomic():
        if not error:
            delivery.status = WebhookDelivery.DELIVERED
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        elif refused or delivery.attempts >= max_attempts():
            delivery.status = WebhookDelivery.FAILED
            _failed(endpoint)
        delivery.save()
    if error and delivery.status == WebhookDelivery.PENDING:
        return backoff_s(delivery.attempts)
    return None


def _failed(endpoint: WebhookEndpoint) -> None:
    endpoint.refresh_from_db()
    endpoint.consecutive_failures += 1
    if endpoint.consecutive_failures >= disable_after():
        endpoint.active = False
        endpoint.disabled_reason = (
            f"disabled after {endpoint.consecutive_failures} failed deliveries in a row"
        )
    endpoint.save(update_fields=["consecutive_failures", "active", "disabled_reason"])
