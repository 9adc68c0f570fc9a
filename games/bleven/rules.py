"""Bleven (RULES.md section 5): one round of the game as a pure decider.

Two players, or four in two teams (partners in the first and third seats and
in the second and fourth). One round of Bleven is one bout of the series
layer; the series passes the cutter as ``first`` and, with
``FIRST_ALTERNATES``, the cutter role passes left (to the next seat) each
round. A crown is 300 stones; the series target is ``crowns`` x 300.

Events (every one records ``at``, the moment the next decision's clock
starts):

- ``round_dealt`` (moderators only; public: seats, cutter, pile size and
  the ``commitment``): the whole deck order, top first, and its ``salt``;
  ``evolve`` deals from it.
- ``field_dealt`` (to its seat only; public: seat and count), one per seat.
- ``card_drawn`` (to the drawer only; public: the seat).
- ``card_discarded``, ``bid_declared``, ``bid_ignored``, ``bid_answered``,
  ``bid_hijacked``, ``raise_confirmed``: public.
- ``duel_fought``: public; reveals both duelists' fields (only theirs).
- ``round_annulled``: public (the draw pile ran out while no bid stood).
- ``timed_out``: public; the random move it caused follows it.
- ``deal_revealed``: public, when the round ends: the deck order, salt and
  commitment (games.core.deal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.core.deal import REVEAL, commitment_of, new_salt, reveal_event
from games.core.fields import shown, whole
from games.core.frozen import copied, replace
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
from games.core.rules import FIRST_ALTERNATES, BoutRules, int_option

from . import bots as _bots
from .cards import DECK, parse_card
from .duel import MIN_FIELD, fight

CROWN = 300
MAX_STONES = 30

# phases
TURN = "turn"  # the seat on turn draws (or, with bidding open, may declare)
DISCARD = "discard"  # the seat on turn has drawn and must discard
REVIEW = "review"  # the reviewer answers the standing bid
CONFIRM = "confirm"  # the declarer must confirm a raise
OVER = "over"

VERBS = {
    "turn": "play",
    "draw": "draw",
    "discard": "discard",
    "review": "answer the bid",
    "confirm": "confirm the raise",
}


@dataclass(frozen=True)
class Bid:
    declarer: str
    reviewer: str
    tricks: int
    positions: tuple[int, ...]
    stones: int
    hijacked: bool = False
    ignored: tuple[str, ...] = ()  # seats that have ignored this bid
    answer: str | None = None  # believe / disbelieve, once answered with a raise
    raised: int = 0


@dataclass(frozen=True)
class BlevenState:
    seats: tuple[str, ...]
    cutter: str
    decision_s: int
    deck: tuple[str, ...]  # the dealt order, top first
    hands: tuple[tuple[str, ...], ...]  # per seat index: the field (4 cards after a draw)
    showrooms: tuple[tuple[str, ...], ...]
    pile: tuple[str, ...]  # top first
    turn: str
    phase: str
    at: float
    may_declare: bool = True  # False once the seat's bid was ignored this turn
    drawn: str | None = None  # the card drawn this turn, while still in hand
    bid: Bid | None = None
    result: Mapping[str, Any] | None = None  # duel_fought / round_annulled data
    salt: str = ""
    commitment: str = ""
    deal_open: bool = False  # deck order and salt revealed

    def idx(self, seat: str) -> int:
        return self.seats.index(seat)

    def hand(self, seat: str) -> tuple[str, ...]:
        return self.hands[self.idx(seat)]

    def showroom(self, seat: str) -> tuple[str, ...]:
        return self.showrooms[self.idx(seat)]

    def left_of(self, seat: str) -> str:
        return self.seats[(self.idx(seat) + 1) % len(self.seats)]

    def right_of(self, seat: str) -> str:
        return self.seats[(self.idx(seat) - 1) % len(self.seats)]

    def team(self, seat: str) -> tuple[str, ...]:
        """The seats of ``seat``'s side (itself alone in a two-player game)."""
        if len(self.seats) == 4:
            i = self.idx(seat) % 2
            return (self.seats[i], self.seats[i + 2])
        return (seat,)

    def bidding_open(self, seat: str) -> bool:
        return len(self.showroom(seat)) >= 3


