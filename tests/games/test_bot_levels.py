"""Bots at levels (issue #46): a bot decides from its seat's view only.

States are reached by random legal play with a seeded rng. For each, the
game's ``sample_state`` must rebuild a state its seat cannot tell from the
true one (the same view, the same legal moves); the true state's hidden cards
re-dealt by this test (its own permutation, not the sampler) must not change
the level 2-4 move made with the same seed; and every level plays whole bouts
with legal moves only.
"""

from __future__ import annotations

import dataclasses
import importlib
import math
import random

import pytest

from games.core.protocol import Ctx, Outcome, RuleError, Viewer
from games.core.registry import series_for
from games.core.search import LEVEL_SLIPS, Budget, erring, level_bots

SEATS = ("ana", "bob", "cy", "dee")
# (game, seats, items): every game at two seats, the four-seat games at four,
# Doubting Love Letter with its items (their windows are decisions too)
TABLES = [
    ("doubting-love-letter", 2, None),
    (
        "doubting-love-letter",
        2,
        {"ana": ["deck_rigging", "plus_one", "insurance"], "bob": ["deck_rigging", "dmo"]},
    ),
    ("love-letter", 2, None),
    ("love-letter", 4, None),
    ("love-me-not", 2, None),
    ("higher-lower", 2, None),
    ("bleven", 2, None),
    ("bleven", 4, None),
]
SMALL = {2: Budget(6, math.inf), 3: Budget(10, math.inf), 4: Budget(10, math.inf)}


def spec_of(slug: str):
    rules = series_for(slug).rules
    return importlib.import_module(type(rules).__module__.replace(".rules", ".levels")).SPEC


def reached_states(slug, n_seats, items, matches=3, seed=7):
    """(bout state, seat) for every decision of random matches, seat to move."""
    series = series_for(slug)
    seats = SEATS[:n_seats]
    rng = random.Random(seed)
    found = []
    for _ in range(matches):
        now = 0.0
        state = series.fold(
            series.start(Ctx(now=now, rng=rng, role="system"), seats, None, items, None)
        )
        for _ in range(400):
            if state.finished:
                break
            seat, command = None, None
            for d in series.pending(state):
                legal = series.rules.legal_commands(state.bout, d.seat) if state.bout else []
                if d.kind == "choose_first":
                    seat, command = d.seat, {"type": "choose_first", "seat": d.seat}
                    break
                if legal:
                    seat, command = d.seat, rng.choice(legal)
                    found.append((state.bout, seat))
                    break
            if command is None:
                now = max(now + 1, series.next_deadline(state))
                new = series.decide(
                    state, {"type": "timeout"}, Ctx(now=now, rng=rng, role="system")
                )
            else:
                now += 1
                new = series.decide(state, command, Ctx(now=now, rng=rng, seat=seat))
            for e in new:
                state = series.evolve(state, e)
    return found


# ---- the test's own re-deal: the true state's hidden cards permuted ------------------
def _swap_llm(state, seat, rng):
    """Love Me Not: the opponent's hand, hidden keeps, pile and the deck."""
    o = 1 - state.idx(seat)
    r = state.revealed
    hidden = list(state.hands[o]) + list(state.tableaus[o][r:]) + list(state.piles[o])
    hidden += list(state.deck)
    rng.shuffle(hidden)
    hand, hidden = tuple(hidden[: len(state.hands[o])]), hidden[len(state.hands[o]) :]
    n_tab = len(state.tableaus[o]) - r
    tab = state.tableaus[o][:r] + tuple(hidden[:n_tab])
    pile = tuple(hidden[n_tab : n_tab + len(state.piles[o])])
    deck = tuple(hidden[n_tab + len(pile) :])
    choices = list(state.choices)
    if choices[o] is not None:
        choices[o] = (tab[-1], pile[-1], choices[o][2])
    return dataclasses.replace(
        state,
        hands=_put(state.hands, o, hand),
        tableaus=_put(state.tableaus, o, tab),
        piles=_put(state.piles, o, pile),
        deck=deck,
        choices=tuple(choices),
    )


def _put(tup, i, value):
    return tup[:i] + (value,) + tup[i + 1 :]


def _swap_ll(state, seat, rng):
    """Love Letter: the other hands, the deck and the card set aside."""
    others = [i for i, s in enumerate(state.seats) if s != seat]
    cards = [c for i in others for c in state.hands[i]] + list(state.deck)
    if state.hidden is not None:
        cards.append(state.hidden)
    rng.shuffle(cards)
    hands = list(state.hands)
    for i in others:
        hands[i], cards = tuple(cards[: len(hands[i])]), cards[len(hands[i]) :]
    hidden = cards.pop() if state.hidden is not None else None
    return dataclasses.replace(state, hands=tuple(hands), deck=tuple(cards), hidden=hidden)


