"""The bracket engine (shared/TOURNAMENTS.md, "Brackets"), driven without a
database: bracket files with hand-worked ``expect``s, the event fold, the
error exits of ``manage.py bracket``, and random brackets (hypothesis)."""

import io
import itertools
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import brackets as B

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
SHARED = HERE / "shared_brackets"
FILES = sorted((HERE / "brackets").glob("*.json")) + sorted(SHARED.glob("*.json"))
NAMES = [
    "ana",
    "ben",
    "cal",
    "dee",
    "eve",
    "fay",
    "gus",
    "hal",
    "ivy",
    "jon",
    "kim",
    "lea",
    "max",
    "ned",
    "oli",
    "pam",
]


def play(state, *results):
    for a, b, w, *bouts in results:
        state = B.apply_result(state, a, b, w, bouts[0] if bouts else (2, 0) if w == a else (0, 2))
    return state


def pairs_of(state, rnd=None):
    return [(s.a, s.b) for s in state.series if rnd is None or s.round == rnd]


# ------------------------------------------------------------------ files


def test_files_are_there():
    names = {p.name for p in FILES}
    assert {"single-4.json", "round-robin-3.json"} <= names
    assert len(FILES) >= 19


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_bracket_file(path):
    out, problems = B.run_file(path)
    assert problems == [], f"{path.name}: " + "; ".join(problems)
    doc = json.loads(path.read_text())
    assert doc.get("expect"), "every bracket file carries an expect"
    assert set(out) == {"series", "standings", "champion"}
    assert sorted(out["standings"]) == sorted(doc["entrants"])


# ------------------------------------------------------------------ seeding


def test_seed_order_is_the_standard_one():
    assert B.seed_order(2) == [1, 2]
    assert B.seed_order(4) == [1, 4, 2, 3]
    assert B.seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert B.seed_order(16) == [1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]


def test_single_byes_go_to_the_top_seeds():
    state = B.create("single", NAMES[:6])
    r1 = [s.as_dict() for s in state.series if s.round == "R1"]
    assert r1 == [
        {"round": "R1", "a": "ana", "b": None, "winner": "ana"},
        {"round": "R1", "a": "dee", "b": "eve", "winner": None},
        {"round": "R1", "a": "ben", "b": None, "winner": "ben"},
        {"round": "R1", "a": "cal", "b": "fay", "winner": None},
    ]
    assert [s.id for s in B.pending_series(state)] == ["R1-2", "R1-4"]
    assert B.champion(state) is None


def test_two_entrants_single_is_one_final_and_no_third_place():
    state = B.create("single", ["ana", "ben"], {"third_place": True})
    state = play(state, ("ben", "ana", "ben"))
    assert pairs_of(state) == [("ana", "ben")]
    assert B.champion(state) == "ben"
    assert B.standings(state) == ["ben", "ana"]


def test_no_third_place_when_a_semi_final_is_a_bye():
    state = B.create("single", ["ana", "ben", "cal"], {"third_place": True})
    state = play(state, ("ben", "cal", "cal"), ("ana", "cal", "ana"))
    assert [s.round for s in state.series] == ["R1", "R1", "R2"]
    assert B.champion(state) == "ana"
    assert B.standings(state) == ["ana", "cal", "ben"]


def test_third_place_waits_for_both_semi_finals():
    state = B.create("single", NAMES[:4], {"third_place": True})
    state = play(state, ("ana", "dee", "ana"))
    assert "3P" not in [s.round for s in state.series]
    state = play(state, ("ben", "cal", "ben"))
    assert [(s.round, s.a, s.b) for s in B.pending_series(state)] == [
        ("R2", "ana", "ben"),
        ("3P", "cal", "dee"),
    ]
    # the final first, then the third place: champion known before 3P is played
    state = play(state, ("ana", "ben", "ben"))
    assert B.champion(state) == "ben"
    assert B.standings(state) == ["ben", "ana", "cal", "dee"]  # 3P pending: by seed
    state = play(state, ("cal", "dee", "dee"))
    assert B.standings(state) == ["ben", "ana", "dee", "cal"]


# ------------------------------------------------------------------ double


def test_double_two_entrants_meet_in_winners_round_and_grand_final():
    state = B.create("double", ["ana", "ben"])
    state = play(state, ("ana", "ben", "ana"))
    assert [(s.round, s.a, s.b) for s in state.series] == [
        ("W1", "ana", "ben"),
        ("GF", "ana", "ben"),
    ]
    state = play(state, ("ana", "ben", "ben"))
    assert [s.id for s in B.pending_series(state)] == ["GF2"]
    state = play(state, ("ana", "ben", "ben"))
    assert B.champion(state) == "ben"
    assert B.standings(state) == ["ben", "ana"]


