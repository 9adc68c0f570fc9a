"""The search's fast paths (issue #46) play as the rules do: a game's cheaper
view gives its policies the same moves, its compact playout the same rewards
from the same draws, and its rewritten heuristics the same choices; level 4
draws its deals by their weights."""

from __future__ import annotations

import dataclasses
import math
import random
from collections import Counter

import pytest

from games.core import search
from games.core.protocol import Decision, Event, Viewer, win_outcome
from games.core.search import SearchSpec, weighted_deals
from tests.games.test_bot_levels import reached_states, spec_of

SEEDS = range(3)


def test_love_letter_search_view_is_the_view():
    """The view without its deep copy is the same dict as ``RULES.view``."""
    spec = spec_of("love-letter")
    rules = spec.rules
    states = reached_states("love-letter", 2, None) + reached_states("love-letter", 4, None)
    assert len(states) > 100
    for state, _ in states:
        for s in rules.seats_of(state):
            assert spec.view(state, s) == rules.view(state, Viewer.of_seat(s))


@pytest.mark.parametrize("slug", ["higher-lower", "love-letter"])
def test_the_policies_play_the_same_on_the_search_view(slug):
    spec = spec_of(slug)
    rules = spec.rules
    for state, seat in reached_states(slug, 2, None):
        legal = rules.legal_commands(state, seat)
        full = rules.view(state, Viewer.of_seat(seat))
        fast = spec.view(state, seat)
        for seed in SEEDS:
            move = spec.policy(full, seat, random.Random(seed), legal)
            assert spec.policy(fast, seat, random.Random(seed), legal) == move
            if move is not None:
                assert spec.mixed(fast, move) == spec.mixed(full, move)


def _playouts(slug, n_seats=2):
    """(state, now) to play out from: reached states and re-deals of them."""
    spec = spec_of(slug)
    rng = random.Random(11)
    out = []
    for state, seat in reached_states(slug, n_seats, None):
        view = spec.rules.view(state, Viewer.of_seat(seat))
        out.append((state, spec.now_of(view)))
        out.append((spec.sample_state(view, seat, rng), spec.now_of(view)))
    return out


def _compact_playouts_match_the_rules(slug) -> list:
    """Every case's playout on the compact state against the rules' own, from
    the same seeds: the same rewards, the same draws. Returns the cases with
    their rules' rewards."""
    spec = spec_of(slug)
    assert spec.finish is not None
    slow = dataclasses.replace(spec, finish=None)
    cases = _playouts(slug)
    assert len(cases) > 50
    played = []
    for state, now in cases:
        for seed in SEEDS:
            fast_rng, slow_rng = random.Random(seed), random.Random(seed)
            expected = search.playout(slow, state, now, slow_rng)
            assert search.playout(spec, state, now, fast_rng) == expected
            assert fast_rng.random() == slow_rng.random()  # the same draws were made
            played.append((state, expected))
    return played


def test_higher_lower_compact_playout_matches_the_rules():
    """The same rewards, from the same rng, as the playout through the rules
    (the auction's states included: there the rules play until the show)."""
    phases = {state.phase for state, _ in _compact_playouts_match_the_rules("higher-lower")}
    assert {"auction", "turns"} <= phases


def test_love_me_not_compact_playout_matches_the_rules():
    """The same rewards, from the same rng, as the playout through the rules,
    from every turn (the seat's own choice made or not, the other's too)."""
    played = _compact_playouts_match_the_rules("love-me-not")
    ends = {tuple(sorted(rewards.values())) for _, rewards in played}
    assert ends == {(0.0, 1.0), (0.5, 0.5)}  # won and lost, tied: both kinds of end


def test_higher_lower_compact_playout_ends_with_the_rules_chips():
    """Every turn played alike: the Guesser's chips at the end are the
    rules' (a reward alone seldom shows a chip won or lost)."""
    from games.higher_lower.levels import final_chips

    spec = spec_of("higher-lower")
    slow = dataclasses.replace(spec, finish=None)
    played = 0
    for state, now in _playouts("higher-lower"):
        if state.phase not in ("show", "turns"):
            continue
        for seed in SEEDS:
            chips = final_chips(state, random.Random(seed))
            end, t, rng = state, now, random.Random(seed)
            while spec.rules.outcome(end) is None:
                end, t = search.advance(slow, end, t, rng)
            assert chips == end.chips
            played += 1
    assert played > 30


