"""Drivers and independent checkers for the Doubting Love Letter tests."""

from __future__ import annotations

import hashlib
import json
import random
from collections import Counter

from games.core.driver import MatchDriver
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Ctx, Event, RuleError, Viewer
from games.core.registry import series_for
from games.love_letter_family.cards import DOUBTING_DECK

SERIES = series_for("doubting-love-letter")
RULES = SERIES.rules
FULL = Counter(DOUBTING_DECK)
SEATS = ("ana", "ben")
STABLE_PHASES = {"play", "challenge", "guess", "deck_rigging", "plus_one", "over"}


class Match(MatchDriver):
    """One match driven by commands and waits, every event kept."""

    def __init__(self, setup=None, items=None, options=None, seed=0, seats=SEATS):
        super().__init__(SERIES, seats, options, items, setup, seed)

    def do(self, seat, /, **command):
        return self.submit(seat, command)

    def play(self, seat, card, claim=None, target=None):
        cmd = {"type": "play", "card": str(card), "claim": str(card if claim is None else claim)}
        if target is not None:
            cmd["target"] = target
        return self.do(seat, **cmd)

    def view(self, seat):
        return RULES.view(self.bout, Viewer.of_seat(seat))


def commitment(order, salt):
    return hashlib.sha256(f"{salt}:{','.join(str(c) for c in order)}".encode()).hexdigest()


# ---- invariants of a bout state ------------------------------------------
def check_bout_state(b):
    """Cards conserved, values in range."""
    if b is None:
        return
    cards = Counter(b.removed) + Counter(b.deck)
    for h in b.hands.values():
        cards += Counter(h)
    cards += Counter(d.card for d in b.discards)
    assert cards == FULL, f"cards not conserved: {cards}"
    assert len(b.removed) == 3
    assert len(b.order) == 15
    assert Counter(b.order) == FULL
    for s in b.seats:
        assert 0 <= b.lives[s] <= 2
        assert 0 <= b.bluffs[s] <= b.options["bluffs_per_bout"]
        assert 0 <= b.reserve[s] <= b.options["reserve_s"]
        if b.phase != "over" and b.phase not in ("deck_rigging", "dealing"):
            assert len(b.hands[s]) in (1, 2)
    assert b.phase in STABLE_PHASES, f"left in a transient phase {b.phase}"
    if b.phase == "over":
        dead = [s for s in b.seats if b.lives[s] == 0]
        assert len(dead) <= 1
        if dead:
            assert b.winners == tuple(s for s in b.seats if s not in dead)
    else:
        assert all(b.lives[s] > 0 for s in b.seats)
    if b.phase == "play":
        assert len(b.hands[b.turn]) == 2
    assert b.commitment == commitment(b.order, b.salt)


# ---- the independent record of what each seat may see --------------------
# Card-bearing keys of event data, and who may see each, by the rules of
# RULES.md section 1 (not by the engine's visible_to).
SECRET_KEYS = {"card", "cards", "order", "salt", "items", "take", "deny", "bluff", "hands"}


def allowed_keys(event: Event, seat: str) -> set[str]:
    t, d = event.type, event.data
    own = d.get("seat") == seat
    if t in ("bout_started", "bout_redealt"):
        return set()  # removed cards and the commitment only
    if t in ("card_dealt", "turn_started", "card_drawn", "card_seen"):
        return {"card"} if own else set()
    if t == "card_played":
        return {"card", "bluff"} if own else set()
    if t == "cards_swapped":
        return {"cards"} if seat in (d["seat"], d["of"]) else set()
    if t == "item_used":
        return {"take", "deny"} if own else set()
    if t in ("challenged", "guessed", "card_discarded"):
        return {"card", "bluff"}
    if t == "cards_compared":
        return {"cards"}
    if t == "showdown":
        return {"hands"}
    if t == "deal_revealed":
        return {"order", "salt"}
    return set()


