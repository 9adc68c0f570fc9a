"""Sealed JSON: what the site keeps outside its own memory (a shared cache,
a read model's column) and later decides from, signed with an HMAC of the
site's secret key so that anyone holding only that store's credential cannot
plant a state of their choosing. The seal covers a ``key`` (what the text is
kept under: a stream, a cache key) and the text, so a sealed text moved to
another key is refused too."""

from __future__ import annotations

from typing import Any

from django.utils.crypto import constant_time_compare, salted_hmac


def _mac(purpose: str, key: str, text: str) -> str:
    return salted_hmac(purpose, f"{key}\n{text}", algorithm="sha256").hexdigest()


def seal(purpose: str, key: str, text: str) -> dict[str, str]:
    """``text`` and its seal for ``purpose`` (a salt naming what is sealed) under ``key``."""
    return {"json": text, "mac": _mac(purpose, key, text)}


def unseal(purpose: str, key: str, sealed: Any) -> str:
    """The text of ``sealed``, if this site sealed it for ``purpose`` under
    ``key``; else ValueError."""
    if not isinstance(sealed, dict):
        raise ValueError("not a sealed text")
    text, mac = sealed.get("json"), sealed.get("mac")
    if not (isinstance(text, str) and isinstance(mac, str)):
        raise ValueError("not a sealed text")
    if not constant_time_compare(mac, _mac(purpose, key, text)):
        raise ValueError("a text this site did not seal")
    return text
