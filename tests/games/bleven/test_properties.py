"""Bleven property tests: whole bot matches (2 and 4 players), checked event by
event against an independent record of the deal, the bids and what each
viewer was shown."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.bleven.cards import DECK
from games.bleven.rules import RULES, random_move
from games.core.deal import verify_deal
from games.core.playout import play_match
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Ctx, Event, Viewer
from games.core.series import SERIES_EVENTS, Series

SERIES = Series(RULES)
CARDS = frozenset(DECK)
VALUE = {r: i + 1 for i, r in enumerate("A234567JQK")}


def cards_in(obj) -> set:
    out = set()
    if isinstance(obj, str):
        if obj in CARDS:
            out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= cards_in(k) | cards_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out |= cards_in(v)
    return out


# ---- an independent scorer (RULES.md 5, written again from the text) -----------------------


def expected_points(seats, fields, bid):
    """Points per seat for a duel, from the fields and the final bid."""
    d, r = bid["declarer"], bid["reviewer"]
    fd = sorted(VALUE[c[0]] for c in fields[d])
    fr = sorted(VALUE[c[0]] for c in fields[r])
    won = [k + 1 for k in range(3) if fd[k] > fr[k]]
    hit = len(won) == bid["tricks"] and set(bid["positions"]) <= set(won)
    stones = bid["stones"]
    if sum(fd) < 15 and sum(fr) < 15:
        gd = gr = 0
    elif sum(fd) < 15:
        gd, gr = 0, stones
    elif sum(fr) < 15:
        gd, gr = stones, 0
    else:
        x = bid["tricks"] ** 2 + stones
        table = {
            (True, "believe"): (2 * x, x),
            (True, "disbelieve"): (3 * x, 0),
            (False, "believe"): (0, x),
            (False, "disbelieve"): (0, 3 * x),
        }
        gd, gr = table[(hit, bid["answer"])]
        if hit:
            gd += len(bid["positions"]) * x
    n = len(seats)

    def side(s):
        i = seats.index(s)
        return {seats[i], seats[(i + 2) % 4]} if n == 4 else {s}

    return {s: (gd if s in side(d) else 0) + (gr if s in side(r) else 0) for s in seats}


class Record:
    """What happened in one round, rebuilt from the moderator's events only."""

    def __init__(self, data):
        self.seats = list(data["seats"])
        n = len(self.seats)
        deck = list(data["deck"])
        self.deck = deck
        self.commitment = data["commitment"]
        c = self.seats.index(data["cutter"])
        self.hands = {}
        for k in range(n):
            self.hands[self.seats[(c + k) % n]] = deck[3 * k : 3 * k + 3]
        self.pile = deck[3 * n :]
        self.rooms = {s: [] for s in self.seats}
        self.bid = None
        self.raise_ = 0
        self.ended = None

    def apply(self, e):
        t, d = e.type, e.data
        if t == "card_drawn":
            assert d["card"] == self.pile[0]
            self.hands[d["seat"]].append(self.pile.pop(0))
        elif t == "card_discarded":
            self.hands[d["seat"]].remove(d["card"])
            self.rooms[d["seat"]].append(d["card"])
        elif t == "bid_declared":
            i = self.seats.index(d["seat"])
            assert d["reviewer"] == self.seats[(i + 1) % len(self.seats)]
            self.bid = {
                "declarer": d["seat"],
                "reviewer": d["reviewer"],
                "tricks": d["tricks"],
                "positions": list(d["positions"]),
                "stones": d["stones"],
                "hijacked": False,
            }
        elif t == "bid_ignored":
            assert not self.bid["hijacked"] and len(self.rooms[d["seat"]]) < 5
            if d["next_reviewer"] is not None:  # four players: the declarer's right opponent
                i = self.seats.index(self.bid["declarer"])
                assert len(self.seats) == 4 and d["next_reviewer"] == self.seats[i - 1]
            self.bid["reviewer"] = d["next_reviewer"]
            if d["next_reviewer"] is None:
                self.bid = None
        elif t == "bid_hijacked":
            old = self.bid
            assert d["stones"] > old["stones"] or d["tricks"] > old["tricks"]
            self.bid = {
                "declarer": d["seat"],
                "reviewer": old["declarer"],
                "tricks": d["tricks"],
                "positions": list(d["positions"]),
                "stones": d["stones"],
                "hijacked": True,
            }
        elif t == "bid_answered":
            self.bid["answer"] = d["answer"]
            self.raise_ = d["raise"]
        elif t in ("duel_fought", "round_annulled"):
            self.ended = e
        elif t == "deal_revealed":
            # the round is over; the order dealt is the order committed to
            assert self.ended is not None
            assert d["order"] == self.deck and d["commitment"] == self.commitment
            assert verify_deal(d["commitment"], d["order"], d["salt"])

    def check_cards(self):
        held = sum(self.hands.values(), []) + sum(self.rooms.values(), []) + self.pile
        assert sorted(held) == sorted(DECK)  # all 40, none twice
        sizes = sorted(len(h) for h in self.hands.values())
        assert sizes[:-1] == [3] * (len(sizes) - 1) and sizes[-1] in (3, 4)


