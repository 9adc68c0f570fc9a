"""Signatures of webhook bodies: ``X-Showtable-Signature: t=<unix>,v1=<hex>``
with v1 = HMAC-SHA256(secret, f"{t}.{body}"). A receiver checks the mac and
that t is within the replay window (a captured request cannot be replayed
later)."""

from __future__ import annotations

import hashlib
import hmac
import time

HEADER = "X-Showtable-Signature"
REPLAY_WINDOW_S = 300


def mac(secret: str, t: int, body: bytes) -> str:
    return hmac.new(secret.encode(), f"{t}.".encode() + body, hashlib.sha256).hexdigest()


def sign(secret: str, body: bytes, now: float | None = None) -> str:
    t = int(time.time() if now is None else now)
    return f"t={t},v1={mac(secret, t, body)}"


def verify(
    secret: str,
    body: bytes,
    header: str,
    *,
    now: float | None = None,
    window_s: int = REPLAY_WINDOW_S,
) -> bool:
    """True when ``header`` signs ``body`` with ``secret`` within the window."""
    try:
        parts = dict(p.split("=", 1) for p in header.split(","))
        t = int(parts["t"])
        given = parts["v1"]
    except (KeyError, ValueError):
        return False
    now = time.time() if now is None else now
    if abs(now - t) > window_s:
        return False
    return hmac.compare_digest(given, mac(secret, t, body))
