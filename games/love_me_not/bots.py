"""Bots for Love Me Not. A bot sees only its own view."""

from __future__ import annotations

SUITS = "CDHS"


def _suits(cards) -> dict[str, int]:
    counts = dict.fromkeys(SUITS, 0)
    for c in cards:
        counts[c[-1]] += 1
    return counts


def _own_points(tableau, pile) -> float:
    t, p = _suits(tableau), _suits(pile)
    pts = 0.0
    for s in SUITS:
        pts += t[s] * p[s]
    return pts


def split_value(tableau: dict, pile: dict, turns_left: int, keep: str, discard: str, rng) -> float:
    """The heuristic's worth of keeping ``keep`` and discarding ``discard``,
    given the suits counted in the seat's tableau and pile (one draw of
    ``rng`` for its tie-breaking noise)."""
    t, p = dict(tableau), dict(pile)  # the suits counted once, then the move's two cards
    t[keep[-1]] += 1
    p[discard[-1]] += 1
    v = 0.0
    for s in SUITS:
        v += t[s] * p[s]
    if keep[0] == "J":
        v += 1.0
    # potential: a suit present in one row only can still pair up
    for s in SUITS:
        if (t[s] == 0) != (p[s] == 0):
            v += 0.15 * turns_left
    return v + rng.random() * 0.01


def heuristic_bot(view, seat, rng, legal):
    """Pick the split that best grows its own suit products, counting a
    kept Jack as worth about one more point (the opponent's pile), and
    leaning towards suits that pair up in both rows later."""
    tableau = _suits((view.get("tableaus") or {}).get(seat) or [])
    pile = _suits((view.get("piles") or {}).get(seat) or [])
    turns_left = max(0, int(view.get("turns", 5)) - int(view.get("turn", 0)))
    return max(
        legal, key=lambda c: split_value(tableau, pile, turns_left, c["keep"], c["discard"], rng)
    )
