"""Bleven's 40-card deck: ranks A 2 3 4 5 6 7 J Q K (valued 1..7, 8, 9, 10)
of the suits C D H S. A card is named rank then suit: ``7H``, ``AS``, ``KC``."""

from __future__ import annotations

RANKS = ("A", "2", "3", "4", "5", "6", "7", "J", "Q", "K")
SUITS = ("C", "D", "H", "S")
VALUES = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 .. 7=7, J=8, Q=9, K=10

DECK = tuple(r + s for s in SUITS for r in RANKS)  # 40 cards
CARDS = frozenset(DECK)


def parse_card(raw) -> str | None:
    """A card name (any case, surrounding spaces allowed) to its canonical
    form; None when it names no Bleven card."""
    if not isinstance(raw, str):
        return None
    name = raw.strip().upper()
    return name if name in CARDS else None


def value(card: str) -> int:
    return VALUES[card[0]]


def sort_key(card: str) -> tuple[int, int]:
    """Lowest first; suits only break ties so that the order is fixed."""
    return (VALUES[card[0]], SUITS.index(card[1]))


def lowest_first(cards) -> list[str]:
    return sorted(cards, key=sort_key)


def total(cards) -> int:
    return sum(value(c) for c in cards)