def test_double_losers_round_waits_for_its_whole_field():
    state = B.create("double", NAMES[:8])
    state = play(state, ("ana", "hal", "ana"), ("dee", "eve", "dee"), ("ben", "gus", "ben"))
    # L1 pairs W1 losers among themselves: only once all of W1 is played
    assert not [s for s in state.series if s.round.startswith("L")]
    state = play(state, ("cal", "fay", "fay"))
    assert [(s.a, s.b) for s in state.series if s.round == "L1"] == [("eve", "hal"), ("cal", "gus")]


def test_double_losers_newcomers_come_in_reverse_bracket_order():
    state = B.create("double", NAMES[:8])
    state = play(
        state,
        ("ana", "hal", "ana"),
        ("dee", "eve", "dee"),
        ("ben", "gus", "ben"),
        ("cal", "fay", "cal"),
        ("ana", "dee", "ana"),
        ("ben", "cal", "ben"),
        ("hal", "eve", "hal"),
        ("gus", "fay", "gus"),
    )
    # L1 survivors hal (top half) and gus (bottom half); W2 losers dee (top), cal (bottom)
    assert pairs_of(state, "L2") == [("cal", "hal"), ("dee", "gus")]


def test_avoid_rematches_keeps_the_bracket_unless_a_pairing_avoids_a_repeat():
    met = {frozenset(("a", "b"))}
    assert B._avoid_rematches([("a", "c"), ("b", "d")], "among", met) == [("a", "c"), ("b", "d")]
    assert B._avoid_rematches([("a", "b"), ("c", "d")], "among", met) == [("a", "c"), ("b", "d")]
    # drop-in rounds keep survivors against newcomers
    assert B._avoid_rematches([("a", "b"), ("c", "d")], "drop", met) == [("a", "d"), ("c", "b")]
    # unavoidable: kept as it is
    assert B._avoid_rematches([("a", "b")], "among", met) == [("a", "b")]
    everyone = {frozenset(p) for p in itertools.combinations("abcd", 2)}
    assert B._avoid_rematches([("a", "b"), ("c", "d")], "among", everyone) == [
        ("a", "b"),
        ("c", "d"),
    ]
    # byes stay where they are
    assert B._avoid_rematches([("a", "b"), ("c", None), ("e", "f")], "among", met) == [
        ("a", "e"),
        ("c", None),
        ("b", "f"),
    ]


def test_double_reset_off_lets_the_losers_side_win_at_once():
    state = B.create("double", NAMES[:3], {"grand_final_reset": False})
    state = play(state, ("ben", "cal", "ben"), ("ana", "ben", "ana"), ("ben", "cal", "ben"))
    assert pairs_of(state, "L1") == [("cal", None)]
    assert pairs_of(state, "L2") == [("ben", "cal")]
    state = play(state, ("ana", "ben", "ben"))
    assert B.champion(state) == "ben"
    assert "GF2" not in [s.round for s in state.series]
    assert B.standings(state) == ["ben", "ana", "cal"]


# ------------------------------------------------------------------ round robin


def test_circle_method_meets_everyone_once_and_byes_once_per_round():
    for n in range(2, 10):
        rounds = B.circle_rounds(NAMES[:n])
        assert len(rounds) == (n - 1 if n % 2 == 0 else n)
        seen = Counter()
        for pairs in rounds:
            sides = [s for p in pairs for s in p]
            assert sorted(s for s in sides if s) == sorted(NAMES[:n])
            assert sides.count(None) == n % 2
            seen.update(frozenset(p) for p in pairs if None not in p)
        assert set(seen.values()) == {1}
        assert len(seen) == n * (n - 1) // 2


def test_round_robin_pending_from_the_start_and_any_order():
    state = B.create("round_robin", NAMES[:4], {"double_round": True})
    assert len(B.pending_series(state)) == 12
    # a result for a pair matches its first pending leg, sides in either order
    state = play(state, ("ben", "ana", "ben", (2, 1)))
    s = next(s for s in state.series if {s.a, s.b} == {"ana", "ben"} and not s.pending)
    assert (s.round, s.a, s.b, s.bouts) == ("R3", "ana", "ben", (1, 2))
    state = play(state, ("ana", "ben", "ana"))
    with pytest.raises(B.BracketError, match="no series between ana and ben is pending"):
        B.apply_result(state, "ana", "ben", "ana", (2, 0))


