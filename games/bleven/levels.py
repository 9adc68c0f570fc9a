"""Bleven at levels (games.core.search): what the search needs of this game.

Hidden from a seat: the other fields and the draw pile's order. Level 4
weighs a sampled deal by the standing bid: a declarer (or hijacker) on the
other side is taken to hold a field that makes their bid hit. Stones are
searched in buckets (0, 9, 18, 30; raises of 3 and 9), declarations, raises
and answers are mixed (sampled from the search's counts).
"""

from __future__ import annotations

import math

from games.core.search import SearchSpec, level_bots

from .bots import heuristic
from .cards import DECK
from .duel import fight
from .rules import RULES, Bid, BlevenState

STONE_BUCKETS = frozenset({0, 9, 18, 30})
RAISE_BUCKETS = frozenset({None, 3, 9})
HIT_WEIGHT = 3.0  # how much likelier a deal is when it makes the opponents' bid hit
MARGIN_SCALE = 60.0  # stones: a round won by this margin is worth about 0.88
MARGIN_SHARE = 0.1  # of a playout's reward: the margin of stones, beside the winner
ROLLOUT_SAMPLES = 12  # rival fields the playouts' heuristic draws (the bot's own: 48)


def sample_state(view, seat, rng) -> BlevenState:
    seats = tuple(view["seats"])
    hand = tuple(view["hand"])
    seen = set(hand)
    for cards in view["showrooms"].values():
        seen.update(cards)
    unseen = [c for c in DECK if c not in seen]
    rng.shuffle(unseen)
    hands = []
    for s in seats:
        n = view["field_counts"][s]
        hands.append(hand if s == seat else tuple(unseen.pop() for _ in range(n)))
    pile = tuple(unseen[: view["pile_count"]])
    pending = view["pending"]
    drawn = view["drawn"]
    if drawn is None and view["phase"] == "discard":
        drawn = hands[seats.index(view["turn"])][-1]
    at = 0.0
    if pending and pending["deadline"] is not None:
        at = pending["deadline"] - view["decision_s"]
    return BlevenState(
        seats=seats,
        cutter=view["cutter"],
        decision_s=view["decision_s"],
        deck=(),
        hands=tuple(hands),
        showrooms=tuple(tuple(view["showrooms"][s]) for s in seats),
        pile=pile,
        turn=view["turn"],
        phase=view["phase"],
        at=at,
        may_declare=view["may_declare"],
        drawn=drawn,
        bid=_bid(view["bid"]),
        commitment=view["commitment"],
    )


def _bid(raw) -> Bid | None:
    if raw is None:
        return None
    return Bid(
        declarer=raw["declarer"],
        reviewer=raw["reviewer"],
        tricks=raw["tricks"],
        positions=tuple(raw["positions"]),
        stones=raw["stones"],
        hijacked=raw["hijacked"],
        ignored=tuple(raw["ignored"]),
        answer=raw["answer"],
        raised=raw["raise"],
    )


def weigh(view, seat, state: BlevenState) -> float:
    bid = state.bid
    if bid is None or bid.declarer in state.team(seat):
        return 1.0
    r = fight(
        bid.declarer,
        bid.reviewer,
        state.hand(bid.declarer),
        state.hand(bid.reviewer),
        bid.tricks,
        bid.positions,
        bid.stones,
        "believe",
    )
    return HIT_WEIGHT if r.get("hit") else 1.0


def candidates(view, legal) -> list:
    return [
        c for c in legal if c.get("stones", 0) in STONE_BUCKETS and c.get("raise") in RAISE_BUCKETS
    ]


def reward(outcome, seat, state: BlevenState) -> float:
    """The bout's winner first (1 a side's win, partner included; 0.5 a
    draw), the margin of stones squashed to 0..1 only as a tie-break: the
    search used to chase stones and lose rounds (issue #46)."""
    won = 0.5 if not outcome.winners else float(seat in outcome.winners)
    mine = outcome.points.get(seat, 0)
    theirs = max((v for s, v in outcome.points.items() if s not in state.team(seat)), default=0)
    margin = 0.5 + 0.5 * math.tanh((mine - theirs) / MARGIN_SCALE)
    return (1 - MARGIN_SHARE) * won + MARGIN_SHARE * margin


def rollout(view, seat, rng, legal):
    """The heuristic as playouts play it: fewer sampled rival fields."""
    return heuristic(view, seat, rng, legal, ROLLOUT_SAMPLES)


def now_of(view) -> float:
    pending = view["pending"]
    if not pending or pending["deadline"] is None:
        return 0.0
    return pending["deadline"] - view["decision_s"]


def _mixed(view, command) -> bool:
    return command.get("type") in ("declare", "respond", "hijack")


SPEC = SearchSpec(
    rules=RULES,
    sample_state=sample_state,
    policy=heuristic,
    candidates=candidates,
    mixed=_mixed,
    weigh=weigh,
    reward=reward,
    now_of=now_of,
    rollout=rollout,
)
LEVELS = level_bots(SPEC)
