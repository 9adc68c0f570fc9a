"""Who holds a seat or an entrant, as the log records it: a user id (an int),
or a bot, ``"bot:<kind>"`` (games.core.playout names the kinds); and the key
a player's ratings are kept under: ``"u:<id>"`` for an account,
``"bot:<kind>"`` for a bot, each level apart ("bot:level:2"; the older
"bot:random", "bot:heuristic").

The one home of both, below every app that reads a holder (the games, the
tournaments, the ratings); nothing of Django here."""

from __future__ import annotations

from typing import Any

from games.core.playout import BOT

USER = "u:"


def is_bot(holder: Any) -> bool:
    """Whether ``holder`` (a seat's or an entrant's holder, an actor, a
    player key) names a bot: a string ``"bot:..."``, whatever its kind."""
    return isinstance(holder, str) and holder.startswith(BOT)


def bot_kind(holder: Any) -> str:
    """The kind a bot holder names (``"bot:level:2"`` -> ``"level:2"``); ""
    for anything else."""
    return holder[len(BOT) :] if is_bot(holder) else ""


def user_key(user_id: int) -> str:
    return f"{USER}{int(user_id)}"


def bot_key(kind: str) -> str:
    return f"{BOT}{kind}"


def holder_key(holder: Any) -> str | None:
    """The player key of a seat's or an entrant's holder as the log records
    it (a user id, or "bot:<kind>"); None for an open seat."""
    if isinstance(holder, int) and not isinstance(holder, bool):
        return user_key(holder)
    if bot_kind(holder):
        return bot_key(bot_kind(holder))
    return None


def row_key(row) -> str:
    """The player key of one seat's holder row (``games.models.MatchHolder``:
    ``bot`` names a bot's kind, else ``user_id`` an account); "" for nobody."""
    return holder_key(bot_key(row.bot) if row.bot else row.user_id) or ""
