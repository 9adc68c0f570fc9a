"""``Authorization: Token <secret>`` (or ``Bearer <secret>``) for bots and scripts.

A token is looked up in the database once, then kept in the cache for
``CACHE_S`` by its hash: what it says (its id, its account's id and flags,
whether it is revoked), never the secret. Revoking or deleting a token and
saving or deleting its account put a "dropped" mark in its place
(``api.signals``), so the very next request is refused; entries are only
ever added, never overwritten, so a request that read the row before the
change cannot put the old entry back over the mark."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.utils import timezone
from rest_framework import authentication, exceptions

from .models import ApiToken, hash_secret

log = logging.getLogger(__name__)

KEYWORDS = ("token", "bearer")
# last_used is a hint for its owner, not an audit log: written at most this often
TOUCH_EVERY = timedelta(seconds=60)
CACHE_S = 30  # a token's entry lives this long without a change to drop it
DROPPED = {"dropped": True}  # in a changed token's place for CACHE_S: read the database
_USER_FIELDS = ("id", "username", "is_active", "is_staff", "is_superuser")


class BadToken(exceptions.AuthenticationFailed):
    default_code = "bad_token"


def cache_key(key_hash: str) -> str:
    return f"api-token:{connection.settings_dict['NAME']}:{key_hash}"


def _entry(token: ApiToken) -> dict:
    user = token.user
    return {
        "token": token.pk,
        "revoked": token.revoked is not None,
        "last_used": token.last_used.isoformat() if token.last_used else None,
        "user": {f: getattr(user, f) for f in _USER_FIELDS},
    }


def _cached(key: str) -> dict | None:
    try:
        return cache.get(key)
    except Exception:  # the cache is away: ask the database
        log.warning("token cache unreadable", exc_info=True)
        return None


def _added(key: str, value, timeout: float) -> bool:
    """``cache.add``: False when the key is there already (or the cache is away)."""
    try:
        return cache.add(key, value, timeout)
    except Exception:
        log.warning("token cache unwritable", exc_info=True)
        return False


def _looked_up(key_hash: str) -> dict | None:
    key = cache_key(key_hash)
    entry = _cached(key)
    if entry is None or entry.get("dropped"):
        token = ApiToken.objects.select_related("user").filter(key_hash=key_hash).first()
        if token is None:
            return None
        entry = _entry(token)
        _added(key, entry, CACHE_S)  # never over a "dropped" mark
    return entry


# key hash -> when this process last asked the cache whether to touch it
_touch_asked: dict[str, datetime] = {}
_TOUCH_ASKED_MAX = 10_000


def _touch_due(key_hash: str, last_used: datetime | None, now: datetime) -> bool:
    """Whether this request writes ``last_used`` (once per TOUCH_EVERY per token,
    however many processes see the same cached entry). A process asks the
    cache at most once per TOUCH_EVERY per token: the cached entry keeps the
    ``last_used`` it was read with, so without that every request after the
    touch would ask again (a cache round trip each)."""
    if last_used and now - last_used <= TOUCH_EVERY:
        return False
    asked = _touch_asked.get(key_hash)
    if asked is not None and now - asked <= TOUCH_EVERY:
        return False
    if len(_touch_asked) >= _TOUCH_ASKED_MAX:
        _touch_asked.clear()
    _touch_asked[key_hash] = now
    touch_key = f"{cache_key(key_hash)}:touched"
    try:
        return cache.add(touch_key, 1, TOUCH_EVERY.total_seconds())
    except Exception:
        return True


def refusal(found: bool, revoked: bool, active: bool) -> str | None:
    """Why a token is refused, in the API's words (None: it is not)."""
    if not found:
        return "this token is not valid"
    if revoked:
        return "this token was revoked; create a new one on your tokens page"
    if not active:
        return "the account of this token is disabled"
    return None


def touched(token_id: int, key_hash: str, last_used: datetime | None) -> datetime | None:
    """The token's ``last_used``, written now if due (``_touch_due``)."""
    now = timezone.now()
    if _touch_due(key_hash, last_used, now):
        ApiToken.objects.filter(pk=token_id).update(last_used=now)
        return now
    return last_used


def partial_user(values: dict):
    """The account as a token's entry holds it (``_USER_FIELDS``): any other
    field is read when first used."""
    return _partial(get_user_model(), {f: values[f] for f in _USER_FIELDS})


def _partial(model, values: dict):
    """An instance with only ``values`` loaded (``from_db`` takes them in the
    model's field order); the other fields load when first read."""
    names = [f.attname for f in model._meta.concrete_fields if f.attname in values]
    return model.from_db("default", names, [values[n] for n in names])


class TokenAuthentication(authentication.BaseAuthentication):
    def authenticate(self, request):
        header = authentication.get_authorization_header(request).split()
        if not header or header[0].lower().decode("latin-1") not in KEYWORDS:
            return None  # not ours: the session may still authenticate
        if len(header) != 2:
            raise BadToken("send the header as: Authorization: Token <secret>")
        try:
            secret = header[1].decode("ascii")
        except UnicodeDecodeError:
            raise BadToken("this token is not valid") from None
        key_hash = hash_secret(secret)
        entry = _looked_up(key_hash)
        why = refusal(
            entry is not None,
            entry is not None and entry["revoked"],
            entry is not None and entry["user"]["is_active"],
        )
        if why is not None:
            raise BadToken(why)
        last_used = entry["last_used"] and datetime.fromisoformat(entry["last_used"])
        last_used = touched(entry["token"], key_hash, last_used)
        # the account as the entry says; any other field is read when first used
        user = _partial(get_user_model(), entry["user"])
        token = _partial(
            ApiToken,
            {
                "id": entry["token"],
                "user_id": user.pk,
                "key_hash": key_hash,
                "last_used": last_used,
            },
        )
        token.user = user
        return user, token

    def authenticate_header(self, request):
        return "Token"