def _swap_bleven(state, seat, rng):
    """Bleven: the other fields and the draw pile."""
    others = [i for i, s in enumerate(state.seats) if s != seat]
    cards = [c for i in others for c in state.hands[i]] + list(state.pile)
    rng.shuffle(cards)
    hands = list(state.hands)
    for i in others:
        hands[i], cards = tuple(cards[: len(hands[i])]), cards[len(hands[i]) :]
    drawn = state.drawn
    if drawn is not None and state.turn != seat:
        drawn = hands[state.idx(state.turn)][-1]
    return dataclasses.replace(state, hands=tuple(hands), pile=tuple(cards), drawn=drawn)


def _swap_hl(state, seat, rng):
    """Higher or Lower: the other seat's secret move of this turn."""
    if state.pick is not None and seat != state.dealer:
        return dataclasses.replace(state, pick=rng.choice(state.remaining))
    if state.guess is not None and seat != state.guesser:
        return dataclasses.replace(
            state, guess=(rng.choice(("higher", "lower")), rng.randint(0, state.chips))
        )
    return state


def _swap_dll(state, seat, rng):
    """Doubting Love Letter: the opponent's hand, the deck and the cards
    behind the opponent's unchallenged plays (bluff counts follow)."""
    other = state.other(seat)
    slots = [
        i
        for i, d in enumerate(state.discards)
        if d.seat == other and d.kind == "played" and not d.challenged
    ]
    cards = [state.discards[i].card for i in slots] + list(state.hands[other])
    cards += list(state.deck)
    rng.shuffle(cards)
    discards = list(state.discards)
    for i in slots:
        discards[i] = dataclasses.replace(discards[i], card=cards.pop())
    n = len(state.hands[other])
    hand, deck = tuple(cards[:n]), tuple(cards[n:])
    bluffs = sum(1 for d in discards if d.seat == other and d.bluff)
    play = state.play
    if play is not None and discards and play.seat == other and play.turn == discards[-1].turn:
        play = discards[-1]
    return dataclasses.replace(
        state,
        discards=tuple(discards),
        hands={**state.hands, other: hand},
        deck=deck,
        bluffs={**state.bluffs, other: bluffs},
        play=play,
    )


REDEAL = {
    "love-me-not": _swap_llm,
    "love-letter": _swap_ll,
    "bleven": _swap_bleven,
    "higher-lower": _swap_hl,
    "doubting-love-letter": _swap_dll,
}


def _id(table):
    slug, n, items = table
    return f"{slug}-{n}" + ("-items" if items else "")


@pytest.mark.parametrize("table", TABLES, ids=_id)
def test_sampled_states_look_the_same_from_the_seat(table):
    slug, n, items = table
    spec = spec_of(slug)
    rules = spec.rules
    rng = random.Random(3)
    states = reached_states(slug, n, items)
    assert len(states) > 50
    for state, seat in states:
        me = Viewer.of_seat(seat)
        view = rules.view(state, me)
        for _ in range(2):
            sampled = spec.sample_state(view, seat, rng)
            assert rules.view(sampled, me) == view
            assert rules.legal_commands(sampled, seat) == rules.legal_commands(state, seat)


@pytest.mark.parametrize("table", TABLES, ids=_id)
def test_sampled_states_count_the_cards(table):
    """Every card of the game is somewhere in a sampled state, once: the
    re-deal moves hidden cards, it neither adds nor loses any."""
    slug, n, items = table
    spec = spec_of(slug)
    rng = random.Random(4)
    for state, seat in reached_states(slug, n, items, matches=1):
        view = spec.rules.view(state, Viewer.of_seat(seat))
        sampled = spec.sample_state(view, seat, rng)
        assert sorted(map(str, _cards(slug, sampled))) == sorted(map(str, _cards(slug, state)))


def _cards(slug, s) -> list:
    if slug == "love-me-not":
        return [c for part in (s.hands, s.tableaus, s.piles) for cards in part for c in cards] + [
            *s.deck
        ]
    if slug == "love-letter":
        hidden = [s.hidden] if s.hidden is not None else []
        cards = [c for h in s.hands for c in h] + [c for d in s.discards for c in d]
        return cards + list(s.deck) + list(s.removed) + hidden
    if slug == "bleven":
        return [c for h in s.hands for c in h] + [c for r in s.showrooms for c in r] + [*s.pile]
    if slug == "doubting-love-letter":
        hands = [c for h in s.hands.values() for c in h]
        return hands + [d.card for d in s.discards] + list(s.deck) + list(s.removed)
    return list(s.remaining)


