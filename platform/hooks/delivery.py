"""One attempt at a delivery: POST the signed body, record the outcome,
say when to retry (exponential backoff), disable an endpoint that keeps
failing."""

from __future__ import annotations

import urllib.error
import urllib.request

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from . import signing
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


def send(url: str, body: bytes, headers: dict, timeout: float) -> int:
    """POST and return the status code (raises OSError when unreachable)."""
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def attempt(delivery_id: int, now: float | None = None) -> float | None:
    """Try once. Returns seconds to wait before the next try, or None when done."""
    delivery = WebhookDelivery.objects.select_related("endpoint").get(pk=delivery_id)
    endpoint = delivery.endpoint
    if delivery.status != WebhookDelivery.PENDING:
        return None
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
    code, error = None, ""
    try:
        code = send(endpoint.url, body, headers, _setting("HOOKS_TIMEOUT_S", 5))
        if not 200 <= code < 300:
            error = f"the receiver answered {code}"
    except (OSError, ValueError) as exc:
        error = f"could not deliver: {exc}"[:300]
    delivery.attempts += 1
    delivery.status_code, delivery.error = code, error
    delivery.last_attempt_at = timezone.now()
    with transaction.atomic():
        if not error:
            delivery.status = WebhookDelivery.DELIVERED
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        elif delivery.attempts >= max_attempts():
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
