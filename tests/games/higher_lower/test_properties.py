"""Property tests for Higher or Lower: bot matches through the core's
play_match, and hypothesis-driven games mixing legal moves, junk commands and
waits. Invariants: chips never negative, stakes within the chips held, the
cards used once each, the end decided by the declared amount, replay (also
through JSON) equals the state, and no secret pick or guess reaches the other
seat or a spectator before the reveal."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core.playout import bot_command, play_match
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Ctx, Event, RuleError, Viewer

from .helpers import RULES, SEATS, SERIES

BOT_PAIRS = [
    ("random", "random"),
    ("heuristic", "heuristic"),
    ("random", "heuristic"),
    ("heuristic", "random"),
]


# ---- invariants over a finished log ------------------------------------------------


def replay_checks(events, state):
    assert SERIES.fold(events) == state
    wire = [Event.from_json(json.loads(json.dumps(e.to_json()))) for e in events]
    assert SERIES.fold(wire) == state


def check_auction(events, bout):
    bids = [e.data for e in events if e.type == "bid_made"]
    standing, holder = None, None
    for b in bids:
        assert b["seat"] != holder, "a seat raised its own bid"
        if standing is None:
            assert b["amount"] >= 10 and b["amount"] % 10 == 0
        else:
            step = 10 if standing < 1000 else 50
            assert b["amount"] > standing and (b["amount"] - standing) % step == 0
        standing, holder = b["amount"], b["seat"]
    (closed,) = [e.data for e in events if e.type == "auction_closed"]
    if bids:
        assert closed["how"] == "bid"
        assert (closed["guesser"], closed["declared"]) == (holder, standing)
        assert closed["at"] == bids[-1]["at"] + bout.auction_close_s
    else:
        assert closed["how"] == "coin" and closed["declared"] == 10
        assert closed["at"] == bout.opened_at + bout.auction_close_s
    assert {closed["guesser"], closed["dealer"]} == set(bout.seats)


def check_turns(events, bout):
    chips = 25
    shown = [e.data["card"] for e in events if e.type == "card_shown"]
    used = list(shown)
    for e in events:
        if e.type != "turn_revealed":
            continue
        d = e.data
        assert 0 <= d["stake"] <= chips, "stake beyond the chips held"
        assert d["previous"] == used[-1]
        assert d["card"] not in used and 1 <= d["card"] <= 25
        right = (
            d["card"] > d["previous"] if d["direction"] == "higher" else d["card"] < d["previous"]
        )
        assert d["correct"] == right
        chips = chips + d["stake"] if right else chips - d["stake"]
        assert d["chips"] == chips >= 0
        used.append(d["card"])
    assert bout.chips == chips
    if bout.finished:
        assert sorted(used) == list(range(1, 26)) and len(bout.history) == 24
        out = RULES.outcome(bout)
        want = bout.guesser if chips >= bout.declared else bout.dealer
        assert out.winners == (want,)


def check_event_visibility(events):
    """Secret submissions carry their secret only for their own seat."""
    roles = {}
    for e in events:
        if e.type == "auction_closed":
            roles = {"guesser": e.data["guesser"], "dealer": e.data["dealer"]}
        if e.type == "card_picked":
            assert e.visible_to == (roles["dealer"],)
            for v in (Viewer.of_seat(roles["guesser"]), SPECTATOR_VIEW):
                assert "card" not in e.for_viewer(v)
            assert e.for_viewer(MODERATOR_VIEW)["card"] == e.data["card"]
        if e.type == "guess_made":
            assert e.visible_to == (roles["guesser"],)
            for v in (Viewer.of_seat(roles["dealer"]), SPECTATOR_VIEW):
                seen = e.for_viewer(v)
                assert "direction" not in seen and "stake" not in seen


def test_bot_matches():
    """A few hundred seeded bot games through the core's play_match."""
    coin = bid = 0
    for seed in range(240):
        bots = dict(zip(SEATS, BOT_PAIRS[seed % len(BOT_PAIRS)], strict=True))
        events, state = play_match(SERIES, SEATS, bots, random.Random(seed))
        assert state.finished
        bout = state.last_bout
        check_auction(events, bout)
        check_turns(events, bout)
        check_event_visibility(events)
        replay_checks(events, state)
        coin += bout.chosen_by == "coin"
        bid += bout.chosen_by == "bid"
    assert coin and bid  # both ways of closing the auction were played