def test_round_robin_bye_counts_for_nothing():
    state = B.create("round_robin", NAMES[:3])
    state = play(state, ("ana", "ben", "ana"), ("ben", "cal", "ben"), ("cal", "ana", "cal", (2, 1)))
    byes = [s for s in state.series if s.bye]
    assert len(byes) == 3 and all(s.winner == s.a for s in byes)
    # one win each, head-to-head one each; bout difference:
    # ana 2-0, 1-2 -> +1; ben 0-2, 2-0 -> 0; cal 0-2, 2-1 -> -1
    assert B.standings(state) == ["ana", "ben", "cal"]


def coin_case(seed):
    """A three-way tie that only the coin breaks (all bouts 2-0 in a cycle)."""
    state = B.create("round_robin", ["ana", "ben", "cal"], {"seed": seed})
    return play(state, ("ana", "ben", "ana"), ("ben", "cal", "ben"), ("cal", "ana", "cal"))


def test_round_robin_coin_flip_is_recorded_and_follows_the_seed():
    orders = set()
    for seed in range(12):
        state = coin_case(seed)
        assert state.coin_order == tuple(B.coin_order_for(["ana", "ben", "cal"], seed))
        assert B.standings(state) == list(state.coin_order)
        assert B.champion(state) == state.coin_order[0]
        orders.add(state.coin_order)
    assert len(orders) > 1, "the seed must change the flips"
    created = B.created_event("round_robin", ["ana", "ben", "cal"], {"seed": 5})
    assert created["data"]["coin_order"] == B.coin_order_for(["ana", "ben", "cal"], 5)


def test_a_recorded_coin_order_wins_over_the_seed():
    ev = B.created_event("round_robin", ["ana", "ben", "cal"])
    ev["data"]["coin_order"] = ["cal", "ana", "ben"]
    state = B.evolve(None, ev)
    state = play(state, ("ana", "ben", "ana"), ("ben", "cal", "ben"), ("cal", "ana", "cal"))
    assert B.standings(state) == ["cal", "ana", "ben"]


# ------------------------------------------------------------------ Swiss


def test_swiss_default_rounds():
    assert [B.swiss_rounds(n, {}) for n in (2, 3, 4, 5, 7, 8, 9, 16)] == [1, 2, 2, 3, 3, 3, 4, 4]
    assert B.swiss_rounds(8, {"rounds": 5}) == 5


def test_swiss_odd_score_group_sends_its_lowest_down():
    state = B.create("swiss", NAMES[:6])
    assert pairs_of(state, "R1") == [("ana", "dee"), ("ben", "eve"), ("cal", "fay")]
    state = play(state, ("ana", "dee", "ana"), ("ben", "eve", "ben"), ("cal", "fay", "cal"))
    # winners ana, ben, cal: cal floats down, to the top of the losers
    assert pairs_of(state, "R2") == [("ana", "ben"), ("cal", "eve"), ("dee", "fay")]


def test_swiss_group_that_already_met_floats_both_down():
    pairs, bye = B.swiss_pairing(
        ["a", "b", "c", "d"], {"a": 1, "b": 1, "c": 0, "d": 0}, {frozenset("ab")}, set()
    )
    assert bye is None
    assert pairs == [("a", "c"), ("b", "d")]


def test_swiss_transposes_the_bottom_half_to_avoid_a_rematch():
    pairs, _ = B.swiss_pairing(
        ["a", "b", "c", "d"], dict.fromkeys("abcd", 0), {frozenset("ac")}, set()
    )
    assert pairs == [("a", "d"), ("b", "c")]


def test_swiss_bye_to_the_lowest_ranked_without_one():
    ranking = ["a", "b", "c", "d", "e"]
    wins = dict.fromkeys(ranking, 0)
    assert B.swiss_pairing(ranking, wins, set(), set())[1] == "e"
    assert B.swiss_pairing(ranking, wins, set(), {"e"})[1] == "d"
    assert B.swiss_pairing(ranking, wins, set(), {"e", "d", "c", "b", "a"}) is None


def test_swiss_ends_early_when_only_rematches_are_left():
    state = B.create("swiss", NAMES[:4], {"rounds": 5})
    while B.pending_series(state):
        s = B.pending_series(state)[0]
        state = B.apply_result(state, s.a, s.b, s.a, (2, 0))
    assert state.ended_early
    assert len([s for s in state.series if not s.bye]) == 6  # everyone met everyone
    assert B.champion(state) == B.standings(state)[0]


