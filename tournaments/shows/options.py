"""Show options: defaults, validation, and the match lengths they set."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from games.core.playout import BOT_NAMES
from games.core.protocol import RuleError
from games.core.registry import rules_for

from ..items import DOUBTING_LOVE_LETTER, GAMES
from .state import ShowState

DEATH_MATCH_FIRST_TO_DLL = 7


FINAL_FIRST_TO_DLL = 5


DEFAULT_OPTIONS: Mapping[str, Any] = {
    "spectator_delay_s": 300,
    "spectator_policy": "public",  # or "everything"
    "final_game": DOUBTING_LOVE_LETTER,
    # match lengths, in each game's own unit (match_length_option: bouts won, Bleven's crowns)
    "final_first_to": None,  # None: 5 for Doubting Love Letter, else the game's default
    # None: 7 for Doubting Love Letter, else the game's default; or {game: length}
    "death_match_first_to": None,
    "game_pick": "organizer",  # or "pool_with_bans"
    "game_pool": list(GAMES),
    "candidates_per_round": 1,
    "candidate_rule": "last",  # or "winners_choose_any"
    "step_deadline_s": 3600,  # each entrant decision of a round; 0 = no deadline
    # time controls of every match of the show, e.g. {"decision_s": 20, "reserve_s": 0};
    # each game takes those it has. None: each game's own defaults
    "match_clock": None,
    # a scheduled show (one with a start time): who may enter and how
    "registration": "invitation",  # or "open": any account registers itself
    "cap": None,  # the most entrants an open registration takes (None: MAX_ENTRANTS)
    "waiting_list": True,  # past the cap, registrations wait for a seat
    "approval": False,  # the organizer approves each registration
    "check_in_s": 0,  # check-in opens this long before the start; 0 = no check-in
    # who takes the seat of an entrant absent at the close of check-in
    "absentees": "drop",  # or "waiting_list", "bot", "waiting_list_then_bot"
    "replacement_bot": "heuristic",  # the kind of bot that replaces an absentee
    # before each death match and the final: seconds to confirm one is there; 0 = none
    "ready_check_s": 0,
    # its matches count for the players' ratings (ratings/)
    "rated": True,
}
# bounds of the fields that size a show's work: one definition (games.limits)
from games.limits import (  # noqa: E402
    MAX_CANDIDATES,
    MAX_CHECK_IN_S,
    MAX_ENTRANTS,
    MAX_FIRST_TO,
    MAX_READY_CHECK_S,
    MAX_SPECTATOR_DELAY_S,
    MAX_STEP_DEADLINE_S,
)

ABSENTEE_RULES = ("drop", "waiting_list", "bot", "waiting_list_then_bot")
BOT_KINDS = BOT_NAMES  # replacement_bot: "level:0".."level:4", "heuristic", "random"
# the match options a show's match_clock may set
CLOCK_OPTIONS = ("decision_s", "reserve_s")


def default_round_titles(entrants: int, per_round: int, first: int = 1) -> list[str]:
    """Enough rounds for ``entrants`` to come down to the final's two."""
    count = -(-max(entrants - 2, 0) // per_round)
    return [f"Round {i}" for i in range(first, first + count)]


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _name_ok(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


# control characters (newline, NUL...), line and paragraph separators, lone surrogates
NOT_ON_ONE_LINE = frozenset({"Cc", "Cs", "Zl", "Zp"})


def one_line(v: Any) -> bool:
    """A title shown on one line (a page, a calendar's name): text with no
    line break or control character."""
    return _name_ok(v) and not any(unicodedata.category(c) in NOT_ON_ONE_LINE for c in v)


def resolve_options(options: Mapping[str, Any] | None, n_entrants: int = 0) -> dict[str, Any]:
    raw = dict(options or {})
    unknown = sorted(set(raw) - set(DEFAULT_OPTIONS))
    if unknown:
        raise RuleError(
            "unknown show option(s): {unknown}; options: {default_options}",
            unknown=", ".join(unknown),
            default_options=", ".join(DEFAULT_OPTIONS),
        )
    o = {**DEFAULT_OPTIONS, **raw}
    _whole(o, "spectator_delay_s", 0, MAX_SPECTATOR_DELAY_S, "(seconds)")
    if o["spectator_policy"] not in ("public", "everything"):
        raise RuleError('spectator_policy must be "public" or "everything"')
    if o["final_game"] not in GAMES:
        raise RuleError("final_game must be one of {games}", games=", ".join(GAMES))
    if o["final_first_to"] is not None:
        _whole(o, "final_first_to", 1, MAX_FIRST_TO, "(bouts), or none for the default")
    dm = o["death_match_first_to"]
    if isinstance(dm, Mapping):
        bad = [
            g
            for g, n in dm.items()
            if g not in GAMES or not _is_int(n) or not 1 <= n <= MAX_FIRST_TO
        ]
        if bad:
            raise RuleError(
                "death_match_first_to maps games to a whole number from 1 to {max_first_to}; not: {map}",
                max_first_to=MAX_FIRST_TO,
                map=", ".join(map(str, bad)),
            )
        o["death_match_first_to"] = dict(dm)
    elif dm is not None and (not _is_int(dm) or not 1 <= dm <= MAX_FIRST_TO):
        raise RuleError(
            "death_match_first_to must be a whole number from 1 to {max_first_to} (or one per game)",
            max_first_to=MAX_FIRST_TO,
        )
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
            "game_pool: unknown game(s) {map}; games: {games}",
            map=", ".join(map(str, bad)),
            games=", ".join(GAMES),
        )
    if len(set(pool)) != len(pool):
        raise RuleError("game_pool lists a game twice")
    o["game_pool"] = list(pool)
    if o["game_pick"] == "pool_with_bans" and len(pool) < 3:
        raise RuleError(
            "pool_with_bans needs at least three games in game_pool (two bans, one left)"
        )
    _check_length(o["final_game"], "final_first_to", o["final_first_to"])
    for game in pool:
        _check_length(game, "death_match_first_to", _death_match_length(o, game))
    _whole(o, "candidates_per_round", 1, MAX_CANDIDATES, "")
    if o["candidate_rule"] not in ("last", "winners_choose_any"):
        raise RuleError('candidate_rule must be "last" or "winners_choose_any"')
    _whole(o, "step_deadline_s", 0, MAX_STEP_DEADLINE_S, "(seconds; 0: no deadline)")
    o["match_clock"] = _checked_clock(o["match_clock"], {o["final_game"], *pool})
    _check_schedule_options(o)
    if not isinstance(o["rated"], bool):
        raise RuleError("rated must be true or false")
    return o


def _whole(o: Mapping[str, Any], key: str, low: int, high: int, what: str) -> None:
    v = o[key]
    if not _is_int(v) or not low <= v <= high:
        if what:
            raise RuleError(
                "{key} must be a whole number from {low} to {high} {what}",
                key=key,
                low=low,
                high=high,
                what=what,
            )
        raise RuleError(
            "{key} must be a whole number from {low} to {high}", key=key, low=low, high=high
        )


def _check_schedule_options(o: dict[str, Any]) -> None:
    if o["registration"] not in ("open", "invitation"):
        raise RuleError('registration must be "open" or "invitation"')
    if o["cap"] is not None:
        _whole(o, "cap", 2, MAX_ENTRANTS, "(entrants), or none")
    for key in ("waiting_list", "approval"):
        if not isinstance(o[key], bool):
            raise RuleError("{key} must be true or false", key=key)
    _whole(o, "check_in_s", 0, MAX_CHECK_IN_S, "(seconds; 0: no check-in)")
    if o["absentees"] not in ABSENTEE_RULES:
        raise RuleError(
            "absentees must be one of {absentee_rules}", absentee_rules=", ".join(ABSENTEE_RULES)
        )
    if o["replacement_bot"] not in BOT_KINDS:
        raise RuleError(
            "replacement_bot must be one of {bot_kinds}", bot_kinds=", ".join(BOT_KINDS)
        )
    _whole(o, "ready_check_s", 0, MAX_READY_CHECK_S, "(seconds; 0: no ready-check)")


def _checked_clock(clock: Any, games: set[str]) -> dict[str, int] | None:
    if clock is None:
        return None
    if not isinstance(clock, Mapping) or not clock:
        raise RuleError(
            'match_clock maps time controls to seconds, e.g. {"decision_s": 20, "reserve_s": 0}'
        )
    unknown = sorted(str(k) for k in clock if k not in CLOCK_OPTIONS)
    if unknown:
        raise RuleError(
            "match_clock: unknown time control(s) {unknown}; time controls: {clock_options}",
            unknown=", ".join(unknown),
            clock_options=", ".join(CLOCK_OPTIONS),
        )
    bad = sorted(k for k, v in clock.items() if not _is_int(v) or v < 0)
    if bad:
        raise RuleError("match_clock: {bad} must be a whole number of seconds", bad=", ".join(bad))
    for game in sorted(games):
        rules = rules_for(game)
        for opt, value in clock.items():
            spec = rules.options.get(opt)
            if spec is None:
                continue  # a game without this control ignores it
            try:
                spec.check(opt, value)
            except RuleError as exc:
                raise RuleError(
                    "match_clock {opt} does not fit {name}: {exc}",
                    opt=opt,
                    name=rules.name,
                    exc=exc,
                ) from None
    return dict(clock)


def match_clock(options: Mapping[str, Any], game: str) -> dict[str, int]:
    """The time controls of the show's options that ``game`` has ({}: its defaults)."""
    clock = options.get("match_clock") or {}
    return {k: v for k, v in clock.items() if k in rules_for(game).options}


def _death_match_length(options: Mapping[str, Any], game: str) -> int | None:
    set_ = options.get("death_match_first_to")
    if isinstance(set_, Mapping):
        set_ = set_.get(game)
    if set_ is not None:
        return set_
    return DEATH_MATCH_FIRST_TO_DLL if game == DOUBTING_LOVE_LETTER else None


def death_match_first_to(state: ShowState, game: str) -> int | None:
    """The length of a death match of ``game`` in the game's own unit
    (match_length_option); None: the game's own default."""
    return _death_match_length(state.options, game)


def match_length_option(game: str) -> str:
    """The option of ``game`` that sets a match's length: "first_to" (bouts
    won) for most games, "crowns" for Bleven (declared by each game's rules)."""
    return getattr(rules_for(game), "match_length_option", "first_to")


def match_length(game: str, n: int | None) -> dict[str, int]:
    """The match options that make a match of ``game`` ``n`` long ({}: the
    game's own default)."""
    return {} if n is None else {match_length_option(game): n}


def _check_length(game: str, key: str, n: int | None) -> None:
    """A show cannot give a game a match length the game does not have."""
    if n is None:
        return
    rules = rules_for(game)
    opt = match_length_option(game)
    if opt == "first_to":
        return  # any whole number of bouts
    spec = rules.options.get(opt)
    if spec is None:
        raise RuleError(
            "{name} declares its match length as {opt}, an option it lacks",
            name=rules.name,
            opt=opt,
        )
    try:
        spec.check(opt, n)
    except RuleError as exc:
        raise RuleError(
            "{key} {n} does not fit {name}: a {name} match is as long as its {opt} option says, which {exc}",
            key=key,
            n=n,
            name=rules.name,
            opt=opt,
            exc=exc,
        ) from None
