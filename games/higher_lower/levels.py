"""Higher or Lower at levels (games.core.search): what the search needs of this game.

Every card is public once played; what a seat cannot see is the other seat's
secret move of the turn in progress (the Dealer's pick, the Guesser's
direction and stake), once it is made. Level 4 weighs that secret by how the
opponent has played so far: a Guesser who mostly bet on the bigger side, a
Dealer who mostly played the smaller side. Bids, picks and guesses are mixed
(sampled from the search's counts); bids are the three sizes legal_commands
offers, and the search may also let the auction clock run.
"""

from __future__ import annotations

from games.core.search import SearchSpec, level_bots

from .bots import _guess, _pick, heuristic
from .rules import (
    AUCTION,
    CARDS,
    DIRECTIONS,
    RULES,
    SHOW,
    TURNS,
    TURNS_PHASE,
    HLState,
    TurnResult,
    sampled_stakes,
)


def sample_state(view, seat, rng) -> HLState:
    auction = view["auction"]
    decision_s = view["options"]["decision_s"]
    bids = tuple((b["seat"], b["amount"], b["at"]) for b in auction["bids"])
    chips = view["chips"] if view["chips"] is not None else 25
    turn = view["turn"]
    timed_out = {(t["kind"], t["turn"]) for t in view["timeouts"]}
    pick, guess = view["pick"], view["guess"]
    guess = (guess["direction"], guess["stake"]) if guess is not None else None
    if view["committed"]["dealer"] and pick is None:
        pick = rng.choice(view["remaining"])
    if view["committed"]["guesser"] and guess is None:
        guess = (rng.choice(DIRECTIONS), rng.choice(sampled_stakes(chips)))
    started = None
    if view["phase"] == TURNS_PHASE:
        deadline = view["deadline"]
        started = deadline - decision_s if deadline is not None else auction["closed_at"]
    return HLState(
        seats=tuple(view["seats"]),
        auction_close_s=view["options"]["auction_close_s"],
        decision_s=decision_s,
        opened_at=auction["opened_at"],
        phase=view["phase"],
        high_bid=auction["standing_bid"],
        high_bidder=auction["high_bidder"],
        last_bid_at=bids[-1][2] if bids else None,
        bids=bids,
        guesser=view["guesser"],
        dealer=view["dealer"],
        declared=view["declared"],
        chosen_by=auction["how"],
        closed_at=auction["closed_at"],
        chips=chips,
        remaining=tuple(view["remaining"]),
        revealed=tuple(view["revealed"]),
        turn=turn,
        turn_started_at=started,
        pick=pick,
        pick_timeout=("pick", turn) in timed_out,
        guess=guess,
        guess_timeout=("guess", turn) in timed_out,
        history=tuple(TurnResult(at=0.0, **h) for h in view["history"]),
        timeouts=tuple((t["seat"], t["kind"], t["turn"]) for t in view["timeouts"]),
    )


def _sides(previous: int, remaining) -> tuple[int, int]:
    return sum(1 for c in remaining if c > previous), sum(1 for c in remaining if c < previous)


def _tendency(view) -> tuple[float, float]:
    """How often (Laplace-smoothed) the Guesser bet on the bigger side, and
    the Dealer played the smaller side, in the turns played so far."""
    remaining = set(CARDS) - set(view["revealed"][:1])
    bigger = smaller = 0
    for h in view["history"]:
        up, down = _sides(h["previous"], remaining)
        bigger += (h["direction"] == "higher") == (up >= down)
        smaller += (h["card"] > h["previous"]) == (up < down)
        remaining.discard(h["card"])
    n = len(view["history"])
    return (bigger + 1) / (n + 2), (smaller + 1) / (n + 2)


def weigh(view, seat, state: HLState) -> float:
    if view["phase"] != TURNS_PHASE:
        return 1.0
    p_bigger, p_smaller = _tendency(view)
    up, down = _sides(state.previous, state.remaining)
    if seat == state.dealer and view["guess"] is None and state.guess is not None:
        on_bigger = (state.guess[0] == "higher") == (up >= down)
        return p_bigger if on_bigger else 1 - p_bigger
    if seat == state.guesser and view["pick"] is None and state.pick is not None:
        on_smaller = (state.pick > state.previous) == (up < down)
        return p_smaller if on_smaller else 1 - p_smaller
    return 1.0


def now_of(view) -> float:
    if view["phase"] == AUCTION:
        bids = view["auction"]["bids"]
        return bids[-1]["at"] if bids else view["auction"]["opened_at"]
    deadline = view["deadline"]
    if deadline is None:
        return view["auction"]["closed_at"] or 0.0
    return deadline - view["options"]["decision_s"]


def search_view(state: HLState, seat: str) -> dict:
    """The part of ``RULES.view`` for ``seat`` that the search's policies
    read (the heuristic, ``_mixed``): a bout is 24 turns of two moves, and
    the whole view at each of them was a fifth of a playout's time."""
    return {
        "phase": state.phase,
        "your_role": state.role_of(seat),
        "previous": state.previous,
        "remaining": list(state.remaining),
        "chips": state.chips if state.guesser is not None else None,
        "declared": state.declared,
    }


def finish(state: HLState, rng) -> dict[str, float] | None:
    """The playout from the Dealer's show on, as ``search.playout`` plays it
    (the heuristic's picks and guesses, the rng drawn in the same order), on
    a few plain values: 24 turns of two moves each were most of the search's
    time through the rules. None in the auction (the rules' way plays it)."""
    chips = final_chips(state, rng)
    if chips is None:
        return None
    won = chips >= state.declared
    return {state.guesser: float(won), state.dealer: float(not won)}


def final_chips(state: HLState, rng) -> int | None:
    """The Guesser's chips at the end of ``finish``'s playout."""
    if state.phase not in (SHOW, TURNS_PHASE):
        return None
    remaining = list(state.remaining)
    chips, declared, turn = state.chips, state.declared, state.turn
    pick, guess = state.pick, state.guess
    if state.phase == SHOW:
        previous = min(remaining, key=lambda c: (abs(c - 13), c))
        remaining.remove(previous)
        turn = 1
    else:
        previous = state.previous
    seen = {"remaining": remaining, "chips": chips, "declared": declared}
    while True:
        seen["previous"] = previous
        if pick is None:
            pick = _pick(seen, rng)["card"]
        if guess is None:
            g = _guess(seen, rng)
            guess = (g["direction"], g["stake"])
        direction, stake = guess
        correct = pick > previous if direction == "higher" else pick < previous
        chips = chips + stake if correct else chips - stake
        seen["chips"] = chips
        remaining.remove(pick)
        previous = pick
        if turn >= TURNS:
            break
        turn += 1
        pick = guess = None
    return chips


def _mixed(view, command) -> bool:
    return view.get("phase") != SHOW


def _in_auction(rules, state: HLState, seat: str) -> bool:
    return state.phase == AUCTION


SPEC = SearchSpec(
    rules=RULES,
    sample_state=sample_state,
    policy=heuristic,
    mixed=_mixed,
    weigh=weigh,
    now_of=now_of,
    can_wait=_in_auction,
    view=search_view,
    finish=finish,
)
LEVELS = level_bots(SPEC)