def check_match(events, final):
    """Every invariant over one match's events and its final state."""
    # replay (through JSON) equals the state reached step by step
    replay = SERIES.fold([Event.from_json(json.loads(json.dumps(e.to_json()))) for e in events])
    assert replay == final
    state = None
    rec = None
    seats = None
    shown = {}  # viewer key -> cards that viewer was entitled to see so far
    scored = 0
    for e in events:
        state = SERIES.evolve(state, e)
        if e.type == "series_started":
            seats = list(e.data["seats"])
            shown = {k: set() for k in seats + ["spectator"]}
            continue
        if e.type == "round_dealt":
            rec = Record(e.data)
            rec.check_cards()
            # each seat may see its own dealt field (and nothing else yet)
            shown = {s: set(rec.hands[s]) for s in seats}
            shown["spectator"] = set()
        # the independent record of what each viewer may see
        if e.type == "field_dealt":
            assert e.data["cards"] == rec.hands[e.data["seat"]]
            assert e.visible_to == (e.data["seat"],)
        elif e.type == "card_drawn":
            shown[e.data["seat"]].add(e.data["card"])
        elif e.type == "card_discarded":
            for k in shown:
                shown[k].add(e.data["card"])
        elif e.type == "duel_fought":
            for cards in e.data["fields"].values():
                for k in shown:
                    shown[k] |= set(cards)
        elif e.type == "deal_revealed":  # after the round: the whole deck is public
            for k in shown:
                shown[k] |= set(e.data["order"])
        if rec is not None and e.type not in SERIES_EVENTS and e.type != "round_dealt":
            rec.apply(e)
            rec.check_cards()
        if e.type == "bout_scored":
            scored += 1
            end = rec.ended
            assert end is not None
            if end.type == "round_annulled":
                assert rec.pile == [] and rec.bid is None
                assert set(e.data["points"].values()) == {0} and e.data["winners"] == []
            else:
                bid = dict(rec.bid, stones=rec.bid["stones"] + rec.raise_)
                assert 0 <= bid["stones"] <= 30 and bid["stones"] % 3 == 0
                assert 0 <= bid["tricks"] <= 3 and len(bid["positions"]) <= bid["tricks"]
                fields = {s: rec.hands[s] for s in (bid["declarer"], bid["reviewer"])}
                assert all(len(f) == 3 for f in fields.values())
                want = expected_points(seats, fields, bid)
                assert e.data["points"] == want, (e.data, bid, fields)
                best = max(want.values())
                if list(want.values()).count(best) == len(seats):
                    assert e.data["winners"] == []
                else:
                    assert set(e.data["winners"]) == {s for s in seats if want[s] == best}
        # no leak: each event as each viewer gets it, and each viewer's view
        bout = state.bout if state.bout is not None else state.last_bout
        for s in seats:
            v = Viewer.of_seat(s)
            assert cards_in(e.for_viewer(v)) <= shown[s], (e.type, s)
            if bout is not None and e.type not in SERIES_EVENTS:
                view = RULES.view(bout, v)
                assert cards_in(view) <= shown[s], (e.type, s)
                if bout.phase != "over":
                    assert view["hand"] == list(bout.hand(s))
        assert cards_in(e.for_viewer(SPECTATOR_VIEW)) <= shown["spectator"]
        if bout is not None:
            assert cards_in(RULES.view(bout, SPECTATOR_VIEW)) <= shown["spectator"]
    # the series view as a seat and a spectator sees it
    for s in seats:
        assert cards_in(SERIES.view(final, Viewer.of_seat(s))) <= shown[s]
    assert cards_in(SERIES.view(final, SPECTATOR_VIEW)) <= shown["spectator"]
    assert final.finished and scored == final.bout_no
    totals = {s: sum(h["points"][s] for h in final.history) for s in seats}
    assert totals == dict(final.scores)
    assert max(totals.values()) >= final.target
    return scored


