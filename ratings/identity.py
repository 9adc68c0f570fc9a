"""Who a rating belongs to: an account ("u:<id>") or a bot, each level apart
("bot:level:<n>"; the older "bot:random", "bot:heuristic"). Pages name a player by username, or ``bot:<kind>``.
The keys themselves are games.holders' (one home for the games, the tournaments and the ratings)."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from games.holders import BOT, USER, bot_key, bot_kind, holder_key, is_bot, user_key

__all__ = [
    "BOT",
    "USER",
    "bot_key",
    "bot_kind",
    "holder_key",
    "is_bot",
    "key_for",
    "names",
    "user_id_of",
    "user_key",
]


def user_id_of(key: str) -> int | None:
    return int(key[len(USER) :]) if key.startswith(USER) else None


def names(keys) -> dict[str, str]:
    """key -> what a page calls the player (a deleted account: "(gone)")."""
    ids = {user_id_of(k) for k in keys} - {None}
    users = dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))
    out = {}
    for k in keys:
        uid = user_id_of(k)
        out[k] = k if uid is None else users.get(uid, "(gone)")
    return out


def key_for(ref: str) -> str | None:
    """A page's or the API's reference (a username, or bot:<kind>) as a key;
    None when nobody goes by it."""
    if not isinstance(ref, str) or not ref or len(ref) > 150 or not ref.isprintable():
        return None  # a username is printable (and a NUL would trouble the database)
    if is_bot(ref):
        kind = bot_kind(ref)
        plain = kind.replace("_", "").replace(":", "")  # "level:2"
        return ref if kind and len(kind) <= 30 and plain.isascii() and plain.isalnum() else None
    uid = get_user_model().objects.filter(username=ref).values_list("pk", flat=True).first()
    return None if uid is None else user_key(uid)
