"""Property tests: random bot matches (random, heuristic and a calm policy
that reaches showdowns), with and without clock pressure and items, checked
after every command against independent records:

- the 15 cards are all accounted for (removed + hands + deck + discards);
- lives, bluff counts and reserve stay in range; no transient phase is left;
- replaying the events (also through JSON) rebuilds the identical state;
- no seat's view or redacted event ever holds a card that seat was not shown
  (LeakChecker), and the rulings agree with a re-derivation from the event
  stream (RuleWitness: 8, Countess, bluff limit, protection, lives, showdown);
- legal_commands lists exactly the commands decide accepts.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.core.protocol import Ctx, RuleError
from games.doubting_love_letter.rules import Discard

from .helpers import (
    RULES,
    SEATS,
    SERIES,
    Match,
    bot_match,
    calm,
    check_bout_state,
    json_roundtrip,
    random_items,
)

POLICIES = (calm, "random", "heuristic")
ANA, BEN = SEATS


def random_options(rng):
    opts = {}
    if rng.random() < 0.3:
        opts["bluffs_per_bout"] = rng.choice((0, 1, 2, 5))
    if rng.random() < 0.2:
        opts["reserve_s"] = rng.choice((0, 30, 45))
        opts["reserve_step_s"] = rng.choice((10, 15))
    if rng.random() < 0.1:
        opts["decision_s"] = 0
    return opts


def test_seeded_bot_bouts():
    """About a thousand bouts of every pairing, with items and slow moves."""
    seen = Counter()
    bouts, seed = 0, 0
    while bouts < 1000:
        rng = random.Random(seed)
        pair = (POLICIES[seed % 3], POLICIES[(seed // 3) % 3])
        events, state = bot_match(
            seed,
            bots=pair,
            first_to=2,
            items=random_items(rng),
            options=random_options(rng),
            slow=0.12 if seed % 4 == 0 else 0.0,
        )
        assert state.finished
        assert SERIES.fold(events) == state
        assert SERIES.fold(json_roundtrip(events)) == state
        bouts += state.bout_no
        seed += 1
        for e in events:
            seen[e.type] += 1
            if e.type == "showdown":
                seen["showdown:" + e.data["how"]] += 1
            if e.type == "item_used":
                seen["item:" + e.data["item"]] += 1
            if e.type == "card_played" and e.data["bluff"]:
                seen["bluff"] += 1
            if e.type == "life_lost" and "insured" in e.data["reason"]:
                seen["insured catch"] += 1
    # the loop really exercised the rules (so the invariants above mean something)
    for kind in (
        "timed_out",
        "mulligan",
        "bout_redealt",
        "cards_swapped",
        "cards_compared",
        "card_seen",
        "guessed",
        "no_effect",
        "card_discarded",
        "showdown:card",
        "showdown:discards",
        "showdown:plus_one",
        "item:deck_rigging",
        "item:plus_one",
        "item:insurance",
        "insured catch",
        "bluff",
        "item_declined",
    ):
        assert seen[kind] > 0, f"never saw {kind}: {seen}"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**32 - 1),
    a=st.sampled_from(range(3)),
    b=st.sampled_from(range(3)),
    slow=st.sampled_from((0.0, 0.05, 0.3)),
)
def test_random_matches(seed, a, b, slow):
    rng = random.Random(seed)
    events, state = bot_match(
        seed,
        bots=(POLICIES[a], POLICIES[b]),
        first_to=1,
        items=random_items(rng),
        options=random_options(rng),
        slow=slow,
    )
    assert state.finished and len(state.winners) == 1
    assert SERIES.fold(events) == state


# ---- legal_commands is exactly what decide accepts -----------------------------------
def _universe():
    cmds = []
    for card in range(1, 9):
        for claim in range(1, 9):
            for target in (None, "self", "opponent"):
                c = {"type": "play", "card": str(card), "claim": str(claim)}
                if target:
                    c["target"] = target
                cmds.append(c)
    cmds += [{"type": "guess", "card": str(c)} for c in range(1, 9)]
    cmds += [{"type": t} for t in ("challenge", "pass", "mulligan", "choose_first")]
    cmds += [{"type": "use_item", "item": i} for i in ("insurance", "plus_one", "advantage", "dmo")]
    for take in range(1, 9):
        cmds.append({"type": "use_item", "item": "deck_rigging", "take": str(take)})
        for deny in range(1, 9):
            cmds.append(
                {"type": "use_item", "item": "deck_rigging", "take": str(take), "deny": str(deny)}
            )
    return cmds


UNIVERSE = _universe()


def _norm(c):
    c = {k: v for k, v in c.items() if v is not None}
    if c["type"] == "play" and c["claim"] != "5":
        c.pop("target", None)
    return tuple(sorted(c.items()))


def check_legal_complete(bout):
    for seat in SEATS:
        legal = {_norm(c) for c in RULES.legal_commands(bout, seat)}
        accepted = set()
        for cmd in UNIVERSE:
            try:
                RULES.decide(bout, cmd, Ctx(now=bout.asked_at, rng=random.Random(0), seat=seat))
            except RuleError:
                continue
            accepted.add(_norm(cmd))
        assert accepted == legal, (seat, bout.phase, accepted ^ legal)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_legal_commands_are_exactly_the_accepted_ones(seed):
    rng = random.Random(seed)
    items = {ANA: ["insurance", "dmo", "plus_one", "deck_rigging"], BEN: random_items(rng)[BEN]}
    options = {"first_to": 1, "bluffs_per_bout": rng.choice((0, 1, 3))}
    m = Match(items=items, options=options, seed=seed)
    if m.state.bout is None:
        m.do(ANA, type="choose_first", seat=rng.choice(SEATS))
    checks = 0
    while not m.state.finished and checks < 12:
        bout = m.state.bout
        if rng.random() < 0.5:
            check_legal_complete(bout)
            checks += 1
        seat = RULES.pending(bout)[0].seat
        legal = RULES.legal_commands(bout, seat)
        m.do(seat, **rng.choice(legal))


# ---- the showdown, against the rule written out independently -------------------------
@settings(max_examples=150, deadline=None)
@given(
    hands=st.one_of(
        st.integers(1, 8).map(lambda c: (c, c)),  # ties on cards are the interesting case
        st.tuples(st.integers(1, 8), st.integers(1, 8)),
    ),
    discards=st.one_of(
        st.just([(BEN, True, 7, 1)]),  # discard sums tied (ana's claimed 7 against ben's)
        st.lists(
            st.tuples(st.sampled_from(SEATS), st.booleans(), st.integers(1, 7), st.integers(1, 8)),
            max_size=10,
        ),
    ),
    plus=st.tuples(st.booleans(), st.booleans()),
    use=st.tuples(st.booleans(), st.booleans()),
    advantage=st.sampled_from((None, ANA, BEN)),
)
def test_showdown_ruling(hands, discards, plus, use, advantage):
    items = {s: [] for s in SEATS}
    for seat, has in zip(SEATS, plus, strict=True):
        if has:
            items[seat].append("plus_one")
    if advantage:
        items[advantage].append("advantage")
    m = Match(
        setup={"removed": ["3", "5", "6"], "deck": ["1", "2", "7"], "first": ANA}, items=items
    )
    m.play(ANA, 7)  # claim 7: no effect; ben is now asked to challenge
    bout = m.bout
    piles = bout.discards + tuple(
        Discard(seat, "played", card, claim) if played else Discard(seat, "forced", card)
        for seat, played, claim, card in discards
    )
    bout = replace(bout, deck=(), hands={ANA: (hands[0],), BEN: (hands[1],)}, discards=piles)
    events = RULES.decide(bout, {"type": "pass"}, Ctx(now=0.0, rng=random.Random(), seat=BEN))
    for e in events:
        bout = RULES.evolve(bout, e)
    for seat, has, wants in zip(SEATS, plus, use, strict=True):
        if has:
            assert [d.seat for d in RULES.pending(bout)] == [seat]  # first player first
            cmd = {"type": "use_item", "item": "plus_one"} if wants else {"type": "pass"}
            for e in RULES.decide(bout, cmd, Ctx(now=0.0, rng=random.Random(), seat=seat)):
                bout = RULES.evolve(bout, e)
    used = {s for s, has, wants in zip(SEATS, plus, use, strict=True) if has and wants}
    score = {s: h + (1 if s in used else 0) for s, h in zip(SEATS, hands, strict=True)}
    sums = {s: 7 if s == ANA else 0 for s in SEATS}  # ana's claimed 7
    for seat, played, claim, card in discards:
        sums[seat] += claim if played else card
    if score[ANA] != score[BEN]:
        want = (max(SEATS, key=score.get),)
    elif len(used) == 1:
        want = tuple(used)
    elif sums[ANA] != sums[BEN]:
        want = (max(SEATS, key=sums.get),)
    elif advantage:
        want = (advantage,)
    else:
        want = ()
    out = RULES.outcome(bout)
    assert out is not None and out.winners == want
    assert out.points == {s: (1 if s in want else 0) for s in SEATS}


# ---- stacked setups ------------------------------------------------------------------
@settings(max_examples=60, deadline=None)
@given(
    order=st.permutations([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8]),
    n_removed=st.integers(0, 3),
    n_deck=st.integers(0, 12),
    seed=st.integers(0, 1000),
)
def test_stacked_setup_is_respected(order, n_removed, n_deck, seed):
    removed, deck = order[:n_removed], order[3 : 3 + n_deck]
    m = Match(
        setup={
            "removed": [str(c) for c in removed],
            "deck": [str(c) for c in deck],
            "first": BEN,
            "seed": seed,
        }
    )
    b = m.bout
    check_bout_state(b)
    assert list(b.removed[:n_removed]) == removed
    dealt_then_drawn = [b.hands[ANA][0], b.hands[BEN][0], b.hands[BEN][1]] + list(b.deck)
    assert dealt_then_drawn[:n_deck] == deck
