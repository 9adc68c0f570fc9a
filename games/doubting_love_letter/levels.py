"""Doubting Love Letter at levels (games.core.search): what the search needs of this game.

Hidden from a seat: the opponent's hand, the deck's order, the opponent's
unchallenged plays (each may have been a bluff), their items and what they
learnt. The sampler counts cards (removed, own hand and plays, every forced
discard and challenged play), keeps the card a Priest, Baron or King showed,
never puts the Princess among plays, and keeps the opponent within their
bluff limit; an unchallenged claim is taken as the truth three times in
four. Level 4 weighs a deal by the opponent's own record this bout: the more
of their challenged claims were bluffs, the likelier their unchallenged ones
were too.
"""

from __future__ import annotations

from collections import Counter

from games.core.search import SearchSpec, level_bots
from games.love_letter_family.cards import DOUBTING_DECK

from .bots import heuristic
from .rules import CHALLENGE, GUESS, PLAY, RIGGING, RULES, BoutState, Discard

TRIES = 30  # re-deals tried before the opponent's plays are taken as the truth
# how often an unchallenged claim is taken to be the truth (a uniform re-deal
# would make nearly every claim a bluff, and the search challenge everything)
TRUTH_PRIOR = 0.75


def _pool(view) -> Counter:
    pool = Counter(DOUBTING_DECK)
    pool.subtract(view["removed"])
    pool.subtract(view["hand"])
    pool.subtract(d["card"] for d in view["discards"] if "card" in d)
    return pool


def _deal_hidden(view, pool: Counter, n_hand: int, rng):
    """The opponent's hand, the cards behind their unchallenged plays and the
    deck, drawn from ``pool`` within the bout's rules."""
    hidden = [i for i, d in enumerate(view["discards"]) if "card" not in d]
    claims = [view["discards"][i]["claim"] for i in hidden]
    limit = view["options"]["bluffs_per_bout"]
    known = view.get("opponent_card")
    for attempt in range(TRIES + 1):
        cards = list(pool.elements())
        rng.shuffle(cards)
        hand = []
        if known is not None and n_hand and known in cards:
            cards.remove(known)
            hand.append(known)
        plays = []
        for claim in claims:
            truth = attempt == TRIES or rng.random() < TRUTH_PRIOR
            if truth and claim in cards:
                pick = claim
            else:
                pick = next((c for c in cards if c != 8), None)
            if pick is None:
                break
            cards.remove(pick)
            plays.append(pick)
        bluffs = sum(1 for c, claim in zip(plays, claims, strict=False) if c != claim)
        if len(plays) == len(claims) and (bluffs <= limit or attempt == TRIES):
            break
    while len(hand) < n_hand:
        hand.append(cards.pop())
    return dict(zip(hidden, plays, strict=False)), tuple(hand), tuple(cards), bluffs


def _discards(view, hidden_cards) -> tuple[Discard, ...]:
    out = []
    for i, d in enumerate(view["discards"]):
        card = d["card"] if "card" in d else hidden_cards[i]
        if d["kind"] == "forced":
            out.append(Discard(d["seat"], "forced", card, None, None, False, d["turn"]))
            continue
        target = d.get("target") if d["claim"] == 5 else None
        out.append(
            Discard(d["seat"], "played", card, d["claim"], target, d["challenged"], d["turn"])
        )
    return tuple(out)


def _rigs(view, seat, other, pool: Counter) -> tuple:
    """A rig the opponent made before this seat's, when the takes it is
    offered lack a value still in the deck (they took its last copy)."""
    takes = view.get("rig_takes")
    if view["phase"] != RIGGING or takes is None:
        return ()
    gone = [c for c in pool if pool[c] > 0 and c not in takes]
    return ((other, gone[0], None),) if len(gone) == 1 else ()


def sample_state(view, seat, rng) -> BoutState:
    seats = tuple(view["seats"])
    other = seats[1] if seats[0] == seat else seats[0]
    hand = tuple(view["hand"])
    pool = _pool(view)
    n_hand = 12 - view["deck_count"] - len(hand) - len(view["discards"])
    hidden_cards, opp_hand, deck, opp_bluffs = _deal_hidden(view, pool, n_hand, rng)
    discards = _discards(view, hidden_cards)
    options = dict(view["options"])
    limit = options["bluffs_per_bout"]
    asked, deadline = view["asked"], view["deadline"]
    asked_at = 0.0
    if deadline is not None and asked is not None:
        asked_at = deadline - options["decision_s"] - view["reserve"][asked]
    return BoutState(
        seats=seats,
        first=view["first"],
        bout_no=view["bout_no"],
        options=options,
        items={seat: tuple(view["items"][seat]), other: ()},
        order=(),
        salt="",
        commitment=view["commitment"],
        removed=tuple(view["removed"]),
        deck=deck,
        hands={seat: hand, other: opp_hand},
        lives=dict(view["lives"]),
        bluffs={seat: limit - view["bluffs_left"][seat], other: opp_bluffs},
        reserve=dict(view["reserve"]),
        discards=discards,
        phase=view["phase"],
        asked=asked,
        asked_at=asked_at,
        turn=view["turn"],
        turn_no=view["turn_no"],
        plays=sum(1 for d in discards if d.kind == "played"),
        play=discards[-1] if view["phase"] in (CHALLENGE, GUESS) else None,
        immune=frozenset(view["immune"]),
        insurance=frozenset(view["insurance_active"]),
        plus_one=frozenset(view["plus_one_used"]),
        rigs=_rigs(view, seat, other, pool),
        opp_known={seat: view["opponent_card"], other: None},
        seen={seat: tuple(view["seen"]), other: ()},
        deals=view["deal_no"],
        showdown=view["showdown"],
        winners=tuple(view["winners"]),
        reason=view["reason"],
        revealed=tuple(view["revealed_deals"]),
    )


def weigh(view, seat, state: BoutState) -> float:
    """How the opponent's record this bout (their challenged plays, bluffs
    or not) moves the odds of each unchallenged claim being the truth."""
    shown = [d for d in view["discards"] if d["seat"] != seat and d["kind"] == "played"]
    caught = [d for d in shown if d["challenged"]]
    truths = sum(1 for d in caught if not d["bluff"])
    rate = (truths + 3 * TRUTH_PRIOR) / (len(caught) + 3)
    weight = 1.0
    for raw, d in zip(view["discards"], state.discards, strict=True):
        if d.seat != seat and d.kind == "played" and "card" not in raw:
            true = d.card == d.claim
            weight *= rate / TRUTH_PRIOR if true else (1 - rate) / (1 - TRUTH_PRIOR)
    return weight


def candidates(view, legal) -> list:
    """Deck Rigging's denials are searched only as "deny 8" (the rest add
    width and little else)."""
    return [c for c in legal if c.get("item") != RIGGING or c.get("deny") in (None, "8")]


def now_of(view) -> float:
    asked, deadline = view["asked"], view["deadline"]
    if deadline is None or asked is None:
        return 0.0
    return deadline - view["options"]["decision_s"] - view["reserve"][asked]


def _mixed(view, command) -> bool:
    return view.get("phase") in (PLAY, CHALLENGE) and command.get("type") in (
        "play",
        "challenge",
        "pass",
    )


SPEC = SearchSpec(
    rules=RULES,
    sample_state=sample_state,
    policy=heuristic,
    candidates=candidates,
    mixed=_mixed,
    weigh=weigh,
    now_of=now_of,
)
LEVELS = level_bots(SPEC)
