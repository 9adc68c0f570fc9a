"""Love Letter at levels (games.core.search): what the search needs of this game.

Hidden from a seat: the other hands, the deck and the face-down card set
aside. The sampler counts cards (every discard, the face-up cards, its own
hand) and keeps what the seat has learnt and not lost track of since: a card
seen with a Priest, a Baron's comparison, a King's trade (followed through
later trades and plays). Love Letter has no claims or bids; level 4 weighs a
deal by what the others chose to keep: a player who just played a card most
likely kept the higher one.
"""

from __future__ import annotations

from collections import Counter

from games.core.protocol import Event
from games.core.search import SearchSpec, level_bots
from games.love_letter_family.cards import CLASSIC_DECK

from .bots import heuristic_bot
from .rules import RULES, LoveLetterState

# the clock is not in the view, only its deadline: any limit rebuilds it
CLOCK_S = 120
KEPT_HIGHER_WEIGHT = 1.5


def known_cards(view, seat) -> dict[str, int]:
    """The other seats' cards this seat knows, from its own log."""
    known: dict[str, int] = {}
    for e in view["log"]:
        t, who = e["type"], e.get("seat")
        if t == "card_seen" and who == seat and "card" in e:
            known[e["target"]] = int(e["card"])
        elif t == "cards_compared" and "cards" in e:
            for s, c in e["cards"].items():
                if s != seat and seat in e["cards"]:
                    known[s] = int(c)
        elif t == "hands_traded":
            a, b = who, e["target"]
            if "cards" in e and seat in (a, b):
                other = b if a == seat else a
                known[other] = int(e["cards"][other])
            else:
                ka, kb = known.pop(a, None), known.pop(b, None)
                if kb is not None:
                    known[a] = kb
                if ka is not None:
                    known[b] = ka
        elif t == "card_played" and known.get(who) == int(e["card"]):
            del known[who]
        elif t in ("card_discarded", "player_out"):
            known.pop(who, None)
    return known


def sample_state(view, seat, rng) -> LoveLetterState:
    seats = tuple(view["seats"])
    hand = tuple(int(c) for c in view["hand"])
    pool = Counter(CLASSIC_DECK)
    pool.subtract(hand)
    pool.subtract(int(c) for c in view["removed"])
    for cards in view["discards"].values():
        pool.subtract(int(c) for c in cards)
    known = known_cards(view, seat)
    hands = {seat: hand}
    for s, c in known.items():
        if view["hand_sizes"][s] and pool[c] > 0:
            hands[s] = (c,)
            pool[c] -= 1
    unseen = list(pool.elements())
    rng.shuffle(unseen)
    for s in seats:
        have = hands.get(s, ())
        hands[s] = have + tuple(unseen.pop() for _ in range(view["hand_sizes"][s] - len(have)))
    hidden = unseen.pop() if view["hidden_set_aside"] else None
    deadline = view["deadline"]
    return LoveLetterState(
        seats=seats,
        options={
            "decision_s": CLOCK_S if deadline is not None else 0,
            "two_player_face_up": len(view["removed"]),
        },
        bout=view["bout"],
        first=view["first"],
        hidden=hidden,
        removed=tuple(int(c) for c in view["removed"]),
        deck=tuple(unseen),
        hands=tuple(hands[s] for s in seats),
        discards=tuple(tuple(int(c) for c in view["discards"][s]) for s in seats),
        out=tuple(view["out"]),
        protected=frozenset(view["protected"]),
        turn=view["turn"],
        turn_at=deadline - CLOCK_S if deadline is not None else 0.0,
        turn_no=view["turn_no"],
        finished=view["finished"],
        winners=tuple(view["winners"]),
        reason=view["reason"],
        showdown=view["showdown"],
        log=tuple(
            Event(e["type"], {k: v for k, v in e.items() if k != "type"}) for e in view["log"]
        ),
        commitment=view["commitment"],
    )


def weigh(view, seat, state: LoveLetterState) -> float:
    weight = 1.0
    for i, s in enumerate(state.seats):
        if s == seat or len(state.hands[i]) != 1 or not state.discards[i]:
            continue
        if state.hands[i][0] > state.discards[i][-1]:
            weight *= KEPT_HIGHER_WEIGHT
    return weight


def now_of(view) -> float:
    deadline = view["deadline"]
    return deadline - CLOCK_S if deadline is not None else 0.0


SPEC = SearchSpec(
    rules=RULES,
    sample_state=sample_state,
    policy=heuristic_bot,
    weigh=weigh,
    now_of=now_of,
)
LEVELS = level_bots(SPEC)
