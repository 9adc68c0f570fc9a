"""The benchmarks' pages cannot drift from the recorded results: the goals
table (docs/benchmarks/index.md) and the results page are what bench/run.py
makes of the committed bench/results/*.json, each result carries the verdicts
its benchmark makes of its own figures, a goal without a verdict fails
clearly, and each missed goal has its short section."""

import json
import re
import sys
from types import SimpleNamespace

import pytest

from tests.helpers.bench import BENCH, bench_modules, load_bench

RESULTS = BENCH / "results"


@pytest.fixture(scope="module")
def bench():
    with bench_modules() as (run, modules):
        yield SimpleNamespace(run=run, modules=modules)


@pytest.fixture(scope="module")
def committed(bench):
    return bench.run.load_results(bench.modules, RESULTS)


def _block(page, start: str, end: str) -> str:
    text = page.read_text()
    assert text.count(start) == 1 and text.count(end) == 1, f"{page.name}: its markers"
    return start + text.split(start, 1)[1].split(end, 1)[0] + end


def test_the_goals_table_is_what_the_generator_makes_of_the_committed_results(bench, committed):
    run = bench.run
    assert set(committed) == set(bench.modules), "a benchmark without a committed result"
    expected = run.block(run.GOALS_START, run.GOALS_END, run.goals_table(committed))
    assert _block(run.GOALS_PAGE, run.GOALS_START, run.GOALS_END) == expected, (
        "docs/benchmarks/index.md's goals table differs from bench/results/*.json: "
        "run `.venv/bin/python bench/run.py --readme-only`"
    )


def test_the_results_page_is_what_the_generator_makes_of_the_committed_results(bench):
    run = bench.run
    expected = run.block(run.START, run.END, run.render(bench.modules, RESULTS))
    assert _block(run.RESULTS_PAGE, run.START, run.END) == expected, (
        "docs/benchmarks/results.md differs from bench/results/*.json: "
        "run `.venv/bin/python bench/run.py --readme-only`"
    )


def test_each_result_carries_the_verdicts_its_benchmark_makes_of_its_figures(bench, committed):
    for name, result in committed.items():
        module = bench.modules[name]
        assert callable(getattr(module, "verdicts", None)), f"bench_{name}.py: no verdicts()"
        rows = bench.run.checked_verdicts(name, result)
        assert rows, f"{name}: no goal judged"
        assert rows == module.verdicts(result), (
            f"{name}: the stored verdicts are not its verdicts() of its figures: "
            "run `.venv/bin/python bench/run.py --rejudge`"
        )
        assert {r["run"] for r in rows} == {result["finished_at"][:10]}


def test_a_verdict_is_the_goal_the_figure_met_or_missed_and_the_runs_date():
    stack = load_bench("stack")
    result = {"finished_at": "2026-12-05T06:09:51Z"}
    assert stack.verdict(result, "p99 ≤ 100 ms", "375 ms", False) == {
        "goal": "p99 ≤ 100 ms",
        "figure": "375 ms",
        "verdict": "missed",
        "run": "2026-12-05",
    }
    assert stack.verdict(result, "p99 ≤ 500 ms", "78 ms", True)["verdict"] == "met"


def _row(**changes) -> dict:
    row = {"goal": "p99 ≤ 100 ms", "figure": "375 ms", "verdict": "missed", "run": "2026-12-05"}
    return {k: v for k, v in {**row, **changes}.items() if v is not None}


def test_the_goals_table_of_a_small_fixture(bench):
    results = {
        "zeta": {"finished_at": "2026-12-05T06:09:51Z", "verdicts": [_row()]},
        "alpha": {
            "verdicts": [
                _row(goal="a | b ≤ 1.2 ×", figure="1.11 ×", verdict="met", run="2026-12-04"),
                _row(goal="c ≥ 300/s", figure="107.9 /s", run="2026-12-04"),
            ]
        },
    }
    before = json.dumps(results, sort_keys=True)
    assert bench.run.goals_table(results) == "\n".join(
        [
            "| benchmark | goal | latest | run | |",
            "|---|---|---|---|---|",
            "| [alpha](results.md#alpha) | a \\| b ≤ 1.2 × | 1.11 × | 2026-12-04 | met |",
            "| [alpha](results.md#alpha) | c ≥ 300/s | 107.9 /s | 2026-12-04 | **missed** |",
            "| [zeta](results.md#zeta) | p99 ≤ 100 ms | 375 ms | 2026-12-05 | **missed** |",
        ]
    )
    assert json.dumps(results, sort_keys=True) == before  # read, never changed
    assert bench.run.goals_table({}) == "_No results yet: run `make bench`._"


