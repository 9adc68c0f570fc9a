"""Bots for Higher or Lower. A bot sees only its own view (rules.view for its
seat) and the list of legal commands; it never sees the other seat's secret."""

from __future__ import annotations

HEURISTIC_BID_LIMIT = 100  # the heuristic bot does not bid above this


def _auction(view, rng, legal):
    """The lowest bid, or None: the bot waits and the auction clock runs on."""
    bids = [c for c in legal if c["type"] == "bid"]
    if bids:
        lowest = min(bids, key=lambda c: c["amount"])
        if lowest["amount"] <= HEURISTIC_BID_LIMIT and rng.random() < 0.8:
            return lowest
    return None


def _sides(view):
    prev = view["previous"]
    remaining = view["remaining"]
    higher = [c for c in remaining if c > prev]
    lower = [c for c in remaining if c < prev]
    return higher, lower


def _guess(view, rng):
    chips = view["chips"]
    higher, lower = _sides(view)
    total = len(higher) + len(lower)
    if len(higher) >= len(lower):
        direction, q = "higher", len(higher) / total
    else:
        direction, q = "lower", len(lower) / total
    if q == 1.0:
        stake = chips  # a certain win
    elif chips >= view["declared"]:
        stake = 0  # already there: risk nothing
    else:
        stake = int(chips * (2 * q - 1))  # Kelly for an even-money bet
    return {"type": "guess", "direction": direction, "stake": max(0, min(chips, stake))}


def _pick(view, rng):
    remaining = view["remaining"]
    if rng.random() < 0.2:
        return {"type": "pick", "card": rng.choice(remaining)}
    higher, lower = _sides(view)
    # the Guesser most likely bets on the bigger side: play the smaller one
    if len(higher) == len(lower):
        side = higher if rng.random() < 0.5 else lower
    else:
        side = higher if len(higher) < len(lower) else lower
    if not side:
        side = remaining
    middle = sorted(remaining)[len(remaining) // 2]
    card = min(side, key=lambda c: (abs(c - middle), c))
    return {"type": "pick", "card": card}


def heuristic(view, seat, rng, legal):
    phase = view["phase"]
    if phase == "auction":
        return _auction(view, rng, legal)
    if phase == "show":
        remaining = view["remaining"]
        return {"type": "show", "card": min(remaining, key=lambda c: (abs(c - 13), c))}
    if view["your_role"] == "guesser":
        return _guess(view, rng)
    return _pick(view, rng)


BOTS = {"heuristic": heuristic}