# ---- command field checks ---------------------------------------------------


def _whole(raw) -> bool:
    return isinstance(raw, int) and not isinstance(raw, bool) and whole(raw) is not None


def parse_declaration(command: Mapping[str, Any]) -> tuple[int, tuple[int, ...], int]:
    """(tricks, positions, stones) of a declare / hijack command, or RuleError."""
    tricks = command.get("tricks")
    if not _whole(tricks) or not 0 <= tricks <= 3:
        raise RuleError("say how many tricks you will win: a whole number from 0 to 3")
    raw_pos = command.get("positions")
    if raw_pos is None:
        raw_pos = []
    if not isinstance(raw_pos, (list, tuple)) or not all(_whole(p) for p in raw_pos):
        raise RuleError("positions must be a list of trick numbers (1, 2 or 3)")
    if any(not 1 <= p <= 3 for p in raw_pos):
        raise RuleError("positions are trick numbers: 1, 2 or 3")
    if len(set(raw_pos)) != len(raw_pos):
        raise RuleError("name each position only once")
    if raw_pos and tricks == 0:
        raise RuleError("a bid of 0 tricks cannot name positions")
    if len(raw_pos) > tricks:
        raise RuleError(
            "a bid of {tricks} trick{s} names at most {tricks} position{s}",
            tricks=tricks,
            s="s" if tricks != 1 else "",
        )
    stones = command.get("stones")
    if not _whole(stones):
        raise RuleError("bid a number of stones: a multiple of 3 from 0 to 30")
    if stones % 3 != 0 or not 0 <= stones <= MAX_STONES:
        raise RuleError(
            "{stones} stones is not a valid bid: bid a multiple of 3 from 0 to 30",
            stones=shown(stones),
        )
    return tricks, tuple(sorted(raw_pos)), stones


def all_declarations() -> list[tuple[int, tuple[int, ...], int]]:
    out = []
    subsets = [(), (1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)]
    for tricks in range(4):
        for pos in subsets:
            if len(pos) > tricks:
                continue
            for stones in range(0, MAX_STONES + 1, 3):
                out.append((tricks, pos, stones))
    return out


_DECLARATIONS = all_declarations()


def declaration_command(kind: str, tricks: int, positions, stones: int) -> dict:
    cmd = {"type": kind, "tricks": tricks, "stones": stones}
    if positions:
        cmd["positions"] = list(positions)
    return cmd