class LeakChecker:
    """Follows a match's events with full knowledge, records what each seat
    was shown, and checks every redacted event and every view against it."""

    def __init__(self, seats=SEATS):
        self.seats = seats
        self.reset()

    def reset(self):
        self.hand = {s: [] for s in self.seats}  # the truth
        self.challenged_turns = set()  # (seat, turn) of plays whose card was revealed
        self.turn = 0
        self.knows_opp = {s: None for s in self.seats}  # what s was shown of the other's card
        self.shown = {s: Counter() for s in self.seats}  # private notes s may hold
        self.showdown = False

    def other(self, seat):
        return self.seats[1] if seat == self.seats[0] else self.seats[0]

    def event(self, e: Event):
        if e.type == "bout_scored":
            return
        # 1. what each seat receives
        for s in self.seats:
            got = e.for_viewer(Viewer.of_seat(s))
            allowed = allowed_keys(e, s)
            if got is None:
                assert not allowed, f"{s} should see {e.type}"
                continue
            for k in SECRET_KEYS & set(got):
                if e.type == "series_started" and k == "items":
                    continue  # the series layer's own business
                assert k in allowed, f"{s} sees {k} of {e.type}: {got}"
            for k in allowed:
                assert got.get(k) == e.data.get(k), f"{s} misses {k} of {e.type}"
        spect = e.for_viewer(SPECTATOR_VIEW)
        if spect is not None and e.type != "series_started":
            public = allowed_keys(e, None)
            for k in SECRET_KEYS & set(spect):
                assert k in public, f"spectators see {k} of {e.type}"
        # 2. follow the truth (full data)
        d, t = e.data, e.type
        if t in ("bout_started", "bout_redealt"):
            self.reset()
        elif t in ("card_dealt", "card_drawn"):
            self.hand[d["seat"]].append(d["card"])
            self.knows_opp[self.other(d["seat"])] = None
        elif t == "turn_started":
            self.turn = d["turn"]
            self.hand[d["seat"]].append(d["card"])
            self.knows_opp[self.other(d["seat"])] = None
        elif t == "card_played":
            self.hand[d["seat"]].remove(d["card"])
        elif t == "challenged":
            self.challenged_turns.add((d["of"], self.turn))
        elif t == "card_discarded":
            self.hand[d["seat"]].remove(d["card"])
            self.knows_opp[self.other(d["seat"])] = None
        elif t == "card_seen":
            self.knows_opp[d["seat"]] = d["card"]
            self.shown[d["seat"]][("priest", d["card"])] += 1
        elif t == "cards_compared":
            a, b = d["seat"], d["of"]
            self.knows_opp[a], self.knows_opp[b] = d["cards"][b], d["cards"][a]
            self.shown[a][("baron", d["cards"][b])] += 1
            self.shown[b][("baron", d["cards"][a])] += 1
        elif t == "cards_swapped":
            a, b = d["seat"], d["of"]
            self.hand[a], self.hand[b] = [d["cards"][a]], [d["cards"][b]]
            self.knows_opp[a], self.knows_opp[b] = d["cards"][b], d["cards"][a]
            self.shown[a][("king", d["cards"][a])] += 1
            self.shown[b][("king", d["cards"][b])] += 1
        elif t == "showdown":
            self.showdown = True

    def views(self, bout):
        if bout is None:
            return
        for s in self.seats:
            self._seat_view(RULES.view(bout, Viewer.of_seat(s)), s, bout)
        self._public_view(RULES.view(bout, SPECTATOR_VIEW))
        mod = RULES.view(bout, MODERATOR_VIEW)
        assert {s: sorted(h) for s, h in mod["hands"].items()} == {
            s: sorted(self.hand[s]) for s in self.seats
        }

    def _discards_ok(self, v, seat):
        for d in v["discards"]:
            if d["kind"] == "forced":
                assert "card" in d
                continue
            revealed = d["seat"] == seat or (d["seat"], d["turn"]) in self.challenged_turns
            assert ("card" in d) == revealed, f"{seat or 'spectator'} sees {d}"
            assert ("bluff" in d) == revealed
        p = v.get("play")
        if p is not None:
            revealed = p["seat"] == seat or (p["seat"], p["turn"]) in self.challenged_turns
            assert ("card" in p) == revealed

    def _seat_view(self, v, seat, bout):
        assert sorted(v["hand"]) == sorted(self.hand[seat])
        for k in ("hands", "deck", "order", "salt"):
            assert k not in v, f"{seat} view has {k}"
        assert set(v["bluffs_left"]) == {seat}
        assert set(v["items"]) == {seat}
        self._discards_ok(v, seat)
        if v["opponent_card"] is not None:
            assert v["opponent_card"] == self.knows_opp[seat], "unearned knowledge"
            assert [v["opponent_card"]] == self.hand[self.other(seat)], "stale knowledge"
        notes = Counter((n["how"], n["card"]) for n in v["seen"])
        assert not notes - self.shown[seat], f"{seat} notes it was never shown: {notes}"
        if v["showdown"] is not None:
            assert self.showdown

    def _public_view(self, v):
        for k in (
            "hand",
            "hands",
            "deck",
            "order",
            "salt",
            "opponent_card",
            "seen",
            "bluffs_left",
            "items",
        ):
            assert k not in v, f"spectator view has {k}"
        self._discards_ok(v, None)