@pytest.mark.parametrize("table", TABLES, ids=_id)
def test_a_bot_never_peeks(table):
    """The hidden cards re-dealt (the test's own permutation): the seat's
    view is unchanged, and so is each search level's move with the same seed."""
    slug, n, items = table
    spec = spec_of(slug)
    rules = spec.rules
    bots = level_bots(spec, SMALL)
    rng = random.Random(5)
    pairs = [(s, seat, REDEAL[slug](s, seat, rng)) for s, seat in reached_states(slug, n, items)]
    changed = [p for p in pairs if p[2] != p[0]]
    assert len(changed) >= 10
    for state, seat, other in changed[:: max(1, len(changed) // 10)][:10]:
        me = Viewer.of_seat(seat)
        view = rules.view(state, me)
        assert rules.view(other, me) == view
        legal = rules.legal_commands(state, seat)
        for level in ("level2", "level3", "level4"):
            seed = rng.getrandbits(32)
            first = bots[level](view, seat, random.Random(seed), legal)
            again = bots[level](rules.view(other, me), seat, random.Random(seed), legal)
            assert first == again, (level, first, again)
            if first is not None:  # the rules accept it (a stake may be any amount)
                rules.decide(state, first, Ctx(now=spec.now_of(view), rng=rng, seat=seat))


def _play_bout(slug, n, items, kinds, seed):
    """One bout (a deal, a round) played by bots of the given levels; a
    command the rules refuse fails the test."""
    series = series_for(slug)
    rules = series.rules
    spec = spec_of(slug)
    bots = {**level_bots(spec, SMALL), "level1": spec.policy}
    seats = SEATS[:n]
    rng = random.Random(seed)
    now = 0.0
    state = series.fold(
        series.start(Ctx(now=now, rng=rng, role="system"), seats, None, items, None)
    )
    moves = 0
    while state.bout_no <= 1 and not state.finished and state.last_bout is None:
        command, seat = None, None
        for d in series.pending(state):
            legal = rules.legal_commands(state.bout, d.seat) if state.bout else []
            if d.kind == "choose_first":
                seat, command = d.seat, {"type": "choose_first", "seat": d.seat}
            elif legal:
                view = rules.view(state.bout, Viewer.of_seat(d.seat))
                command = bots[kinds[seats.index(d.seat)]](view, d.seat, rng, legal)
                seat = d.seat
                moves += command is not None
            if command is not None:
                break
        if command is None:
            now = max(now + 1, series.next_deadline(state))
            new = series.decide(state, {"type": "timeout"}, Ctx(now=now, rng=rng, role="system"))
        else:
            now += 1
            try:
                new = series.decide(state, command, Ctx(now=now, rng=rng, seat=seat))
            except RuleError as exc:  # pragma: no cover - the failure's message
                pytest.fail(f"{kinds} played {command}, refused: {exc}")
        for e in new:
            state = series.evolve(state, e)
    assert state.last_bout is not None and rules.outcome(state.last_bout) is not None
    return moves


@pytest.mark.parametrize("table", TABLES, ids=_id)
def test_every_level_plays_legal_moves_to_the_end(table):
    slug, n, items = table
    ladder = ["level0", "level1", "level2", "level3", "level4"]
    moves = 0
    for k, (low, high) in enumerate(zip(ladder, ladder[1:], strict=False)):
        kinds = [high, low] * 2 if k % 2 else [low, high] * 2
        moves += _play_bout(slug, n, items, kinds[:n], seed=k)
    assert moves > 0


def test_levels_are_registered_beside_the_heuristic():
    for slug in ("doubting-love-letter", "love-letter", "love-me-not", "higher-lower", "bleven"):
        bots = series_for(slug).rules.bots
        assert {"heuristic", "level0", "level1", "level2", "level3", "level4"} <= set(bots)
        # level 1 is the heuristic with a newcomer's share of slips
        slips = [getattr(bots[f"level{n}"], "slips", 0.0) for n in (1, 2, 3, 4)]
        assert slips == sorted(slips, reverse=True) and slips[0] > slips[-1], (slug, slips)


def test_a_slip_is_a_legal_move_drawn_from_the_seed():
    """A level's slips: at its rate a random legal move instead of its own,
    the same one for the same seed; no slips is the bot itself."""

    def first(view, seat, rng, legal):
        return legal[0]

    legal = [{"type": "a"}, {"type": "b"}, {"type": "c"}, {"type": "d"}]
    assert erring(first, 0.0) is first
    bot = erring(first, LEVEL_SLIPS[1])
    moves = [bot({}, "ana", random.Random(seed), legal) for seed in range(400)]
    others = sum(m != legal[0] for m in moves)
    # a slip lands on legal[0] a quarter of the time: about 0.75 x rate of the moves differ
    assert 0.5 * LEVEL_SLIPS[1] * 400 < others < LEVEL_SLIPS[1] * 400
    assert all(m in legal for m in moves)
    assert moves == [bot({}, "ana", random.Random(seed), legal) for seed in range(400)]


def test_bleven_search_rewards_the_winner_before_the_stones():
    """A round won by a stone is worth more to the search than a round lost
    with many stones taken (it used to chase the margin and lose bouts)."""
    from games.bleven.levels import reward

    spec = spec_of("bleven")
    state = next(s for s, _ in reached_states("bleven", 4, None, matches=1))
    ana, team = "ana", state.team("ana")
    rivals = [s for s in state.seats if s not in team]
    narrow = Outcome(tuple(team), {**{s: 10 for s in team}, **{s: 9 for s in rivals}}, "duel")
    lost = Outcome(tuple(rivals), {**{s: 60 for s in team}, **{s: 90 for s in rivals}}, "duel")
    crushed = Outcome(tuple(rivals), {**{s: 0 for s in team}, **{s: 90 for s in rivals}}, "duel")
    assert reward(narrow, ana, state) > 0.85 > 0.15 > reward(lost, ana, state)
    assert reward(lost, ana, state) > reward(crushed, ana, state)
    assert spec.reward is reward


def test_a_bluff_is_mixed_not_always_the_same_move():
    """Doubting Love Letter's plays are drawn, not fixed: over seeds, a
    searching level makes more than one move from the same view."""
    spec = spec_of("doubting-love-letter")
    rules = spec.rules
    bot = level_bots(spec, SMALL)["level2"]
    plays = [
        (s, seat)
        for s, seat in reached_states("doubting-love-letter", 2, None)
        if s.phase == "play"
    ]
    varied = 0
    for state, seat in plays[:8]:
        view = rules.view(state, Viewer.of_seat(seat))
        legal = rules.legal_commands(state, seat)
        moves = {str(bot(view, seat, random.Random(seed), legal)) for seed in range(12)}
        varied += len(moves) > 1
    assert varied >= 2


def test_a_ceiling_bounds_every_levels_search_while_it_holds(monkeypatch):
    """``thinking_at_most`` (the demo's history, seed_demo): within it, levels 2
    to 4 search at most its iterations (level 2 counts a round of its moves as
    theirs); outside it, their own budgets again."""
    from games.core import search

    spec = spec_of("doubting-love-letter")
    no_slips = {2: 0.0, 3: 0.0, 4: 0.0}
    bots = level_bots(spec, budgets={n: Budget(200, math.inf) for n in (2, 3, 4)}, slips=no_slips)
    playouts = []
    real = search.playout
    monkeypatch.setattr(search, "playout", lambda *a: playouts.append(1) or real(*a))
    rules = spec.rules
    decisions = [
        (state, seat, rules.legal_commands(state, seat))
        for state, seat in reached_states("doubting-love-letter", 2, None, matches=1)
    ]
    state, seat, legal = next(d for d in decisions if len(d[2]) >= 2)
    view = rules.view(state, Viewer.of_seat(seat))

    def thought(level: str) -> int:
        playouts.clear()
        bots[level](view, seat, random.Random(1), legal)
        return len(playouts)

    one_round = search.ROOT_PROPOSALS + search.EXPLORE + 1
    for level in ("level2", "level3", "level4"):
        assert thought(level) > 3 * one_round, level
        with search.thinking_at_most(Budget(1, math.inf)):
            assert 0 < thought(level) <= one_round, level
        assert thought(level) > 3 * one_round, level


def test_a_search_level_plays_its_own_policy():
    """``searching`` names a level's policy: its move where the search has no
    other to try; a level not named plays level 1's."""
    spec = spec_of("love-letter")
    state, seat = next(
        (s, seat)
        for s, seat in reached_states("love-letter", 2, None)
        if len(spec.rules.legal_commands(s, seat)) > 1
    )
    legal = spec.rules.legal_commands(state, seat)
    view = spec.rules.view(state, Viewer.of_seat(seat))
    own = dataclasses.replace(
        spec,
        policy=lambda view, seat, rng, legal: legal[0],
        candidates=lambda view, legal: [],
        searching={2: lambda view, seat, rng, legal: legal[-1]},
    )
    bots = level_bots(own, SMALL, slips=dict.fromkeys(range(1, 5), 0.0))
    assert bots["level1"](view, seat, random.Random(1), legal) == legal[0]
    assert bots["level2"](view, seat, random.Random(1), legal) == legal[-1]
    assert bots["level3"](view, seat, random.Random(1), legal) == legal[0]