def test_swiss_bye_is_a_series_won_without_bouts_or_opponent():
    state = B.create("swiss", NAMES[:3], {"rounds": 1})
    assert pairs_of(state) == [("ana", "ben"), ("cal", None)]
    state = play(state, ("ana", "ben", "ana", (2, 1)))
    table = {row["side"]: row for row in B.swiss_table(state)}
    assert table["cal"]["series_won"] == 1
    assert table["cal"]["buchholz"] == 0 and table["cal"]["bout_difference"] == 0
    assert table["ana"]["buchholz"] == 0 and table["ben"]["buchholz"] == 1
    # ana and cal both on one win, Buchholz 0, median 0: bout difference +1 vs 0
    assert B.standings(state) == ["ana", "cal", "ben"]


# ------------------------------------------------------------------ events


def test_fold_of_the_events_equals_the_state_reached_step_by_step():
    state = B.create("double", NAMES[:6])
    events = [B.created_event("double", NAMES[:6])]
    while B.pending_series(state):
        s = B.pending_series(state)[-1]
        ev = B.result_event(state, s.b, s.a, s.b, (3, 1))
        assert ev == {
            "type": "series_result",
            "data": {"series": s.id, "a": s.b, "b": s.a, "winner": s.b, "bouts": [3, 1]},
        }
        events.append(ev)
        state = B.evolve(state, ev)
    assert B.fold(events) == state
    assert B.fold(B.events_of(state)) == state
    assert B.champion(state) is not None


def test_events_may_be_objects_with_type_and_data():
    from types import SimpleNamespace as NS

    created = B.created_event("single", ["ana", "ben"])
    state = B.fold(
        [
            NS(**created),
            NS(
                type="series_result",
                data={"a": "ana", "b": "ben", "winner": "ben", "bouts": [0, 2]},
            ),
        ]
    )
    assert B.champion(state) == "ben"


def test_an_event_naming_the_wrong_series_is_refused():
    state = B.create("single", NAMES[:4])
    bad = {
        "type": "series_result",
        "data": {"series": "R1-2", "a": "ana", "b": "dee", "winner": "ana", "bouts": [2, 0]},
    }
    with pytest.raises(B.BracketError, match="series R1-2 between ana and dee is not pending"):
        B.evolve(state, bad)
    with pytest.raises(B.BracketError, match="already created"):
        B.evolve(state, B.created_event("single", NAMES[:4]))
    with pytest.raises(B.BracketError, match="unknown bracket event"):
        B.evolve(state, {"type": "bout_won", "data": {}})


@pytest.mark.parametrize(
    "args, words",
    [
        (("ana", "ben", "cal", (2, 0)), "the winner cal is not one of the pair ana and ben"),
        (("ana", "zed", "ana", (2, 0)), "zed is not an entrant"),
        (("ana", "ana", "ana", (2, 0)), "two different sides"),
        (("ana", "dee", "ana", (2,)), "bouts must be two whole numbers"),
        (("ana", "dee", "ana", (2, -1)), "bouts must be two whole numbers"),
        (("ana", "dee", "ana", (True, 0)), "bouts must be two whole numbers"),
        (("ana", "ben", "ana", (2, 0)), "no series between ana and ben is pending"),
    ],
)
def test_apply_result_refuses_with_clear_words(args, words):
    state = B.create("single", NAMES[:4])
    with pytest.raises(B.BracketError, match=words):
        B.apply_result(state, *args)


def test_a_decided_series_is_named_when_refused():
    state = play(B.create("single", NAMES[:4]), ("ana", "dee", "ana"))
    with pytest.raises(B.BracketError) as exc:
        B.apply_result(state, "dee", "ana", "dee", (2, 0))
    assert "R1 ana vs dee was already won by ana" in str(exc.value)
    assert "pending: R1 ben vs cal" in str(exc.value)


