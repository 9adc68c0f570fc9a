"""The item catalogue of a show (shared/TOURNAMENTS.md, "Shows"; RULES.md 1).

Pure data, no Django. Items are granted to entrants by the show's moderators
(tournaments/shows/ keeps the inventories); a match receives the items its
game knows. Only Doubting Love Letter has items so far; the other games list
none, so an item is never handed to a match that cannot use it.

Every entry: slug -> {"name", "when", "rules"}; the rules text is the
project's own summary of RULES.md section 1.
"""

from __future__ import annotations

from collections.abc import Mapping

DOUBTING_LOVE_LETTER = "doubting-love-letter"

# every game slug the platform hosts (games/core/registry.py GAME_MODULES)
GAMES = ("doubting-love-letter", "love-letter", "love-me-not", "higher-lower", "bleven")

# where a granted item may be used
SCOPES = ("any", "death_match", "final")
SCOPE_WORDS = {
    "any": "any match of the show",
    "death_match": "death matches only",
    "final": "the final only",
}
# the kinds of match a show knows; scope "any" covers all three
MATCH_KINDS = ("main", "death_match", "final")

CATALOGUE: Mapping[str, Mapping[str, Mapping[str, str]]] = {
    DOUBTING_LOVE_LETTER: {
        "plus_one": {
            "name": "Plus One",
            "when": "at the showdown",
            "rules": (
                "When the deck runs out and both hands are shown, your card counts one "
                "higher. If the cards are then level, you take the bout straight away, "
                "before anyone adds up discards. If both players use one, both cards go "
                "up by one and neither wins a tie through it. The first player is asked "
                "first."
            ),
        },
        "deck_rigging": {
            "name": "Deck Rigging",
            "when": "before the deal",
            "rules": (
                "After the three removed cards are shown and before anyone is dealt: "
                "choose any card still in the deck as your starting card (the topmost "
                "copy is taken), and you may name one value your opponent may not start "
                "with; they then get the topmost card of a different value. Cards "
                "skipped over stay in their order."
            ),
        },
        "insurance": {
            "name": "Insurance",
            "when": "before the bout's first play",
            "rules": (
                "Declare it as the bout begins. The first of your bluffs caught in that "
                "bout costs you one life instead of the whole bout, and the effect you "
                "claimed does not happen. Later caught bluffs are not covered."
            ),
        },
        "advantage": {
            "name": "Advantage",
            "when": "the whole match",
            "rules": (
                "Works by itself for the entire match: you decide who plays first in "
                "bout 1, and any bout still tied after comparing discard totals is "
                "yours. It cannot be copied."
            ),
        },
        "dmo": {
            "name": "DMO advantage",
            "when": "the whole death match",
            "rules": (
                "Belongs to the death-match opponent: you decide who plays first in "
                "bout 1. Once in the match, on your very first turn of a bout in which "
                "you play first, you may call a mulligan: that deal is cancelled and "
                "all 15 cards are shuffled and dealt again, with lives, bluffs and "
                "reserve time starting over."
            ),
        },
    },
    "love-letter": {},
    "love-me-not": {},
    "higher-lower": {},
    "bleven": {},
}


def known_items() -> frozenset[str]:
    """Every item slug some game of the catalogue knows."""
    return frozenset(slug for items in CATALOGUE.values() for slug in items)


def games_knowing(slug: str) -> tuple[str, ...]:
    return tuple(game for game, items in CATALOGUE.items() if slug in items)


def game_knows(game: str | None, slug: str) -> bool:
    """True when a match of ``game`` can use ``slug`` (None: any game)."""
    if game is None:
        return slug in known_items()
    return slug in CATALOGUE.get(game, {})


def describe(slug: str) -> Mapping[str, str] | None:
    for items in CATALOGUE.values():
        if slug in items:
            return items[slug]
    return None