def test_bot_matches_with_several_games():
    for seed in range(20):
        events, state = play_match(
            SERIES,
            SEATS,
            dict(zip(SEATS, BOT_PAIRS[seed % 4], strict=True)),
            random.Random(seed),
            options={"first_to": 2},
        )
        assert state.finished and max(state.scores.values()) == 2
        assert sum(e.type == "game_started" for e in events) == len(state.history)
        replay_checks(events, state)


# ---- step by step: non-interference of the secrets ------------------------------------


VIEWERS = [Viewer.of_seat(s) for s in SEATS] + [SPECTATOR_VIEW]


def others(bout, owner):
    return [v for v in VIEWERS if v.seat != owner]


def views(state, viewers):
    return [SERIES.view(state, v) for v in viewers]


def check_secrets_hidden(state):
    """Changing a pending secret changes nothing the other seat or a
    spectator can see."""
    bout = state.bout
    if bout is None or bout.phase != "turns":
        return
    if bout.pick is not None:
        alt = [c for c in bout.remaining if c != bout.pick]
        if alt:
            other_state = replace(state, bout=replace(bout, pick=alt[0]))
            vs = others(bout, bout.dealer)
            assert views(state, vs) == views(other_state, vs)
        for v in others(bout, bout.dealer):
            assert SERIES.view(state, v)["bout"]["pick"] is None
        assert SERIES.view(state, Viewer.of_seat(bout.dealer))["bout"]["pick"] == bout.pick
    if bout.guess is not None:
        direction, stake = bout.guess
        flipped = ("lower" if direction == "higher" else "higher", 0 if stake else bout.chips)
        other_state = replace(state, bout=replace(bout, guess=flipped))
        vs = others(bout, bout.guesser)
        assert views(state, vs) == views(other_state, vs)
        for v in vs:
            assert SERIES.view(state, v)["bout"]["guess"] is None


def alternative(bout, command):
    """The same first submission with a different secret, or None."""
    if command["type"] == "pick":
        alt = [c for c in bout.remaining if c != command["card"]]
        return {**command, "card": alt[0]} if alt else None
    if command["type"] == "guess":
        d = "lower" if command["direction"] == "higher" else "higher"
        return {**command, "direction": d, "stake": 0 if command["stake"] else bout.chips}
    return None


def check_first_submission_events(state, command, ctx, new):
    bout = state.bout
    if bout is None or any(e.type == "turn_revealed" for e in new):
        return
    alt = alternative(bout, command)
    if alt is None:
        return
    alt_new = SERIES.decide(state, alt, ctx)
    owner = ctx.seat
    for v in others(bout, owner):
        assert [e.for_viewer(v) for e in new] == [e.for_viewer(v) for e in alt_new]


def check_record(events, state):
    """What each seat was shown (its projection of the log) against its view."""
    bout = state.bout if state.bout is not None else state.last_bout
    if bout is None or bout.guesser is None:
        return
    start = max(i for i, e in enumerate(events) if e.type == "game_started")
    for v in VIEWERS:
        cards = []
        for e in events[start:]:
            seen = e.for_viewer(v)
            if seen is None:
                continue
            if e.type in ("card_shown", "turn_revealed"):
                cards.append(seen["card"])
            if e.type == "card_picked" and v.seat != bout.dealer:
                assert "card" not in seen
            if e.type == "guess_made" and v.seat != bout.guesser:
                assert "direction" not in seen and "stake" not in seen
        assert RULES.view(bout, v)["revealed"] == cards


def test_step_by_step_bot_games_keep_secrets():
    for seed in range(30):
        rng = random.Random(seed)
        bots = dict(zip(SEATS, BOT_PAIRS[seed % 4], strict=True))
        now = 0.0
        events = SERIES.start(Ctx(now=now, rng=rng, role="system"), SEATS)
        state = SERIES.fold(events)
        while not state.finished:
            pending = SERIES.pending(state)
            seat = pending[rng.randrange(len(pending))].seat
            command = bot_command(SERIES, state, seat, bots[seat], rng)
            now += 1.0
            if command is None:  # this bot waits; time passes
                new = SERIES.fire_due(state, Ctx(now=now, rng=rng, role="system"))
            else:
                ctx = Ctx(now=now, rng=rng, seat=seat)
                new = SERIES.decide(state, command, ctx)
                check_first_submission_events(state, command, ctx, new)
            for e in new:
                state = SERIES.evolve(state, e)
            events += new
            check_secrets_hidden(state)
            check_record(events, state)
        replay_checks(events, state)


