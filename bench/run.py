#!/usr/bin/env python
"""Run the benchmarks: every bench/bench_<name>.py that defines
``main(results_dir) -> dict``.

Each benchmark runs in a child process of its own (so each may set up Django
or anything else its own way); its result is written to
bench/results/<name>.json and the results page (docs/benchmarks/results.md) between
``<!-- bench:start -->`` and ``<!-- bench:end -->`` is rewritten from all the
results there (a module may define ``markdown(result) -> str`` for its table).

Each module also defines ``verdicts(result) -> list`` (each goal as
``stack.verdict`` makes it: goal, figure, verdict met or missed, run date),
stored in the result under ``verdicts``; the goals table of
docs/benchmarks/index.md (between ``<!-- goals:start -->`` and
``<!-- goals:end -->``) is rewritten from them, so it always says what the
stored results say. ``--rejudge`` stores them again from a result's figures
(no benchmark runs), for when a module's ``verdicts`` changes.

The benchmark-only packages in bench/requirements.txt are installed into the
running interpreter when missing (never part of the project's dependencies);
so are the Node packages of a benchmark's ``NODE_PROJECTS`` (folders with a
package.json and package-lock.json, e.g. bench/peers/boardgameio), with
``npm ci`` when their node_modules lacks a pinned version.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
RESULTS = BENCH / "results"
RESULTS_PAGE = ROOT / "docs" / "benchmarks" / "results.md"
GOALS_PAGE = ROOT / "docs" / "benchmarks" / "index.md"
REQUIREMENTS = BENCH / "requirements.txt"
CONSTRAINTS = ROOT / "constraints.txt"
START, END = "<!-- bench:start -->", "<!-- bench:end -->"
GOALS_START, GOALS_END = "<!-- goals:start -->", "<!-- goals:end -->"
VERDICTS = {"met": "met", "missed": "**missed**"}  # a verdict -> its cell
HEADING = "# Benchmark results"

# option -> environment variable read by the benchmarks
ENV_OPTIONS = {
    "events": "BENCH_EVENTS",
    "block": "BENCH_BLOCK",
    "warmup": "BENCH_WARMUP",
    "reads": "BENCH_READS",
    "modes": "BENCH_MODES",
    "pg": "BENCH_PG",
}


def say(msg: str) -> None:
    print(msg, flush=True)


def discover() -> dict[str, Path]:
    return {p.stem.removeprefix("bench_"): p for p in sorted(BENCH.glob("bench_*.py"))}


def load(name: str, path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def runnable(modules: dict[str, Path]) -> dict[str, ModuleType]:
    out = {}
    for name, path in modules.items():
        module = load(name, path)
        if callable(getattr(module, "main", None)):
            out[name] = module
    return out


# ------------------------------------------------------------ requirements


def _pins() -> list[tuple[str, str, str]]:
    """(requirement line, distribution, version) for each pinned line."""
    pins = []
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)(\[[^\]]*\])?==([^\s;]+)", line)
        if m:
            pins.append((line, m.group(1), m.group(3)))
    return pins


def ensure_requirements(allow_install: bool) -> None:
    from importlib.metadata import PackageNotFoundError, version

    missing = []
    for line, dist, wanted in _pins():
        try:
            have = version(dist)
        except PackageNotFoundError:
            have = None
        if have != wanted:
            missing.append(f"{line} (installed: {have or 'none'})")
    if not missing:
        return
    if not allow_install:
        raise SystemExit(
            "benchmark-only packages missing: "
            + "; ".join(missing)
            + f"\n  pip install -r {REQUIREMENTS}"
        )
    say(
        "note: installing the benchmark-only packages from bench/requirements.txt into "
        f"{sys.prefix} (not project dependencies):\n  " + "\n  ".join(missing)
    )
    cmd = [sys.executable, "-m", "pip", "install", "--quiet", "-r", str(REQUIREMENTS)]
    if CONSTRAINTS.exists():  # keep the project's own pins (psycopg, ...) as they are
        cmd[4:4] = ["-c", str(CONSTRAINTS)]
    subprocess.run(cmd, check=True)
    importlib.invalidate_caches()


def node_missing(project: Path) -> list[str]:
    """The dependencies of project/package.json (exact versions) that its
    node_modules does not hold at that version."""
    pkg = json.loads((project / "package.json").read_text())
    missing = []
    for dep, wanted in sorted(pkg.get("dependencies", {}).items()):
        try:
            have = json.loads((project / "node_modules" / dep / "package.json").read_text())
            have = have.get("version")
        except (OSError, ValueError):
            have = None
        if have != wanted:
            missing.append(f"{dep}@{wanted} (installed: {have or 'none'})")
    return missing


def ensure_node_projects(modules: list[ModuleType], allow_install: bool) -> None:
    for module in modules:
        for project in getattr(module, "NODE_PROJECTS", []):
            missing = node_missing(project)
            if not missing:
                continue
            rel = project.relative_to(ROOT) if project.is_relative_to(ROOT) else project
            npm = shutil.which("npm")
            if not allow_install or npm is None:
                raise SystemExit(
                    f"Node packages missing in {rel}: "
                    + "; ".join(missing)
                    + f"\n  cd {rel} && npm ci"
                    + ("" if npm else "  (npm is not installed)")
                )
            say(
                f"note: installing {rel}'s Node packages (npm ci, package-lock.json):\n  "
                + "\n  ".join(missing)
            )
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=project, check=True)


# ------------------------------------------------------------ results page


def _generic_markdown(result: dict) -> str:
    body = json.dumps(result, indent=2, sort_keys=True)
    return f"```json\n{body}\n```"


def render(modules: dict[str, ModuleType], results_dir: Path) -> str:
    parts = []
    for name, module in modules.items():
        path = results_dir / f"{name}.json"
        if not path.exists():
            continue
        result = json.loads(path.read_text())
        md = getattr(module, "markdown", _generic_markdown)(result)
        rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        parts.append(f"## {name}\n\n{md}\n\nRaw numbers: `{rel}`.")
    return "\n\n".join(parts) if parts else "_No results yet: run `make bench`._"


def block(start: str, end: str, body: str) -> str:
    """A generated block of a page, its markers included."""
    return (
        f"{start}\n<!-- generated by bench/run.py from bench/results/*.json: "
        f"edits between the markers are overwritten -->\n\n{body}\n\n{end}"
    )


def replace_block(text: str, start: str, end: str, body: str) -> str | None:
    """``text`` with its block between ``start`` and ``end`` made of ``body``;
    None when the text has no such markers."""
    if start in text and end in text and text.index(start) < text.index(end):
        head, rest = text.split(start, 1)
        return head + block(start, end, body) + rest.split(end, 1)[1]
    return None


def rewrite_results_page(modules: dict[str, ModuleType], results_dir: Path) -> None:
    text = RESULTS_PAGE.read_text() if RESULTS_PAGE.exists() else ""
    body = render(modules, results_dir)
    new = replace_block(text, START, END, body)
    if new is None:
        say(f"note: {RESULTS_PAGE.name} had no {START} ... {END} markers; writing them")
        new = f"{HEADING}\n\nRun with `make bench`.\n\n{block(START, END, body)}\n"
    RESULTS_PAGE.write_text(new)
    say(f"{RESULTS_PAGE.relative_to(ROOT)}: rewritten from {results_dir}")


# ------------------------------------------------------------- goals table


class GoalsError(ValueError):
    """A stored result the goals table cannot say (its verdicts missing or
    not in the one shape)."""


def checked_verdicts(name: str, result: dict) -> list[dict]:
    """The result's verdicts, each checked to be a goal with a figure, a
    verdict (met or missed) and a run date; GoalsError says which is not."""
    rows = result.get("verdicts")
    if not isinstance(rows, list):
        raise GoalsError(
            f"{name}: the result carries no verdicts (bench_{name}.verdicts(result) makes "
            "them; `bench/run.py --rejudge` stores them from a result's figures)"
        )
    for row in rows:
        goal = row.get("goal") if isinstance(row, dict) else None
        if not goal:
            raise GoalsError(f"{name}: a verdict names no goal: {row!r}")
        if row.get("verdict") not in VERDICTS:
            raise GoalsError(
                f"{name}: the goal {goal!r} has no verdict (met or missed): {row.get('verdict')!r}"
            )
        if not row.get("figure"):
            raise GoalsError(f"{name}: the goal {goal!r} has no figure")
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(row.get("run"))):
            raise GoalsError(f"{name}: the goal {goal!r} has no run date: {row.get('run')!r}")
    return rows


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def goals_table(results: dict[str, dict]) -> str:
    """The goals table from the stored results (benchmark name -> its result),
    the benchmarks in the order of their names: a pure function of them."""
    lines = [
        "| benchmark | goal | latest | run | |",
        "|---|---|---|---|---|",
    ]
    for name in sorted(results):
        for row in checked_verdicts(name, results[name]):
            lines.append(
                f"| [{name}](results.md#{name}) | {_cell(row['goal'])} "
                f"| {_cell(row['figure'])} | {row['run']} | {VERDICTS[row['verdict']]} |"
            )
    return "\n".join(lines) if len(lines) > 2 else "_No results yet: run `make bench`._"


def load_results(names, results_dir: Path) -> dict[str, dict]:
    """The stored result of each of these benchmarks that has one."""
    paths = {name: results_dir / f"{name}.json" for name in names}
    return {name: json.loads(p.read_text()) for name, p in paths.items() if p.exists()}


def rewrite_goals_page(results: dict[str, dict]) -> None:
    text = GOALS_PAGE.read_text()
    try:
        table = goals_table(results)
    except GoalsError as e:
        raise SystemExit(f"{GOALS_PAGE.relative_to(ROOT)} not rewritten: {e}") from None
    new = replace_block(text, GOALS_START, GOALS_END, table)
    if new is None:
        raise SystemExit(
            f"{GOALS_PAGE.relative_to(ROOT)} has no {GOALS_START} ... {GOALS_END} markers: "
            "put them where the goals table goes"
        )
    GOALS_PAGE.write_text(new)
    say(f"{GOALS_PAGE.relative_to(ROOT)}: the goals table rewritten")


def rewrite_pages(modules: dict[str, ModuleType], results_dir: Path) -> None:
    """The results page and the goals table, from the results in results_dir."""
    rewrite_results_page(modules, results_dir)
    rewrite_goals_page(load_results(modules, results_dir))


def write_result(result: dict, path: Path) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(result, indent=2) + "\n")
    tmp.replace(path)


def judge(module: ModuleType, result: dict) -> dict:
    """The result with its verdicts, made by the module's ``verdicts``."""
    verdicts = getattr(module, "verdicts", None)
    return {**result, "verdicts": verdicts(result) if callable(verdicts) else None}