@pytest.mark.parametrize(
    ("result", "says"),
    [
        ({"verdicts": [_row(verdict=None)]}, r"spectators: the goal 'p99 ≤ 100 ms' has no verdict"),
        ({"verdicts": [_row(verdict="nearly")]}, r"has no verdict \(met or missed\): 'nearly'"),
        ({"verdicts": [_row(verdict=True)]}, r"has no verdict \(met or missed\): True"),
        ({"verdicts": [_row(figure=None)]}, r"the goal 'p99 ≤ 100 ms' has no figure"),
        ({"verdicts": [_row(run="yesterday")]}, r"has no run date: 'yesterday'"),
        ({"verdicts": [_row(goal=None)]}, r"a verdict names no goal"),
        ({"goal": {"met": True}}, r"spectators: the result carries no verdicts"),
        ({"verdicts": None}, r"carries no verdicts .*--rejudge"),
    ],
)
def test_a_goal_without_its_verdict_fails_clearly(bench, result, says):
    with pytest.raises(bench.run.GoalsError, match=says):
        bench.run.goals_table({"fold": {"verdicts": [_row()]}, "spectators": result})


def test_a_block_is_replaced_between_its_markers_and_nothing_else(bench):
    run = bench.run
    text = f"# Page\n\nbefore\n\n{run.GOALS_START}\nold\n{run.GOALS_END}\n\nafter\n"
    new = run.replace_block(text, run.GOALS_START, run.GOALS_END, "TABLE")
    assert (
        new
        == f"# Page\n\nbefore\n\n{run.block(run.GOALS_START, run.GOALS_END, 'TABLE')}\n\nafter\n"
    )
    assert run.replace_block(new, run.GOALS_START, run.GOALS_END, "TABLE") == new
    assert run.replace_block("# Page\n", run.GOALS_START, run.GOALS_END, "TABLE") is None


def test_rejudge_stores_each_results_verdicts_from_its_figures(bench, tmp_path):
    def verdicts(result):
        return [
            _row(figure=f"{result['p99']} ms", verdict="met" if result["p99"] <= 100 else "missed")
        ]

    (tmp_path / "fast.json").write_text(json.dumps({"finished_at": "x", "p99": 375}))
    bench.run.rejudge({"fast": SimpleNamespace(verdicts=verdicts)}, tmp_path)
    stored = json.loads((tmp_path / "fast.json").read_text())
    assert stored == {"finished_at": "x", "p99": 375, "verdicts": [_row()]}
    with pytest.raises(bench.run.GoalsError, match="fast: the result carries no verdicts"):
        bench.run.rejudge({"fast": SimpleNamespace()}, tmp_path)  # a module without verdicts()


FAKE = """
def main(results_dir):
    return {"finished_at": "2026-12-06T10:00:00Z", "p99": 375}


def verdicts(result):
    return [{"goal": "p99 <= 100 ms", "figure": f"{result['p99']} ms", VERDICT "run": "2026-12-06"}]
"""


@pytest.mark.parametrize("verdict", ['"verdict": "missed",', ""])
def test_a_benchmark_run_stores_its_verdicts_or_fails_naming_the_goal(
    bench, tmp_path, monkeypatch, verdict
):
    path = tmp_path / "bench_fake.py"
    path.write_text(FAKE.replace("VERDICT", verdict))
    monkeypatch.setattr(bench.run, "discover", lambda: {"fake": path})
    monkeypatch.delitem(sys.modules, "bench_fake", raising=False)
    try:
        if verdict:
            assert bench.run.run_child("fake", tmp_path) == 0
        else:
            with pytest.raises(
                SystemExit, match="bench_fake: fake: the goal 'p99 <= 100 ms' has no"
            ):
                bench.run.run_child("fake", tmp_path)
    finally:
        sys.modules.pop("bench_fake", None)
    stored = json.loads((tmp_path / "fake.json").read_text())  # the figures kept either way
    assert stored["p99"] == 375
    assert [r.get("verdict") for r in stored["verdicts"]] == (["missed"] if verdict else [None])


def _missed_sections() -> dict[str, str]:
    text = (BENCH.parent / "docs" / "benchmarks" / "index.md").read_text()
    section = text.split("\n## Where each missed goal stands\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (\S+)\n", section, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_each_benchmark_with_a_missed_goal_has_a_short_section_on_its_recorded_run(committed):
    missed = {
        name: result
        for name, result in committed.items()
        if any(r["verdict"] == "missed" for r in result["verdicts"])
    }
    sections = _missed_sections()
    assert sorted(sections) == sorted(missed), "sections of 'Where each missed goal stands'"
    for name, text in sections.items():
        day = missed[name]["finished_at"][:10]
        assert day in text, f"the section {name} is not about its recorded run of {day}"
        lines = [line for line in text.strip().splitlines() if line]
        assert 3 <= len(lines) <= 6, f"the section {name}: {len(lines)} lines, not 3 to 6"
