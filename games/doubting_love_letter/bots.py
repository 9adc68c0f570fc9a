"""Bots for Doubting Love Letter. A bot sees only its own seat's view.

``heuristic``: counts cards (removed, its own hand and plays, every card
revealed in public), challenges a claim that is impossible given what it has
seen (and sometimes one that is merely unlikely), names the likeliest card
with a Guard, keeps high cards for the showdown and bluffs now and then with
a claim the opponent cannot rule out.
"""

from __future__ import annotations

from collections import Counter

from games.love_letter_family.cards import DOUBTING_DECK

TOTAL = Counter(DOUBTING_DECK)


def _key(cmd) -> tuple:
    return tuple(sorted((k, str(v)) for k, v in cmd.items() if v is not None))


def _pick(cmd, legal, rng):
    """``cmd`` if it is legal, else a random legal command."""
    if cmd is not None and cmd in legal:  # the same strings: no keys to build
        return legal[legal.index(cmd)]
    keys = {_key(c): c for c in legal}
    if cmd is not None and _key(cmd) in keys:
        return keys[_key(cmd)]
    return rng.choice(legal)


def unseen(view) -> Counter:
    """Cards whose place this seat does not know: the opponent's hand, the
    deck, and the opponent's unchallenged plays."""
    known = dict.fromkeys(TOTAL, 0)  # counted in a plain dict: playouts call this at every step
    for card in view["removed"]:
        known[card] += 1
    for card in view.get("hand", []):
        known[card] += 1
    for d in view["discards"]:
        if "card" in d:
            known[d["card"]] += 1
    out = Counter()
    for card, n in TOTAL.items():
        left = n - known[card]
        if left > 0:
            out[card] = left
    return out


def _public_left(view, me) -> Counter:
    """Copies of each card that someone who sees only public facts (and my
    claims) cannot place: what the opponent can least rule out."""
    known = Counter(view["removed"])
    for d in view["discards"]:
        if d["kind"] == "forced" or d.get("challenged"):
            known[d["card"]] += 1
    out = Counter()
    for card, n in TOTAL.items():
        out[card] = max(0, n - known[card])
    return out


def _opp_dist(view) -> Counter:
    """A rough distribution of the opponent's card."""
    if view.get("opponent_card") is not None:
        return Counter({view["opponent_card"]: 1})
    return unseen(view)


def _p(dist: Counter, pred) -> float:
    n = sum(dist.values())
    if not n:
        return 0.0
    return sum(v for c, v in dist.items() if pred(c)) / n


def heuristic(view, seat, rng, legal):
    phase = view["phase"]
    other = next(s for s in view["seats"] if s != seat)
    insure = {"type": "use_item", "item": "insurance"}
    if insure in legal and rng.random() < 0.9:
        return _pick(insure, legal, rng)
    if view.get("asked") != seat:
        return rng.choice(legal)
    if phase == "deck_rigging":
        deck_cards = [c for c in range(1, 8) if unseen(view)[c] > 0]
        take = max(deck_cards) if deck_cards else None
        if take is None:
            return _pick({"type": "pass"}, legal, rng)
        return _pick(
            {"type": "use_item", "item": "deck_rigging", "take": str(take), "deny": "8"},
            legal,
            rng,
        )
    if phase == "plus_one":
        return _pick({"type": "use_item", "item": "plus_one"}, legal, rng)
    if phase == "challenge":
        return _pick(_challenge(view, seat, other, rng), legal, rng)
    if phase == "guess":
        return _pick(_guess(view, rng), legal, rng)
    if phase == "play":
        hand = view["hand"]
        if view.get("can_mulligan") and max(hand) <= 3 and rng.random() < 0.7:
            return _pick({"type": "mulligan"}, legal, rng)
        return _pick(_play(view, seat, other, rng, legal), legal, rng)
    return rng.choice(legal)


def _challenge(view, seat, other, rng):
    claim = view["play"]["claim"]
    pool = unseen(view)
    if pool[claim] == 0:
        return {"type": "challenge"}  # every copy is accounted for: a sure bluff
    n = sum(pool.values())
    k = pool[claim]
    # chance the opponent had it among its two cards
    p_has = 1.0 - ((n - k) / n) * ((n - k - 1) / max(1, n - 1)) if n > 1 else 1.0
    lives = view["lives"][seat]
    if lives == 1:
        return {"type": "challenge"} if p_has < 0.08 else {"type": "pass"}
    if p_has < 0.3 and rng.random() < 0.5:
        return {"type": "challenge"}
    if rng.random() < 0.05:
        return {"type": "challenge"}
    return {"type": "pass"}


def _guess(view, rng):
    known = view.get("opponent_card")
    if known is not None and known != 1:
        return {"type": "guess", "card": str(known)}
    pool = unseen(view)
    cands = [c for c in range(2, 9) if pool[c] > 0] or list(range(2, 9))
    best = max(pool[c] for c in cands)
    top = [c for c in cands if pool[c] == best]
    return {"type": "guess", "card": str(rng.choice(top))}


def _score(view, other, claim, keep, dist=None) -> float:
    """How good it looks to claim ``claim`` and keep ``keep`` (``dist``: the
    opponent's card as ``_opp_dist`` has it, counted once per move)."""
    if dist is None:
        dist = _opp_dist(view)
    immune = other in view["immune"]
    score = keep * 0.4
    if claim in (1, 2, 3, 6) and immune:
        return score
    if claim == 1:
        best = max((_p(dist, lambda c, g=g: c == g) for g in range(2, 9)), default=0.0)
        score += 4 * best
    elif claim == 2:
        score += 0.8
    elif claim == 3:
        win = _p(dist, lambda c: c < keep)
        lose = _p(dist, lambda c: c > keep)
        score += 4 * (win - lose)
    elif claim == 4:
        score += 1.2
    elif claim == 5:
        score += 0.5 + (4 * _p(dist, lambda c: c == 8) if not immune else -0.5)
    elif claim == 6:
        n = sum(dist.values())
        if n:
            mean = sum(c * v for c, v in dist.items()) / n
            score += 0.3 * (mean - keep)
    return score


def _play(view, seat, other, rng, legal):
    hand = list(view["hand"])
    playable = sorted({int(c["card"]) for c in legal if c["type"] == "play"})
    if not playable:
        return None
    immune = other in view["immune"]
    target = "self" if immune else "opponent"
    best, best_score = None, None
    dist = _opp_dist(view)
    for card in playable:
        rest = list(hand)
        rest.remove(card)
        keep = rest[0]
        s = _score(view, other, card, keep, dist)
        if best_score is None or s > best_score:
            best, best_score = (card, card, keep), s
    card, claim, keep = best
    # a bluff now and then: discard the lower card, claim something stronger
    bluffs_left = view.get("bluffs_left", {}).get(seat, 0)
    if bluffs_left > 0 and rng.random() < 0.25:
        low = min(playable)
        rest = list(hand)
        rest.remove(low)
        keep_b = rest[0]
        public = _public_left(view, seat)
        options = [c for c in range(1, 8) if c != low and public[c] > 0]
        if options:
            scored = sorted(
                options, key=lambda c: _score(view, other, c, keep_b, dist), reverse=True
            )
            choice = scored[0] if rng.random() < 0.7 else rng.choice(options)
            if _score(view, other, choice, keep_b, dist) > best_score - 0.5:
                card, claim = low, choice
    cmd = {"type": "play", "card": str(card), "claim": str(claim)}
    if claim == 5:
        cmd["target"] = target
    return cmd


BOTS = {"heuristic": heuristic}
