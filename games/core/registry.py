"""The registry of games: slug -> rules, and the series wrapper for each."""

from __future__ import annotations

import importlib

from .protocol import RuleError
from .rules import BoutRules
from .series import Series

# slug -> module holding ``RULES``; a game is listed here once it exists
GAME_MODULES = {
    "doubting-love-letter": "games.doubting_love_letter.rules",
    "love-letter": "games.love_letter.rules",
    "love-me-not": "games.love_me_not.rules",
    "higher-lower": "games.higher_lower.rules",
    "bleven": "games.bleven.rules",
}

_cache: dict[str, BoutRules] = {}


def rules_for(slug: str) -> BoutRules:
    if slug not in GAME_MODULES:
        raise RuleError(
            "no game called {slug!r}; games: {game_modules}",
            slug=slug,
            game_modules=", ".join(GAME_MODULES),
        )
    if slug not in _cache:
        _cache[slug] = importlib.import_module(GAME_MODULES[slug]).RULES
    return _cache[slug]


def series_for(slug: str) -> Series:
    return Series(rules_for(slug))


def available() -> list[BoutRules]:
    out = []
    for slug in GAME_MODULES:
        try:
            out.append(rules_for(slug))
        except ModuleNotFoundError:
            continue
    return out
