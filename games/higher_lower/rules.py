"""Higher or Lower (RULES.md section 4): an open auction, then 24 guessing turns.

Pure rules: no Django, no clock, no RNG of its own. Time reaches the game as
``ctx.now`` and chance as ``ctx.rng``; whatever they produced (the coin flip of
an auction nobody bid in, a card played for a Dealer who ran out of time) is
recorded in the event, so ``evolve`` replays exactly.

Events (every one with JSON-able data):

- ``game_started``   {seats, auction_close_s, decision_s, bout, at}: the
  auction opens.
- ``bid_made``       {seat, amount, at}: a new standing bid; restarts the
  auction's close clock.
- ``auction_closed`` {guesser, dealer, declared, how: "bid" | "coin", at}.
- ``card_shown``     {seat, card, at, timeout}: the Dealer's opening card.
- ``card_picked``    {seat, turn, card, at, timeout}: secret, visible to the
  Dealer only; everyone else sees {seat, turn, committed, at, timeout}.
- ``guess_made``     {seat, turn, direction, stake, at, timeout}: secret,
  visible to the Guesser only; everyone else sees {seat, turn, committed,
  at, timeout}.
- ``turn_revealed``  {turn, previous, card, direction, stake, correct, chips,
  at}: public; emitted together with the second submission of a turn.

There is no ``pass``: a command that would change nothing writes nothing, and
the auction closes by its clock alone. (Logs written before may hold
``passed`` events; they change nothing.)

No deal to commit to: the Dealer holds all 25 cards face up and chooses each
card, so no order is shuffled. The only chance, the coin flip of an auction
nobody bid in and a card played for a Dealer who ran out of time, is public
in the event that records it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.core.fields import shown, whole
from games.core.frozen import replace
from games.core.protocol import (
    EVERY_SEAT,
    MODERATOR,
    SEAT,
    Ctx,
    Decision,
    Event,
    Outcome,
    RuleError,
    Viewer,
)
from games.core.rules import FIRST_NONE, BoutRules, int_option

CARDS = tuple(range(1, 26))
TURNS = len(CARDS) - 1  # 24
START_CHIPS = 25
FIRST_BID_STEP = 10
LOW_STEP = 10  # while the standing bid is under STEP_CHANGE_AT
HIGH_STEP = 50  # from STEP_CHANGE_AT on
STEP_CHANGE_AT = 1000
NO_BID_DECLARED = 10
MAX_BID = START_CHIPS * 2 ** (len(CARDS) - 1)  # 419,430,400: every stake won, all in
BOT_BID_CEILING = 1500  # legal_commands samples bids only under this (both increments)
DIRECTIONS = ("higher", "lower")

AUCTION = "auction"
SHOW = "show"
TURNS_PHASE = "turns"
OVER = "over"


def bid_step(standing: int) -> int:
    """The increment a raise over ``standing`` is counted in."""
    return LOW_STEP if standing < STEP_CHANGE_AT else HIGH_STEP


def min_raise(standing: int | None) -> int:
    return FIRST_BID_STEP if standing is None else standing + bid_step(standing)


def sampled_stakes(chips: int) -> list[int]:
    """The stakes bots try of a huge space: 0, 1, a quarter, half, all the chips."""
    return sorted({0, min(1, chips), chips // 4, chips // 2, chips})


@dataclass(frozen=True)
class TurnResult:
    turn: int
    previous: int
    card: int
    direction: str
    stake: int
    correct: bool
    chips: int  # the Guesser's chips after the turn
    at: float


@dataclass(frozen=True)
class HLState:
    seats: tuple[str, ...]
    auction_close_s: int
    decision_s: int
    opened_at: float
    phase: str = AUCTION
    # auction
    high_bid: int | None = None
    high_bidder: str | None = None
    last_bid_at: float | None = None
    bids: tuple[tuple[str, int, float], ...] = ()
    # roles, fixed when the auction closes
    guesser: str | None = None
    dealer: str | None = None
    declared: int | None = None
    chosen_by: str | None = None  # "bid" or "coin"
    closed_at: float | None = None
    # guessing
    chips: int = START_CHIPS
    remaining: tuple[int, ...] = CARDS  # cards not yet revealed, ascending
    revealed: tuple[int, ...] = ()  # shown card first, then each turn's card
    turn: int = 0  # the turn being played (1..24); 0 before the show
    turn_started_at: float | None = None  # the show, or the previous reveal
    pick: int | None = None  # the Dealer's secret card this turn
    pick_timeout: bool = False
    guess: tuple[str, int] | None = None  # the Guesser's secret (direction, stake)
    guess_timeout: bool = False
    history: tuple[TurnResult, ...] = ()
    timeouts: tuple[tuple[str, str, int], ...] = ()  # (seat, kind, turn) of each timeout
    ended_at: float | None = None

    @property
    def previous(self) -> int | None:
        return self.revealed[-1] if self.revealed else None

    @property
    def finished(self) -> bool:
        return self.phase == OVER

    def role_of(self, seat: str | None) -> str | None:
        if seat is None:
            return None
        if seat == self.guesser:
            return "guesser"
        if seat == self.dealer:
            return "dealer"
        return None


# ---- parsing commands ---------------------------------------------------------


def _whole(raw: Any) -> int | None:
    """A whole number from a command field (an int, a float with no
    fraction, or a string of ASCII digits; at most 12 digits)."""
    return whole(raw, floats=True)


def parse_card(raw: Any) -> int:
    if raw is None:
        raise RuleError("name a card from 1 to 25")
    card = _whole(raw)
    if card is None or not 1 <= card <= 25:
        raise RuleError("name a card from 1 to 25")
    return card


# ---- the fold, one event type at a time ------------------------------------
def _timed_out(d: Mapping[str, Any], decision: str, turn: int) -> tuple:
    """The record of a decision the clock took, if it did (else nothing)."""
    return ((d["seat"], decision, turn),) if d.get("timeout") else ()


def _bid_made(state: HLState, d: Mapping[str, Any]) -> HLState:
    return replace(
        state,
        high_bid=d["amount"],
        high_bidder=d["seat"],
        last_bid_at=d["at"],
        bids=state.bids + ((d["seat"], d["amount"], d["at"]),),
    )


def _auction_closed(state: HLState, d: Mapping[str, Any]) -> HLState:
    return replace(
        state,
        phase=SHOW,
        guesser=d["guesser"],
        dealer=d["dealer"],
        declared=d["declared"],
        chosen_by=d["how"],
        closed_at=d["at"],
    )


def _card_shown(state: HLState, d: Mapping[str, Any]) -> HLState:
    card = d["card"]
    return replace(
        state,
        phase=TURNS_PHASE,
        remaining=tuple(c for c in state.remaining if c != card),
        revealed=(card,),
        turn=1,
        turn_started_at=d["at"],
        timeouts=state.timeouts + _timed_out(d, "show", 0),
    )


def _card_picked(state: HLState, d: Mapping[str, Any]) -> HLState:
    return replace(
        state,
        pick=d["card"],
        pick_timeout=bool(d.get("timeout")),
        timeouts=state.timeouts + _timed_out(d, "pick", d["turn"]),
    )


def _guess_made(state: HLState, d: Mapping[str, Any]) -> HLState:
    return replace(
        state,
        guess=(d["direction"], d["stake"]),
        guess_timeout=bool(d.get("timeout")),
        timeouts=state.timeouts + _timed_out(d, "guess", d["turn"]),
    )


def _turn_revealed(state: HLState, d: Mapping[str, Any]) -> HLState:
    card = d["card"]
    result = TurnResult(
        turn=d["turn"],
        previous=d["previous"],
        card=card,
        direction=d["direction"],
        stake=d["stake"],
        correct=d["correct"],
        chips=d["chips"],
        at=d["at"],
    )
    last = d["turn"] >= TURNS
    return replace(
        state,
        chips=d["chips"],
        remaining=tuple(c for c in state.remaining if c != card),
        revealed=state.revealed + (card,),
        history=state.history + (result,),
        pick=None,
        pick_timeout=False,
        guess=None,
        guess_timeout=False,
        turn=d["turn"] if last else d["turn"] + 1,
        turn_started_at=d["at"],
        phase=OVER if last else TURNS_PHASE,
        ended_at=d["at"] if last else None,
    )


# event type -> how it changes the state (past ``game_started``)
_FOLDS = {
    "bid_made": _bid_made,
    "auction_closed": _auction_closed,
    "card_shown": _card_shown,
    "card_picked": _card_picked,
    "guess_made": _guess_made,
    "turn_revealed": _turn_revealed,
}


class HigherLowerRules(BoutRules):
    slug = "higher-lower"
    name = "Higher or Lower"
    command_fields = {
        "bid": frozenset({"amount"}),
        "show": frozenset({"card"}),
        "pick": frozenset({"card", "turn"}),
        "guess": frozenset({"direction", "stake", "turn"}),
    }
    match_length_option = "first_to"  # a show sets its match length in bouts won
    min_seats = 2
    max_seats = 2
    first_player = FIRST_NONE
    rules_template = "games/higher_lower.html"
    options = {
        "auction_close_s": int_option(15, "seconds without a bid that close the auction", 1, 3600),
        "decision_s": int_option(
            45, "seconds for each show, pick and guess (0 = no clock)", 0, 3600
        ),
    }

    def default_first_to(self, options: Mapping[str, Any], n_seats: int) -> int:
        return 1

    # ---- start ---------------------------------------------------------------
    def start(self, ctx, seats, options, first, items, setup, bout_no):
        # a stacked setup for this game holds only a seed (FORMAT.md), which the
        # caller already used for ctx.rng: nothing to stack
        return [
            Event(
                "game_started",
                {
                    "seats": list(seats),
                    "auction_close_s": int(options.get("auction_close_s", 15)),
                    "decision_s": int(options.get("decision_s", 45)),
                    "bout": bout_no,
                    "at": ctx.now,
                },
            )
        ]

    # ---- evolve --------------------------------------------------------------
    def evolve(self, state: HLState | None, event: Event) -> HLState:
        t, d = event.type, event.data
        if t == "game_started":
            return HLState(
                seats=tuple(d["seats"]),
                auction_close_s=d["auction_close_s"],
                decision_s=d["decision_s"],
                opened_at=d["at"],
            )
        assert state is not None, f"{t} before game_started"
        fold = _FOLDS.get(t)
        return fold(state, d) if fold else state  # not an event of this game: nothing changes

    # ---- clocks --------------------------------------------------------------
    def auction_deadline(self, state: HLState) -> float:
        since = state.opened_at if state.last_bid_at is None else state.last_bid_at
        return since + state.auction_close_s

    def _clock(self, started: float | None, state: HLState) -> float | None:
        if not state.decision_s or started is None:
            return None
        return started + state.decision_s

    def pending(self, state: HLState) -> list[Decision]:
        if state is None or state.phase == OVER:
            return []
        if state.phase == AUCTION:
            # both seats may bid until the close (the high bidder only once
            # outbid); the close itself is this deadline, through timeout()
            deadline = self.auction_deadline(state)
            return [Decision(s, "auction", deadline) for s in state.seats]
        if state.phase == SHOW:
            return [Decision(state.dealer, "show", self._clock(state.closed_at, state))]
        deadline = self._clock(state.turn_started_at, state)
        out = []
        if state.pick is None:
            out.append(Decision(state.dealer, "pick", deadline))
        if state.guess is None:
            out.append(Decision(state.guesser, "guess", deadline))
        return out

    def timeout(self, state: HLState, decision: Decision, ctx: Ctx) -> list[Event]:
        if state.phase == AUCTION:
            return self._close_auction(state, ctx)
        if state.phase == SHOW and decision.kind == "show":
            card = ctx.rng.choice(state.remaining)
            return self._show(state, state.dealer, card, ctx, timeout=True)
        if state.phase == TURNS_PHASE and decision.kind == "pick" and state.pick is None:
            card = ctx.rng.choice(state.remaining)
            return self._pick(state, state.dealer, card, ctx, timeout=True)
        if state.phase == TURNS_PHASE and decision.kind == "guess" and state.guess is None:
            return self._guess(state, state.guesser, "higher", 0, ctx, timeout=True)
        return []

    def _close_auction(self, state: HLState, ctx: Ctx) -> list[Event]:
        if state.high_bidder is None:
            guesser = state.seats[ctx.rng.randrange(len(state.seats))]
            declared = NO_BID_DECLARED
            how = "coin"
        else:
            guesser = state.high_bidder
            declared = state.high_bid
            how = "bid"
        dealer = next(s for s in state.seats if s != guesser)
        return [
            Event(
                "auction_closed",
                {
                    "guesser": guesser,
                    "dealer": dealer,
                    "declared": declared,
                    "how": how,
                    "at": ctx.now,
                },
            )
        ]

    # ---- decide --------------------------------------------------------------
    def decide(self, state: HLState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if not isinstance(command, Mapping):
            raise RuleError("a command needs a type")
        kind = command.get("type")
        seat = ctx.seat
        if seat is None or seat not in state.seats:
            raise RuleError("only a seated player can do that")
        if state.phase == OVER:
            raise RuleError("the game is over")
        if kind == "bid":
            return self._bid(state, seat, command.get("amount"), ctx)
        if kind == "pass":
            raise RuleError(
                "there is no pass in Higher or Lower: to let the auction close, simply do not bid"
            )
        if kind == "show":
            return self._cmd_show(state, seat, command, ctx)
        if kind == "pick":
            return self._cmd_pick(state, seat, command, ctx)
        if kind == "guess":
            return self._cmd_guess(state, seat, command, ctx)
        raise RuleError(
            "unknown command {kind} in Higher or Lower: use bid, show, pick or guess",
            kind=shown(kind),
        )

    def _bid(self, state: HLState, seat: str, raw: Any, ctx: Ctx) -> list[Event]:
        if state.phase != AUCTION:
            raise RuleError("the auction is over")
        amount = _whole(raw)
        if amount is None:
            raise RuleError("bid a whole number of chips, at most {max_bid:,}", max_bid=MAX_BID)
        if amount > MAX_BID:
            raise RuleError(
                "a bid may not exceed {max_bid:,} chips, the most a Guesser can ever hold",
                max_bid=MAX_BID,
            )
        if state.high_bid is None:
            if amount < FIRST_BID_STEP or amount % FIRST_BID_STEP:
                raise RuleError("the first bid must be a multiple of 10, at least 10")
        else:
            if seat == state.high_bidder:
                raise RuleError(
                    "you already hold the standing bid of {high_bid}; you may not raise your own bid",
                    high_bid=state.high_bid,
                )
            step = bid_step(state.high_bid)
            if amount <= state.high_bid or (amount - state.high_bid) % step:
                raise RuleError(
                    "the standing bid is {high_bid}: raise it by a multiple of {step} ({n}, {n2}, ...)",
                    high_bid=state.high_bid,
                    step=step,
                    n=state.high_bid + step,
                    n2=state.high_bid + 2 * step,
                )
        return [Event("bid_made", {"seat": seat, "amount": amount, "at": ctx.now})]

    def _not_yet(self, state: HLState) -> None:
        if state.phase == AUCTION:
            raise RuleError("the auction is still open; the cards come after it closes")

    def _cmd_show(self, state, seat, command, ctx) -> list[Event]:
        self._not_yet(state)
        if seat != state.dealer:
            raise RuleError("only the Dealer ({dealer}) shows a card", dealer=state.dealer)
        if state.phase != SHOW:
            raise RuleError("the first card has already been shown")
        card = parse_card(command.get("card"))
        return self._show(state, seat, card, ctx, timeout=False)

    def _check_turn(self, state: HLState, command: Mapping[str, Any]) -> None:
        if state.phase == SHOW:
            raise RuleError(
                "the Dealer ({dealer}) shows the first card before turn 1", dealer=state.dealer
            )
        if "turn" in command and command["turn"] is not None:
            turn = _whole(command["turn"])
            if turn is None:
                raise RuleError("turn must be a turn number")
            if turn != state.turn:
                raise RuleError(
                    "turn {turn} is not being played: it is turn {turn2}",
                    turn=turn,
                    turn2=state.turn,
                )

    def _cmd_pick(self, state, seat, command, ctx) -> list[Event]:
        self._not_yet(state)
        if seat != state.dealer:
            raise RuleError("only the Dealer ({dealer}) picks cards", dealer=state.dealer)
        self._check_turn(state, command)
        if state.pick is not None:
            raise RuleError("you have already picked your card for turn {turn}", turn=state.turn)
        card = parse_card(command.get("card"))
        return self._pick(state, seat, card, ctx, timeout=False)

    def _cmd_guess(self, state, seat, command, ctx) -> list[Event]:
        self._not_yet(state)
        if seat != state.guesser:
            raise RuleError("only the Guesser ({guesser}) guesses", guesser=state.guesser)
        self._check_turn(state, command)
        if state.guess is not None:
            raise RuleError("you have already guessed for turn {turn}", turn=state.turn)
        direction = command.get("direction")
        if isinstance(direction, str):
            direction = direction.strip().lower()
        if direction not in DIRECTIONS:
            raise RuleError("guess higher or lower")
        if "stake" not in command or command.get("stake") is None:
            raise RuleError("name a stake from 0 to {chips} chips", chips=state.chips)
        stake = _whole(command.get("stake"))
        if stake is None or stake < 0:
            raise RuleError("stake a whole number of chips from 0 to {chips}", chips=state.chips)
        if stake > state.chips:
            raise RuleError("you have {chips} chips: stake from 0 to {chips}", chips=state.chips)
        return self._guess(state, seat, direction, stake, ctx, timeout=False)

    # ---- the moves, shared by commands and timeouts ---------------------------
    def _show(self, state, seat, card, ctx, timeout) -> list[Event]:
        return [
            Event("card_shown", {"seat": seat, "card": card, "at": ctx.now, "timeout": timeout})
        ]

    def _pick(self, state, seat, card, ctx, timeout) -> list[Event]:
        if card not in state.remaining:
            raise RuleError("the {card} has already been played", card=card)
        public = {
            "seat": seat,
            "turn": state.turn,
            "committed": True,
            "at": ctx.now,
            "timeout": timeout,
        }
        data = {**public, "card": card}
        del data["committed"]
        event = Event("card_picked", data, visible_to=(seat,), public=public)
        if state.guess is None:
            return [event]
        direction, stake = state.guess
        return [event, self._reveal(state, card, direction, stake, ctx)]

    def _guess(self, state, seat, direction, stake, ctx, timeout) -> list[Event]:
        public = {
            "seat": seat,
            "turn": state.turn,
            "committed": True,
            "at": ctx.now,
            "timeout": timeout,
        }
        data = {**public, "direction": direction, "stake": stake}
        del data["committed"]
        event = Event("guess_made", data, visible_to=(seat,), public=public)
        if state.pick is None:
            return [event]
        return [event, self._reveal(state, state.pick, direction, stake, ctx)]

    def _reveal(self, state, card, direction, stake, ctx) -> Event:
        previous = state.previous
        correct = card > previous if direction == "higher" else card < previous
        chips = state.chips + stake if correct else state.chips - stake
        return Event(
            "turn_revealed",
            {
                "turn": state.turn,
                "previous": previous,
                "card": card,
                "direction": direction,
                "stake": stake,
                "correct": correct,
                "chips": chips,
                "at": ctx.now,
            },
        )

    # ---- reading -------------------------------------------------------------
    def outcome(self, state: HLState) -> Outcome | None:
        if state is None or state.phase != OVER:
            return None
        won = state.chips >= state.declared
        winner = state.guesser if won else state.dealer
        loser = state.dealer if won else state.guesser
        reason = (
            f"the Guesser {state.guesser} ended with {state.chips} chips, "
            f"{'at least' if won else 'short of'} the declared {state.declared}"
        )
        return Outcome((winner,), {winner: 1, loser: 0}, reason)

    def scenario_scores(self, state: HLState) -> dict[str, int]:
        if state is None:
            return {}
        if state.guesser is None:
            return {s: 0 for s in state.seats}
        return {s: (state.chips if s == state.guesser else 0) for s in state.seats}

    def view(self, state: HLState, viewer: Viewer) -> dict:
        # the pick and the guess are moves already made: every seat's secrets are "everything"'s
        omniscient = viewer.kind in (MODERATOR, EVERY_SEAT)
        me = viewer.seat if viewer.kind == SEAT else None
        role = state.role_of(me)
        out: dict[str, Any] = {
            "game": self.slug,
            "phase": state.phase,
            "seats": list(state.seats),
            "you": me,
            "your_role": role,
            "options": {
                "auction_close_s": state.auction_close_s,
                "decision_s": state.decision_s,
            },
            "auction": {
                "open": state.phase == AUCTION,
                "opened_at": state.opened_at,
                "standing_bid": state.high_bid,
                "high_bidder": state.high_bidder,
                "min_bid": min_raise(state.high_bid) if state.phase == AUCTION else None,
                "closes_at": self.auction_deadline(state) if state.phase == AUCTION else None,
                "bids": [{"seat": s, "amount": a, "at": at} for (s, a, at) in state.bids],
                "closed_at": state.closed_at,
                "how": state.chosen_by,
            },
            "guesser": state.guesser,
            "dealer": state.dealer,
            "declared": state.declared,
            "chips": state.chips if state.guesser is not None else None,
            "turn": state.turn,
            "turns": TURNS,
            "previous": state.previous,
            "revealed": list(state.revealed),
            "remaining": list(state.remaining),
            "committed": {
                "dealer": state.pick is not None,
                "guesser": state.guess is not None,
            },
            "history": [
                {
                    "turn": r.turn,
                    "previous": r.previous,
                    "card": r.card,
                    "direction": r.direction,
                    "stake": r.stake,
                    "correct": r.correct,
                    "chips": r.chips,
                }
                for r in state.history
            ],
            "timeouts": [{"seat": s, "kind": k, "turn": n} for (s, k, n) in state.timeouts],
            "finished": state.phase == OVER,
            "winner": None,
        }
        out["deadline"] = None
        if state.phase == SHOW:
            out["deadline"] = self._clock(state.closed_at, state)
        elif state.phase == TURNS_PHASE:
            out["deadline"] = self._clock(state.turn_started_at, state)
        # the secrets of the turn in progress: each to its owner (and moderators)
        if state.pick is not None and (omniscient or me == state.dealer):
            out["pick"] = state.pick
        else:
            out["pick"] = None
        if state.guess is not None and (omniscient or me == state.guesser):
            out["guess"] = {"direction": state.guess[0], "stake": state.guess[1]}
        else:
            out["guess"] = None
        result = self.outcome(state)
        if result is not None:
            out["winner"] = result.winners[0]
            out["result"] = result.reason
        return out

    def legal_commands(self, state: HLState, seat: str) -> list[dict]:
        """What ``seat`` may do now, for bots. Bids and stakes are samples of a
        huge space: in the auction the smallest raise and two larger ones, to
        the seat not holding the standing bid and only while that bid is under
        BOT_BID_CEILING; otherwise nothing (the bot waits, and the auction
        closes by its clock). Stakes: 0, 1, a quarter, half, all the chips."""
        if state is None or state.phase == OVER or seat not in state.seats:
            return []
        if state.phase == AUCTION:
            standing = state.high_bid
            if seat == state.high_bidder or (standing or 0) >= BOT_BID_CEILING:
                return []
            lo = min_raise(standing)
            step = FIRST_BID_STEP if standing is None else bid_step(standing)
            return [{"type": "bid", "amount": a} for a in (lo, lo + step, lo + 4 * step)]
        if state.phase == SHOW:
            if seat != state.dealer:
                return []
            return [{"type": "show", "card": c} for c in state.remaining]
        if seat == state.dealer:
            if state.pick is not None:
                return []
            return [{"type": "pick", "card": c} for c in state.remaining]
        if seat == state.guesser:
            if state.guess is not None:
                return []
            stakes = sampled_stakes(state.chips)
            return [
                {"type": "guess", "direction": d, "stake": s} for d in DIRECTIONS for s in stakes
            ]
        return []


RULES = HigherLowerRules()

from games.higher_lower.bots import BOTS  # noqa: E402  (bots only read views)

RULES.bots = BOTS
