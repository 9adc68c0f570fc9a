"""Bleven bots. A bot sees only its own view (its field, every showroom, the
bid) and guesses the hidden fields by sampling the cards it has not seen."""

from __future__ import annotations

from .cards import DECK, lowest_first, total, value
from .duel import MIN_FIELD, fight

SAMPLES = 48


def _unseen(view, seat) -> list[str]:
    seen = set(view.get("hand") or [])
    for cards in view["showrooms"].values():
        seen.update(cards)
    return [c for c in DECK if c not in seen]


def _trick_odds(hand, unseen, rng, n=SAMPLES):
    """Per sampled rival field: which of the three tricks we win, and its sum."""
    mine = [value(c) for c in lowest_first(hand)]
    out = []
    for _ in range(n):
        theirs = [value(c) for c in lowest_first(rng.sample(unseen, 3))]
        won = tuple(k + 1 for k in range(3) if mine[k] > theirs[k])
        out.append((won, sum(theirs)))
    return out


def _pick(legal, wanted, rng):
    """``wanted`` when it is legal, else a legal command of the same type, else any."""
    if wanted in legal:
        return wanted
    same = [c for c in legal if c.get("type") == wanted.get("type")]
    pool = same or legal
    return pool[rng.randrange(len(pool))]


def _declare_choice(view, seat, rng, samples=SAMPLES):
    """The bid worth making with this field, or None."""
    hand = view["hand"]
    if total(hand) < MIN_FIELD:
        return None
    odds = _trick_odds(hand, _unseen(view, seat), rng, samples)
    best = None
    for tricks in range(4):
        hits = sum(1 for won, _ in odds if len(won) == tricks)
        p = hits / len(odds)
        if best is None or p > best[1]:
            best = (tricks, p)
    tricks, p = best
    if p < 0.55:
        return None
    positions = []
    if tricks:
        # name the positions when the same tricks are won nearly every time
        counts = {}
        for won, _ in odds:
            if len(won) == tricks:
                counts[won] = counts.get(won, 0) + 1
        won, c = max(counts.items(), key=lambda kv: kv[1])
        if c / len(odds) >= 0.75:
            positions = list(won)
    stones = max(0, min(30, 3 * int((p - 0.5) * 30)))
    cmd = {"type": "declare", "tricks": tricks, "stones": stones}
    if positions:
        cmd["positions"] = positions
    return cmd


def _review_choice(view, seat, rng, legal, samples=SAMPLES):
    bid = view["bid"]
    hand = view["hand"]
    unseen = _unseen(view, seat)
    d = bid["declarer"]
    ev = {"believe": 0.0, "disbelieve": 0.0}
    for _ in range(samples):
        theirs = rng.sample(unseen, 3)
        for answer in ev:
            r = fight(d, seat, theirs, hand, bid["tricks"], bid["positions"], bid["stones"], answer)
            ev[answer] += r["gains"][seat] - r["gains"][d]
    for k in ev:
        ev[k] /= samples
    answer = max(ev, key=ev.get)
    may_ignore = {"type": "respond", "answer": "ignore"} in legal
    if may_ignore and ev[answer] < 0:
        return {"type": "respond", "answer": "ignore"}
    room = 30 - bid["stones"]
    if ev[answer] > 2 * (bid["tricks"] ** 2 + bid["stones"] + 3) and room >= 3:
        return {"type": "respond", "answer": answer, "raise": 3 * min(room // 3, 2)}
    return {"type": "respond", "answer": answer}


def heuristic(view, seat, rng, legal, samples=SAMPLES):
    """Keeps high cards, bids when the trick count looks likely, and answers a
    bid by the stones it expects from each answer (over ``samples`` rival
    fields drawn from the unseen cards)."""
    pending = view.get("pending") or {}
    kind = pending.get("kind")
    if kind == "draw":
        return _pick(legal, {"type": "draw"}, rng)
    if kind == "confirm":
        return _pick(legal, {"type": "confirm"}, rng)
    if kind == "discard":
        hand = view["hand"]
        return _pick(legal, {"type": "discard", "card": lowest_first(hand)[0]}, rng)
    if kind == "turn":
        cmd = _declare_choice(view, seat, rng, samples)
        if cmd is None:
            return _pick(legal, {"type": "draw"}, rng)
        return _pick(legal, cmd, rng)
    if kind == "review":
        return _pick(legal, _review_choice(view, seat, rng, legal, samples), rng)
    return legal[rng.randrange(len(legal))]


BOTS = {"heuristic": heuristic}
