"""Love Me Not (``love-me-not``): two players, five simultaneous turns.

RULES.md section 3. One bout is one match of five turns; the series layer
plays matches until a player has won ``first_to`` of them (default 2); a
tied match scores for nobody and another match is played.

Cards are strings: rank then suit, ``2H`` .. ``5S``, ``JC``.

Events of one match (``visible_to`` in brackets; everyone else sees the
redacted ``public`` form, or nothing when it is None):

- ``match_started`` (moderators): seats, options and the whole deck, top
  first, with its ``salt`` and ``commitment``. Public: everything but the
  deck order and the salt.
- ``turn_started`` (public): the turn number; the clock starts (``at``).
- ``cards_drawn`` (that seat): the two cards a seat draws, first seat first.
- ``card_chosen`` (that seat only, public None): the seat's keep and
  discard, final for the turn; ``timeout`` when the platform chose at the
  deadline. Nobody else learns anything from it, whoever chooses first.
- ``turn_resolved`` (public): both have chosen; the cards kept in the
  previous turn are revealed, and who (if anyone) timed out.
- ``match_revealed`` (public): after turn 5, every tableau and pile, and
  the scores with their breakdown.
- ``deal_revealed`` (public): the deck order, salt and commitment
  (games.core.deal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from games.core.deal import REVEAL, commitment_of, new_salt, reveal_event
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
)
from games.core.rules import FIRST_NONE, BoutRules, int_option

from .bots import heuristic_bot

SUITS = ("C", "D", "H", "S")
RANKS = ("2", "3", "4", "5", "J")
DECK = tuple(r + s for s in SUITS for r in RANKS)  # 20 cards
TURNS = 5
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def parse_card(raw) -> str | None:
    """'2h' / '2H' / ' JS ' to the card name, None when it is not a card."""
    if not isinstance(raw, str):
        return None
    c = raw.strip().upper()
    return c if c in DECK else None


def suit(card: str) -> str:
    return card[-1]


def score_breakdown(tableau, pile, opp_pile) -> dict:
    """The score of one seat (RULES.md section 3), with its parts:
    per suit tableau count x own pile count, plus for each Jack in the
    tableau the number of cards of its suit in the opponent's pile."""
    suits = {}
    total = 0
    for s in SUITS:
        t = sum(1 for c in tableau if suit(c) == s)
        p = sum(1 for c in pile if suit(c) == s)
        suits[s] = {"tableau": t, "pile": p, "points": t * p}
        total += t * p
    jacks = []
    for c in tableau:
        if c[0] == "J":
            n = sum(1 for o in opp_pile if suit(o) == suit(c))
            jacks.append({"card": c, "points": n})
            total += n
    return {"suits": suits, "jacks": jacks, "total": total}


@dataclass(frozen=True)
class LoveMeNotState:
    seats: tuple[str, str]
    options: Mapping[str, Any]
    bout: int
    deck: tuple[str, ...]  # still to draw, top first
    turn: int = 0
    turn_at: float = 0.0
    hands: tuple[tuple[str, ...], ...] = ((), ())
    # this turn's choices: (keep, discard, made by a timeout) or None
    choices: tuple[tuple[str, str, bool] | None, ...] = (None, None)
    tableaus: tuple[tuple[str, ...], ...] = ((), ())  # in turn order
    piles: tuple[tuple[str, ...], ...] = ((), ())
    revealed: int = 0  # how many kept cards of each tableau are face up
    finished: bool = False
    order: tuple[str, ...] = ()  # the whole deck as shuffled, committed to
    salt: str = ""
    commitment: str = ""
    deal_open: bool = False  # order and salt revealed

    def idx(self, seat: str) -> int:
        return self.seats.index(seat)

    def scores(self) -> dict[str, dict]:
        a, b = self.seats
        return {
            a: score_breakdown(self.tableaus[0], self.piles[0], self.piles[1]),
            b: score_breakdown(self.tableaus[1], self.piles[1], self.piles[0]),
        }


