"""Bots for Love Letter. A bot sees only its own view (what its seat knows)."""

from __future__ import annotations

from collections import Counter

from games.love_letter_family.cards import CLASSIC_DECK


def _known_cards(view: dict, seat: str) -> dict[str, str]:
    """What this seat believes another player holds, from its own log: a
    Priest look, a Baron compare or a King trade, forgotten as soon as that
    player plays, is forced to discard or trades."""
    known: dict[str, str] = {}
    for e in view.get("log", []):
        t = e.get("type")
        if t == "card_seen" and e.get("seat") == seat and "card" in e:
            known[e["target"]] = e["card"]
        elif t == "cards_compared" and "cards" in e:
            other = e["target"] if e["seat"] == seat else e["seat"]
            if e.get("loser") is None and other in e["cards"]:
                known[other] = e["cards"][other]
        elif t == "hands_traded":
            involved = (e.get("seat"), e.get("target"))
            for s in involved:
                known.pop(s, None)
            if seat in involved and "cards" in e:
                other = involved[1] if involved[0] == seat else involved[0]
                known[other] = e["cards"][other]
        elif t == "card_played":
            known.pop(e.get("seat"), None)
        elif t in ("card_discarded", "card_replaced", "player_out"):
            known.pop(e.get("seat"), None)
    return known


def _unseen(view: dict) -> Counter:
    """Cards whose place this seat cannot see (other hands, deck, face down)."""
    left = Counter(int(c) for c in CLASSIC_DECK)
    seen = list(view.get("removed", []))
    for pile in view.get("discards", {}).values():
        seen += pile
    seen += view.get("hand") or []
    for c in seen:
        left[int(c)] -= 1
    return +left


def heuristic_bot(view, seat, rng, legal):
    """Keep the higher card, use what the log taught, avoid suicide."""
    hand = [int(c) for c in (view.get("hand") or [])]
    known = _known_cards(view, seat)
    unseen = _unseen(view)
    guessable = {c: n for c, n in unseen.items() if c != 1}
    total = sum(guessable.values()) or 1

    def score(cmd) -> float:
        card = int(cmd["card"])
        rest = list(hand)
        rest.remove(card)
        kept = rest[0] if rest else 0
        target = cmd.get("target")
        s = kept * 0.5  # keeping a high card helps at the showdown
        if card == 8:
            return -100.0
        if card == 1 and target is not None:
            g = int(cmd["guess"])
            if known.get(target) == cmd["guess"]:
                s += 20
            else:
                s += 6 * guessable.get(g, 0) / total
        elif card == 2:
            s += 1.0 if target is not None and target not in known else 0.2
        elif card == 3 and target is not None:
            k = known.get(target)
            if k is not None:
                s += 15 if kept > int(k) else (-15 if kept < int(k) else 0)
            else:
                s += (kept - 4.5) * 1.5
        elif card == 4:
            s += 1.5
        elif card == 5:
            if target == seat:
                s += -100 if kept == 8 else (2 - kept) * 0.8
            elif target is not None:
                k = known.get(target)
                s += 12 if k == "8" else 1.0
        elif card == 6 and target is not None:
            k = known.get(target)
            s += (int(k) - kept) if k is not None else (3.5 - kept) * 0.6
        elif card == 7:
            s += 0.5
        return s + rng.random() * 0.01

    return max(legal, key=score)
