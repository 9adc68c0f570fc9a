"""A practice match: a person against one of the bots, at the level they chose
on the games page. The bot moves from the clock worker (games.services
.move_bots_due), never in the person's request."""

from __future__ import annotations

from games.core.playout import LEVEL_NAMES
from games.core.protocol import RuleError
from games.core.registry import rules_for

from . import services
from .models import Match

KIND = "practice"
MAX_LIVE = 3  # a player's live practice matches at once (each costs the clock worker)


def bot_seat(level: int, username: str) -> str:
    seat = f"bot-L{level}"
    return seat if seat != username else f"{seat}-bot"


def start_practice(
    user, game: str, level: str, *, rated: bool = False, command_id: str | None = None
) -> Match:
    """Open a match of ``game`` between ``user`` and the bot at ``level``
    ("level:0" to "level:4"); ``rated``: it counts for the player's rating
    and the level's. Raises RuleError in words for a game or level that
    does not exist."""
    if level not in LEVEL_NAMES:
        raise RuleError("choose a level from 0 to 4")
    rules_for(game)  # an unknown game is refused in words
    live = Match.objects.filter(kind=KIND, status="live", holders__user=user).count()
    if live >= MAX_LIVE:
        raise RuleError(
            "you have {n} practice matches going: finish one before starting another", n=live
        )
    seats = [user.username, bot_seat(LEVEL_NAMES.index(level), user.username)]
    return services.create_match(
        game,
        seats,
        holders={seats[0]: user.pk, seats[1]: f"bot:{level}"},
        actor=user.username,
        role="player",
        kind=KIND,
        rated=rated,
        command_id=command_id,
    )
