"""Benchmark 7: clocks at ten times the scale of bench_clocks.

500 clocked Doubting Love Letter matches whose seats never act, against what
production runs: two Celery ``worker``s (prefork, concurrency 2) and one
``beat`` started by docker/entrypoint.sh (bench/stack.py), on a private Redis
and a database of their own. This process creates the matches as a web process does (Django set up on
the same database and broker, with the entrypoint's ``REACTORS_INLINE=0``);
the ``reactors`` role follows the log, as in production: it wakes the batch
enforcer at each creation's deadline (a real Celery task with an ETA, one per
10 ms window of deadlines, unless the enforcer's loop, clocks.watch, already
watches it: the first wake-up becomes that loop) and rates the results; each
first deadline is about 3 s after creation
(decision 1 s + reserve 2 s). Lateness = the ``timed_out`` row's
``recorded_at`` − the deadline the match was given at creation.

Three runs, one after the other on the same processes:

1. staggered: one match every 10 ms (goal p99 ≤ 100 ms);
2. burst: 500 created back to back by BENCH_CLOCKS_SCALE_CREATORS threads
   (goal p99 ≤ 250 ms);
3. kill: one every 10 ms again, and worker 1 (its whole process group: the
   main process and its pool, as a container stop) SIGKILLed halfway through
   the deadlines. The wake-ups it held are gone with it (unacked in Redis
   until the visibility timeout, an hour); beat's sweep (every 2 s, run by
   worker 2) must enforce them. Checked: every match timed out, and every
   deadline's timeout was written exactly once (no two ``timed_out`` events
   for one deadline of one stream); the lateness of those the sweep caught is
   reported apart.

Which path wrote a timeout is read from the workers' JSON logs: the bench's
settings (bench/benchsite) tag every log line of a Celery task with the task
(``clocks.enforce_due`` = the enforcer woken at a deadline, or its loop;
``clocks.sweep``), and the
clock's "timeout of <stream> written" line carries the stream.

Environment: BENCH_CLOCKS_SCALE_MATCHES (500), BENCH_CLOCKS_SCALE_STAGGER_MS (10),
BENCH_CLOCKS_SCALE_CREATORS (4 threads), BENCH_CLOCKS_SCALE_WAIT_S (30: the longest
wait after a run's last deadline), and bench/stack.py's.
"""

from __future__ import annotations

import json
import os
import random
import re
import signal
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402

NAME = "clocks_scale"
TITLE = "Clocks at ten times the scale: two prefork workers and beat"
GAME = "doubting-love-letter"
OPTIONS = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}
GOALS_MS = {"staggered": 100.0, "burst": 250.0}
SWEEP_S = 2.0


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _settings() -> dict:
    return {
        "matches": stack.env_int("BENCH_CLOCKS_SCALE_MATCHES", 500, 10, 2000),
        "stagger_ms": stack.env_int("BENCH_CLOCKS_SCALE_STAGGER_MS", 10, 0, 1000),
        "creators": stack.env_int("BENCH_CLOCKS_SCALE_CREATORS", 4, 1, 16),
        "wait_s": stack.env_int("BENCH_CLOCKS_SCALE_WAIT_S", 30, 5, 300),
    }