@pytest.mark.parametrize(
    "fmt, entrants, options, words",
    [
        ("knockout", NAMES[:4], {}, "unknown format 'knockout'"),
        ("single", ["ana", "ben", "ana"], {}, "duplicate entrant 'ana'"),
        ("single", ["ana"], {}, "at least two entrants"),
        ("single", ["ana", 7], {}, "entrant 2 must be a non-empty name"),
        ("single", "ana,ben", {}, "entrants must be a list"),
        ("single", NAMES[:4], {"third_place": "yes"}, "third_place must be true or false"),
        ("swiss", NAMES[:4], {"rounds": 0}, "rounds must be from 1 to"),
        ("swiss", NAMES[:4], {"rounds": 2.5}, "rounds must be a whole number"),
        ("round_robin", NAMES[:4], {"seed": "x"}, "seed must be a whole number"),
        ("double", NAMES[:4], [], "options must be an object"),
    ],
)
def test_creation_is_validated(fmt, entrants, options, words):
    with pytest.raises(B.MalformedBracket, match=words):
        B.create(fmt, entrants, options)


# ------------------------------------------------------------------ reset (dispute overturns)


def test_reset_voids_the_result_and_what_depended_on_it_only():
    state = B.create("single", NAMES[:8])
    state = play(
        state,
        ("ana", "hal", "ana"),
        ("dee", "eve", "dee"),
        ("ben", "gus", "ben"),
        ("cal", "fay", "cal"),
        ("ana", "dee", "ana"),
        ("ben", "cal", "ben"),
    )
    assert B.dependents(state, "R1-2") == ["R1-2", "R2-1"]
    new = B.reset_from(state, "R1-2")
    assert [r.series for r in new.results] == ["R1-1", "R1-3", "R1-4", "R2-2"]
    assert {s.id for s in B.pending_series(new)} == {"R1-2"}
    # the overturn: eve wins instead, and the replay goes on from there
    new = play(new, ("eve", "dee", "eve"))
    assert pairs_of(new, "R2") == [("ana", "eve"), ("ben", "cal")]
    assert [s.id for s in B.pending_series(new)] == ["R2-1"]
    assert B.fold(B.events_of(new)) == new


def test_reset_in_round_robin_touches_one_series():
    state = B.create("round_robin", NAMES[:4])
    for s in list(B.pending_series(state)):
        state = B.apply_result(state, s.a, s.b, s.a, (2, 0))
    new = B.reset_from(state, "R2-1")
    assert len(new.results) == 5 and [s.id for s in B.pending_series(new)] == ["R2-1"]
    assert B.champion(new) is None


def test_reset_in_swiss_voids_every_later_round():
    state = B.create("swiss", NAMES[:8])
    while B.pending_series(state):
        s = B.pending_series(state)[0]
        state = B.apply_result(state, s.a, s.b, s.b, (1, 2))
    new = B.reset_from(state, "R1-3")
    assert [r.series for r in new.results] == ["R1-1", "R1-2", "R1-4"]
    assert max(s.round for s in new.series) == "R1"


def test_reset_in_double_elimination_resets_the_grand_final():
    state = B.create("double", NAMES[:4])
    state = play(
        state,
        ("ana", "dee", "ana"),
        ("ben", "cal", "ben"),
        ("dee", "cal", "cal"),
        ("ana", "ben", "ana"),
        ("ben", "cal", "ben"),
        ("ana", "ben", "ana"),
    )
    assert B.champion(state) == "ana"
    new = B.reset_from(state, "L2-1")
    assert B.dependents(state, "L2-1") == ["L2-1", "GF"]
    assert B.champion(new) is None
    assert [s.id for s in B.pending_series(new)] == ["L2-1"]


def test_reset_of_a_series_without_result_is_refused():
    state = B.create("single", NAMES[:3])
    with pytest.raises(B.BracketError, match="is a bye"):
        B.reset_from(state, "R1-1")
    with pytest.raises(B.BracketError, match="no result is recorded for series R1-2"):
        B.reset_from(state, "R1-2")


# ------------------------------------------------------------------ the file command


def write(tmp_path, doc, name="b.json"):
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(p)


GOOD = {
    "format": "single",
    "entrants": ["ana", "ben"],
    "results": [{"a": "ana", "b": "ben", "winner": "ben", "bouts": [1, 3]}],
}