def drive(n, seed, kinds, options=None, timeouts=0.0):
    """A match played command by command; ``kinds`` per seat: random (uniform over
    legal commands), typed (a kind of move first), heuristic; with probability
    ``timeouts`` a decision is left to run out instead."""
    rng = random.Random(seed)
    seats = ["ana", "ben", "cid", "dan"][:n]
    now = 0.0
    events = SERIES.start(Ctx(now=now, rng=rng, role="system"), seats, options)
    state = SERIES.fold(events)
    for _ in range(20_000):
        if state.finished:
            break
        (dec,) = SERIES.pending(state)
        if dec.deadline is not None and rng.random() < timeouts:
            now = dec.deadline
            # fire_due, not decide({"type": "timeout"}): the core's decide raises "the
            # match is over" when the fired timeout itself ends the match
            new = SERIES.fire_due(state, Ctx(now=now, rng=rng, role="system"))
        else:
            seat = dec.seat
            legal = RULES.legal_commands(state.bout, seat)
            assert legal
            for other in seats:
                if other != seat:
                    assert RULES.legal_commands(state.bout, other) == []
            kind = kinds[seat]
            if kind == "random":
                cmd = rng.choice(legal)
            elif kind == "typed":
                cmd = random_move(legal, rng)
            elif kind == "patient":  # rarely bids, so the pile can run out
                draw = {"type": "draw"}
                cmd = draw if draw in legal and rng.random() < 0.97 else random_move(legal, rng)
            else:
                cmd = RULES.bots[kind](
                    RULES.view(state.bout, Viewer.of_seat(seat)), seat, rng, legal
                )
                assert cmd in legal
            now += 1.0
            new = SERIES.decide(state, cmd, Ctx(now=now, rng=rng, seat=seat))
        assert new
        for e in new:
            state = SERIES.evolve(state, e)
        events += new
    assert state.finished
    return events, state


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.sampled_from([2, 4]),
    kinds=st.lists(st.sampled_from(["random", "typed", "heuristic"]), min_size=4, max_size=4),
    timeouts=st.sampled_from([0.0, 0.1]),
)
def test_random_matches_keep_every_invariant(seed, n, kinds, timeouts):
    seats = ["ana", "ben", "cid", "dan"][:n]
    events, state = drive(n, seed, dict(zip(seats, kinds[:n], strict=True)), timeouts=timeouts)
    check_match(events, state)


def test_play_match_random_and_heuristic_bots():
    """Seeded matches through the project's own playout, every bot mix."""
    rounds = 0
    for seed in range(40):
        n = 2 if seed % 2 else 4
        seats = ["ana", "ben", "cid", "dan"][:n]
        mix = ["random", "heuristic"][seed % 3 == 0 :] if seed % 3 else ["heuristic", "random"]
        bots = {s: mix[i % len(mix)] for i, s in enumerate(seats)}
        events, state = play_match(SERIES, seats, bots, random.Random(seed))
        rounds += check_match(events, state)
    assert rounds >= 40


def test_many_quick_rounds_cover_every_ending():
    """Many single rounds (first_to 1 stone) with type-first random moves reach
    every way a round can end: matrix, 15-point rule, both under, empty pile."""
    kinds_seen = set()
    for seed in range(150):
        n = 2 if seed % 3 else 4
        seats = ["ana", "ben", "cid", "dan"][:n]
        kind = "patient" if seed % 5 == 0 else "typed"
        events, state = drive(n, seed, {s: kind for s in seats}, options={"first_to": 1})
        check_match(events, state)
        for e in events:
            if e.type == "duel_fought":
                kinds_seen.add(e.data["kind"])
                kinds_seen.add("positions" if e.data["positions"] and e.data["hit"] else "plain")
                kinds_seen.add("hijacked" if e.data["hijacked"] else "declared")
                kinds_seen.add("raised" if e.data["raised"] else "unraised")
            elif e.type in ("round_annulled", "bid_ignored", "bid_hijacked"):
                kinds_seen.add(e.type)
    assert kinds_seen >= {
        "matrix",
        "under_15",
        "annulled",
        "round_annulled",
        "bid_ignored",
        "bid_hijacked",
        "positions",
        "plain",
        "hijacked",
        "declared",
        "raised",
        "unraised",
    }


def test_the_checker_catches_a_leak():
    """The leak check is able to fail: a view that shows the pile is caught."""
    events, state = drive(2, 7, {"ana": "typed", "ben": "typed"}, options={"first_to": 1})
    original = RULES.view

    def leaky(bout, viewer):
        out = original(bout, viewer)
        out["pile"] = list(bout.pile)
        return out

    RULES.view = leaky
    try:
        try:
            check_match(events, state)
        except AssertionError:
            caught = True
        else:
            caught = False
    finally:
        del RULES.view
    assert RULES.view(state.last_bout, MODERATOR_VIEW) is not None
    assert caught


def test_the_checker_catches_wrong_points():
    """The stones check is able to fail: a doubled award is caught."""
    events, state = drive(2, 11, {"ana": "heuristic", "ben": "heuristic"})
    doctored = []
    for e in events:
        if e.type == "bout_scored" and any(e.data["points"].values()):
            e = Event(e.type, {**e.data, "points": {s: 2 * p for s, p in e.data["points"].items()}})
        doctored.append(e)
    final = SERIES.fold(doctored)
    try:
        check_match(doctored, final)
    except AssertionError:
        return
    raise AssertionError("doubled points were not noticed")
