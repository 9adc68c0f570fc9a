"""Web push with the site's own VAPID keys (made at install into VAR_DIR, like
the secret key: `manage.py make_vapid_keys`). A subscription's endpoint is
checked like a webhook's (public addresses only, unless
HOOKS_ALLOW_PRIVATE_ADDRESSES) and reached at the address checked."""

from __future__ import annotations

import base64
import json
import unicodedata
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

from cryptography.hazmat.primitives import serialization
from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator
from py_vapid import Vapid
from pywebpush import WebPushException, webpush

from hooks import addresses, delivery

TTL_S = 3600  # a push service keeps a message this long for a browser that is away


class Gone(Exception):
    """The push service says the subscription is no more (404, 410)."""


def key_file() -> Path:
    return Path(settings.VAPID_PRIVATE_KEY_FILE)


def make_keys(path: Path | None = None) -> bool:
    """Make the site's VAPID key pair once; False when it exists already."""
    path = path or key_file()
    if path.exists():
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    vapid = Vapid()
    vapid.generate_keys()
    pem = vapid.private_pem()
    path.touch(mode=0o600)
    path.write_bytes(pem)
    return True


@lru_cache(maxsize=4)
def _vapid(path: str, mtime: float) -> Vapid:
    return Vapid.from_file(private_key_file=path)


def vapid() -> Vapid | None:
    path = key_file()
    if not path.exists():
        return None
    return _vapid(str(path), path.stat().st_mtime)


def public_key() -> str:
    """The application server key a browser subscribes with (base64url, no padding)."""
    v = vapid()
    if v is None:
        return ""
    raw = v.public_key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


class _Response:
    def __init__(self, status_code: int):
        self.status_code, self.reason, self.text, self.headers = status_code, "", "", {}


class _PinnedPoster:
    """What pywebpush posts through: the webhook sender's checked, pinned POST."""

    def post(self, url, data=None, headers=None, timeout=None, **_kw):
        return _Response(delivery.send(url, data or b"", dict(headers or {}), timeout or 10))


MAX_ENDPOINT = 500  # PushSubscription.endpoint's length; push services' are well under
_HTTPS_URL = URLValidator(schemes=["https"])


def check_endpoint(url) -> None:
    """A subscription's endpoint is a push service's URL, as browsers give it:
    https, a proper host name, no control character, at most MAX_ENDPOINT
    characters, and reachable like a webhook. ValueError (in words that never
    tell what a host resolved to) if not."""
    if not isinstance(url, str) or not url:
        raise ValueError("the endpoint is missing")
    if len(url) > MAX_ENDPOINT:
        raise ValueError(f"the endpoint is longer than {MAX_ENDPOINT} characters")
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in url):
        raise ValueError("the endpoint holds a space or a control character")
    try:
        _HTTPS_URL(url)
    except ValidationError:
        raise ValueError("the endpoint is not a push service's https:// URL") from None
    parts = urlsplit(url)
    if parts.username is not None or parts.password is not None:
        raise ValueError("the endpoint may not carry a user name or password (https://)")
    try:
        parts.port  # noqa: B018 (read to check it)
    except ValueError:
        raise ValueError("the endpoint's port is not a number from 0 to 65535 (https://)") from None
    try:
        addresses.check_registration(url)
    except addresses.RefusedAddress:
        raise ValueError(
            "the endpoint's host is not a public address (an internal address, or a "
            "host that does not resolve, is refused)"
        ) from None


def send(subscription, title: str, body: str, url: str) -> None:
    """Encrypt and send one message; Gone when the subscription expired,
    WebPushException or OSError when it failed."""
    v = vapid()
    if v is None:
        raise WebPushException("this site has no VAPID keys: run manage.py make_vapid_keys")
    info = {
        "endpoint": subscription.endpoint,
        "keys": {"p256dh": subscription.p256dh, "auth": subscription.auth},
    }
    try:
        webpush(
            info,
            data=json.dumps({"title": title, "body": body, "url": url}),
            vapid_private_key=v,
            vapid_claims={"sub": settings.VAPID_CLAIM_SUB},
            ttl=TTL_S,
            timeout=10,
            requests_session=_PinnedPoster(),
        )
    except WebPushException as exc:
        if exc.status_code in (404, 410):
            raise Gone(str(exc)) from None
        raise