def test_the_compact_playout_can_fail():
    """A compact playout that drifts from the rules is caught: the rewards
    of a Guesser who always stakes nothing differ from the heuristic's."""
    spec = spec_of("higher-lower")
    slow = dataclasses.replace(spec, finish=None)

    def careless(state, rng):
        if state.phase != "turns":
            return None
        won = state.chips >= state.declared
        return {state.guesser: float(won), state.dealer: float(not won)}

    drifted = dataclasses.replace(spec, finish=careless)
    differ = 0
    for state, now in _playouts("higher-lower")[:60]:
        expected = search.playout(slow, state, now, random.Random(1))
        differ += search.playout(drifted, state, now, random.Random(1)) != expected
    assert differ > 0


def _lmn_old(view, seat, rng, legal):
    """Love Me Not's heuristic as it was written before its suits were
    counted once (the reference the rewrite must match)."""

    def points(tableau, pile):
        pts = 0.0
        for s in "CDHS":
            pts += sum(1 for c in tableau if c[-1] == s) * sum(1 for c in pile if c[-1] == s)
        return pts

    tableau = list((view.get("tableaus") or {}).get(seat) or [])
    pile = list((view.get("piles") or {}).get(seat) or [])
    turns_left = max(0, int(view.get("turns", 5)) - int(view.get("turn", 0)))

    def value(cmd):
        t, p = tableau + [cmd["keep"]], pile + [cmd["discard"]]
        v = points(t, p)
        if cmd["keep"][0] == "J":
            v += 1.0
        for s in "CDHS":
            nt = sum(1 for c in t if c[-1] == s)
            np_ = sum(1 for c in p if c[-1] == s)
            if (nt == 0) != (np_ == 0):
                v += 0.15 * turns_left
        return v + rng.random() * 0.01

    return max(legal, key=value)


def test_love_me_not_heuristic_chooses_as_before():
    spec = spec_of("love-me-not")
    rules = spec.rules
    states = reached_states("love-me-not", 2, None, matches=6)
    assert len(states) > 30
    for state, seat in states:
        view = rules.view(state, Viewer.of_seat(seat))
        legal = rules.legal_commands(state, seat)
        for seed in SEEDS:
            ours = spec.policy(view, seat, random.Random(seed), legal)
            assert ours == _lmn_old(view, seat, random.Random(seed), legal)


def test_doubting_love_letter_counts_unseen_cards_as_before():
    from games.doubting_love_letter.bots import TOTAL, unseen

    spec = spec_of("doubting-love-letter")
    for state, seat in reached_states("doubting-love-letter", 2, None):
        view = spec.rules.view(state, Viewer.of_seat(seat))
        known = Counter(view["removed"]) + Counter(view.get("hand", []))
        known.update(d["card"] for d in view["discards"] if "card" in d)
        expected = Counter({c: n - known[c] for c, n in TOTAL.items() if n - known[c] > 0})
        got = unseen(view)
        assert got == expected and list(got) == list(expected)  # the same order too


def _toy_spec(weigh):
    return SearchSpec(rules=None, sample_state=lambda v, s, r: r.random(), policy=None, weigh=weigh)


def test_level_4_draws_its_deals_by_their_weight():
    """Deals below one half weigh three times the others: about three in
    four deals drawn are below one half (a plain draw: one in two)."""
    spec = _toy_spec(lambda view, seat, deal: 3.0 if deal < 0.5 else 1.0)
    rng = random.Random(1)
    draw = weighted_deals(spec, {}, "ana", lambda r: r.random(), rng)
    low = sum(draw(rng) < 0.5 for _ in range(4000)) / 4000
    assert 0.68 < low < 0.82


def test_level_4_with_equal_weights_draws_plain_deals():
    spec = _toy_spec(lambda view, seat, deal: 1.0)

    def plain(r):
        return r.random()

    assert weighted_deals(spec, {}, "ana", plain, random.Random(1)) is plain


