"""Bots for Love Me Not. A bot sees only its own view."""

from __future__ import annotations


def _own_points(tableau, pile) -> float:
    pts = 0.0
    for s in "CDHS":
        t = sum(1 for c in tableau if c[-1] == s)
        p = sum(1 for c in pile if c[-1] == s)
        pts += t * p
    return pts


def heuristic_bot(view, seat, rng, legal):
    """Pick the split that best grows its own suit products, counting a
    kept Jack as worth about one more point (the opponent's pile), and
    leaning towards suits that pair up in both rows later."""
    tableau = list((view.get("tableaus") or {}).get(seat) or [])
    pile = list((view.get("piles") or {}).get(seat) or [])
    turns_left = max(0, int(view.get("turns", 5)) - int(view.get("turn", 0)))

    def value(cmd) -> float:
        keep, discard = cmd["keep"], cmd["discard"]
        t, p = tableau + [keep], pile + [discard]
        v = _own_points(t, p)
        if keep[0] == "J":
            v += 1.0
        # potential: a suit present in one row only can still pair up
        for s in "CDHS":
            nt = sum(1 for c in t if c[-1] == s)
            np_ = sum(1 for c in p if c[-1] == s)
            if (nt == 0) != (np_ == 0):
                v += 0.15 * turns_left
        return v + rng.random() * 0.01

    return max(legal, key=value)
