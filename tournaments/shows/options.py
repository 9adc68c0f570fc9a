"""Show options: defaults, validation, and the match lengths they set."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ..items import DOUBTING_LOVE_LETTER, GAMES
from .state import ShowState

DEATH_MATCH_FIRST_TO_DLL = 7


FINAL_FIRST_TO_DLL = 5


DEFAULT_OPTIONS: Mapping[str, Any] = {
    "spectator_delay_s": 300,
    "spectator_policy": "public",  # or "everything"
    "final_game": DOUBTING_LOVE_LETTER,
    "final_first_to": None,  # None: 5 for Doubting Love Letter, else the game's default
    "death_match_first_to": None,  # None: 7 for Doubting Love Letter, else the game's default
    "game_pick": "organizer",  # or "pool_with_bans"
    "game_pool": list(GAMES),
    "candidates_per_round": 1,
    "candidate_rule": "last",  # or "winners_choose_any"
    "step_deadline_s": 3600,  # each entrant decision of a round; 0 = no deadline
}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _name_ok(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def resolve_options(options: Mapping[str, Any] | None, n_entrants: int = 0) -> dict[str, Any]:
    raw = dict(options or {})
    unknown = sorted(set(raw) - set(DEFAULT_OPTIONS))
    if unknown:
        raise RuleError(
            f"unknown show option(s): {', '.join(unknown)}; options: {', '.join(DEFAULT_OPTIONS)}"
        )
    o = {**DEFAULT_OPTIONS, **raw}
    if not _is_int(o["spectator_delay_s"]) or o["spectator_delay_s"] < 0:
        raise RuleError("spectator_delay_s must be a whole number of seconds, 0 or more")
    if o["spectator_policy"] not in ("public", "everything"):
        raise RuleError('spectator_policy must be "public" or "everything"')
    if o["final_game"] not in GAMES:
        raise RuleError(f"final_game must be one of {', '.join(GAMES)}")
    for key in ("final_first_to", "death_match_first_to"):
        if o[key] is not None and (not _is_int(o[key]) or o[key] < 1):
            raise RuleError(f"{key} must be a whole number of at least 1")
    if o["final_first_to"] is None and o["final_game"] == DOUBTING_LOVE_LETTER:
        o["final_first_to"] = FINAL_FIRST_TO_DLL
    if o["game_pick"] not in ("organizer", "pool_with_bans"):
        raise RuleError('game_pick must be "organizer" or "pool_with_bans"')
    pool = o["game_pool"]
    if not isinstance(pool, (list, tuple)) or not pool:
        raise RuleError("game_pool must be a non-empty list of game slugs")
    bad = [g for g in pool if g not in GAMES]
    if bad:
        raise RuleError(
            f"game_pool: unknown game(s) {', '.join(map(str, bad))}; games: {', '.join(GAMES)}"
        )
    if len(set(pool)) != len(pool):
        raise RuleError("game_pool lists a game twice")
    o["game_pool"] = list(pool)
    if o["game_pick"] == "pool_with_bans" and len(pool) < 3:
        raise RuleError(
            "pool_with_bans needs at least three games in game_pool (two bans, one left)"
        )
    if not _is_int(o["candidates_per_round"]) or o["candidates_per_round"] < 1:
        raise RuleError("candidates_per_round must be a whole number of at least 1")
    if o["candidate_rule"] not in ("last", "winners_choose_any"):
        raise RuleError('candidate_rule must be "last" or "winners_choose_any"')
    if not _is_int(o["step_deadline_s"]) or o["step_deadline_s"] < 0:
        raise RuleError(
            "step_deadline_s must be a whole number of seconds, 0 or more (0: no deadline)"
        )
    return o


def death_match_first_to(state: ShowState, game: str) -> int | None:
    """First to N of a death match of ``game`` (None: the game's own default)."""
    set_ = state.options.get("death_match_first_to")
    if set_ is not None:
        return set_
    return DEATH_MATCH_FIRST_TO_DLL if game == DOUBTING_LOVE_LETTER else None
