"""One attempt at a delivery: POST the signed body, record the outcome,
say when to retry (exponential backoff), disable an endpoint that keeps
failing. The receiver's address is checked (hooks.addresses) and connected
to as checked; a redirect is an answer, never followed."""

from __future__ import annotations

import http.client
import socket
import ssl
import time
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import addresses, signing, sources
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
    until it is due), or None when done (or another is sending it). The
    delivery is claimed in a short transaction (``claimed_until``), sent with
    no transaction open (a transaction that waits on a receiver holds back
    every reader of the log: the reactors), and its outcome recorded in
    another short one. A claim a crash left behind runs out, and the
    delivery is tried again: a receiver drops a repeat by its delivery id."""
    moment = time.time() if now is None else now
    claimed = _claim(delivery_id, moment)
    if not isinstance(claimed, WebhookDelivery):
        return claimed
    return _attempt(claimed, now)


def claim_s() -> float:
    """How long a claim holds: longer than a try can take (connect, send, answer)."""
    return 3 * _setting("HOOKS_TIMEOUT_S", 5) + 5


def _claim(delivery_id: int, moment: float) -> WebhookDelivery | float | None:
    """The delivery, claimed for one try; else None (gone, done, claimed by
    another) or the seconds until it is due."""
    with transaction.atomic():
        delivery = (
            WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("endpoint")
            .filter(pk=delivery_id)
            .first()
        )
        if delivery is None or delivery.status != WebhookDelivery.PENDING:
            return None  # gone, done, or being claimed right now
        due = delivery.due_at.timestamp() if delivery.due_at is not None else 0.0
        if due > moment:
            return due - moment  # behind the spectator delay
        now = timezone.now()
        if delivery.claimed_until is not None and delivery.claimed_until > now:
            return None  # another is sending it
        delivery.claimed_until = now + timedelta(seconds=claim_s())
        delivery.save(update_fields=["claimed_until"])
    return delivery


def _attempt(delivery: WebhookDelivery, now: float | None) -> float | None:
    endpoint = delivery.endpoint
    if not endpoint.active:
        delivery.status, delivery.error = WebhookDelivery.FAILED, "the endpoint is disabled"
        delivery.claimed_until = None
        delivery.save(update_fields=["status", "error", "claimed_until"])
        return None
    if not sources.stands(delivery.kind, delivery.stream, delivery.version):
        return _withdrawn(delivery)
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
    return _record(delivery, code, error, refused)


def _withdrawn(delivery: WebhookDelivery) -> None:
    """What it carried was withdrawn before it was due (a chat message hidden):
    never sent, and no failure of the endpoint."""
    delivery.status, delivery.claimed_until = WebhookDelivery.WITHDRAWN, None
    delivery.error = "withdrawn before it was due: not sent"
    delivery.save(update_fields=["status", "error", "claimed_until"])


def _record(delivery: WebhookDelivery, code: int | None, error: str, refused: bool) -> float | None:
    """A try's outcome, in a short transaction; the claim let go."""
    endpoint = delivery.endpoint
    delivery.attempts += 1
    delivery.status_code, delivery.error = code, error
    delivery.last_attempt_at = timezone.now()
    delivery.claimed_until = None
    with transaction.atomic():
        mine = WebhookDelivery.objects.select_for_update().filter(
            pk=delivery.pk, status=WebhookDelivery.PENDING
        )
        if not mine.exists():
            return None  # our claim ran out and another try settled it
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