class RuleWitness:
    """Re-derives rulings from the full event stream, independently of the
    engine's state: the 8 never played or claimed, the Countess, the bluff
    limit, protection, lives, and the showdown's winner."""

    def __init__(self, seats=SEATS):
        self.seats = seats
        self.limit = 3
        self.items = {s: () for s in seats}
        self.new_deal()

    def other(self, seat):
        return self.seats[1] if seat == self.seats[0] else self.seats[0]

    def new_deal(self):
        self.hand = {s: [] for s in self.seats}
        self.lives = {s: 2 for s in self.seats}
        self.bluffs = {s: 0 for s in self.seats}
        self.sums = {s: 0 for s in self.seats}
        self.immune = set()
        self.play = None
        self.plus_one = set()
        self.showdown = None
        self.insured = getattr(self, "insured", set())

    def event(self, e: Event):
        t, d = e.type, e.data
        if getattr(self, "expect", None) is not None:
            kind, seat = self.expect
            self.expect = None
            assert (t, d.get("seat")) == (kind, seat), f"expected {kind} for {seat}, got {t}"
        if t == "bout_started":
            self.insured = set()
            self.new_deal()
            self.limit = d["options"]["bluffs_per_bout"]
            self.items = {s: tuple(v) for s, v in d["items"].items()}
        elif t == "bout_redealt":
            self.new_deal()
        elif t in ("card_dealt", "card_drawn"):
            self.hand[d["seat"]].append(d["card"])
        elif t == "turn_started":
            self.hand[d["seat"]].append(d["card"])
            self.immune.discard(d["seat"])
        elif t == "card_played":
            seat, card, claim = d["seat"], d["card"], d["claim"]
            hand = self.hand[seat]
            assert len(hand) == 2 and card in hand
            assert card != 8 and claim != 8, "the Princess was played or claimed"
            if 7 in hand and (5 in hand or 6 in hand):
                assert card == 7, "the Countess rule was broken"
            if card != claim:
                self.bluffs[seat] += 1
                assert self.bluffs[seat] <= self.limit, "too many bluffs"
            if claim == 5 and d["target"] == "opponent":
                assert self.other(seat) not in self.immune, "a Prince hit a protected player"
            hand.remove(card)
            self.sums[seat] += claim
            self.play = (seat, card, claim)
        elif t == "item_used":
            if d["item"] == "insurance":
                self.insured.add(d["seat"])
            if d["item"] == "plus_one":
                self.plus_one.add(d["seat"])
        elif t == "challenged":
            seat, card, claim = self.play
            assert d["card"] == card and d["bluff"] == (card != claim)
            if card == claim and claim == 4:
                self.immune.add(seat)
        elif t == "passed":
            seat, card, claim = self.play
            if claim == 4:
                self.immune.add(seat)
        elif t == "life_lost":
            seat = d["seat"]
            bluff_caught = d["reason"].startswith("caught bluffing")
            if bluff_caught and "insured" not in d["reason"]:
                assert d["lost"] == self.lives[seat]
            else:
                assert d["lost"] == 1
            if "insured" in d["reason"]:
                assert seat in self.insured
                self.insured.discard(seat)
            self.lives[seat] -= d["lost"]
            assert d["lives"] == self.lives[seat]
        elif t in ("card_seen", "cards_compared", "cards_swapped", "guess_asked"):
            seat = self.play[0]
            assert self.other(seat) not in self.immune, f"{t} against a protected player"
            if t == "cards_compared":
                a, b = d["seat"], d["of"]
                ca, cb = self.hand[a][0], self.hand[b][0]
                assert d["cards"] == {a: ca, b: cb}
                loser = None if ca == cb else (a if ca < cb else b)
                assert d["loser"] == loser
                if loser is not None:
                    self.expect = ("life_lost", loser)
            if t == "cards_swapped":
                a, b = d["seat"], d["of"]
                self.hand[a], self.hand[b] = [d["cards"][a]], [d["cards"][b]]
        elif t == "card_discarded":
            self.hand[d["seat"]].remove(d["card"])
            self.sums[d["seat"]] += d["card"]
            if d["card"] == 8:
                self.expect = ("life_lost", d["seat"])  # a discarded Princess costs a life
        elif t == "guessed":
            target = self.other(d["seat"])
            assert d["hit"] == (self.hand[target] == [d["card"]]) and d["card"] != 1
            if d["hit"]:
                self.expect = ("life_lost", target)
        elif t == "showdown":
            hands = {s: self.hand[s][0] for s in self.seats}
            assert d["hands"] == hands and d["sums"] == self.sums
            a, b = self.seats
            score = {s: hands[s] + (1 if s in self.plus_one else 0) for s in self.seats}
            adv = [s for s in self.seats if "advantage" in self.items[s]]
            if score[a] != score[b]:
                want = [a if score[a] > score[b] else b]
            elif len(self.plus_one) == 1:
                want = list(self.plus_one)
            elif self.sums[a] != self.sums[b]:
                want = [a if self.sums[a] > self.sums[b] else b]
            elif len(adv) == 1:
                want = adv
            else:
                want = []
            self.showdown = want
        elif t == "bout_ended":
            dead = [s for s in self.seats if self.lives[s] <= 0]
            if dead:
                assert d["winners"] == [self.other(dead[0])]
            elif self.showdown is not None:
                assert d["winners"] == self.showdown
            else:
                assert d["reason"].endswith("ran out of time")


