"""Love Letter (``love-letter``): the classic game, 2 to 4 players.

RULES.md section 2. One bout is one round (one deal); the series layer plays
rounds until someone holds enough tokens (7 / 5 / 4 for 2 / 3 / 4 players),
and the round winner starts the next round.

Cards are ints 1..8 inside the state and strings "1".."8" in commands,
events and views.

Events of one round (``visible_to`` in brackets; everyone else sees the
redacted ``public`` form):

- ``round_started`` (moderators): seats, first, options, the set-aside
  face-down card, the face-up set-aside cards and the deck, top first; the
  shuffled ``order`` (face-down card, face-up cards, deck), its ``salt`` and
  ``commitment``. Public: everything but the face-down card, the deck order
  and the salt.
- ``card_dealt`` (that seat): the top card to one seat, in seat order.
- ``turn_started`` (that seat): the player draws the top card; their
  protection ends; the decision's clock starts (``at``).
- ``card_played`` (public): the card, its target and guess; ``timeout``
  when the platform played it at the deadline.
- effects: ``guard_guessed`` (public), ``card_seen`` (the player),
  ``cards_compared`` (the two involved), ``card_discarded`` (public, a 5's
  forced discard), ``card_replaced`` (the target: what they drew after it),
  ``hands_traded`` (the two involved), ``player_out`` (public, with the
  cards the player discards as they leave).
- ``round_ended`` (public): winners, the showdown if any, the face-down card.
- ``deal_revealed`` (public): order, salt and commitment (games.core.deal).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.deal import REVEAL, commitment_of, new_salt, reveal_event
from games.core.fields import shown
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
    win_outcome,
)
from games.core.rules import FIRST_WINNER, BoutRules, int_option
from games.love_letter_family.cards import (
    CLASSIC_DECK,
    NAMES,
    TARGETED,
    countess_forced,
    parse_rank,
)

from .bots import heuristic_bot


def _c(rank: int) -> str:
    return str(rank)


def _name(rank: int) -> str:
    return f"the {NAMES[rank]} ({rank})"


@dataclass(frozen=True)
class LoveLetterState:
    seats: tuple[str, ...]
    options: Mapping[str, Any]
    bout: int
    first: str
    hidden: int | None  # the face-down set-aside card (None once drawn)
    removed: tuple[int, ...]  # face-up set-aside cards (two players)
    deck: tuple[int, ...]  # top first
    hands: tuple[tuple[int, ...], ...]  # per seat, in seat order
    discards: tuple[tuple[int, ...], ...]  # per seat, in the order discarded
    out: tuple[str, ...] = ()  # eliminated seats, in order
    protected: frozenset[str] = frozenset()
    turn: str | None = None
    turn_at: float = 0.0
    turn_no: int = 0
    finished: bool = False
    winners: tuple[str, ...] = ()
    reason: str = ""
    showdown: Mapping[str, Any] | None = None
    log: tuple[Event, ...] = field(default=())  # every event after the deal
    order: tuple[str, ...] = ()  # the shuffle committed to: hidden, removed, deck
    salt: str = ""
    commitment: str = ""
    revealed: bool = False

    def idx(self, seat: str) -> int:
        return self.seats.index(seat)

    def hand(self, seat: str) -> tuple[int, ...]:
        return self.hands[self.idx(seat)]

    def live(self) -> tuple[str, ...]:
        return tuple(s for s in self.seats if s not in self.out)

    def discard_total(self, seat: str) -> int:
        return sum(self.discards[self.idx(seat)])


def _set(tup: tuple, i: int, value) -> tuple:
    return tup[:i] + (value,) + tup[i + 1 :]


def _without(cards: tuple[int, ...], card: int) -> tuple[int, ...]:
    i = cards.index(card)
    return cards[:i] + cards[i + 1 :]


# ---- the fold, one event type at a time ------------------------------------
def _round_started(d: Mapping[str, Any]) -> LoveLetterState:
    return LoveLetterState(
        seats=tuple(d["seats"]),
        options=dict(d["options"]),
        bout=d["bout"],
        first=d["first"],
        hidden=int(d["hidden"]),
        removed=tuple(int(c) for c in d["removed"]),
        deck=tuple(int(c) for c in d["deck"]),
        hands=tuple(() for _ in d["seats"]),
        discards=tuple(() for _ in d["seats"]),
        turn_at=d.get("at", 0.0),
        order=tuple(d.get("order", ())),
        salt=d.get("salt", ""),
        commitment=d.get("commitment", ""),
    )


def _draw_from_deck(s: LoveLetterState, i: int) -> LoveLetterState:
    """The top card of the deck into the hand of the ``i``-th seat."""
    return replace(s, deck=s.deck[1:], hands=_set(s.hands, i, s.hands[i] + s.deck[:1]))


def _to_discards(s: LoveLetterState, seat: str, card: int) -> LoveLetterState:
    i = s.idx(seat)
    return replace(
        s,
        hands=_set(s.hands, i, _without(s.hands[i], card)),
        discards=_set(s.discards, i, s.discards[i] + (card,)),
    )


def _turn_started(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    """The player on turn draws the top card; their protection ends."""
    seat = d["seat"]
    i = s.idx(seat)
    return replace(
        s,
        deck=s.deck[1:],
        hands=_set(s.hands, i, s.hands[i] + s.deck[:1]),
        protected=s.protected - {seat},
        turn=seat,
        turn_at=d["at"],
        turn_no=s.turn_no + 1,
    )


def _card_played(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    seat, card = d["seat"], int(d["card"])
    s = _to_discards(s, seat, card)
    if card == 4:
        s = replace(s, protected=s.protected | {seat})
    return s


def _card_discarded(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    return _to_discards(s, d["seat"], int(d["card"]))


def _card_replaced(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    i = s.idx(d["seat"])
    if d["from"] == "deck":
        return _draw_from_deck(s, i)
    got = () if s.hidden is None else (s.hidden,)
    return replace(s, hidden=None, hands=_set(s.hands, i, s.hands[i] + got))


def _hands_traded(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    i, j = s.idx(d["seat"]), s.idx(d["target"])
    hands = _set(s.hands, i, s.hands[j])
    hands = _set(hands, j, s.hands[i])
    return replace(s, hands=hands)


def _player_out(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    seat = d["seat"]
    i = s.idx(seat)
    return replace(
        s,
        hands=_set(s.hands, i, ()),
        discards=_set(s.discards, i, s.discards[i] + s.hands[i]),
        out=s.out + (seat,),
        protected=s.protected - {seat},
    )


def _round_ended(s: LoveLetterState, d: Mapping[str, Any]) -> LoveLetterState:
    return replace(
        s,
        finished=True,
        turn=None,
        winners=tuple(d["winners"]),
        reason=d["reason"],
        showdown=d.get("showdown"),
    )


# event type -> how it changes the state (past ``round_started`` and ``card_dealt``)
_FOLDS = {
    REVEAL: lambda s, d: replace(s, revealed=True),
    "turn_started": _turn_started,
    "card_played": _card_played,
    "card_discarded": _card_discarded,
    "card_replaced": _card_replaced,
    "hands_traded": _hands_traded,
    "player_out": _player_out,
    "round_ended": _round_ended,
}


def _minus(pool: list[int], cards: list[int], what: str) -> None:
    for c in cards:
        if c not in pool:
            raise RuleError("setup: {what} uses more {c}s than the deck holds", what=what, c=c)
        pool.remove(c)


def _parse_cards(raw, what: str) -> list[int]:
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RuleError("setup: {what} must be a list of cards", what=what)
    out = []
    for r in raw:
        v = parse_rank(r)
        if v is None:
            raise RuleError("setup: {r!r} in {what} is not a card (1 to 8)", r=r, what=what)
        out.append(v)
    return out


class LoveLetterRules(BoutRules):
    slug = "love-letter"
    name = "Love Letter"
    command_fields = {"play": frozenset({"card", "target", "guess"})}
    match_length_option = "first_to"  # a show sets its match length in bouts won
    min_seats = 2
    max_seats = 4
    first_player = FIRST_WINNER
    rules_template = "games/love_letter.html"
    options = {
        "decision_s": int_option(120, "seconds for each decision (0 = no clock)", 0, 86_400),
        "two_player_face_up": int_option(3, "cards set aside face up in a two-player game", 0, 5),
    }

    def default_first_to(self, options: Mapping[str, Any], n_seats: int) -> int:
        return {2: 7, 3: 5}.get(n_seats, 4)

    # ---- the deal --------------------------------------------------------
    def start(self, ctx, seats, options, first, items, setup, bout_no):
        seats = tuple(seats)
        n_up = options.get("two_player_face_up", 3) if len(seats) == 2 else 0
        setup = dict(setup or {})
        pool = list(CLASSIC_DECK)
        hidden_given = setup.get("hidden")
        hidden = None
        if hidden_given is not None:
            hidden = parse_rank(hidden_given)
            if hidden is None:
                raise RuleError(
                    "setup: hidden {hidden_given!r} is not a card (1 to 8)",
                    hidden_given=hidden_given,
                )
            _minus(pool, [hidden], "hidden")
        removed = _parse_cards(setup.get("removed"), "removed")
        if len(removed) > n_up:
            raise RuleError(
                "setup: {n_removed} cards removed face up, but this game sets aside {n_up}",
                n_removed=len(removed),
                n_up=n_up,
            )
        _minus(pool, removed, "removed")
        top = _parse_cards(setup.get("deck"), "deck")
        _minus(pool, top, "deck")
        ctx.rng.shuffle(pool)
        if hidden is None:
            hidden = pool.pop(0)
        while len(removed) < n_up:
            removed.append(pool.pop(0))
        deck = top + pool
        if first not in seats:
            first = seats[0]
        order = [_c(c) for c in [hidden, *removed, *deck]]
        salt = new_salt(ctx.rng)
        data = {
            "seats": list(seats),
            "first": first,
            "bout": bout_no,
            "options": dict(options),
            "removed": [_c(c) for c in removed],
            "commitment": commitment_of(order, salt),
            "at": ctx.now,
        }
        secret = {"hidden": _c(hidden), "deck": [_c(c) for c in deck], "order": order, "salt": salt}
        events = [
            Event(
                "round_started",
                {**data, **secret},
                visible_to=(),
                public={**data, "deck_size": len(deck)},
            )
        ]
        for i, seat in enumerate(seats):
            events.append(
                Event("card_dealt", {"seat": seat, "card": _c(deck[i])}, (seat,), {"seat": seat})
            )
        state = None
        for e in events:
            state = self.evolve(state, e)
        events.append(self._turn_start(state, first, ctx.now))
        return events

    def _turn_start(self, state: LoveLetterState, seat: str, now: float) -> Event:
        return Event(
            "turn_started",
            {"seat": seat, "card": _c(state.deck[0]), "at": now},
            (seat,),
            {"seat": seat, "at": now},
        )

    # ---- the fold ----------------------------------------------------------
    def evolve(self, state: LoveLetterState | None, event: Event) -> LoveLetterState:
        t, d = event.type, event.data
        if t == "round_started":
            return _round_started(d)
        assert state is not None, f"{t} before round_started"
        if t == "card_dealt":
            return _draw_from_deck(state, state.idx(d["seat"]))
        s = replace(state, log=state.log + (event,))
        fold = _FOLDS.get(t)
        # guard_guessed, card_seen, cards_compared: information only
        return fold(s, d) if fold else s

    # ---- commands ----------------------------------------------------------
    def targets(self, state: LoveLetterState, seat: str, card: int) -> list[str]:
        """Who ``seat`` may target with ``card`` now ([] for untargeted cards
        and when every other player is protected, except a 5: then self)."""
        if card not in TARGETED:
            return []
        others = [s for s in state.live() if s != seat and s not in state.protected]
        if card == 5:
            return others + [seat]
        return others

    def _check_play(self, state: LoveLetterState, seat: str | None, command: Mapping[str, Any]):
        if state.finished:
            raise RuleError("the round is over")
        if seat is None or seat not in state.seats:
            raise RuleError("only a seated player can play")
        kind = command.get("type")
        if kind != "play":
            raise RuleError("Love Letter has no command {kind}; play a card", kind=shown(kind))
        if seat in state.out:
            raise RuleError("you are out of this round")
        if state.turn != seat:
            raise RuleError("it is {turn}'s turn", turn=state.turn)
        raw = command.get("card")
        if raw is None:
            raise RuleError("say which card you play")
        card = parse_rank(raw)
        if card is None:
            raise RuleError("{raw} is not a card: name a rank from 1 to 8", raw=shown(raw))
        hand = state.hand(seat)
        if card not in hand:
            raise RuleError("you do not hold {card}", card=_name(card))
        if card != 7 and countess_forced(hand):
            raise RuleError(
                "you must play the Countess (7) while you hold the King (6) or the Prince (5)"
            )
        target = command.get("target")
        guess = None
        if card not in TARGETED:
            return card, None, None  # target and guess mean nothing here
        if target is not None and not isinstance(target, str):
            raise RuleError("the target must be a player's name")
        if target is not None and target != seat:
            if target not in state.seats:
                raise RuleError("nobody called {target} is seated", target=shown(target))
            if target in state.out:
                raise RuleError("{target} is out of this round", target=target)
        others = [s for s in state.live() if s != seat and s not in state.protected]
        if not others:
            if target is not None and target != seat:
                if card == 5:
                    raise RuleError(
                        "every other player is protected: play {card} without a target (it targets yourself)",
                        card=_name(card),
                    )
                raise RuleError(
                    "every other player is protected: play {card} without a target",
                    card=_name(card),
                )
            if target == seat and card != 5:
                raise RuleError("you cannot target yourself with {card}", card=_name(card))
            return card, (seat if card == 5 else None), None
        if target is None:
            raise RuleError("choose a target for {card}", card=_name(card))
        if target not in state.seats:
            raise RuleError("nobody called {target} is seated", target=shown(target))
        if target == seat and card != 5:
            raise RuleError("you cannot target yourself with {card}", card=_name(card))
        if target in state.out:
            raise RuleError("{target} is out of this round", target=target)
        if target in state.protected:
            raise RuleError(
                "{target} is protected by the Handmaid until their next turn", target=target
            )
        if card == 1:
            raw_g = command.get("guess")
            if raw_g is None:
                raise RuleError("name the card you guess (2 to 8)")
            guess = parse_rank(raw_g)
            if guess is None:
                raise RuleError(
                    "{raw_g} is not a card you can name: guess a rank from 2 to 8",
                    raw_g=shown(raw_g),
                )
            if guess == 1:
                raise RuleError("you may not name the Guard (1): guess a card from 2 to 8")
        return card, target, guess

    def decide(self, state: LoveLetterState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if not isinstance(command, Mapping):
            raise RuleError("a command must be an object")
        card, target, guess = self._check_play(state, ctx.seat, command)
        return self._resolve(state, ctx.seat, card, target, guess, ctx.now, timeout=False)

    def _resolve(self, state, seat, card, target, guess, now, timeout) -> list[Event]:
        play = _Play(self, state)
        played = {
            "seat": seat,
            "card": _c(card),
            "target": target,
            "guess": _c(guess) if guess is not None else None,
            "at": now,
        }
        if timeout:
            played["timeout"] = True
        play.emit(Event("card_played", played))
        if card == 8:
            play.out(seat, "princess")
        elif target is not None and card in _EFFECTS:
            _EFFECTS[card](play, seat, target, guess)
        self._end_turn(play, seat, now)
        return play.events

    def _end_turn(self, play: _Play, seat: str, now: float) -> None:
        """The round ends (one player left, or the deck is empty) and its deal
        is revealed, or the next player still in starts their turn."""
        ended = _round_end(play.state)
        if ended is not None:
            play.emit(ended)
        state = play.state
        if state.finished:
            if state.salt:  # rounds dealt before commitments existed have none
                play.emit(reveal_event(state.order, state.salt, state.commitment))
            return
        i = state.idx(seat)
        n = len(state.seats)
        nxt = next(
            state.seats[(i + k) % n]
            for k in range(1, n + 1)
            if state.seats[(i + k) % n] not in state.out
        )
        play.emit(self._turn_start(state, nxt, now))

    # ---- clock -------------------------------------------------------------
    def pending(self, state: LoveLetterState) -> list[Decision]:
        if state is None or state.finished or state.turn is None:
            return []
        limit = state.options.get("decision_s", 120)
        deadline = state.turn_at + limit if limit else None
        return [Decision(state.turn, "play", deadline)]

    def timeout(self, state: LoveLetterState, decision: Decision, ctx: Ctx) -> list[Event]:
        if state.finished or decision.seat != state.turn:
            return []
        legal = self.legal_commands(state, decision.seat)
        command = ctx.rng.choice(legal)
        card, target, guess = self._check_play(state, decision.seat, command)
        return self._resolve(state, decision.seat, card, target, guess, ctx.now, timeout=True)

    def legal_commands(self, state: LoveLetterState, seat: str) -> list[dict]:
        if state is None or state.finished or state.turn != seat:
            return []
        hand = state.hand(seat)
        out: list[dict] = []
        for card in sorted(set(hand)):
            if card != 7 and countess_forced(hand):
                continue
            if card not in TARGETED:
                out.append({"type": "play", "card": _c(card)})
                continue
            targets = self.targets(state, seat, card)
            if card != 5 and not targets:
                out.append({"type": "play", "card": _c(card)})
                continue
            for t in targets:
                if card == 1:
                    for g in range(2, 9):
                        out.append({"type": "play", "card": "1", "target": t, "guess": _c(g)})
                else:
                    out.append({"type": "play", "card": _c(card), "target": t})
        return out

    # ---- reading -------------------------------------------------------------
    def outcome(self, state: LoveLetterState) -> Outcome | None:
        if state is None or not state.finished:
            return None
        return win_outcome(state.seats, state.winners, state.reason)

    def view(self, state: LoveLetterState, viewer: Viewer) -> dict:
        omniscient = viewer.kind == MODERATOR
        every_hand = omniscient or viewer.kind == EVERY_SEAT
        me = viewer.seat if viewer.kind == SEAT and viewer.seat in state.seats else None
        hands = {}
        for s in state.seats:
            if every_hand or s == me:
                hands[s] = [_c(c) for c in state.hand(s)]
            else:
                hands[s] = None
        log = []
        for e in state.log:
            data = e.for_viewer(viewer)
            if data is not None:
                log.append({"type": e.type, **copied(dict(data))})
        pend = self.pending(state)
        return {
            "game": self.slug,
            "bout": state.bout,
            "seats": list(state.seats),
            "you": me,
            "first": state.first,
            "turn": state.turn,
            "turn_no": state.turn_no,
            "deadline": pend[0].deadline if pend else None,
            "deck_size": len(state.deck),
            "hidden_set_aside": state.hidden is not None,
            "hidden": _c(state.hidden)
            if state.hidden is not None and (omniscient or state.finished)
            else None,
            "deck": [_c(c) for c in state.deck] if omniscient else None,
            "removed": [_c(c) for c in state.removed],
            "hand": hands[me] if me is not None else None,
            "hands": hands,
            "hand_sizes": {s: len(state.hand(s)) for s in state.seats},
            "discards": {s: [_c(c) for c in state.discards[state.idx(s)]] for s in state.seats},
            "discard_totals": {s: state.discard_total(s) for s in state.seats},
            "out": list(state.out),
            "protected": [s for s in state.seats if s in state.protected],
            "finished": state.finished,
            "winners": list(state.winners),
            "reason": state.reason,
            "showdown": copied(dict(state.showdown)) if state.showdown else None,
            "commitment": state.commitment,
            "revealed_deal": {
                "order": list(state.order),
                "salt": state.salt,
                "commitment": state.commitment,
            }
            if state.revealed
            else None,
            "log": log,
        }

    def seats_of(self, state: LoveLetterState) -> tuple[str, ...]:
        return state.seats


class _Play:
    """The events of one play as they are emitted, each folded into the state
    at once, so the next effect reads the state it leaves."""

    def __init__(self, rules: LoveLetterRules, state: LoveLetterState):
        self.rules, self.state = rules, state
        self.events: list[Event] = []

    def emit(self, event: Event) -> None:
        self.events.append(event)
        self.state = self.rules.evolve(self.state, event)

    def out(self, who: str, reason: str) -> None:
        cards = [_c(c) for c in self.state.hand(who)]
        self.emit(Event("player_out", {"seat": who, "cards": cards, "reason": reason}))


# ---- the cards' effects on a target ------------------------------------------
def _guard(play: _Play, seat: str, target: str, guess: int | None) -> None:
    hit = play.state.hand(target)[0] == guess
    play.emit(
        Event("guard_guessed", {"seat": seat, "target": target, "guess": _c(guess), "hit": hit})
    )
    if hit:
        play.out(target, "guard")


def _priest(play: _Play, seat: str, target: str, guess: int | None) -> None:
    play.emit(
        Event(
            "card_seen",
            {"seat": seat, "target": target, "card": _c(play.state.hand(target)[0])},
            (seat,),
            {"seat": seat, "target": target},
        )
    )


def _baron(play: _Play, seat: str, target: str, guess: int | None) -> None:
    mine, theirs = play.state.hand(seat)[0], play.state.hand(target)[0]
    loser = None if mine == theirs else (seat if mine < theirs else target)
    play.emit(
        Event(
            "cards_compared",
            {
                "seat": seat,
                "target": target,
                "cards": {seat: _c(mine), target: _c(theirs)},
                "loser": loser,
            },
            (seat, target),
            {"seat": seat, "target": target, "loser": loser},
        )
    )
    if loser is not None:
        play.out(loser, "baron")


def _prince(play: _Play, seat: str, target: str, guess: int | None) -> None:
    lost = play.state.hand(target)[0]
    play.emit(Event("card_discarded", {"seat": target, "card": _c(lost), "by": seat}))
    if lost == 8:
        play.out(target, "princess")
        return
    state = play.state
    if state.deck:
        src, new = "deck", state.deck[0]
    else:
        src, new = "hidden", state.hidden
    if new is not None:
        play.emit(
            Event(
                "card_replaced",
                {"seat": target, "from": src, "card": _c(new)},
                (target,),
                {"seat": target, "from": src},
            )
        )


def _king(play: _Play, seat: str, target: str, guess: int | None) -> None:
    mine, theirs = play.state.hand(seat)[0], play.state.hand(target)[0]
    play.emit(
        Event(
            "hands_traded",
            {"seat": seat, "target": target, "cards": {seat: _c(theirs), target: _c(mine)}},
            (seat, target),
            {"seat": seat, "target": target},
        )
    )


# a targeted card -> its effect (the Handmaid and the Countess do nothing here,
# the Princess puts her player out whatever the target)
_EFFECTS = {1: _guard, 2: _priest, 3: _baron, 5: _prince, 6: _king}


def _round_end(state: LoveLetterState) -> Event | None:
    """``round_ended`` when one player is left or the deck is empty, else None."""
    live = state.live()
    hidden = _c(state.hidden) if state.hidden is not None else None
    if len(live) == 1:
        return Event(
            "round_ended",
            {
                "winners": list(live),
                "reason": "last player in the round",
                "showdown": None,
                "hidden": hidden,
            },
        )
    if state.deck:
        return None
    hands = {s: state.hand(s)[0] if state.hand(s) else 0 for s in live}
    best = max(hands.values())
    by_card = [s for s in live if hands[s] == best]
    totals = {s: state.discard_total(s) for s in live}
    top = by_card
    if len(by_card) > 1:
        best_t = max(totals[s] for s in by_card)
        top = [s for s in by_card if totals[s] == best_t]
    if len(by_card) == 1:
        reason = "highest card"
    elif len(top) == 1:
        reason = "highest discard total"
    else:
        reason = "tied: every tied player wins"
    return Event(
        "round_ended",
        {
            "winners": top,
            "reason": reason,
            "showdown": {
                "hands": {s: _c(c) if c else None for s, c in hands.items()},
                "discard_totals": totals,
            },
            "hidden": hidden,
        },
    )


RULES = LoveLetterRules()
RULES.bots = {"heuristic": heuristic_bot}
