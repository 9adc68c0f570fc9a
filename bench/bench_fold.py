"""Fold benchmark: a complete best-of-nine Doubting Love Letter match rebuilt
from its events, against ``json.loads`` of the same events.

Bots (heuristic, seeded) play whole matches with the engine alone; each
match's events become the rows the log would hold (``StoredEvent`` with its
data and metadata, unsaved), and their JSON text what the database would
send. Measured, for each match, many times (median and best):

- ``json.loads`` of the rows' JSON text: the floor of any rebuild;
- the fold the services make of the rows (``games.services.fold_rows``):
  what a command or a view pays when no kept state serves it;
- both together: the rebuild from the JSON text.

Goal: the fold ≤ 2 ms, judged on the longest match's best time (as
``timeit`` advises: the run least disturbed by other processes; the median
is reported beside it). No
database, no network. Settings: BENCH_FOLD_MATCHES (5), BENCH_FOLD_REPEATS
(300).
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402  (the result's header and environment)

TITLE = "Fold: a best-of-nine Doubting Love Letter match rebuilt from its events"
GAME = "doubting-love-letter"
OPTIONS = {"first_to": 5}  # best of nine
GOAL_MS = 2.0


def _setup() -> None:
    for p in (ROOT / "platform", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ["DJANGO_DEBUG"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    value = int(raw) if raw else default
    if value < 1:
        raise SystemExit(f"{name} must be at least 1 (got {value})")
    return value


def _rows(events) -> list:
    """The events as the log's rows (what ``read`` returns), unsaved."""
    from eventlog.models import StoredEvent

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    rows = []
    for v, e in enumerate(events, 1):
        rows.append(
            StoredEvent(
                id=v,
                stream="match-bench",
                version=v,
                type=e.type,
                data=dict(e.data),
                metadata={
                    "actor": "bot",
                    "role": "player",
                    "causation": None,
                    "visibility": {
                        "to": list(e.visible_to) if e.visible_to is not None else None,
                        "public": dict(e.public) if e.public is not None else None,
                    },
                },
                command_seq=1,
                recorded_at=t0 + timedelta(seconds=v),
            )
        )
    return rows


def _time(fn, repeats: int) -> dict:
    """Timed as ``timeit`` times: the garbage collector off meanwhile."""
    ns = []
    gc.collect()
    gc.disable()
    try:
        for _ in range(repeats):
            t = time.perf_counter_ns()
            fn()
            ns.append(time.perf_counter_ns() - t)
    finally:
        gc.enable()
    return {
        "median_ms": round(statistics.median(ns) / 1e6, 4),
        "best_ms": round(min(ns) / 1e6, 4),
        "p90_ms": round(sorted(ns)[int(0.9 * (len(ns) - 1))] / 1e6, 4),
    }


def main(results_dir) -> dict:
    _setup()
    from games.core.playout import play_match
    from games.core.registry import series_for
    from games.services import fold_rows

    def log(msg: str) -> None:
        print(f"  fold: {msg}", flush=True)

    n_matches = _env_int("BENCH_FOLD_MATCHES", 5)
    repeats = _env_int("BENCH_FOLD_REPEATS", 300)
    started = time.perf_counter()
    series = series_for(GAME)
    matches = []
    for seed in range(1, n_matches + 1):
        events, final = play_match(
            series,
            ["ana", "ben"],
            {"ana": "heuristic", "ben": "heuristic"},
            random.Random(seed),
            options=OPTIONS,
        )
        rows = _rows(events)
        if fold_rows(GAME, rows) != final:
            raise RuntimeError(f"seed {seed}: the fold of the rows is not the played state")
        text = json.dumps([{"type": r.type, "data": r.data, "metadata": r.metadata} for r in rows])
        for _ in range(20):  # warm-up
            fold_rows(GAME, rows)
            json.loads(text)
        loads = _time(lambda text=text: json.loads(text), repeats)
        fold = _time(lambda rows=rows: fold_rows(GAME, rows), repeats)
        both = _time(
            lambda rows=rows, text=text: (json.loads(text), fold_rows(GAME, rows)), repeats
        )
        matches.append(
            {
                "seed": seed,
                "events": len(rows),
                "bouts": final.bout_no,
                "scores": dict(final.scores),
                "json_bytes": len(text),
                "json_loads": loads,
                "fold": fold,
                "loads_and_fold": both,
                "fold_over_loads": round(fold["median_ms"] / loads["median_ms"], 2),
            }
        )
        log(
            f"seed {seed}: {len(rows)} events, json.loads {loads['median_ms']:.3f} ms, "
            f"fold {fold['median_ms']:.3f} ms"
        )
    judged = max(matches, key=lambda m: m["events"])
    value = judged["fold"]["best_ms"]
    result = {
        **stack.result_header("fold", TITLE, started),
        "params": {"matches": n_matches, "repeats": repeats, "game": GAME, "options": OPTIONS},
        "environment": stack.process_environment(),
        "matches": matches,
        "goal": {
            "target_ms": GOAL_MS,
            "value_ms": value,
            "met": value <= GOAL_MS,
            "judged_on": f"seed {judged['seed']} ({judged['events']} events, the longest), best time",
            "median_ms": judged["fold"]["median_ms"],
        },
    }
    log(f"goal fold <= {GOAL_MS} ms: {value:.3f} ms {'met' if value <= GOAL_MS else 'MISSED'}")
    return result


def markdown(result: dict) -> str:
    p, env, g = result["params"], result["environment"], result["goal"]
    lines = [
        f"**{result['title']}** — {p['matches']} matches of heuristic bots "
        f"(options `{json.dumps(p['options'])}`), each timed {p['repeats']}× (median; best "
        f"in brackets), in one process, no database. {result['finished_at']}, "
        f"{env['cpus']} CPUs, Python {env['python']}.",
        "",
        "| seed | events | bouts | JSON bytes | `json.loads` ms | fold ms | loads + fold ms "
        "| fold / loads |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for m in result["matches"]:
        lines.append(
            f"| {m['seed']} | {m['events']} | {m['bouts']} | {m['json_bytes']:,} "
            f"| {m['json_loads']['median_ms']:.3f} ({m['json_loads']['best_ms']:.3f}) "
            f"| {m['fold']['median_ms']:.3f} ({m['fold']['best_ms']:.3f}) "
            f"| {m['loads_and_fold']['median_ms']:.3f} | {m['fold_over_loads']:.1f}× |"
        )
    verdict = "met" if g["met"] else "**missed**"
    by = g["target_ms"] - g["value_ms"]
    lines += [
        "",
        f"Goal: the fold ≤ {g['target_ms']:g} ms, judged on {g['judged_on']}: {verdict} "
        f"({g['value_ms']:.3f} ms, {abs(by):.3f} ms {'under' if by >= 0 else 'over'}; "
        f"median {g['median_ms']:.3f} ms). "
        "The fold is `games.services.fold_rows`, what a command or a view pays when no "
        "kept state (`games/states.py`) serves it; `json.loads` of the same rows is the "
        "floor of any rebuild from the log.",
    ]
    return "\n".join(lines)


def verdicts(result: dict) -> list[dict]:
    """The goal as bench/run.py's goals table reads it."""
    g = result["goal"]
    return [
        stack.verdict(
            result,
            f"a best-of-nine match rebuilt from its events ≤ {g['target_ms']:g} ms "
            "(the longest, best time)",
            f"{g['value_ms']:.2f} ms (median {g['median_ms']:.2f})",
            g["met"],
        )
    ]
