"""Doubting Love Letter (Jiffa's Disapproval): RULES.md section 1.

One bout is one deal between two seats. The series layer (games.core.series)
wraps it into a first-to-N match.

Events of a bout, in the order they can happen (``at`` = game clock time):

- ``bout_started``  the shuffled order (3 removed cards, then the deck top
  first), salt and commitment; the order, salt and held items are seen by
  moderators only, everyone else sees removed cards and the commitment.
- ``item_window``   a Deck Rigging (before the deal) or Plus One (before the
  showdown) holder is asked; ``item_declined`` / ``item_used`` answer it.
- ``card_dealt``    one card to one seat (only that seat sees it).
- ``turn_started``  a seat's turn, with the card it draws (only it sees it).
- ``card_played``   {card, claim, target}; others see only the claim.
- ``challenged`` / ``passed``  the opponent's answer; a challenge reveals the
  played card to everyone.
- effects: ``guess_asked``, ``guessed``, ``card_seen`` (Priest, private),
  ``cards_compared`` (Baron, public), ``immunity_gained`` (Handmaid),
  ``cards_swapped`` (King, the two seats), ``no_effect``.
- ``life_lost``, ``insurance_spent``, ``card_discarded`` (forced, public),
  ``card_drawn`` (replacement, private).
- ``mulligan`` then ``deal_revealed`` (the voided deal), ``item_used`` (dmo)
  and ``bout_redealt`` (a fresh shuffle, same visibility as bout_started).
- ``showdown`` (both hands, bonuses, discard sums), ``timed_out``,
  ``bout_ended`` and ``deal_revealed`` (order and salt, public).

Every event that records a seat's decision carries ``reserve_spent``.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.deal import commitment_of, new_salt, reveal_event
from games.core.fields import shown
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
    win_outcome,
)
from games.core.rules import FIRST_ALTERNATES, BoutRules, int_option
from games.love_letter_family.cards import (
    DOUBTING_DECK,
    countess_forced,
    parse_rank,
)

# ---- phases (a pending decision's kind is its phase) ---------------------
RIGGING = "deck_rigging"
PLAY = "play"
CHALLENGE = "challenge"
GUESS = "guess"
PLUS_ONE = "plus_one"
DEALING = "dealing"  # transient: between the shuffle and the first turn
RESOLVING = "resolving"  # transient: after the challenge step
OVER = "over"

WHAT = {
    RIGGING: "use Deck Rigging or pass",
    PLAY: "play a card",
    CHALLENGE: "challenge or pass",
    GUESS: "name a card for the Guard",
    PLUS_ONE: "use Plus One or pass",
}

ITEMS = {
    "plus_one": "At the showdown: +1 to your card, and a tie goes to you before the discard sums.",
    "deck_rigging": "Before the deal: take any card still in the deck as your first card, "
    "and name one value your opponent may not start with.",
    "insurance": "Declared before the bout's first play: your first caught bluff of the bout "
    "costs one life instead of the bout.",
    "advantage": "Choose who plays first in bout 1, and win every bout tied on discard sums.",
    "dmo": "Death Match opponent: choose who plays first in bout 1; once per match, on your own "
    "first turn when you go first, mulligan (the bout is re-dealt from a fresh shuffle).",
}

TARGETS = ("self", "opponent")
REMOVED_COUNT = 3


# ---- state -----------------------------------------------------------------
@dataclass(frozen=True)
class Discard:
    """A card on a seat's discard pile: a play (counts at its claim) or a
    forced discard (counts at its real value)."""

    seat: str
    kind: str  # "played" | "forced"
    card: int
    claim: int | None = None
    target: str | None = None
    challenged: bool = False
    turn: int = 0

    @property
    def value(self) -> int:
        return self.claim if self.kind == "played" else self.card

    @property
    def bluff(self) -> bool:
        return self.kind == "played" and self.claim != self.card


@dataclass(frozen=True)
class BoutState:
    seats: tuple[str, ...]
    first: str
    bout_no: int
    options: Mapping[str, Any]
    items: Mapping[str, tuple[str, ...]]  # held now (consumed ones removed)
    order: tuple[int, ...]  # the current deal's shuffle: removed cards, then the deck
    salt: str
    commitment: str
    removed: tuple[int, ...]
    deck: tuple[int, ...]  # top first
    hands: Mapping[str, tuple[int, ...]]
    lives: Mapping[str, int]
    bluffs: Mapping[str, int]  # bluffs made this bout
    reserve: Mapping[str, float]
    discards: tuple[Discard, ...] = ()
    phase: str = DEALING
    asked: str | None = None
    asked_at: float = 0.0
    turn: str | None = None
    turn_no: int = 0
    plays: int = 0
    play: Discard | None = None  # the play being resolved
    immune: frozenset = frozenset()
    insurance: frozenset = frozenset()  # seats whose Insurance is active
    plus_one: frozenset = frozenset()  # seats that used Plus One at this showdown
    rig_done: frozenset = frozenset()  # seats asked about Deck Rigging this deal
    rigs: tuple = ()  # (seat, take, deny) of each rig this deal, first player first
    plus_done: frozenset = frozenset()  # seats asked about Plus One
    opp_known: Mapping[str, int | None] = field(default_factory=dict)
    seen: Mapping[str, tuple] = field(default_factory=dict)  # private notes per seat
    deals: int = 1
    showdown: Mapping[str, Any] | None = None
    winners: tuple[str, ...] = ()
    reason: str = ""
    revealed: tuple = ()  # deals whose order and salt are public

    def other(self, seat: str) -> str:
        a, b = self.seats
        return b if seat == a else a

    @property
    def over(self) -> bool:
        return self.phase == OVER


def _remove_one(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


def _fresh_deal(state: BoutState, d: Mapping[str, Any]) -> BoutState:
    """Fields that a (re-)deal resets."""
    order = tuple(d["order"])
    seats = state.seats
    return replace(
        state,
        order=order,
        salt=d["salt"],
        commitment=d["commitment"],
        removed=order[:REMOVED_COUNT],
        deck=order[REMOVED_COUNT:],
        hands={s: () for s in seats},
        lives={s: 2 for s in seats},
        bluffs={s: 0 for s in seats},
        reserve={s: state.options["reserve_s"] for s in seats},
        discards=(),
        phase=DEALING,
        asked=None,
        asked_at=d.get("at", 0.0),
        turn=None,
        turn_no=0,
        plays=0,
        play=None,
        immune=frozenset(),
        plus_one=frozenset(),
        rig_done=frozenset(),
        rigs=(),
        plus_done=frozenset(),
        opp_known={s: None for s in seats},
        seen={s: () for s in seats},
        showdown=None,
    )


class _Builder:
    """Collects events, folding each so later rulings see the new state."""

    def __init__(self, rules: DoubtingLoveLetter, state: BoutState, now: float):
        self.rules = rules
        self.state = state
        self.now = now
        self.events: list[Event] = []

    def add(self, event: Event) -> None:
        self.events.append(event)
        self.state = self.rules.evolve(self.state, event)


# ---- the rules ---------------------------------------------------------------
class DoubtingLoveLetter(BoutRules):
    slug = "doubting-love-letter"
    name = "Doubting Love Letter"
    match_length_option = "first_to"  # a show sets its match length in bouts won
    min_seats = 2
    max_seats = 2
    first_player = FIRST_ALTERNATES
    chooser_items = frozenset({"advantage", "dmo"})
    early_items = frozenset({"insurance"})
    command_fields = {
        "play": frozenset({"card", "claim", "target"}),
        "guess": frozenset({"card"}),
        "challenge": frozenset(),
        "pass": frozenset(),
        "mulligan": frozenset(),
        "use_item": frozenset({"item", "take", "deny"}),
    }
    items = ITEMS
    rules_template = "games/doubting_love_letter.html"
    options = {
        "bluffs_per_bout": int_option(3, "bluffs each player may make per bout", 0, 12),
        "decision_s": int_option(60, "seconds per decision (0 = no clock)", 0, 3600),
        "reserve_s": int_option(60, "reserve seconds per player per bout", 0, 3600),
        "reserve_step_s": int_option(10, "reserve is spent in steps of this many seconds", 1, 600),
    }

    def default_first_to(self, options, n_seats):
        return 5

    # ---- starting ----------------------------------------------------------
    def start(self, ctx, seats, options, first, items, setup, bout_no):
        seats = tuple(seats)
        if first is None:
            first = seats[0]
        order = self._stacked(setup, ctx.rng) if setup else self._shuffled(ctx.rng)
        salt = new_salt(ctx.rng)
        commitment = commitment_of(order, salt)
        public = {
            "seats": list(seats),
            "first": first,
            "bout_no": bout_no,
            "options": dict(options),
            "removed": list(order[:REMOVED_COUNT]),
            "commitment": commitment,
            "at": ctx.now,
        }
        data = {
            **public,
            "order": list(order),
            "salt": salt,
            "items": {s: list(items.get(s, ())) for s in seats},
        }
        b = _Builder(self, None, ctx.now)  # type: ignore[arg-type]
        b.add(Event("bout_started", data, visible_to=(), public=public))
        self._deal_or_window(b)
        return b.events

    @staticmethod
    def _shuffled(rng) -> tuple[int, ...]:
        order = list(DOUBTING_DECK)
        rng.shuffle(order)
        return tuple(order)

    @staticmethod
    def _stacked(setup: Mapping[str, Any], rng) -> tuple[int, ...]:
        pool = Counter(DOUBTING_DECK)

        def named(key: str) -> list[int]:
            raw = setup.get(key, [])
            if not isinstance(raw, list):
                raise RuleError("setup {key} must be a list of cards", key=key)
            out = []
            for item in raw:
                rank = parse_rank(item)
                if rank is None:
                    raise RuleError(
                        "setup {key}: {item!r} is not a card from 1 to 8", key=key, item=item
                    )
                if pool[rank] == 0:
                    raise RuleError(
                        "setup {key}: the deck has no more copies of {rank}", key=key, rank=rank
                    )
                pool[rank] -= 1
                out.append(rank)
            return out

        removed = named("removed")
        if len(removed) > REMOVED_COUNT:
            raise RuleError(
                "setup removed: exactly {removed_count} cards are removed",
                removed_count=REMOVED_COUNT,
            )
        top = named("deck")
        rest = sorted(pool.elements())
        rng.shuffle(rest)
        need = REMOVED_COUNT - len(removed)
        return tuple(removed + rest[:need] + top + rest[need:])

    def _deal_or_window(self, b: _Builder) -> None:
        """Ask every Deck Rigging holder in turn, first player first (a rig by
        the first does not spare the second the question), then deal."""
        s = b.state
        for seat in (s.first, s.other(s.first)):
            if RIGGING in s.items.get(seat, ()) and seat not in s.rig_done:
                b.add(Event("item_window", {"item": RIGGING, "seat": seat, "at": b.now}))
                return
        self._deal(b)

    @staticmethod
    def _left_after_rigs(s: BoutState) -> list[int]:
        """The deck once the rigs so far have taken their cards (topmost copies)."""
        deck = list(s.deck)
        for _, take, _ in s.rigs:
            deck.remove(take)
        return deck

    def _deal(self, b: _Builder) -> None:
        s = b.state
        deck = self._left_after_rigs(s)
        cards: dict[str, int] = {seat: take for seat, take, _ in s.rigs}
        if len(s.rigs) == 1:  # the one rig's deny applies to the other seat
            holder, _, deny = s.rigs[0]
            cards[s.other(holder)] = next(c for c in deck if c != deny)
        elif not s.rigs:
            for seat in s.seats:
                cards[seat] = deck.pop(0)
        for seat in s.seats:
            b.add(
                Event(
                    "card_dealt",
                    {"seat": seat, "card": cards[seat]},
                    visible_to=(seat,),
                    public={"seat": seat},
                )
            )
        self._start_turn(b, b.state.first)

    def _start_turn(self, b: _Builder, seat: str) -> None:
        s = b.state
        data = {"seat": seat, "turn": s.turn_no + 1, "card": s.deck[0], "at": b.now}
        public = {k: v for k, v in data.items() if k != "card"}
        b.add(Event("turn_started", data, visible_to=(seat,), public=public))

    # ---- evolve --------------------------------------------------------------
    def evolve(self, state: BoutState | None, event: Event) -> BoutState:
        t, d = event.type, event.data
        if t == "bout_started":
            seats = tuple(d["seats"])
            base = BoutState(
                seats=seats,
                first=d["first"],
                bout_no=d["bout_no"],
                options=dict(d["options"]),
                items={s: tuple(v) for s, v in d["items"].items()},
                order=(),
                salt="",
                commitment="",
                removed=(),
                deck=(),
                hands={},
                lives={},
                bluffs={},
                reserve={},
            )
            return _fresh_deal(base, d)
        if state is None:
            raise ValueError(f"{t} before bout_started")
        handler = getattr(self, f"_on_{t}", None)
        if handler is None:
            return state  # informational (no_effect, mulligan bookkeeping...)
        return handler(state, d)

    @staticmethod
    def _after_spending(s: BoutState, seat: str, d: Mapping[str, Any]) -> Mapping[str, float]:
        spent = d.get("reserve_spent", 0) or 0
        if not spent:
            return s.reserve
        return {**s.reserve, seat: s.reserve[seat] - spent}

    def _on_bout_redealt(self, s, d):
        return replace(_fresh_deal(s, d), deals=s.deals + 1)

    def _on_item_window(self, s, d):
        return replace(s, phase=d["item"], asked=d["seat"], asked_at=d["at"])

    def _on_item_declined(self, s, d):
        seat = d["seat"]
        s = replace(s, reserve=self._after_spending(s, seat, d), asked=None)
        if d["item"] == RIGGING:
            return replace(s, rig_done=s.rig_done | {seat}, phase=DEALING)
        return replace(s, plus_done=s.plus_done | {seat}, phase=RESOLVING)

    def _on_item_used(self, s, d):
        seat, item = d["seat"], d["item"]
        held = list(s.items.get(seat, ()))
        if item in held:
            held.remove(item)
        s = replace(
            s, items={**s.items, seat: tuple(held)}, reserve=self._after_spending(s, seat, d)
        )
        if item == "insurance":
            return replace(s, insurance=s.insurance | {seat})
        if item == RIGGING:
            return replace(
                s,
                rigs=s.rigs + ((seat, d["take"], d.get("deny")),),
                rig_done=s.rig_done | {seat},
                phase=DEALING,
                asked=None,
            )
        if item == PLUS_ONE:
            return replace(
                s,
                plus_one=s.plus_one | {seat},
                plus_done=s.plus_done | {seat},
                phase=RESOLVING,
                asked=None,
            )
        return s

    def _on_card_dealt(self, s, d):
        seat, card = d["seat"], d["card"]
        return replace(
            s,
            deck=_remove_one(s.deck, card),
            hands={**s.hands, seat: s.hands[seat] + (card,)},
        )

    def _on_turn_started(self, s, d):
        seat, card = d["seat"], d["card"]
        assert s.deck and s.deck[0] == card, "the drawn card is not the top of the deck"
        return replace(
            s,
            deck=s.deck[1:],
            hands={**s.hands, seat: s.hands[seat] + (card,)},
            turn=seat,
            turn_no=d["turn"],
            phase=PLAY,
            asked=seat,
            asked_at=d["at"],
            immune=s.immune - {seat},
            play=None,
            opp_known={**s.opp_known, s.other(seat): None},
        )

    def _on_card_played(self, s, d):
        seat, card, claim = d["seat"], d["card"], d["claim"]
        entry = Discard(seat, "played", card, claim, d.get("target"), False, s.turn_no)
        bluffs = s.bluffs
        if claim != card:
            bluffs = {**bluffs, seat: bluffs[seat] + 1}
        return replace(
            s,
            hands={**s.hands, seat: _remove_one(s.hands[seat], card)},
            discards=s.discards + (entry,),
            bluffs=bluffs,
            reserve=self._after_spending(s, seat, d),
            plays=s.plays + 1,
            play=entry,
            phase=CHALLENGE,
            asked=s.other(seat),
            asked_at=d["at"],
        )

    def _on_challenged(self, s, d):
        last = replace(s.discards[-1], challenged=True)
        return replace(
            s,
            discards=s.discards[:-1] + (last,),
            play=last,
            reserve=self._after_spending(s, d["seat"], d),
            phase=RESOLVING,
            asked=None,
        )

    def _on_passed(self, s, d):
        return replace(
            s, reserve=self._after_spending(s, d["seat"], d), phase=RESOLVING, asked=None
        )

    def _on_life_lost(self, s, d):
        seat = d["seat"]
        return replace(s, lives={**s.lives, seat: max(0, s.lives[seat] - d["lost"])})

    def _on_insurance_spent(self, s, d):
        return replace(s, insurance=s.insurance - {d["seat"]})

    def _on_guess_asked(self, s, d):
        return replace(s, phase=GUESS, asked=d["seat"], asked_at=d["at"])

    def _on_guessed(self, s, d):
        return replace(
            s, reserve=self._after_spending(s, d["seat"], d), phase=RESOLVING, asked=None
        )

    def _note(self, s, seat, note):
        return {**s.seen, seat: s.seen[seat] + (note,)}

    def _on_card_seen(self, s, d):
        seat = d["seat"]
        note = {"turn": s.turn_no, "how": "priest", "of": d["of"], "card": d["card"]}
        return replace(
            s, seen=self._note(s, seat, note), opp_known={**s.opp_known, seat: d["card"]}
        )

    def _on_cards_compared(self, s, d):
        cards = d["cards"]
        a, b = d["seat"], d["of"]
        s = replace(
            s, seen=self._note(s, a, {"turn": s.turn_no, "how": "baron", "of": b, "card": cards[b]})
        )
        s = replace(
            s, seen=self._note(s, b, {"turn": s.turn_no, "how": "baron", "of": a, "card": cards[a]})
        )
        return replace(s, opp_known={**s.opp_known, a: cards[b], b: cards[a]})

    def _on_cards_swapped(self, s, d):
        cards = d["cards"]  # what each seat holds now
        a, b = d["seat"], d["of"]
        seen = self._note(s, a, {"turn": s.turn_no, "how": "king", "of": b, "card": cards[a]})
        s = replace(s, seen=seen)
        seen = self._note(s, b, {"turn": s.turn_no, "how": "king", "of": a, "card": cards[b]})
        return replace(
            s,
            hands={a: (cards[a],), b: (cards[b],)},
            seen=seen,
            opp_known={**s.opp_known, a: cards[b], b: cards[a]},
        )

    def _on_immunity_gained(self, s, d):
        return replace(s, immune=s.immune | {d["seat"]})

    def _on_card_discarded(self, s, d):
        seat, card = d["seat"], d["card"]
        entry = Discard(seat, "forced", card, None, None, False, s.turn_no)
        return replace(
            s,
            hands={**s.hands, seat: _remove_one(s.hands[seat], card)},
            discards=s.discards + (entry,),
            opp_known={**s.opp_known, s.other(seat): None},
        )

    def _on_card_drawn(self, s, d):
        seat, card = d["seat"], d["card"]
        assert s.deck and s.deck[0] == card, "the drawn card is not the top of the deck"
        return replace(
            s,
            deck=s.deck[1:],
            hands={**s.hands, seat: s.hands[seat] + (card,)},
            opp_known={**s.opp_known, s.other(seat): None},
        )

    def _on_showdown(self, s, d):
        return replace(s, showdown=dict(d))

    def _on_timed_out(self, s, d):
        return replace(s, reserve=self._after_spending(s, d["seat"], d), asked=None)

    def _on_mulligan(self, s, d):
        return replace(s, reserve=self._after_spending(s, d["seat"], d), asked=None)

    def _on_bout_ended(self, s, d):
        return replace(s, phase=OVER, asked=None, winners=tuple(d["winners"]), reason=d["reason"])

    def _on_deal_revealed(self, s, d):
        return replace(s, revealed=s.revealed + (dict(d),))

    # ---- clocks ------------------------------------------------------------
    def deadline(self, s: BoutState) -> float | None:
        if s.asked is None or not s.options["decision_s"]:
            return None
        return s.asked_at + s.options["decision_s"] + s.reserve[s.asked]

    def spent(self, s: BoutState, seat: str, now: float):
        """Reserve a decision taken now spends (10 x ceil((t - 60) / 10))."""
        limit = s.options["decision_s"]
        if not limit:
            return 0
        t = now - s.asked_at
        if t <= limit:
            return 0
        step = s.options["reserve_step_s"]
        steps = math.ceil((t - limit) / step - 1e-9)
        return min(s.reserve[seat], steps * step)

    def pending(self, state: BoutState) -> list[Decision]:
        if state is None or state.over or state.asked is None:
            return []
        return [Decision(state.asked, state.phase, self.deadline(state))]

    def timeout(self, state: BoutState, decision: Decision, ctx: Ctx) -> list[Event]:
        if state.over or state.asked is None:
            return []
        seat = state.asked
        b = _Builder(self, state, ctx.now)
        b.add(
            Event(
                "timed_out",
                {
                    "seat": seat,
                    "decision": state.phase,
                    "reserve_spent": state.reserve[seat],
                    "at": ctx.now,
                },
            )
        )
        self._finish(b, [state.other(seat)], f"{seat} ran out of time")
        return b.events

    # ---- deciding ----------------------------------------------------------
    def decide(self, state: BoutState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if not isinstance(command, Mapping) or not isinstance(command.get("type"), str):
            raise RuleError("a command needs a type")
        seat = ctx.seat
        if seat is None or seat not in state.seats:
            raise RuleError("{seat} is not seated in this bout", seat=seat)
        if state.over:
            raise RuleError("the bout is over")
        dl = self.deadline(state)
        if dl is not None and ctx.now >= dl:
            raise RuleError("too late: the time for this decision has run out")
        kind = command["type"]
        b = _Builder(self, state, ctx.now)
        if kind == "play":
            self._play(b, seat, command)
        elif kind == "challenge":
            self._challenge(b, seat)
        elif kind == "pass":
            self._pass(b, seat)
        elif kind == "guess":
            self._guess(b, seat, command)
        elif kind == "use_item":
            self._use_item(b, seat, command, ctx)
        elif kind == "mulligan":
            self._mulligan(b, seat, ctx)
        elif kind == "choose_first":
            raise RuleError("the first player has already been chosen")
        else:
            raise RuleError(
                "unknown command {kind}: use play, challenge, pass, guess, use_item or mulligan",
                kind=shown(kind),
            )
        return b.events

    @staticmethod
    def _need(s: BoutState, seat: str, *phases: str) -> None:
        if s.asked is None or s.phase not in WHAT:
            raise RuleError("there is nothing to decide right now")
        if s.asked != seat:
            raise RuleError("it is {asked}'s turn to {what}", asked=s.asked, what=WHAT[s.phase])
        if s.phase not in phases:
            raise RuleError("you must {what} now", what=WHAT[s.phase])

    def _play(self, b: _Builder, seat: str, command: Mapping[str, Any]) -> None:
        s = b.state
        self._need(s, seat, PLAY)
        card = parse_rank(command.get("card"))
        claim = parse_rank(command.get("claim"))
        if card is None:
            raise RuleError("say which card you play (card: 1 to 7)")
        if claim is None:
            raise RuleError("say which card you claim (claim: 1 to 7)")
        if card == 8:
            raise RuleError("you may not play the Princess (8)")
        if claim == 8:
            raise RuleError("you may not claim the Princess (8)")
        hand = s.hands[seat]
        if card not in hand:
            raise RuleError("you do not hold a {card}", card=card)
        if countess_forced(hand) and card != 7:
            raise RuleError(
                "you hold the Countess (7) with a Prince (5) or King (6): "
                "the Countess is the card you must play (your claim may differ)"
            )
        limit = s.options["bluffs_per_bout"]
        if claim != card and s.bluffs[seat] >= limit:
            raise RuleError("you have no bluffs left this bout (at most {limit})", limit=limit)
        target = None
        other = s.other(seat)
        if claim == 5:
            target = command.get("target")
            if target not in TARGETS:
                raise RuleError("a Prince (5) needs a target: self or opponent")
            if target == "opponent" and other in s.immune:
                raise RuleError(
                    "{other} is protected by a Handmaid (4): your Prince must target yourself",
                    other=other,
                )
        spent = self.spent(s, seat, b.now)
        data = {
            "seat": seat,
            "card": card,
            "claim": claim,
            "target": target,
            "bluff": claim != card,
            "reserve_spent": spent,
            "at": b.now,
        }
        public = {k: v for k, v in data.items() if k not in ("card", "bluff")}
        b.add(Event("card_played", data, visible_to=(seat,), public=public))

    def _challenge(self, b: _Builder, seat: str) -> None:
        s = b.state
        self._need(s, seat, CHALLENGE)
        play = s.play
        player = play.seat
        bluff = play.bluff
        b.add(
            Event(
                "challenged",
                {
                    "seat": seat,
                    "of": player,
                    "card": play.card,
                    "claim": play.claim,
                    "bluff": bluff,
                    "reserve_spent": self.spent(s, seat, b.now),
                    "at": b.now,
                },
            )
        )
        if bluff:
            if player in b.state.insurance:
                b.add(Event("insurance_spent", {"seat": player}))
                if self._lose(b, player, 1, "caught bluffing (insured)"):
                    return
                self._end_turn(b)
                return
            self._lose(b, player, b.state.lives[player], "caught bluffing")
            return
        if self._lose(b, seat, 1, "challenged a true claim"):
            return
        self._resolve(b)

    def _pass(self, b: _Builder, seat: str) -> None:
        s = b.state
        self._need(s, seat, CHALLENGE, RIGGING, PLUS_ONE)
        spent = self.spent(s, seat, b.now)
        if s.phase == CHALLENGE:
            b.add(Event("passed", {"seat": seat, "reserve_spent": spent, "at": b.now}))
            self._resolve(b)
            return
        b.add(
            Event(
                "item_declined",
                {"seat": seat, "item": s.phase, "reserve_spent": spent, "at": b.now},
            )
        )
        if s.phase == RIGGING:
            self._deal_or_window(b)
        else:
            self._showdown_or_window(b)

    def _guess(self, b: _Builder, seat: str, command: Mapping[str, Any]) -> None:
        s = b.state
        self._need(s, seat, GUESS)
        card = parse_rank(command.get("card"))
        if card is None:
            raise RuleError("name a card from 2 to 8 (card)")
        if card == 1:
            raise RuleError("a Guard may not name a 1 (Guard): name a card from 2 to 8")
        other = s.other(seat)
        hit = s.hands[other][0] == card
        b.add(
            Event(
                "guessed",
                {
                    "seat": seat,
                    "of": other,
                    "card": card,
                    "hit": hit,
                    "reserve_spent": self.spent(s, seat, b.now),
                    "at": b.now,
                },
            )
        )
        if hit:
            if self._lose(b, other, 1, "named by a Guard"):
                return
            if self._forced_discard(b, other, "guard"):
                return
        self._end_turn(b)

    def _use_item(self, b: _Builder, seat: str, command: Mapping[str, Any], ctx: Ctx) -> None:
        s = b.state
        item = command.get("item")
        held = s.items.get(seat, ())
        if item == "insurance":
            if seat in s.insurance:
                raise RuleError("your Insurance is already active this bout")
            if item not in held:
                raise RuleError("you do not hold Insurance")
            if s.plays > 0:
                raise RuleError("Insurance can only be declared before the bout's first play")
            b.add(Event("item_used", {"seat": seat, "item": item, "at": b.now}))
            return
        if item == RIGGING:
            if item not in held:
                raise RuleError("you do not hold Deck Rigging")
            self._need(s, seat, RIGGING)
            take = parse_rank(command.get("take"))
            if take is None:
                raise RuleError("Deck Rigging needs take: the card (1 to 8) you want to start with")
            if take not in self._left_after_rigs(s):
                raise RuleError("there is no {take} left in the deck to take", take=take)
            deny = command.get("deny")
            if deny is not None:
                deny = parse_rank(deny)
                if deny is None:
                    raise RuleError("deny must be a card value from 1 to 8, or left out")
            data = {
                "seat": seat,
                "item": item,
                "take": take,
                "deny": deny,
                "reserve_spent": self.spent(s, seat, b.now),
                "at": b.now,
            }
            public = {k: v for k, v in data.items() if k not in ("take", "deny")}
            b.add(Event("item_used", data, visible_to=(seat,), public=public))
            self._deal_or_window(b)
            return
        if item == PLUS_ONE:
            if item not in held:
                raise RuleError("you do not hold Plus One")
            self._need(s, seat, PLUS_ONE)
            b.add(
                Event(
                    "item_used",
                    {
                        "seat": seat,
                        "item": item,
                        "reserve_spent": self.spent(s, seat, b.now),
                        "at": b.now,
                    },
                )
            )
            self._showdown_or_window(b)
            return
        if item == "advantage":
            raise RuleError(
                "Advantage works by itself: it chose who plays first and wins ties on discard sums"
            )
        if item == "dmo":
            raise RuleError("the DMO advantage is used with the mulligan command")
        raise RuleError("use_item needs item: plus_one, deck_rigging or insurance")

    def _mulligan(self, b: _Builder, seat: str, ctx: Ctx) -> None:
        s = b.state
        self._need(s, seat, PLAY)
        if "dmo" not in s.items.get(seat, ()):
            raise RuleError("only the DMO may mulligan, once per match")
        if seat != s.first or s.turn_no != 1:
            raise RuleError("a mulligan is only allowed on your first turn, when you go first")
        b.add(
            Event(
                "mulligan",
                {"seat": seat, "reserve_spent": self.spent(s, seat, b.now), "at": b.now},
            )
        )
        b.add(self._reveal_event(b.state))
        b.add(Event("item_used", {"seat": seat, "item": "dmo", "at": b.now}))
        order = self._shuffled(ctx.rng)
        salt = new_salt(ctx.rng)
        commitment = commitment_of(order, salt)
        public = {"removed": list(order[:REMOVED_COUNT]), "commitment": commitment, "at": b.now}
        b.add(
            Event(
                "bout_redealt",
                {**public, "order": list(order), "salt": salt},
                visible_to=(),
                public=public,
            )
        )
        self._deal_or_window(b)

    # ---- resolution helpers ---------------------------------------------------
    def _lose(self, b: _Builder, seat: str, lost: int, reason: str) -> bool:
        """A life (or more) lost; True when that ended the bout."""
        left = b.state.lives[seat] - lost
        b.add(Event("life_lost", {"seat": seat, "lost": lost, "lives": left, "reason": reason}))
        if left <= 0:
            self._finish(b, [b.state.other(seat)], f"{seat} lost both lives ({reason})")
            return True
        return False

    def _forced_discard(self, b: _Builder, seat: str, cause: str) -> bool:
        """The seat discards its card (public) and draws a replacement; with an
        empty deck nothing happens. True when the bout ended."""
        s = b.state
        if not s.deck:
            return False
        card = s.hands[seat][0]
        b.add(Event("card_discarded", {"seat": seat, "card": card, "cause": cause}))
        if card == 8 and self._lose(b, seat, 1, "discarded the Princess"):
            return True
        top = b.state.deck[0]
        b.add(
            Event(
                "card_drawn",
                {"seat": seat, "card": top},
                visible_to=(seat,),
                public={"seat": seat},
            )
        )
        return False

    def _resolve(self, b: _Builder) -> None:
        """The claimed card's effect, after the challenge step."""
        s = b.state
        play = s.play
        me, other, claim = play.seat, s.other(play.seat), play.claim
        if claim in (1, 2, 3, 6) and other in s.immune:
            b.add(
                Event(
                    "no_effect",
                    {"seat": me, "claim": claim, "reason": f"{other} is protected by a Handmaid"},
                )
            )
            self._end_turn(b)
            return
        if claim == 1:
            b.add(Event("guess_asked", {"seat": me, "at": b.now}))
            return
        if claim == 2:
            card = s.hands[other][0]
            b.add(
                Event(
                    "card_seen",
                    {"seat": me, "of": other, "card": card},
                    visible_to=(me,),
                    public={"seat": me, "of": other},
                )
            )
        elif claim == 3:
            mine, theirs = s.hands[me][0], s.hands[other][0]
            loser = None if mine == theirs else (me if mine < theirs else other)
            b.add(
                Event(
                    "cards_compared",
                    {"seat": me, "of": other, "cards": {me: mine, other: theirs}, "loser": loser},
                )
            )
            if loser is not None:
                if self._lose(b, loser, 1, "lost a Baron comparison"):
                    return
                if self._forced_discard(b, loser, "baron"):
                    return
        elif claim == 4:
            b.add(Event("immunity_gained", {"seat": me}))
        elif claim == 5:
            if not s.deck:
                b.add(Event("no_effect", {"seat": me, "claim": 5, "reason": "the deck is empty"}))
            else:
                target = me if play.target == "self" else other
                if self._forced_discard(b, target, "prince"):
                    return
        elif claim == 6:
            mine, theirs = s.hands[me][0], s.hands[other][0]
            b.add(
                Event(
                    "cards_swapped",
                    {"seat": me, "of": other, "cards": {me: theirs, other: mine}},
                    visible_to=(me, other),
                    public={"seat": me, "of": other},
                )
            )
        self._end_turn(b)

    def _end_turn(self, b: _Builder) -> None:
        s = b.state
        if s.over:
            return
        if s.deck:
            self._start_turn(b, s.other(s.turn))
            return
        self._showdown_or_window(b)

    def _showdown_or_window(self, b: _Builder) -> None:
        s = b.state
        for seat in (s.first, s.other(s.first)):
            if PLUS_ONE in s.items.get(seat, ()) and seat not in s.plus_done:
                b.add(Event("item_window", {"item": PLUS_ONE, "seat": seat, "at": b.now}))
                return
        self._showdown(b)

    @staticmethod
    def sums(s: BoutState) -> dict[str, int]:
        out = {seat: 0 for seat in s.seats}
        for d in s.discards:
            out[d.seat] += d.value
        return out

    def _showdown(self, b: _Builder) -> None:
        s = b.state
        a, c = s.seats
        hands = {seat: s.hands[seat][0] for seat in s.seats}
        bonus = {seat: (1 if seat in s.plus_one else 0) for seat in s.seats}
        score = {seat: hands[seat] + bonus[seat] for seat in s.seats}
        sums = self.sums(s)
        adv = [seat for seat in s.seats if "advantage" in s.items.get(seat, ())]
        winners: list[str] = []
        if score[a] != score[c]:
            winners, how = [a if score[a] > score[c] else c], "card"
        elif len(s.plus_one) == 1:
            winners, how = [next(iter(s.plus_one))], "plus_one"
        elif sums[a] != sums[c]:
            winners, how = [a if sums[a] > sums[c] else c], "discards"
        elif len(adv) == 1:
            winners, how = adv, "advantage"
        else:
            how = "drawn"
        b.add(
            Event(
                "showdown",
                {"hands": hands, "bonus": bonus, "sums": sums, "winners": winners, "how": how},
            )
        )
        reasons = {
            "card": "higher card at the showdown",
            "plus_one": "tie at the showdown won with Plus One",
            "discards": "higher total of discards at the showdown",
            "advantage": "tie on discards won with the Advantage",
            "drawn": "tied at the showdown: the bout is drawn",
        }
        self._finish(b, winners, reasons[how])

    def _reveal_event(self, s: BoutState) -> Event:
        return reveal_event(s.order, s.salt, s.commitment)

    def _finish(self, b: _Builder, winners: list[str], reason: str) -> None:
        b.add(Event("bout_ended", {"winners": list(winners), "reason": reason, "at": b.now}))
        b.add(self._reveal_event(b.state))

    # ---- reading -------------------------------------------------------------
    def outcome(self, state: BoutState) -> Outcome | None:
        if state is None or not state.over:
            return None
        return win_outcome(state.seats, state.winners, state.reason)

    def can_mulligan(self, s: BoutState, seat: str) -> bool:
        return (
            s.phase == PLAY
            and s.asked == seat
            and seat == s.first
            and s.turn_no == 1
            and "dmo" in s.items.get(seat, ())
        )

    def can_insure(self, s: BoutState, seat: str) -> bool:
        return (
            not s.over
            and "insurance" in s.items.get(seat, ())
            and seat not in s.insurance
            and s.plays == 0
        )

    def legal_commands(self, state: BoutState, seat: str) -> list[dict]:
        s = state
        if s is None or s.over or seat not in s.seats:
            return []
        out: list[dict] = []
        if self.can_insure(s, seat):
            out.append({"type": "use_item", "item": "insurance"})
        if s.asked != seat:
            return out
        if s.phase == RIGGING:
            out.append({"type": "pass"})
            for take in sorted(set(self._left_after_rigs(s))):
                out.append({"type": "use_item", "item": RIGGING, "take": str(take)})
                for deny in range(1, 9):
                    out.append(
                        {"type": "use_item", "item": RIGGING, "take": str(take), "deny": str(deny)}
                    )
        elif s.phase == PLUS_ONE:
            out += [{"type": "pass"}, {"type": "use_item", "item": PLUS_ONE}]
        elif s.phase == CHALLENGE:
            out += [{"type": "challenge"}, {"type": "pass"}]
        elif s.phase == GUESS:
            out += [{"type": "guess", "card": str(c)} for c in range(2, 9)]
        elif s.phase == PLAY:
            hand = s.hands[seat]
            can_bluff = s.bluffs[seat] < s.options["bluffs_per_bout"]
            immune = s.other(seat) in s.immune
            for card in sorted(set(hand)):
                if card == 8 or (countess_forced(hand) and card != 7):
                    continue
                for claim in range(1, 8):
                    if claim != card and not can_bluff:
                        continue
                    cmd = {"type": "play", "card": str(card), "claim": str(claim)}
                    if claim == 5:
                        for target in ("self",) if immune else TARGETS:
                            out.append({**cmd, "target": target})
                    else:
                        out.append(cmd)
            if self.can_mulligan(s, seat):
                out.append({"type": "mulligan"})
        return out

    def _discard_view(self, d: Discard, mod: bool, me: str | None) -> dict:
        out = {"seat": d.seat, "kind": d.kind, "turn": d.turn}
        if d.kind == "forced":
            out["card"] = d.card
            out["value"] = d.card
            return out
        out["claim"] = d.claim
        out["value"] = d.claim
        out["challenged"] = d.challenged
        if d.claim == 5:
            out["target"] = d.target
        if mod or d.challenged or d.seat == me:
            out["card"] = d.card
            out["bluff"] = d.bluff
        return out

    def view(self, state: BoutState, viewer: Viewer) -> dict:
        s = state
        mod = viewer.kind == MODERATOR
        every_seat = mod or viewer.kind == EVERY_SEAT  # what the seats know, not the deck
        me = viewer.seat if viewer.kind == SEAT and viewer.seat in s.seats else None
        play = None
        if s.play is not None and s.phase in (CHALLENGE, GUESS):
            play = {
                k: v for k, v in self._discard_view(s.play, every_seat, me).items() if k != "kind"
            }
        out: dict[str, Any] = {
            "seats": list(s.seats),
            "first": s.first,
            "bout_no": s.bout_no,
            "deal_no": s.deals,
            "phase": s.phase,
            "turn": s.turn,
            "turn_no": s.turn_no,
            "asked": s.asked,
            "deadline": self.deadline(s),
            "options": dict(s.options),
            "removed": list(s.removed),
            "deck_count": len(s.deck),
            "commitment": s.commitment,
            "lives": dict(s.lives),
            "reserve": dict(s.reserve),
            "immune": sorted(s.immune),
            "insurance_active": sorted(s.insurance),
            "plus_one_used": sorted(s.plus_one),
            "discards": [self._discard_view(d, every_seat, me) for d in s.discards],
            "discard_sums": self.sums(s),
            "play": play,
            "showdown": dict(s.showdown) if s.showdown is not None else None,
            "over": s.over,
            "winners": list(s.winners),
            "reason": s.reason,
            "revealed_deals": [dict(r) for r in s.revealed],
        }
        if me is not None:
            out["hand"] = list(s.hands[me])
            out["bluffs_left"] = {me: s.options["bluffs_per_bout"] - s.bluffs[me]}
            out["items"] = {me: list(s.items.get(me, ()))}
            out["opponent_card"] = s.opp_known[me]
            out["seen"] = [dict(n) for n in s.seen[me]]
            out["can_mulligan"] = self.can_mulligan(s, me)
            if s.phase == RIGGING and s.asked == me:
                out["rig_takes"] = sorted(set(self._left_after_rigs(s)))  # what the rule allows
        if mod:
            out["deck"] = list(s.deck)
            out["order"] = list(s.order)
            out["salt"] = s.salt
        if every_seat:
            out["hands"] = {seat: list(h) for seat, h in s.hands.items()}
            out["bluffs_left"] = {
                seat: s.options["bluffs_per_bout"] - s.bluffs[seat] for seat in s.seats
            }
            out["items"] = {seat: list(v) for seat, v in s.items.items()}
            out["opponent_card"] = dict(s.opp_known)
            out["seen"] = {seat: [dict(n) for n in v] for seat, v in s.seen.items()}
        return out


RULES = DoubtingLoveLetter()


def _attach_bots() -> None:
    from .bots import BOTS

    RULES.bots = BOTS


_attach_bots()