def json_roundtrip(events):
    raw = json.loads(json.dumps([e.to_json() for e in events]))
    return [Event.from_json(r) for r in raw]


# ---- random matches with a clock --------------------------------------------
ITEM_POOL = ("plus_one", "deck_rigging", "insurance", "advantage", "dmo")


def random_items(rng):
    items = {}
    for s in SEATS:
        held = [it for it in ITEM_POOL if rng.random() < 0.3]
        if "advantage" in held and any("advantage" in v for v in items.values()):
            held.remove("advantage")
        items[s] = held
    return items


def calm(view, seat, rng, legal):
    """A test policy that reaches showdowns: truthful plays, rare challenges."""

    def pick(pred):
        cands = [c for c in legal if pred(c)]
        return rng.choice(cands) if cands else None

    if view["asked"] == seat and view["phase"] == "challenge":
        return {"type": "challenge"} if rng.random() < 0.03 else {"type": "pass"}
    return (
        pick(lambda c: c["type"] == "use_item" and rng.random() < 0.7)
        or pick(lambda c: c["type"] == "play" and c["card"] == c["claim"] and c["claim"] != "1")
        or pick(lambda c: c["type"] != "mulligan")
        or rng.choice(legal)
    )


def bot_match(
    seed, bots=("random", "heuristic"), first_to=1, items=None, options=None, slow=0.0, check=True
):
    """A match between bots; with ``slow`` > 0 some decisions take long enough
    to spend reserve or time out. Returns (events, final state)."""
    from games.core.playout import bot_command

    rng = random.Random(seed)
    opts = {"first_to": first_to, **(options or {})}
    m = Match(items=items, options=opts, seed=seed)
    bot_of = dict(zip(SEATS, bots, strict=True))
    checker = LeakChecker() if check else None
    witness = RuleWitness() if check else None
    if checker:
        for e in m.events:
            checker.event(e)
            witness.event(e)
        checker.views(m.state.bout)
    for _ in range(5000):
        if m.state.finished:
            break
        pending = SERIES.pending(m.state)
        assert pending, "stuck: nobody has a decision"
        seat = pending[0].seat
        if slow and rng.random() < slow:
            m.now += rng.choice((30, 61, 75, 95, 119, 121, 200))
        else:
            m.now += 1
        bot = bot_of[seat]
        if callable(bot) and pending[0].kind != "choose_first":
            legal = RULES.legal_commands(m.state.bout, seat)
            command = dict(bot(RULES.view(m.state.bout, Viewer.of_seat(seat)), seat, rng, legal))
        else:
            command = bot_command(SERIES, m.state, seat, "random" if callable(bot) else bot, rng)
        before = len(m.events)
        try:
            m.do(seat, **command)
        except RuleError:
            # only possible when the wait made a deadline fire first
            assert (
                SERIES.next_deadline(m.state) is not None and SERIES.next_deadline(m.state) <= m.now
            )
            m._apply(SERIES.fire_due(m.state, Ctx(now=m.now, rng=m.rng, role="system")))
        if checker:
            for e in m.events[before:]:
                checker.event(e)
                witness.event(e)
            check_bout_state(m.state.bout)
            check_bout_state(m.state.last_bout)
            checker.views(m.state.bout)
    else:
        raise AssertionError("match did not end")
    return m.events, m.state