def test_love_letter_weighs_the_card_kept():
    """A deal in which the last player kept the lower card is the less
    likely; one in which a King or a Prince forced the Countess is not."""
    from games.love_letter.levels import KEPT_HIGHER, last_plays, weigh

    spec = spec_of("love-letter")
    rules = spec.rules
    seen = set()
    for state, seat in reached_states("love-letter", 2, None, matches=6):
        other = next(s for s in state.seats if s != seat)
        view = rules.view(state, Viewer.of_seat(seat))
        last = last_plays(view, seat)
        plays = [e for e in view["log"] if e["type"] == "card_played" and e["seat"] == other]
        if other not in last or len(state.hand(other)) != 1:
            continue
        played = last[other]
        assert played == int(plays[-1]["card"])
        i = state.idx(other)
        for kept in range(1, 9):
            hands = state.hands[:i] + ((kept,),) + state.hands[i + 1 :]
            deal = dataclasses.replace(state, hands=hands)
            w = weigh(view, seat, deal)
            if kept == played or (played == 7 and kept in (5, 6)):
                assert w == 1.0
                seen.add("same")
            elif kept > played:
                assert w == KEPT_HIGHER
                seen.add("higher")
            else:
                assert w == pytest.approx(1 - KEPT_HIGHER)
                seen.add("lower")
    assert seen == {"same", "higher", "lower"}


def test_love_letter_forgets_a_play_once_the_hand_moved():
    from games.love_letter.levels import last_plays

    played = {"type": "card_played", "seat": "bob", "card": "3", "target": "ana"}
    assert last_plays({"log": [played]}, "ana") == {"bob": 3}
    king = {"type": "card_played", "seat": "bob", "card": "6", "target": "ana"}
    traded = {"type": "hands_traded", "seat": "bob", "target": "ana"}
    assert last_plays({"log": [played, king, traded]}, "ana") == {}
    prince = {"type": "card_discarded", "seat": "bob", "card": "2", "by": "ana"}
    assert last_plays({"log": [played, prince]}, "ana") == {}
    assert last_plays({"log": [played]}, "bob") == {}  # its own plays say nothing


class _Coin:
    """A one-move toy game: ana keeps "a" or takes "b", then a hidden number
    decides the bout; "b" wins on 3 % more of the numbers than "a"."""

    def decide(self, state, command, ctx):
        return [Event("chosen", {"move": command["move"]})]

    def evolve(self, state, event):
        return (state[0], event.data["move"])

    def pending(self, state):
        return [] if state[1] else [Decision("ana", "choose")]

    def legal_commands(self, state, seat):
        return [] if state[1] else [{"move": "a"}, {"move": "b"}]

    def outcome(self, state):
        if not state[1]:
            return None
        won = state[0] + (0.03 if state[1] == "b" else 0.0) > 0.5
        return win_outcome(("ana", "bob"), ["ana" if won else "bob"])

    def seats_of(self, state):
        return ("ana", "bob")

    def view(self, state, viewer):
        return {}


def test_level_2_compares_its_moves_on_the_same_deals():
    """A move that wins a few bouts more on the same deals replaces level 1's:
    the paired difference shows it within the budget, where the two means
    alone (each one's error near 0.05) did not."""
    spec = SearchSpec(
        rules=_Coin(),
        sample_state=lambda view, seat, rng: (rng.random(), None),
        policy=lambda view, seat, rng, legal: legal[0],
    )
    bot = search.determinised(spec, search.Budget(200, math.inf))
    legal = _Coin().legal_commands((0.0, None), "ana")
    moves = Counter(bot({}, "ana", random.Random(seed), legal)["move"] for seed in range(20))
    assert moves["b"] >= 16, moves