def _set(tup: tuple, i: int, value) -> tuple:
    return tup[:i] + (value,) + tup[i + 1 :]


class LoveMeNotRules(BoutRules):
    slug = "love-me-not"
    name = "Love Me Not"
    command_fields = {"choose": frozenset({"keep", "discard"})}
    match_length_option = "first_to"  # a show sets its match length in bouts won
    min_seats = 2
    max_seats = 2
    first_player = FIRST_NONE
    rules_template = "games/love_me_not.html"
    options = {
        "decision_s": int_option(120, "seconds for each choice (0 = no clock)", 0, 86_400),
        "first_to": int_option(2, "matches needed to win the game", 1, 99),
    }

    def default_first_to(self, options: Mapping[str, Any], n_seats: int) -> int:
        return int(options.get("first_to", 2))

    def setup_first(self, setup):
        return None

    # ---- the deal ----------------------------------------------------------
    def start(self, ctx, seats, options, first, items, setup, bout_no):
        seats = tuple(seats)
        setup = dict(setup or {})
        pool = list(DECK)
        top = []
        raw = setup.get("deck")
        if raw is not None:
            if not isinstance(raw, list):
                raise RuleError("setup: deck must be a list of cards")
            for r in raw:
                c = parse_card(r)
                if c is None:
                    raise RuleError("setup: {r!r} in deck is not a Love Me Not card", r=r)
                if c not in pool:
                    raise RuleError("setup: {c} appears twice in deck", c=c)
                pool.remove(c)
                top.append(c)
        ctx.rng.shuffle(pool)
        deck = top + pool
        salt = new_salt(ctx.rng)
        data = {
            "seats": list(seats),
            "bout": bout_no,
            "options": dict(options),
            "commitment": commitment_of(deck, salt),
            "at": ctx.now,
        }
        events = [
            Event(
                "match_started",
                {**data, "deck": deck, "salt": salt},
                visible_to=(),
                public={**data, "deck_size": len(deck)},
            )
        ]
        state = self.evolve(None, events[0])
        return events + self._turn_start(state, ctx.now)

    def _turn_start(self, state: LoveMeNotState, now: float) -> list[Event]:
        turn = state.turn + 1
        events = [Event("turn_started", {"turn": turn, "at": now})]
        for i, seat in enumerate(state.seats):
            cards = list(state.deck[2 * i : 2 * i + 2])
            events.append(
                Event(
                    "cards_drawn",
                    {"seat": seat, "turn": turn, "cards": cards},
                    (seat,),
                    {"seat": seat, "turn": turn},
                )
            )
        return events

    # ---- the fold ------------------------------------------------------------
    def evolve(self, state: LoveMeNotState | None, event: Event) -> LoveMeNotState:
        t, d = event.type, event.data
        if t == "match_started":
            return LoveMeNotState(
                seats=tuple(d["seats"]),
                options=dict(d["options"]),
                bout=d["bout"],
                deck=tuple(d["deck"]),
                turn_at=d.get("at", 0.0),
                order=tuple(d["deck"]),
                salt=d.get("salt", ""),
                commitment=d.get("commitment", ""),
            )
        assert state is not None, f"{t} before match_started"
        s = state
        if t == "turn_started":
            return replace(s, turn=d["turn"], turn_at=d["at"], choices=(None, None))
        if t == "cards_drawn":
            i = s.idx(d["seat"])
            return replace(s, deck=s.deck[2:], hands=_set(s.hands, i, s.deck[:2]))
        if t == "card_chosen":
            i = s.idx(d["seat"])
            keep, discard = d["keep"], d["discard"]
            return replace(
                s,
                choices=_set(s.choices, i, (keep, discard, bool(d.get("timeout")))),
                hands=_set(s.hands, i, ()),
                tableaus=_set(s.tableaus, i, s.tableaus[i] + (keep,)),
                piles=_set(s.piles, i, s.piles[i] + (discard,)),
            )
        if t == "turn_resolved":
            return replace(s, revealed=max(s.revealed, d["turn"] - 1))
        if t == "match_revealed":
            return replace(s, revealed=TURNS, finished=True)
        if t == REVEAL:
            return replace(s, deal_open=True)
        return s

    # ---- commands ------------------------------------------------------------
    def _check(self, state: LoveMeNotState, seat: str | None, command: Mapping[str, Any]):
        if state.finished:
            raise RuleError("the match is over")
        if seat is None or seat not in state.seats:
            raise RuleError("only a seated player can choose")
        kind = command.get("type")
        if kind != "choose":
            raise RuleError(
                "Love Me Not has no command {kind}; choose a card to keep", kind=shown(kind)
            )
        i = state.idx(seat)
        if state.choices[i] is not None:
            raise RuleError("you have already chosen this turn; your choice is final")
        raw_k, raw_d = command.get("keep"), command.get("discard")
        if raw_k is None or raw_d is None:
            raise RuleError("say which card you keep and which you discard")
        keep, discard = parse_card(raw_k), parse_card(raw_d)
        for raw, c in ((raw_k, keep), (raw_d, discard)):
            if c is None:
                raise RuleError(
                    "{raw} is not a card: a rank 2, 3, 4, 5 or J and a suit C, D, H or S",
                    raw=shown(raw),
                )
        if keep == discard:
            raise RuleError("keep one card and discard the other: they must be different")
        for c in (keep, discard):
            if c not in state.hands[i]:
                raise RuleError("you do not hold {c}", c=c)
        return keep, discard

    def decide(self, state: LoveMeNotState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if not isinstance(command, Mapping):
            raise RuleError("a command must be an object")
        keep, discard = self._check(state, ctx.seat, command)
        return self._choose(state, ctx.seat, keep, discard, ctx.now, timeout=False)

    def _choose(self, state, seat, keep, discard, now, timeout) -> list[Event]:
        data = {"seat": seat, "turn": state.turn, "keep": keep, "discard": discard, "at": now}
        if timeout:
            data["timeout"] = True
        chosen = Event("card_chosen", data, (seat,), None)
        events = [chosen]
        state = self.evolve(state, chosen)
        if any(c is None for c in state.choices):
            return events
        # both have chosen: the turn resolves
        revealed = {}
        if state.turn >= 2:
            revealed = {s: state.tableaus[i][state.turn - 2] for i, s in enumerate(state.seats)}
        resolved = Event(
            "turn_resolved",
            {
                "turn": state.turn,
                "revealed": revealed,
                "timed_out": [s for i, s in enumerate(state.seats) if state.choices[i][2]],
                "at": now,
            },
        )
        events.append(resolved)
        state = self.evolve(state, resolved)
        if state.turn < TURNS:
            return events + self._turn_start(state, now)
        scores = state.scores()
        a, b = state.seats
        ta, tb = scores[a]["total"], scores[b]["total"]
        winners = [a] if ta > tb else ([b] if tb > ta else [])
        events.append(
            Event(
                "match_revealed",
                {
                    "tableaus": {s: list(state.tableaus[i]) for i, s in enumerate(state.seats)},
                    "piles": {s: list(state.piles[i]) for i, s in enumerate(state.seats)},
                    "scores": scores,
                    "winners": winners,
                },
            )
        )
        if state.salt:  # matches dealt before commitments existed have none
            events.append(reveal_event(state.order, state.salt, state.commitment))
        return events

    # ---- clock ---------------------------------------------------------------
    def pending(self, state: LoveMeNotState) -> list[Decision]:
        if state is None or state.finished or state.turn == 0:
            return []
        limit = state.options.get("decision_s", 120)
        deadline = state.turn_at + limit if limit else None
        return [
            Decision(s, "choose", deadline)
            for i, s in enumerate(state.seats)
            if state.choices[i] is None
        ]

    def timeout(self, state: LoveMeNotState, decision: Decision, ctx: Ctx) -> list[Event]:
        if state.finished:
            return []
        i = state.idx(decision.seat)
        if state.choices[i] is not None:
            return []
        command = ctx.rng.choice(self.legal_commands(state, decision.seat))
        return self._choose(
            state, decision.seat, command["keep"], command["discard"], ctx.now, timeout=True
        )

    def legal_commands(self, state: LoveMeNotState, seat: str) -> list[dict]:
        if state is None or state.finished or seat not in state.seats:
            return []
        i = state.idx(seat)
        if state.choices[i] is not None or len(state.hands[i]) != 2:
            return []
        a, b = state.hands[i]
        return [
            {"type": "choose", "keep": a, "discard": b},
            {"type": "choose", "keep": b, "discard": a},
        ]

    # ---- reading -------------------------------------------------------------
    def outcome(self, state: LoveMeNotState) -> Outcome | None:
        if state is None or not state.finished:
            return None
        scores = state.scores()
        a, b = state.seats
        ta, tb = scores[a]["total"], scores[b]["total"]
        if ta == tb:
            return Outcome((), {a: 0, b: 0}, f"tied match, {ta} to {tb}: nobody scores")
        w = a if ta > tb else b
        return Outcome((w,), {a: int(w == a), b: int(w == b)}, f"{ta} to {tb}")

    def scenario_scores(self, state: LoveMeNotState) -> dict[str, int]:
        return {s: v["total"] for s, v in state.scores().items()}

    def view(self, state: LoveMeNotState, viewer: Viewer) -> dict:
        omniscient = viewer.kind == MODERATOR
        me = viewer.seat if viewer.kind == SEAT and viewer.seat in state.seats else None
        # every tableau and pile is open to "everything" (each seat knows its own)
        open_all = omniscient or state.finished or viewer.kind == EVERY_SEAT
        hands, tableaus, piles, choices = {}, {}, {}, {}
        for i, s in enumerate(state.seats):
            mine = s == me or omniscient or viewer.kind == EVERY_SEAT
            hands[s] = list(state.hands[i]) if mine else None
            if mine or open_all:
                tableaus[s] = list(state.tableaus[i])
                piles[s] = list(state.piles[i])
            else:
                tab = list(state.tableaus[i])
                tableaus[s] = tab[: state.revealed] + [None] * (len(tab) - state.revealed)
                piles[s] = None
            c = state.choices[i]
            choices[s] = {"keep": c[0], "discard": c[1]} if (c and mine) else None
        pend = self.pending(state)
        return {
            "game": self.slug,
            "bout": state.bout,
            "seats": list(state.seats),
            "you": me,
            "turn": state.turn,
            "turns": TURNS,
            "deadline": pend[0].deadline if pend else None,
            "deck_size": len(state.deck),
            "deck": list(state.deck) if omniscient else None,
            "hand": hands[me] if me is not None else None,
            "hands": hands,
            "waiting_for": [d.seat for d in pend],
            "choice": choices[me] if me is not None else None,
            "choices": choices,
            "tableaus": tableaus,
            "piles": piles,
            "pile_sizes": {s: len(state.piles[i]) for i, s in enumerate(state.seats)},
            "revealed_turns": state.revealed,
            "finished": state.finished,
            "scores": state.scores() if open_all else None,
            "winners": list(self.outcome(state).winners) if state.finished else [],
            "commitment": state.commitment,
            "revealed_deal": {
                "order": list(state.order),
                "salt": state.salt,
                "commitment": state.commitment,
            }
            if state.deal_open
            else None,
        }

    def seats_of(self, state: LoveMeNotState) -> tuple[str, ...]:
        return state.seats


RULES = LoveMeNotRules()
RULES.bots = {"heuristic": heuristic_bot}