def run_main(*paths):
    out, err = io.StringIO(), io.StringIO()
    code = B.main(list(paths), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_main_prints_the_output_object(tmp_path):
    code, out, err = run_main(write(tmp_path, GOOD))
    assert code == 0 and err == ""
    assert json.loads(out) == {
        "series": [{"round": "R1", "a": "ana", "b": "ben", "winner": "ben"}],
        "standings": ["ben", "ana"],
        "champion": "ben",
    }


def test_main_prints_a_list_for_several_files(tmp_path):
    code, out, _ = run_main(write(tmp_path, GOOD), str(SHARED / "single-4.json"))
    assert code == 0
    got = json.loads(out)
    assert isinstance(got, list) and [o["champion"] for o in got] == ["ben", "ana"]


def test_expect_mismatches_are_each_named_and_exit_1(tmp_path):
    doc = dict(
        GOOD,
        expect={
            "champion": "ana",
            "standings": ["ana", "ben"],
            "series": [
                {"round": "R1", "a": "ana", "b": "ben", "winner": "ana"},
                {"round": "R2", "a": "ana", "b": "ben", "winner": "ana"},
            ],
        },
    )
    code, out, err = run_main(write(tmp_path, doc))
    assert code == 1
    assert json.loads(out)["champion"] == "ben"
    assert 'champion: expected "ana", got "ben"' in err
    assert "standings: expected" in err
    assert "series 1: expected" in err
    assert "series: expected 2 entries, got 1" in err


def test_expect_compares_only_the_keys_given(tmp_path):
    code, _, err = run_main(write(tmp_path, dict(GOOD, expect={"champion": "ben"})))
    assert (code, err) == (0, "")


def test_a_result_for_a_series_not_pending_exits_1_naming_it(tmp_path):
    doc = dict(
        GOOD, results=GOOD["results"] + [{"a": "ben", "b": "ana", "winner": "ana", "bouts": [0, 3]}]
    )
    code, out, err = run_main(write(tmp_path, doc))
    assert code == 1
    assert "result 2 (ben vs ana): no series between ben and ana is pending" in err
    assert "R1 ana vs ben was already won by ben" in err


@pytest.mark.parametrize(
    "doc, words",
    [
        ("{not json", "not valid JSON"),
        ([1, 2], "must hold a JSON object"),
        ({"entrants": ["ana", "ben"]}, "needs a format"),
        (dict(GOOD, format="ladder"), "unknown format 'ladder'"),
        (dict(GOOD, entrants=["ana", "ben", "ana"]), "duplicate entrant 'ana'"),
        (
            dict(GOOD, results=[{"a": "ana", "b": "ben", "winner": "cal", "bouts": [1, 3]}]),
            "result 1: the winner cal is not one of the pair ana and ben",
        ),
        (
            dict(GOOD, results=[{"a": "ana", "b": "ben", "winner": "ben", "bouts": "3-1"}]),
            "result 1: bouts must be two whole numbers",
        ),
        (dict(GOOD, results=[{"a": "ana", "b": "ben", "winner": "ben"}]), "result 1 has no bouts"),
        (
            dict(GOOD, results=[{"a": "ana", "b": 3, "winner": "ana", "bouts": [1, 0]}]),
            "result 1: b must be an entrant's name",
        ),
        (dict(GOOD, results={"a": "ana"}), "results must be a list"),
        (dict(GOOD, options={"grand_final_reset": 1}), "grand_final_reset must be true or false"),
        (dict(GOOD, expect=["ben"]), "expect must be an object"),
    ],
)
def test_malformed_files_exit_2(tmp_path, doc, words):
    path = write(tmp_path, doc if isinstance(doc, str) else json.dumps(doc))
    with pytest.raises(B.MalformedBracket, match=words):
        B.run_file(path)
    code, out, err = run_main(path)
    assert code == 2 and out == ""
    assert words.split(":")[-1].strip() in err


def test_missing_file_and_no_file_exit_2(tmp_path):
    code, _, err = run_main(str(tmp_path / "nope.json"))
    assert code == 2 and "cannot read" in err
    assert run_main()[0] == 2


def test_worst_exit_code_wins(tmp_path):
    bad = write(tmp_path, dict(GOOD, expect={"champion": "ana"}), "bad.json")
    broken = write(tmp_path, "{", "broken.json")
    assert run_main(bad, write(tmp_path, GOOD, "good.json"))[0] == 1
    assert run_main(bad, broken)[0] == 2


def test_the_command_is_thin_and_uses_main(tmp_path):
    from tournaments.management.commands.bracket import Command

    out, err = io.StringIO(), io.StringIO()
    Command(stdout=out, stderr=err).handle(files=[write(tmp_path, GOOD)])
    assert json.loads(out.getvalue())["champion"] == "ben"
    with pytest.raises(SystemExit) as exc:
        Command(stdout=io.StringIO(), stderr=err).handle(files=[write(tmp_path, "{", "x.json")])
    assert exc.value.code == 2


MANAGE = ROOT / "manage.py"
VENV_PY = ROOT / ".venv" / "bin" / "python"


def test_manage_py_bracket_exit_codes(tmp_path):
    py = str(VENV_PY) if VENV_PY.exists() else sys.executable

    def run(*paths):
        return subprocess.run(
            [py, str(MANAGE), "bracket", *paths],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=120,
        )

    ok = run(str(SHARED / "single-4.json"), str(SHARED / "round-robin-3.json"))
    assert ok.returncode == 0, ok.stderr
    assert [o["champion"] for o in json.loads(ok.stdout)] == ["ana", "cal"]
    mismatch = run(write(tmp_path, dict(GOOD, expect={"champion": "ana"})))
    assert mismatch.returncode == 1 and "champion" in mismatch.stderr
    not_pending = run(write(tmp_path, dict(GOOD, results=GOOD["results"] * 2), "np.json"))
    assert not_pending.returncode == 1 and "ana and ben" in not_pending.stderr
    malformed = run(write(tmp_path, dict(GOOD, entrants=["ana", "ana"]), "m.json"))
    assert malformed.returncode == 2 and "duplicate entrant" in malformed.stderr


# ------------------------------------------------------------------ properties


OPTIONS = {
    "single": st.fixed_dictionaries({"third_place": st.booleans()}),
    "double": st.fixed_dictionaries({"grand_final_reset": st.booleans()}),
    "round_robin": st.fixed_dictionaries(
        {"double_round": st.booleans(), "seed": st.integers(0, 9)}
    ),
    "swiss": st.fixed_dictionaries({"seed": st.integers(0, 9)}),
}


def random_bracket(data, fmt, max_n=16):
    n = data.draw(st.integers(2, max_n), label="entrants")
    opts = data.draw(OPTIONS[fmt], label="options")
    state = B.create(fmt, NAMES[:n], opts)
    steps = 0
    while B.pending_series(state):
        pend = B.pending_series(state)
        s = pend[data.draw(st.integers(0, len(pend) - 1), label="series")]
        first_to = 2
        loser_bouts = data.draw(st.integers(0, first_to - 1), label="loser bouts")
        a_wins = data.draw(st.booleans(), label="a wins")
        w = s.a if a_wins else s.b
        bouts = (first_to, loser_bouts) if a_wins else (loser_bouts, first_to)
        state = B.apply_result(state, s.a, s.b, w, bouts)
        steps += 1
        assert steps <= 4 * n * n, "the bracket never ends"
    return n, opts, state


def common_invariants(n, state):
    assert B.champion(state) is not None
    assert sorted(B.standings(state)) == sorted(NAMES[:n])
    assert B.standings(state)[0] == B.champion(state)
    assert not B.pending_series(state)
    assert len({s.id for s in state.series}) == len(state.series)
    assert B.fold(B.events_of(state)) == state


PROPS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def losses(state):
    c = Counter()
    for s in state.series:
        if s.loser:
            c[s.loser] += 1
    return c


@PROPS
@given(st.data())
def test_single_random(data):
    n, opts, state = random_bracket(data, "single")
    common_invariants(n, state)
    played = [s for s in state.series if not s.bye]
    third = opts["third_place"] and n >= 4
    assert len(played) == n - 1 + third
    assert len([s for s in state.series if s.bye]) == B._size(n) - n
    lost = losses(state)
    s3 = next((s for s in state.series if s.round == "3P"), None)
    assert (s3 is not None) == third
    for e in NAMES[:n]:
        assert lost[e] == (0 if e == B.champion(state) else 2 if s3 and e == s3.loser else 1)
    if third:
        assert B.standings(state)[2:4] == [s3.winner, s3.loser]


@PROPS
@given(st.data())
def test_double_random(data):
    n, opts, state = random_bracket(data, "double")
    common_invariants(n, state)
    champ = B.champion(state)
    lost = losses(state)
    k = B._size(n).bit_length() - 1
    wb_champ = next(s.winner for s in state.series if s.round == f"W{k}")
    gf = next(s for s in state.series if s.round == "GF")
    for e in NAMES[:n]:
        if e == champ:
            assert lost[e] <= 1
        elif e == wb_champ and not opts["grand_final_reset"] and gf.winner != wb_champ:
            assert lost[e] == 1
        else:
            assert lost[e] == 2, (e, lost[e])
    assert ("GF2" in [s.round for s in state.series]) == (
        opts["grand_final_reset"] and gf.winner != wb_champ
    )
    check_losers_rounds_minimise_rematches(state)


def check_losers_rounds_minimise_rematches(state):
    """No losers-bracket round repeats more meetings than another pairing of
    the same round would (survivors against newcomers in drop-in rounds)."""
    order = [s.round for s in state.series]
    l_rounds = sorted({r for r in order if r.startswith("L")}, key=lambda r: int(r[1:]))
    w_loss_round = {
        s.loser: int(s.round[1:]) for s in state.series if s.round.startswith("W") and s.loser
    }
    for r in l_rounds:
        num = int(r[1:])
        before = {
            frozenset((s.a, s.b))
            for s in state.series
            if s.b
            and (s.round.startswith("W") or (s.round.startswith("L") and int(s.round[1:]) < num))
        }
        pairs = [(s.a, s.b) for s in state.series if s.round == r and s.b]
        if len(pairs) < 2:
            continue
        cost = sum(frozenset(p) in before for p in pairs)
        if num % 2 == 0 and num > 1:
            newcomer = {x for p in pairs for x in p if w_loss_round.get(x) == num // 2 + 1}
            olds = [next(x for x in p if x not in newcomer) for p in pairs]
            news = [next(x for x in p if x in newcomer) for p in pairs]
            best = min(
                sum(frozenset((o, m)) in before for o, m in zip(olds, perm, strict=True))
                for perm in itertools.permutations(news)
            )
        else:
            sides = [x for p in pairs for x in p]
            best = min(sum(frozenset(p) in before for p in m) for m in matchings(sides))
        assert cost == best, (r, pairs)


def matchings(sides):
    if not sides:
        yield []
        return
    x, rest = sides[0], sides[1:]
    for i, y in enumerate(rest):
        for m in matchings(rest[:i] + rest[i + 1 :]):
            yield [(x, y)] + m


@PROPS
@given(st.data())
def test_round_robin_random(data):
    n, opts, state = random_bracket(data, "round_robin", max_n=10)
    common_invariants(n, state)
    legs = 2 if opts["double_round"] else 1
    met = Counter((s.a, s.b) for s in state.series if s.b)
    for x, y in itertools.combinations(NAMES[:n], 2):
        assert met[(x, y)] + met[(y, x)] == legs
        if legs == 2:
            assert met[(x, y)] == met[(y, x)] == 1
    rounds = {}
    for s in state.series:
        rounds.setdefault(s.round, []).extend([s.a] + ([s.b] if s.b else []))
    assert all(sorted(v) == sorted(NAMES[:n]) for v in rounds.values())
    wins = Counter(s.winner for s in state.series if s.b)
    stand = B.standings(state)
    assert [wins[e] for e in stand] == sorted((wins[e] for e in stand), reverse=True)


@PROPS
@given(st.data())
def test_swiss_random(data):
    n, opts, state = random_bracket(data, "swiss")
    common_invariants(n, state)
    pairs = [frozenset((s.a, s.b)) for s in state.series if s.b]
    assert len(pairs) == len(set(pairs)), "a Swiss pairing repeated a meeting"
    byes = [s.a for s in state.series if s.bye]
    assert len(byes) == len(set(byes)), "a side had two byes"
    rounds = sorted({s.round for s in state.series}, key=lambda r: int(r[1:]))
    assert len(rounds) <= B.swiss_rounds(n, opts)
    if not state.ended_early:
        assert len(rounds) == B.swiss_rounds(n, opts)
    for r in rounds:
        sides = [x for s in state.series if s.round == r for x in (s.a, s.b) if x]
        assert sorted(sides) == sorted(NAMES[:n])
        assert len([s for s in state.series if s.round == r and s.bye]) == n % 2
    table = B.swiss_table(state)
    keys = [
        (row["series_won"], row["buchholz"], row["median_buchholz"], row["bout_difference"])
        for row in table
    ]
    assert keys == sorted(keys, reverse=True)


@settings(max_examples=25, deadline=None)
@given(st.data(), st.sampled_from(B.FORMATS))
def test_reset_then_replay_is_consistent(data, fmt):
    n, opts, state = random_bracket(data, fmt, max_n=9)
    decided = [r.series for r in state.results]
    sid = data.draw(st.sampled_from(decided), label="voided")
    new = B.reset_from(state, sid)
    dropped = B.dependents(state, sid)
    assert dropped[0] == sid
    kept = [r for r in state.results if r.series not in dropped]
    assert list(new.results) == kept
    assert sid in {s.id for s in B.pending_series(new)}
    assert B.fold(B.events_of(new)) == new
    if fmt == "round_robin":
        assert dropped == [sid]
