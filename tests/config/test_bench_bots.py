"""The bots benchmark's bouts (issue #46): each seeded by its place in the
run, so one process or two play the same bouts; a pair stops starting bouts
once its time bound has run out."""

import importlib.util
import multiprocessing
import sys
from pathlib import Path

import pytest

from games.core import search

BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.fixture(scope="module")
def bench():
    saved, clock = list(sys.path), search.CLOCK
    try:
        spec = importlib.util.spec_from_file_location("_bench_bots", BENCH / "bench_bots.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # the workers find its _bout by this name
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("_bench_bots", None)
        sys.path[:] = saved
        search.CLOCK = clock  # the bench reads the caps on CPU time; the tests do not


def _duel(bench, seed, pool=None):
    """10 bouts of level 1 against level 0: the score, the bouts and each
    level's number of moves (bouts played differently differ in them)."""
    times: dict = {}
    total, played = bench.duel(
        "love-letter", "level1", "level0", 10, 2, False, seed, times, {}, pool
    )
    return total, played, {name: len(t) for name, t in sorted(times.items())}


def test_the_same_bouts_with_one_process_or_two(bench):
    alone = _duel(bench, 3)
    with multiprocessing.get_context("fork").Pool(2) as pool:
        assert _duel(bench, 3, pool) == alone
    assert alone[1] == 10
    assert all(_duel(bench, s) != alone for s in (4, 5))  # the seed does decide the bouts


def test_a_pair_stops_at_its_bound(bench):
    total, played = bench.duel("love-letter", "level1", "level0", 50, 2, False, 1, {}, {}, None, 0)
    assert played == 1 and 0 <= total <= 1
    assert bench._rate(total, played)["games"] == 1


def test_the_span_is_level_4_against_level_0_kept_apart_and_shown(bench):
    """``span`` plays level 4 against level 0 (its moves not in the levels'
    move times), a merge keeps a span measured before, and the table shows
    it beside the share four rungs of 60 % would need."""
    with search.thinking_at_most(search.Budget(4, 0.05)):
        out = bench.bench_game("love-letter", 4, 0, 1, lambda msg: None, ("span",))
    assert out["span"]["games"] == 4 and 0 <= out["span"]["rate"] <= 1
    assert out["ladder"] == [] and out["moves"]["level4"] == 0
    before = {"ladder": [], "ladder_four": [], "p95_ms": {}, "moves": {}, "span": out["span"]}
    later = bench.bench_game("love-letter", 2, 0, 1, lambda msg: None, ("level1",))
    merged = bench.merge_game(before, later)
    assert merged["span"] == out["span"] and merged["ladder"][0]["level"] == "level1"
    result = {
        "title": "t",
        "finished_at": "now",
        "params": {"games": 4, "games_four": 0},
        "environment": {"cpus": 2, "python": "3.11"},
        "games": {"love-letter": merged},
        "goals": bench._goals({"love-letter": merged}),
    }
    table = bench.markdown(result)
    assert bench._pct(out["span"]) in table.splitlines()[4]
    assert f"about {100 * bench.SPAN_NEEDED:.0f} %" in table
    assert 0.83 < bench.SPAN_NEEDED < 0.84  # 1.5**4 / (1 + 1.5**4)