class BlevenRules(BoutRules):
    slug = "bleven"
    name = "Bleven"
    command_fields = {
        "draw": frozenset(),
        "discard": frozenset({"card"}),
        "declare": frozenset({"tricks", "positions", "stones"}),
        "respond": frozenset({"answer", "raise"}),
        "hijack": frozenset({"tricks", "positions", "stones"}),
        "confirm": frozenset(),
    }
    match_length_option = "crowns"  # a show sets its match length in crowns
    min_seats = 2
    max_seats = 4
    first_player = FIRST_ALTERNATES
    rules_template = "games/bleven.html"
    options = {
        "crowns": int_option(
            1, "crowns (of 300 stones each) a side needs to win the game: 1, 2 or 3", 1, 3
        ),
        "decision_s": int_option(
            120,
            "seconds for each decision (0 = no clock); a random legal move at timeout",
            0,
            86400,
        ),
    }
    bots = _bots.BOTS

    # ---- options and seats ---------------------------------------------------
    def resolve_options(self, given, n_seats: int) -> dict:
        _check_seat_count(n_seats)
        return super().resolve_options(given, n_seats)

    def default_first_to(self, options, n_seats: int) -> int:
        return int(options.get("crowns", 1)) * CROWN

    def setup_first(self, setup):
        return setup.get("cutter")

    def series_winners(self, scores, target):
        """The side that reached the target with more stones than the other
        side; both partners of a team win together. A tie at the top plays on."""
        seats = list(scores)
        if len(seats) == 4:
            sides = [(seats[0], seats[2]), (seats[1], seats[3])]
        else:
            sides = [(s,) for s in seats]
        totals = [max(scores[s] for s in side) for side in sides]
        best = max(totals)
        if best < target or totals.count(best) > 1:
            return ()
        return sides[totals.index(best)]

    # ---- the deal ------------------------------------------------------------
    def start(self, ctx, seats, options, first, items, setup, bout_no):
        seats = tuple(seats)
        _check_seat_count(len(seats))
        setup = dict(setup or {})
        cutter = first if first is not None else setup.get("cutter")
        if cutter is None:
            cutter = seats[ctx.rng.randrange(len(seats))]
        if cutter not in seats:
            raise RuleError("the cutter {cutter} is not seated", cutter=cutter)
        top = setup.get("deck") or []
        if not isinstance(top, list):
            raise RuleError("setup deck must be a list of cards")
        named = []
        for raw in top:
            card = parse_card(raw)
            if card is None:
                raise RuleError("setup deck: {raw!r} is not a Bleven card", raw=raw)
            if card in named:
                raise RuleError("setup deck names {card} twice", card=card)
            named.append(card)
        rest = [c for c in DECK if c not in named]
        ctx.rng.shuffle(rest)
        deck = named + rest
        decision_s = int(options.get("decision_s", 120))
        salt = new_salt(ctx.rng)
        public = {
            "seats": list(seats),
            "cutter": cutter,
            "pile_count": len(deck) - 3 * len(seats),
            "decision_s": decision_s,
            "commitment": commitment_of(deck, salt),
            "bout": bout_no,
            "at": ctx.now,
        }
        data = {**public, "deck": deck, "salt": salt}
        events = [Event("round_dealt", data, visible_to=(), public=public)]
        state = self.evolve(None, events[0])
        for seat in seats:
            events.append(
                Event(
                    "field_dealt",
                    {"seat": seat, "cards": list(state.hand(seat))},
                    visible_to=(seat,),
                    public={"seat": seat, "count": 3},
                )
            )
        return events

    # ---- folding ---------------------------------------------------------------
    def evolve(self, state: BlevenState | None, event: Event) -> BlevenState:
        t, d = event.type, event.data
        if t == "round_dealt":
            return _round_dealt(d)
        if state is None:
            raise ValueError(f"{t} before round_dealt")
        if t == REVEAL:
            return replace(state, deal_open=True)
        fold = _FOLDS.get(t)
        if fold is None:
            # field_dealt, timed_out, or not a Bleven event (evolve is total): nothing changes
            return state
        return fold(state, d, d.get("at", state.at))

    # ---- who decides ---------------------------------------------------------
    def _decision(self, state: BlevenState) -> Decision | None:
        if state is None or state.phase == OVER:
            return None
        if state.phase == TURN:
            seat = state.turn
            kind = "turn" if (state.may_declare and state.bidding_open(seat)) else "draw"
        elif state.phase == DISCARD:
            seat, kind = state.turn, "discard"
        elif state.phase == REVIEW:
            seat, kind = state.bid.reviewer, "review"
        else:
            seat, kind = state.bid.declarer, "confirm"
        deadline = state.at + state.decision_s if state.decision_s else None
        return Decision(seat, kind, deadline)

    def pending(self, state):
        d = self._decision(state)
        return [d] if d is not None else []

    # ---- commands ------------------------------------------------------------
    def decide(self, state, command, ctx: Ctx):
        if state is None:
            raise RuleError("no round is in progress")
        if state.phase == OVER:
            raise RuleError("the round is over")
        if not isinstance(command, Mapping) or not isinstance(command.get("type"), str):
            raise RuleError("a command needs a type")
        seat = ctx.seat
        if seat is None:
            raise RuleError("only a seated player can play")
        if seat not in state.seats:
            raise RuleError("{seat} is not seated in this round", seat=seat)
        dec = self._decision(state)
        if seat != dec.seat:
            raise RuleError("it is {seat}'s turn to {verbs}", seat=dec.seat, verbs=VERBS[dec.kind])
        if dec.deadline is not None and ctx.now >= dec.deadline and not ctx.is_system:
            raise RuleError("your time for this decision has run out")
        return self._apply(state, seat, dict(command), ctx.now)

    def _apply(self, state: BlevenState, seat: str, command: dict, now: float) -> list[Event]:
        kind = command.get("type")
        handler = {
            "draw": self._draw,
            "discard": self._discard,
            "declare": self._declare,
            "respond": self._respond,
            "hijack": self._hijack,
            "confirm": self._confirm,
        }.get(kind)
        if handler is None:
            raise RuleError(
                "Bleven has no command {kind}: use draw, discard, declare, respond, hijack or confirm",
                kind=shown(kind),
            )
        events = handler(state, seat, command, now)
        return events + self._consequences(state, events, now)

    def _consequences(self, state, events, now) -> list[Event]:
        """A turn passing to a player who must draw from an empty pile while no
        bid stands annuls the round at once; a round that ended reveals its deal."""
        for e in events:
            state = self.evolve(state, e)
        out = []
        if state.phase == TURN and not state.pile:
            dec = self._decision(state)
            if dec.kind == "draw":
                out.append(_annulled(state.turn, now))
                state = self.evolve(state, out[-1])
        if state.phase == OVER and state.salt:  # old rounds have no commitment
            out.append(reveal_event(state.deck, state.salt, state.commitment))
        return out

    def _draw(self, state, seat, command, now):
        if state.phase != TURN:
            if state.phase == DISCARD:
                raise RuleError("you have drawn already: discard a card to your showroom")
            raise RuleError("a bid stands: no more cards are drawn")
        if not state.pile:
            # only reachable by a player who could have declared instead
            return [_annulled(seat, now)]
        return [
            Event(
                "card_drawn",
                {"seat": seat, "card": state.pile[0], "at": now},
                visible_to=(seat,),
                public={"seat": seat, "at": now},
            )
        ]

    def _discard(self, state, seat, command, now):
        if state.phase != DISCARD:
            if state.phase == TURN:
                raise RuleError("draw a card first, then discard")
            raise RuleError("a bid stands: there is nothing to discard now")
        if "card" not in command:
            raise RuleError("say which card to discard")
        card = parse_card(command.get("card"))
        if card is None:
            raise RuleError(
                "{card} is not a Bleven card (say e.g. 7H, AS, KC)", card=shown(command.get("card"))
            )
        if card not in state.hand(seat):
            raise RuleError("you do not hold {card}", card=card)
        return [Event("card_discarded", {"seat": seat, "card": card, "at": now})]

    def _declare(self, state, seat, command, now):
        if state.phase != TURN:
            if state.phase == DISCARD:
                raise RuleError(
                    "you have drawn this turn: you can only declare at the start of a turn"
                )
            raise RuleError("a bid already stands: answer it instead")
        if not state.bidding_open(seat):
            raise RuleError("you may declare once your showroom holds at least 3 cards")
        if not state.may_declare:
            raise RuleError("your bid was ignored: finish your turn with a draw and a discard")
        tricks, positions, stones = parse_declaration(command)
        return [
            Event(
                "bid_declared",
                {
                    "seat": seat,
                    "reviewer": state.left_of(seat),
                    "tricks": tricks,
                    "positions": list(positions),
                    "stones": stones,
                    "at": now,
                },
            )
        ]

    def _respond(self, state, seat, command, now):
        if state.phase == CONFIRM:
            raise RuleError("the bid was raised: your only answer is confirm")
        if state.phase != REVIEW:
            raise RuleError("there is no bid to answer")
        bid = state.bid
        answer = command.get("answer")
        if answer not in ("ignore", "believe", "disbelieve"):
            raise RuleError("answer ignore, believe or disbelieve")
        raised = command.get("raise")
        if answer == "ignore":
            if raised not in (None, 0):
                raise RuleError("you cannot raise a bid you ignore")
            if bid.hijacked:
                raise RuleError("a hijacked bid cannot be ignored")
            if len(state.showroom(seat)) >= 5:
                raise RuleError("you may ignore only while your showroom has fewer than 5 cards")
            nxt = None
            if len(state.seats) == 4 and not bid.ignored:
                nxt = state.right_of(bid.declarer)
            return [Event("bid_ignored", {"seat": seat, "next_reviewer": nxt, "at": now})]
        if raised is not None:
            if not _whole(raised) or raised <= 0 or raised % 3:
                raise RuleError("a raise must be a positive multiple of 3 stones")
            if bid.stones + raised > MAX_STONES:
                if bid.stones >= MAX_STONES:
                    raise RuleError("the bid is already 30 stones: it cannot be raised")
                raise RuleError(
                    "the bid is {stones} stones: raise by at most {most} (30 in all)",
                    stones=bid.stones,
                    most=MAX_STONES - bid.stones,
                )
            return [
                Event("bid_answered", {"seat": seat, "answer": answer, "raise": raised, "at": now})
            ]
        answered = Event("bid_answered", {"seat": seat, "answer": answer, "raise": 0, "at": now})
        return [answered, self._duel_event(state, bid, answer, 0, now)]

    def _hijack(self, state, seat, command, now):
        if state.phase == CONFIRM:
            raise RuleError("the bid was raised: your only answer is confirm")
        if state.phase != REVIEW:
            raise RuleError("there is no bid to hijack")
        bid = state.bid
        tricks, positions, stones = parse_declaration(command)
        if not (stones > bid.stones or tricks > bid.tricks):
            raise RuleError(
                "to hijack, bid more than {stones} stones or more than {tricks} trick{s}",
                stones=bid.stones,
                tricks=bid.tricks,
                s="s" if bid.tricks != 1 else "",
            )
        return [
            Event(
                "bid_hijacked",
                {
                    "seat": seat,
                    "reviewer": bid.declarer,
                    "tricks": tricks,
                    "positions": list(positions),
                    "stones": stones,
                    "at": now,
                },
            )
        ]

    def _confirm(self, state, seat, command, now):
        if state.phase != CONFIRM:
            raise RuleError("there is no raise to confirm")
        bid = state.bid
        return [
            Event("raise_confirmed", {"seat": seat, "stones": bid.stones + bid.raised, "at": now}),
            self._duel_event(state, bid, bid.answer, bid.raised, now),
        ]

    def _duel_event(self, state, bid: Bid, answer: str, raised: int, now) -> Event:
        stones = bid.stones + raised
        r = fight(
            bid.declarer,
            bid.reviewer,
            state.hand(bid.declarer),
            state.hand(bid.reviewer),
            bid.tricks,
            bid.positions,
            stones,
            answer,
        )
        points = {s: 0 for s in state.seats}
        for duelist, gain in r["gains"].items():
            for s in state.team(duelist):
                points[s] += gain
        d, rv = bid.declarer, bid.reviewer
        if r["kind"] == "annulled":
            reason = f"both fields add up to less than {MIN_FIELD}: the round is annulled"
        elif r["kind"] == "under_15":
            loser = d if r["sums"][d] < MIN_FIELD else rv
            rival = rv if loser == d else d
            reason = (
                f"{loser}'s field adds up to {r['sums'][loser]}, less than {MIN_FIELD}: "
                f"{rival} takes the {stones} bid stones"
            )
        else:
            reason = (
                f"{d} {'hit' if r['hit'] else 'missed'} and {rv} {answer}d: "
                f"X = {r['x']}, {d} gets {r['gains'][d]}, {rv} gets {r['gains'][rv]}"
            )
        data = {
            "declarer": bid.declarer,
            "reviewer": bid.reviewer,
            "tricks": bid.tricks,
            "positions": list(bid.positions),
            "stones": stones,
            "raised": raised,
            "answer": answer,
            "hijacked": bid.hijacked,
            **r,
            "points": points,
            "reason": reason,
            "at": now,
        }
        return Event("duel_fought", data)

    # ---- clock ---------------------------------------------------------------
    def timeout(self, state, decision, ctx):
        dec = self._decision(state)
        if dec is None:
            return []
        legal = self.legal_commands(state, dec.seat)
        command = random_move(legal, ctx.rng)
        return [
            Event("timed_out", {"seat": dec.seat, "kind": dec.kind, "at": ctx.now})
        ] + self._apply(state, dec.seat, command, ctx.now)

    # ---- reading ---------------------------------------------------------------
    def legal_commands(self, state, seat):
        dec = self._decision(state)
        if dec is None or dec.seat != seat:
            return []
        if dec.kind == "draw":
            return [{"type": "draw"}]
        if dec.kind == "turn":
            return [{"type": "draw"}] + [declaration_command("declare", *d) for d in _DECLARATIONS]
        if dec.kind == "discard":
            return [{"type": "discard", "card": c} for c in state.hand(seat)]
        if dec.kind == "confirm":
            return [{"type": "confirm"}]
        bid = state.bid
        out = []
        if not bid.hijacked and len(state.showroom(seat)) < 5:
            out.append({"type": "respond", "answer": "ignore"})
        for answer in ("believe", "disbelieve"):
            out.append({"type": "respond", "answer": answer})
            for r in range(3, MAX_STONES - bid.stones + 1, 3):
                out.append({"type": "respond", "answer": answer, "raise": r})
        for t, p, s in _DECLARATIONS:
            if s > bid.stones or t > bid.tricks:
                out.append(declaration_command("hijack", t, p, s))
        return out

    def view(self, state, viewer: Viewer):
        if state is None:
            return {}
        all_seen = viewer.kind == MODERATOR
        every_hand = all_seen or viewer.kind == EVERY_SEAT
        me = viewer.seat if viewer.kind == SEAT and viewer.seat in state.seats else None
        dec = self._decision(state)
        fields = {}
        for s in state.seats:
            if every_hand or s == me:
                fields[s] = list(state.hand(s))
        result = copied(dict(state.result)) if state.result is not None else None
        if result is not None and "fields" in result:
            for s, cards in result["fields"].items():
                fields.setdefault(s, list(cards))
        bid = None
        if state.bid is not None:
            b = state.bid
            bid = {
                "declarer": b.declarer,
                "reviewer": b.reviewer,
                "tricks": b.tricks,
                "positions": list(b.positions),
                "stones": b.stones,
                "hijacked": b.hijacked,
                "ignored": list(b.ignored),
                "answer": b.answer,
                "raise": b.raised,
                "may_ignore": (not b.hijacked) and len(state.showroom(b.reviewer)) < 5,
            }
        out = {
            "seats": list(state.seats),
            "teams": [list(state.team(s)) for s in state.seats[:2]]
            if len(state.seats) == 4
            else None,
            "cutter": state.cutter,
            "turn": state.turn,
            "phase": state.phase,
            "decision_s": state.decision_s,
            "pile_count": len(state.pile),
            "showrooms": {s: list(state.showroom(s)) for s in state.seats},
            "field_counts": {s: len(state.hand(s)) for s in state.seats},
            "bidding_open": {s: state.bidding_open(s) for s in state.seats},
            "may_declare": state.may_declare,
            "fields": fields,
            "hand": list(state.hand(me)) if me is not None else None,
            "drawn": state.drawn
            if (state.drawn is not None and (every_hand or me == state.turn))
            else None,
            "bid": bid,
            "pending": {"seat": dec.seat, "kind": dec.kind, "deadline": dec.deadline}
            if dec
            else None,
            "result": result,
            "commitment": state.commitment,
            "revealed_deal": {
                "order": list(state.deck),
                "salt": state.salt,
                "commitment": state.commitment,
            }
            if state.deal_open
            else None,
        }
        if all_seen:
            out["pile"] = list(state.pile)
            out["deck"] = list(state.deck)
        return out

    def outcome(self, state):
        if state is None or state.phase != OVER:
            return None
        r = state.result
        points = {s: int(r.get("points", {}).get(s, 0)) for s in state.seats}
        if r.get("kind") in (None, "annulled") or "points" not in r:
            return Outcome((), {s: 0 for s in state.seats}, r.get("reason", "round annulled"))
        sides = [
            state.team(s) for s in state.seats[: 2 if len(state.seats) == 4 else len(state.seats)]
        ]
        totals = [points[side[0]] for side in sides]
        best = max(totals)
        winners = () if totals.count(best) > 1 else sides[totals.index(best)]
        return Outcome(tuple(winners), points, r.get("reason", "duel"))

    def scenario_winner(self, state):
        out = self.outcome(state)
        if out is None or not out.winners:
            return None
        return next(s for s in state.seats if s in out.winners)