def rejudge(modules: dict[str, ModuleType], results_dir: Path) -> None:
    """Store each stored result's verdicts again from its own figures."""
    for name, result in load_results(modules, results_dir).items():
        result = judge(modules[name], result)
        checked_verdicts(name, result)
        write_result(result, results_dir / f"{name}.json")
        say(f"{name}: {len(result['verdicts'])} verdicts stored")


# ------------------------------------------------------------------- child


def run_child(name: str, results_dir: Path) -> int:
    """In the child process: run one benchmark and write its JSON."""
    path = discover()[name]
    module = load(name, path)
    result = module.main(results_dir)
    if not isinstance(result, dict):
        raise SystemExit(f"bench_{name}.main() returned {type(result).__name__}, not a dict")
    results_dir.mkdir(parents=True, exist_ok=True)
    try:
        result = judge(module, result)
    finally:  # the figures are kept even when judging them fails (then --rejudge)
        write_result(result, results_dir / f"{name}.json")
    try:
        checked_verdicts(name, result)
    except GoalsError as e:
        raise SystemExit(f"bench_{name}: {e}") from None
    return 0


# -------------------------------------------------------------------- main


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="bench/run.py",
        description=(
            "Run the benchmarks in bench/ (every bench_<name>.py defining main(results_dir)), "
            "write bench/results/<name>.json (with its goals' verdicts) and rewrite the docs' "
            "results page (docs/benchmarks/results.md) and goals table (docs/benchmarks/index.md). "
            "The event-store benchmark needs PostgreSQL on a loopback address: it creates and "
            "drops its own database gameshow_bench on the server given by BENCH_PG."
        ),
        epilog=(
            "Environment: BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres), "
            "BENCH_EVENTS, BENCH_BLOCK, BENCH_WARMUP, BENCH_READS, BENCH_MODES, BENCH_KEEP_DB=1, "
            "BENCH_DB_PREFIX (names of the databases created), BENCH_WRITERS, BENCH_GROWTH_PAIRS, "
            "BENCH_GROWTH_PARTS, BENCH_GROWTH_SHOW_SHORT, BENCH_GROWTH_SHOW_LONG, "
            "BENCH_FOLD_MATCHES; "
            "the options below override them. `make bench` runs this with no options."
        ),
    )
    p.add_argument("--list", action="store_true", help="list the benchmarks found and exit")
    p.add_argument(
        "--only", action="append", metavar="NAME", help="run only this benchmark (repeatable)"
    )
    p.add_argument("--events", type=int, help="events appended per contender (default 1000)")
    p.add_argument(
        "--block",
        type=int,
        help="appends per contender before the next one takes over (default 10)",
    )
    p.add_argument("--warmup", type=int, help="warm-up appends per contender (default 100)")
    p.add_argument("--reads", type=int, help="times the stream is read back (default 5)")
    p.add_argument(
        "--modes",
        metavar="sync,async",
        help="commit modes to measure: sync (synchronous_commit=on, judged against the goals) "
        "and/or async (synchronous_commit=off on the bench database); default both",
    )
    p.add_argument("--pg", metavar="URL", help="PostgreSQL server (loopback only); sets BENCH_PG")
    p.add_argument(
        "--keep-db", action="store_true", help="keep the gameshow_bench database afterwards"
    )
    p.add_argument(
        "--results-dir",
        type=Path,
        default=RESULTS,
        help="where <name>.json goes (default bench/results)",
    )
    p.add_argument(
        "--no-readme",
        action="store_true",
        help="do not rewrite the results page nor the goals table",
    )
    p.add_argument(
        "--readme-only",
        action="store_true",
        help="only rewrite the results page and the goals table (docs/benchmarks/index.md) "
        "from the results already in --results-dir",
    )
    p.add_argument(
        "--rejudge",
        action="store_true",
        help="store each result's verdicts again from its own figures (each module's "
        "verdicts(result); no benchmark runs), then rewrite the pages as --readme-only",
    )
    p.add_argument(
        "--no-install",
        action="store_true",
        help="fail instead of installing missing bench/requirements.txt packages "
        "(pip) or a benchmark's Node packages (npm ci)",
    )
    p.add_argument("--child", nargs=2, metavar=("NAME", "DIR"), help=argparse.SUPPRESS)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.child:
        return run_child(args.child[0], Path(args.child[1]))

    found = discover()
    if args.list:
        for name, path in found.items():
            say(f"{name}\t{path.relative_to(ROOT)}")
        return 0
    if args.only:
        unknown = sorted(set(args.only) - set(found))
        if unknown:
            raise SystemExit(f"unknown benchmark(s) {unknown}; found {sorted(found)}")

    if args.readme_only or args.rejudge:
        modules, results_dir = runnable(found), args.results_dir.resolve()
        if args.rejudge:
            rejudge(modules, results_dir)
        rewrite_pages(modules, results_dir)
        return 0

    ensure_requirements(allow_install=not args.no_install)
    modules = runnable(found)
    chosen = [n for n in modules if not args.only or n in args.only]
    if not chosen:
        raise SystemExit("no benchmark to run (bench/bench_<name>.py with a main(results_dir))")
    ensure_node_projects([modules[n] for n in chosen], allow_install=not args.no_install)

    env = dict(os.environ)
    for opt, var in ENV_OPTIONS.items():
        value = getattr(args, opt)
        if value is not None:
            env[var] = str(value)
    if args.keep_db:
        env["BENCH_KEEP_DB"] = "1"
    results_dir = args.results_dir.resolve()

    failed = []
    for name in chosen:
        say(f"== {name} ==")
        t0 = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, str(Path(__file__).resolve()), "--child", name, str(results_dir)],
            env=env,
            cwd=ROOT,
        )
        took = time.perf_counter() - t0
        if proc.returncode:
            failed.append(name)
            say(f"== {name}: FAILED (exit {proc.returncode}) after {took:.0f}s ==")
        else:
            say(f"== {name}: done in {took:.0f}s -> {results_dir / (name + '.json')} ==")

    if not args.no_readme:
        rewrite_pages(modules, results_dir)
    if failed:
        say(f"failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