class _Reply(_Coin):
    """Ana keeps "a" or takes "b", then bob answers with one of eight moves;
    his first one ("r0") is what the policy plays."""

    def evolve(self, state, event):
        return (*state, event.data["move"])

    def pending(self, state):
        return [Decision(("ana", "bob")[len(state) - 1], "choose")] if len(state) < 3 else []

    def legal_commands(self, state, seat):
        if len(state) == 1 and seat == "ana":
            return [{"move": "a"}, {"move": "b"}]
        if len(state) == 2 and seat == "bob":
            return [{"move": f"r{i}"} for i in range(8)]
        return []

    def outcome(self, state):
        if len(state) < 3:
            return None
        won = state[0] > 0.5 and state[2] != "r7"
        return win_outcome(("ana", "bob"), ["ana" if won else "bob"])


def test_the_tree_widens_below_the_root_as_its_nodes_are_visited():
    """Below the root, a node plays the policy's move and takes others only
    as its visits grow (WIDEN x children^2): bob's eight answers are not all
    tried after a few visits, as they were when each visit added one."""
    spec = SearchSpec(
        rules=_Reply(),
        sample_state=lambda view, seat, rng: (rng.random(),),
        policy=lambda view, seat, rng, legal: legal[0],
    )
    rng = random.Random(2)
    root = search.Node()
    moves = [{"move": "a"}, {"move": "b"}]
    for _ in range(300):
        search._iterate_on(spec, root, moves, "ana", spec.deals({}, "ana")(rng), 0.0, rng)
    answers = [node for node in root.children.values()]
    assert len(answers) == 2 and all(n.tally.n >= 100 for n in answers)
    for node in answers:
        tried = len(node.children)
        assert 2 <= tried <= 1 + math.isqrt(node.tally.n // search.WIDEN), tried
        assert search.key_of({"move": "r0"}) in node.children


@pytest.mark.parametrize("weighted", [False, True], ids=["level3", "level4"])
def test_levels_3_and_4_compare_their_root_moves_on_the_same_deals(weighted):
    """The tree's root plays every move on each deal with the same draws and
    compares them deal by deal, as level 2 does: the move that wins 3 % more
    bouts replaces level 1's within the budget (UCB's visits and the two
    means' errors left level 1's move nearly every time)."""
    spec = SearchSpec(
        rules=_Coin(),
        sample_state=lambda view, seat, rng: (rng.random(), None),
        policy=lambda view, seat, rng, legal: legal[0],
    )
    bot = search.ismcts(spec, search.Budget(200, math.inf), weighted=weighted)
    legal = _Coin().legal_commands((0.0, None), "ana")
    moves = Counter(bot({}, "ana", random.Random(seed), legal)["move"] for seed in range(20))
    assert moves["b"] >= 16, moves


class _Three(_Coin):
    """Ana keeps "a", or takes "b" (wins on 5 % more of the numbers) or "c"
    (on 25 % more)."""

    def legal_commands(self, state, seat):
        return [] if state[1] else [{"move": "a"}, {"move": "b"}, {"move": "c"}]

    def outcome(self, state):
        if not state[1]:
            return None
        edge = {"a": 0.0, "b": 0.05, "c": 0.25}[state[1]]
        won = state[0] + edge > 0.5
        return win_outcome(("ana", "bob"), ["ana" if won else "bob"])


@pytest.mark.parametrize("level", [2, 3])
def test_a_mixed_decision_draws_the_moves_by_how_much_they_beat_level_1s(level):
    """Mixed (a bluff, a bid): among the moves that beat level 1's, each is
    drawn by its gain over it, so the far better move is drawn most often
    and the other still now and then (every move was tried on as many deals:
    their counts, once the weights, said nothing)."""
    spec = SearchSpec(
        rules=_Three(),
        sample_state=lambda view, seat, rng: (rng.random(), None),
        policy=lambda view, seat, rng, legal: legal[0],
        candidates=lambda view, legal: legal[1:],  # both others searched
        mixed=lambda view, command: True,
    )
    budget = search.Budget(600, math.inf)
    bot = search.determinised(spec, budget) if level == 2 else search.ismcts(spec, budget)
    legal = _Three().legal_commands((0.0, None), "ana")
    moves = Counter(bot({}, "ana", random.Random(seed), legal)["move"] for seed in range(60))
    assert moves["c"] >= 40 and moves["b"] >= 2 and moves["a"] <= 3, moves


def _ll_view(log, hand, **more):
    return {
        "you": "ana",
        "seats": ["ana", "bob"],
        "hand": hand,
        "removed": [],
        "discards": {"ana": [], "bob": [c["card"] for c in log if c["type"] == "card_played"]},
        "out": [],
        "hand_sizes": {"ana": len(hand), "bob": 1},
        "log": log,
        **more,
    }


def _ll_guard_moves(hand):
    return [
        {"type": "play", "card": c, "target": "bob", "guess": g}
        for c in hand
        if c == "1"
        for g in "2345678"
    ] + [{"type": "play", "card": c, "target": "bob"} for c in hand if c != "1"]


def test_love_letter_counting_keeps_a_card_seen_through_other_plays():
    """A Priest saw bob's Prince; bob then played a Priest (keeping the
    Prince): the search levels' Guard names the Prince, where the heuristic
    forgot it at bob's play."""
    from games.love_letter.levels import beliefs, counting_bot, plain_counting_bot

    log = [
        {"type": "card_played", "seat": "ana", "card": "2", "target": "bob"},
        {"type": "card_seen", "seat": "ana", "target": "bob", "card": "5"},
        {"type": "card_played", "seat": "bob", "card": "2", "target": "ana"},
    ]
    view = _ll_view(log, ["1", "3"])
    view["discards"]["ana"] = ["2"]
    assert beliefs(view, "ana")["bob"] == {5: 1.0}
    guard = {"type": "play", "card": "1", "target": "bob", "guess": "5"}
    for seed in SEEDS:
        for bot in (counting_bot, plain_counting_bot):
            assert bot(view, "ana", random.Random(seed), _ll_guard_moves(["1", "3"])) == guard


def test_love_letter_counting_reads_the_card_kept():
    """bob played a Priest: inferring, the cards above it are nine times the
    likelier (KEPT_HIGHER), so a Guard names one of them; without, a Priest
    is as likely as any card counted alike."""
    from games.love_letter.levels import KEPT_HIGHER, beliefs

    log = [{"type": "card_played", "seat": "bob", "card": "3", "target": "ana"}]
    view = _ll_view(log, ["1", "4"])
    inferred, plain = beliefs(view, "ana")["bob"], beliefs(view, "ana", inferring=False)["bob"]
    assert sum(inferred.values()) == pytest.approx(1.0)
    # two Priests unseen, one Prince... each card's share: counts x (0.9 above, 0.1 below)
    assert inferred[2] / inferred[6] == pytest.approx(2 * (1 - KEPT_HIGHER) / KEPT_HIGHER)
    assert plain[2] / plain[6] == pytest.approx(2.0)


def test_love_me_not_search_policy_discards_away_from_the_rivals_jacks():
    """The rival shows the Jack of hearts: a heart discarded scores for it,
    so the search levels' policy keeps the heart and discards the spade
    (the heuristic sees the two splits as equal)."""
    from games.love_me_not.levels import rival_bot

    view = {
        "seats": ["ana", "bob"],
        "hand": ["2H", "3S"],
        "tableaus": {"ana": ["4C"], "bob": ["JH"]},
        "piles": {"ana": ["5D"], "bob": None},
        "turns": 5,
        "turn": 2,
    }
    legal = [{"type": "choose", "keep": "2H", "discard": "3S"}]
    legal.append({"type": "choose", "keep": "3S", "discard": "2H"})
    for seed in range(10):
        assert rival_bot(view, "ana", random.Random(seed), legal) == legal[0]


def test_love_letter_search_tries_the_likeliest_guess_only():
    """Beside the policy's moves, the search tries one Guard guess a target:
    the card the counts make likeliest (both Princes unseen, one King)."""
    from games.love_letter.levels import candidates

    view = _ll_view([], ["1", "6"])
    legal = _ll_guard_moves(["1", "6"])
    tried = candidates(view, legal)
    guesses = [c["guess"] for c in tried if c["card"] == "1"]
    assert guesses in (["2"], ["3"], ["4"], ["5"])  # two of each unseen
    assert [c for c in tried if c["card"] == "6"] == [c for c in legal if c["card"] == "6"]