def _set(tup, i, value):
    return tup[:i] + (value,) + tup[i + 1 :]


# ---- the fold, one event type at a time ------------------------------------
def _round_dealt(d: Mapping[str, Any]) -> BlevenState:
    seats = tuple(d["seats"])
    deck = tuple(d["deck"])
    n = len(seats)
    c = seats.index(d["cutter"])
    hands = [()] * n
    for k in range(n):
        i = (c + k) % n
        hands[i] = tuple(deck[3 * k : 3 * k + 3])
    return BlevenState(
        seats=seats,
        cutter=d["cutter"],
        decision_s=int(d["decision_s"]),
        deck=deck,
        hands=tuple(hands),
        showrooms=((),) * n,
        pile=deck[3 * n :],
        turn=d["cutter"],
        phase=TURN,
        at=d["at"],
        salt=d.get("salt", ""),
        commitment=d.get("commitment", ""),
    )


def _card_drawn(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    i = state.idx(d["seat"])
    card = state.pile[0]
    hands = _set(state.hands, i, state.hands[i] + (card,))
    return replace(state, hands=hands, pile=state.pile[1:], phase=DISCARD, drawn=card, at=at)


def _card_discarded(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    seat = d["seat"]
    i = state.idx(seat)
    hands = _set(state.hands, i, tuple(c for c in state.hands[i] if c != d["card"]))
    rooms = _set(state.showrooms, i, state.showrooms[i] + (d["card"],))
    return replace(
        state,
        hands=hands,
        showrooms=rooms,
        turn=state.left_of(seat),
        phase=TURN,
        may_declare=True,
        drawn=None,
        bid=None,
        at=at,
    )


def _bid_declared(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    bid = Bid(d["seat"], d["reviewer"], d["tricks"], tuple(d["positions"]), d["stones"])
    return replace(state, bid=bid, phase=REVIEW, at=at)


def _bid_ignored(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    bid = state.bid
    ignored = bid.ignored + (d["seat"],)
    if d.get("next_reviewer"):
        return replace(state, bid=replace(bid, ignored=ignored, reviewer=d["next_reviewer"]), at=at)
    # the declarer finishes the turn with a draw and a discard
    return replace(state, bid=None, phase=TURN, may_declare=False, at=at)


def _bid_answered(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    bid = replace(state.bid, answer=d["answer"], raised=d.get("raise") or 0)
    return replace(state, bid=bid, phase=CONFIRM if bid.raised else REVIEW, at=at)


def _bid_hijacked(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    bid = Bid(
        d["seat"],
        state.bid.declarer,
        d["tricks"],
        tuple(d["positions"]),
        d["stones"],
        hijacked=True,
    )
    return replace(state, bid=bid, phase=REVIEW, at=at)


def _round_over(state: BlevenState, d: Mapping[str, Any], at: float) -> BlevenState:
    return replace(state, phase=OVER, result=dict(d), at=at)


# event type -> how it changes the state (past ``round_dealt`` and the reveal)
_FOLDS = {
    "card_drawn": _card_drawn,
    "card_discarded": _card_discarded,
    "bid_declared": _bid_declared,
    "bid_ignored": _bid_ignored,
    "bid_answered": _bid_answered,
    "bid_hijacked": _bid_hijacked,
    "raise_confirmed": lambda state, d, at: replace(state, at=at),
    "duel_fought": _round_over,
    "round_annulled": _round_over,
}


def _annulled(seat: str, now) -> Event:
    return Event(
        "round_annulled",
        {
            "kind": "annulled",
            "reason": f"the draw pile ran out before {seat} could draw while no bid stood: the round is annulled",
            "seat": seat,
            "at": now,
        },
    )


def _check_seat_count(n: int) -> None:
    if n not in (2, 4):
        raise RuleError(
            "Bleven is played by 2 players, or by 4 in two teams; it cannot be played by {n}", n=n
        )


def random_move(legal: list[dict], rng) -> dict:
    """A random legal move: first a kind of move at random (draw, declare,
    discard, each answer, hijack, confirm), then one of that kind, so that a
    timed-out player is not almost always made to bid."""
    groups: dict[str, list[dict]] = {}
    for cmd in legal:
        key = cmd["type"] + ":" + str(cmd.get("answer", ""))
        groups.setdefault(key, []).append(cmd)
    keys = list(groups)
    pick = groups[keys[rng.randrange(len(keys))]]
    return dict(pick[rng.randrange(len(pick))])


RULES = BlevenRules()