def _django(st: stack.Stack) -> None:
    for p in (ROOT / "platform", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    env = st.procs.env
    for key in ("DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY", "DJANGO_DEBUG", "VAR_DIR"):
        os.environ[key] = env[key]
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings"
    os.environ["LOG_LEVEL"] = "WARNING"
    # a web process's setting (docker/entrypoint.sh): the reactors role follows the log
    os.environ["REACTORS_INLINE"] = "0"
    import django

    django.setup()


def _create(n: int, stagger_s: float, creators: int, tag: str, made: list | None = None) -> list:
    """n matches, match i created at t0 + i × stagger (back to back when 0);
    each is appended to ``made`` as it is created."""
    from django.db import connection

    from games import services

    made = [] if made is None else made
    lock = threading.Lock()
    t0 = time.time() + 0.1

    def creator(k: int) -> None:
        try:
            for i in range(k, n, creators):
                pause = t0 + i * stagger_s - time.time()
                if pause > 0:
                    time.sleep(pause)
                a = time.time()
                match = services.create_match(
                    GAME,
                    ["ana", "ben"],
                    options=OPTIONS,
                    setup={"first": "ana"},
                    title=f"{tag} {i}",
                    rng=random.Random(i),
                )
                b = time.time()
                with lock:
                    made.append(
                        {
                            "i": i,
                            "id": match.pk,
                            "stream": match.stream,
                            "created_at": a,
                            "create_ms": (b - a) * 1e3,
                            "deadline": match.next_deadline.timestamp(),
                        }
                    )
        finally:
            connection.close()

    threads = [threading.Thread(target=creator, args=(k,)) for k in range(creators)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=600)
    return sorted(made, key=lambda m: m["i"])


def _timeouts(streams: list[str]) -> dict[str, list[tuple[float, float]]]:
    """stream -> [(recorded_at, the deadline it enforced)] of its timed_out events."""
    from eventlog.models import StoredEvent

    out: dict[str, list] = {}
    rows = StoredEvent.objects.filter(stream__in=streams, type="timed_out").order_by("id")
    for r in rows.values_list("stream", "recorded_at", "data"):
        out.setdefault(r[0], []).append((r[1].timestamp(), float(r[2].get("at", 0))))
    return out


def _wait(streams: list[str], until: float) -> dict:
    while True:
        got = _timeouts(streams)
        if len(got) == len(streams) or time.time() >= until:
            return got
        time.sleep(0.2)


_WRITTEN = re.compile(r"begun (-?[\d.]+) ms after its deadline, written in ([\d.]+) ms")


def _writers(st: stack.Stack) -> dict[str, tuple[str, float | None, float | None]]:
    """stream -> (the task that wrote its first timeout, "armed" or "sweep";
    how many ms after the deadline it began; how many it took), from the logs."""
    out: dict[str, tuple] = {}
    for name in ("worker1", "worker2"):
        path = st.workdir / f"{name}.log"
        if not path.exists():
            continue
        for raw in path.read_text(errors="replace").splitlines():
            if '"timeout of ' not in raw or " written" not in raw:
                continue
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            task = str(rec.get("task_id", ""))
            path_ = (
                "armed"
                if task.startswith(("clocks.enforce_due", "clocks.enforce_deadline"))
                else "sweep"
                if task.startswith("clocks.sweep")
                else "other"
            )
            timed = _WRITTEN.search(str(rec.get("message", "")))
            begun, took = (float(timed[1]), float(timed[2])) if timed else (None, None)
            out.setdefault(rec.get("stream", ""), (path_, begun, took))
    return out


def _start_killer(st: stack.Stack, s: dict, made: list) -> tuple[threading.Thread, list]:
    """A thread that SIGKILLs worker 1 midway: once half the matches exist and
    the latest of their deadlines passed; (the thread, [when it killed])."""
    killed_at = [None]

    def kill_worker() -> None:
        limit = time.time() + 600
        while len(made) < s["matches"] // 2 and time.time() < limit:
            time.sleep(0.05)
        half = max(m["deadline"] for m in list(made))
        time.sleep(max(0.0, half - time.time()))
        proc = st.procs.procs["worker1"]
        os.killpg(proc.pid, signal.SIGKILL)  # the main process and its pool at once
        killed_at[0] = time.time()
        proc.wait(timeout=10)

    killer = threading.Thread(target=kill_worker, daemon=True)
    killer.start()
    return killer, killed_at


def _lateness(made: list, got: dict, writers: dict) -> tuple:
    """(the lateness of each timeout in ms, its seconds by path, how many
    deadlines were written twice, how many never, each match's entry)."""
    lateness, by_path, twice, missing = [], {"armed": [], "sweep": [], "other": []}, 0, 0
    per_match = []
    for m in made:
        rows = got.get(m["stream"], [])
        firsts = [r for r in rows if abs(r[1] - m["deadline"]) < 0.001]
        if not firsts:
            missing += 1
            per_match.append({"i": m["i"], "timed_out": False})
            continue
        if len(firsts) > 1:
            twice += 1
        late = (firsts[0][0] - m["deadline"]) * 1e3
        path, begun, took = writers.get(m["stream"], ("other", None, None))
        lateness.append(late)
        by_path[path].append(late / 1e3)
        per_match.append(
            {
                "i": m["i"],
                "lateness_ms": round(late, 1),
                "path": path,
                "create_ms": round(m["create_ms"], 1),
                "begun_ms": begun,
                "written_in_ms": took,
            }
        )
    return lateness, by_path, twice, missing, per_match


def _run(tag: str, st: stack.Stack, s: dict, stagger_ms: int, kill: bool = False) -> dict:
    say(
        f"[{tag}] creating {s['matches']} matches, "
        + (f"one every {stagger_ms} ms" if stagger_ms else "back to back")
        + f" ({s['creators']} threads)"
    )
    made: list[dict] = []
    killer, killed_at = _start_killer(st, s, made) if kill else (None, [None])
    _create(s["matches"], stagger_ms / 1e3, s["creators"], tag, made)
    made.sort(key=lambda m: m["i"])
    last = max(m["deadline"] for m in made)
    got = _wait([m["stream"] for m in made], last + s["wait_s"])
    if killer:
        killer.join(timeout=30)
    time.sleep(SWEEP_S + 1)  # a late doubled write would show by now
    got = _timeouts([m["stream"] for m in made])
    lateness, by_path, twice, missing, per_match = _lateness(made, got, _writers(st))
    created = [m["created_at"] for m in made]
    deadlines = [m["deadline"] for m in made]
    summary = stack.summary_ms([x / 1e3 for x in lateness])
    goal = GOALS_MS.get(tag)
    run = {
        "tag": tag,
        "stagger_ms": stagger_ms,
        "matches": len(made),
        "timed_out": len(lateness),
        "missing": missing,
        "written_twice": twice,
        "creation_span_s": round(max(created) - min(created), 2),
        "create_ms": stack.summary_ms([m["create_ms"] / 1e3 for m in made]),
        "deadline_span_s": round(max(deadlines) - min(deadlines), 2),
        "lateness_ms": summary,
        "by_path": {k: stack.summary_ms(v) for k, v in by_path.items() if v},
        "latest": _latest(per_match),
        "per_match": per_match,
    }
    if goal is not None:
        run["goal"] = {
            "p99_at_most_ms": goal,
            "met": summary["p99"] is not None and missing == 0 and summary["p99"] <= goal,
        }
    if kill:
        run["killed_at_s_after_first_deadline"] = (
            round(killed_at[0] - min(deadlines), 2) if killed_at[0] else None
        )
        run["after_kill"] = {
            "deadlines": sum(1 for d in deadlines if killed_at[0] and d >= killed_at[0]),
            "sweep_caught": len(by_path["sweep"]),
        }
        run["every_timeout_once"] = missing == 0 and twice == 0
    say(
        f"[{tag}] {len(lateness)}/{len(made)} timed out, written twice {twice}; lateness ms "
        f"p50 {summary['p50']} p99 {summary['p99']} max {summary['max']}; by armed task "
        f"{len(by_path['armed'])}, sweep {len(by_path['sweep'])}, unknown {len(by_path['other'])}"
    )
    say(
        f"[{tag}] the latest: "
        + "; ".join(
            f"{x['lateness_ms']} ms (begun {x['begun_ms']}, written in {x['written_in_ms']}, "
            f"{x['path']})"
            for x in run["latest"]
        )
    )
    return run


def _latest(per_match: list[dict], n: int = 5) -> list[dict]:
    """The ``n`` latest timeouts: how late each was written, how late its
    task began and how long it took (from the worker's log), which path."""
    done = [m for m in per_match if m.get("timed_out", True)]
    keys = ("lateness_ms", "begun_ms", "written_in_ms", "path")
    return [{k: m[k] for k in keys} for m in sorted(done, key=lambda m: -m["lateness_ms"])[:n]]


def main(results_dir) -> dict:
    s = _settings()
    st = stack.Stack(NAME)
    started = time.perf_counter()
    ok = False
    runs = []
    try:
        st.up()
        st.workers(2, beat=True)
        st.procs.start("reactors", "reactors")  # arms the wake-ups, rates the results
        _django(st)
        env = stack.environment(st)
        # warm-up: the workers are ready when matches of their own time out
        warm = _create(4, 0.0, 2, "warm-up")
        got = _wait([m["stream"] for m in warm], max(m["deadline"] for m in warm) + 60)
        if len(got) < len(warm):
            raise RuntimeError(f"the warm-up matches never timed out: see {st.workdir}")
        say("2 workers and beat ready (warm-up matches timed out)")
        runs.append(_run("staggered", st, s, s["stagger_ms"]))
        runs.append(_run("burst", st, s, 0))
        runs.append(_run("kill", st, s, s["stagger_ms"], kill=True))
        ok = True
    finally:
        from django.db import connections

        connections.close_all()
        st.down(ok)
    return {
        **stack.result_header(NAME, TITLE, started),
        "params": {**s, "game": GAME, "options": OPTIONS, "sweep_s": SWEEP_S},
        "environment": stack.environment_after(env),
        "runs": runs,
    }


def _v(x) -> str:
    return "–" if x is None else f"{x:,.0f}"


def markdown(r: dict) -> str:
    env, p = r["environment"], r["params"]
    lines = [
        f"**{r['title']}** — {p['matches']} Doubting Love Letter matches nobody plays (first "
        "deadline ≈ 3 s after creation), created by this process as a web process does "
        f"(`REACTORS_INLINE=0`) with {p['creators']} threads; one `docker/entrypoint.sh reactors` "
        "(it wakes the batch enforcer: a Celery task with an ETA per 10 ms window of "
        "deadlines that no running loop of the enforcer watches; the first wake-up becomes "
        "that loop, `clocks.watch`), two `worker` (prefork, concurrency 2) "
        f"and one `beat` (sweep every {p['sweep_s']:g} s) on a private Redis. Lateness = the "
        f"`timed_out` row's `recorded_at` − the deadline. {r['finished_at']}, {env['postgres']}, "
        f"{env['cpus']} CPUs (load {env['load_before']} before, {env['load_after']} after: other "
        "work shared the machine).",
        "",
        "| run | created over | deadlines over | timed out | written twice | p50 ms | p99 ms "
        "| max ms | goal | by wake-up or loop / sweep |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|---|",
    ]
    for run in r["runs"]:
        lat = run["lateness_ms"]
        goal = run.get("goal")
        if goal:
            cell = f"p99 ≤ {goal['p99_at_most_ms']:g} ms: " + (
                "met" if goal["met"] else "**missed**"
            )
        else:
            cell = "every timeout once: " + (
                "met" if run.get("every_timeout_once") else "**missed**"
            )
        label = {
            "staggered": f"one every {run['stagger_ms']} ms",
            "burst": "back to back (burst)",
            "kill": f"one every {run['stagger_ms']} ms, worker 1 SIGKILLed",
        }[run["tag"]]
        bp = run["by_path"]
        lines.append(
            f"| {label} | {run['creation_span_s']} s | {run['deadline_span_s']} s "
            f"| {run['timed_out']}/{run['matches']} | {run['written_twice']} | {_v(lat['p50'])} "
            f"| {_v(lat['p99'])} | {_v(lat['max'])} | {cell} "
            f"| {bp.get('armed', {}).get('n', 0)} / {bp.get('sweep', {}).get('n', 0)} |"
        )
    planned = p["matches"] * p["stagger_ms"] / 1e3
    slowest = max(x["create_ms"]["p50"] or 0 for x in r["runs"])
    lines += [
        "",
        f"Creating a match (`services.create_match`, {p['creators']} threads) took p50 "
        + ", ".join(f"{_v(x['create_ms']['p50'])} ms ({x['tag']})" for x in r["runs"])
        + (
            f": the planned pace (all {p['matches']} within {planned:g} s) was not reached, "
            "so the deadlines were spread over the creation span shown, not bunched."
            if slowest > 4 * p["stagger_ms"]
            else "."
        ),
    ]
    kill = next((x for x in r["runs"] if x["tag"] == "kill"), None)
    if kill:
        sw = kill["by_path"].get("sweep")
        lines += [
            "",
            f"Kill run: worker 1 was SIGKILLed {kill['killed_at_s_after_first_deadline']} s after "
            f"the first deadline; {kill['after_kill']['deadlines']} deadlines fell after it. "
            + (
                f"The sweep caught {sw['n']} timeouts whose wake-up died with the worker: "
                f"lateness p50 {_v(sw['p50'])} ms, p99 {_v(sw['p99'])} ms, max {_v(sw['max'])} ms "
                f"(the sweep runs every {p['sweep_s']:g} s)."
                if sw
                else "The sweep caught none (worker 2 held every wake-up that was still due)."
            ),
        ]
    return "\n".join(lines)


def verdicts(r: dict) -> list[dict]:
    """Each run's goal as bench/run.py's goals table reads it."""
    rows = []
    for run in r["runs"]:
        made = f"{run['matches']} matches " + (
            f"one every {run['stagger_ms']} ms" if run["stagger_ms"] else "back to back (burst)"
        )
        timed_out = f"{run['timed_out']}/{run['matches']} timed out"
        if run.get("goal"):
            g = run["goal"]
            rows.append(
                stack.verdict(
                    r,
                    f"{made}: timeout p99 ≤ {g['p99_at_most_ms']:g} ms",
                    f"{_v(run['lateness_ms']['p99'])} ms ({timed_out})",
                    g["met"],
                )
            )
        if "every_timeout_once" in run:
            rows.append(
                stack.verdict(
                    r,
                    f"{made}, a worker SIGKILLed: every timeout written once",
                    f"{timed_out}, {run['written_twice']} twice",
                    run["every_timeout_once"],
                )
            )
    return rows