# ---- hypothesis: legal moves, junk and waits ----------------------------------------------

junk = st.one_of(
    st.builds(lambda a: {"type": "bid", "amount": a}, st.integers(-20, 2600)),
    st.builds(
        lambda a: {"type": "bid", "amount": a}, st.sampled_from([None, "30", "x", 10.0, True])
    ),
    st.just({"type": "pass"}),
    st.builds(lambda c: {"type": "show", "card": c}, st.integers(-1, 27)),
    st.builds(lambda c: {"type": "pick", "card": c}, st.one_of(st.integers(-1, 27), st.just("7"))),
    st.builds(
        lambda d, s, t: {"type": "guess", "direction": d, "stake": s, **({"turn": t} if t else {})},
        st.sampled_from(["higher", "lower", "up", None]),
        st.integers(-2, 120),
        st.sampled_from([None, 1, 2, 24]),
    ),
    st.just({"type": "bogus"}),
)
legal_move = st.tuples(st.just("legal"), st.sampled_from(SEATS), st.integers(0, 10_000))
junk_move = st.tuples(st.just("junk"), st.sampled_from(SEATS + ("cy",)), junk)
action = st.one_of(
    legal_move,
    legal_move,
    junk_move,
    junk_move,
    st.tuples(st.just("wait"), st.none(), st.sampled_from([0.1, 1, 5, 14.9, 15, 30, 45, 100, 400])),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**16),
    prelude=st.sampled_from(["none", "auction", "show"]),
    actions=st.lists(action, min_size=10, max_size=80),
)
def test_random_play_keeps_the_invariants(seed, prelude, actions):
    rng = random.Random(seed)
    now = 0.0
    events = SERIES.start(Ctx(now=now, rng=rng, role="system"), SEATS)
    state = SERIES.fold(events)
    if prelude != "none":  # start later in the game: a bid, the close, maybe the show
        seat = SEATS[seed % 2]
        events += SERIES.decide(
            state, {"type": "bid", "amount": 10 * (1 + seed % 5)}, Ctx(now=now, rng=rng, seat=seat)
        )
        now += 15
        events += SERIES.fire_due(SERIES.fold(events), Ctx(now=now, rng=rng, role="system"))
        state = SERIES.fold(events)
        if prelude == "show":
            events += SERIES.decide(
                state,
                {"type": "show", "card": 1 + seed % 25},
                Ctx(now=now, rng=rng, seat=state.bout.dealer),
            )
            state = SERIES.fold(events)
    for kind, seat, arg in actions:
        if state.finished:
            break
        if kind == "wait":
            now += arg
            new = SERIES.fire_due(state, Ctx(now=now, rng=rng, role="system"))
            command = ctx = None
        else:
            if kind == "legal":
                legal = RULES.legal_commands(state.bout, seat)
                if not legal:
                    continue
                command = legal[arg % len(legal)]
            else:
                command = arg
            ctx = Ctx(now=now, rng=rng, seat=seat)
            try:
                new = SERIES.decide(state, command, ctx)
            except RuleError as exc:
                assert kind == "junk", f"a legal command was refused: {command} ({exc})"
                continue
        if command is not None:
            check_first_submission_events(state, command, ctx, new)
        for e in new:
            state = SERIES.evolve(state, e)
        events += new
        bout = state.bout if state.bout is not None else state.last_bout
        assert bout.chips >= 0
        if bout.guess is not None:
            assert 0 <= bout.guess[1] <= bout.chips
        if bout.pick is not None:
            assert bout.pick in bout.remaining
        assert len(bout.revealed) + len(bout.remaining) == 25
        assert set(bout.revealed) | set(bout.remaining) == set(range(1, 26))
        check_secrets_hidden(state)
        check_record(events, state)
    replay_checks(events, state)
    bout = state.bout if state.bout is not None else state.last_bout
    if bout.guesser is not None:
        check_auction(events, bout)
        check_turns(events, bout)
    check_event_visibility(events)
