"""Cards shared by Love Letter and Doubting Love Letter (ranks 1..8)."""

from __future__ import annotations

from games.core.fields import whole

NAMES = {
    1: "Guard",
    2: "Priest",
    3: "Baron",
    4: "Handmaid",
    5: "Prince",
    6: "King",
    7: "Countess",
    8: "Princess",
}

# cards that target another player (and so do nothing against protection)
TARGETED = frozenset({1, 2, 3, 5, 6})
# the Countess must be played when held with one of these
FORCES_COUNTESS = frozenset({5, 6})

CLASSIC_DECK = (1,) * 5 + (2, 2, 3, 3, 4, 4, 5, 5, 6, 7, 8)  # 16 cards
DOUBTING_DECK = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8)  # 15 cards


def parse_rank(raw) -> int | None:
    """'1'..'8' (or 1..8) to an int; None when it is not a card name (also
    for '²', a 5,000-digit string, a float, a bool or a list)."""
    v = whole(raw)
    return v if v is not None and 1 <= v <= 8 else None


def label(rank: int) -> str:
    return f"{rank} ({NAMES[rank]})"


def countess_forced(hand) -> bool:
    """True when the hand holds the 7 together with a 5 or a 6."""
    return 7 in hand and any(c in FORCES_COUNTESS for c in hand)
