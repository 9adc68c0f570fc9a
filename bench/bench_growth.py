"""Growth benchmark: does a command cost more as its match, its show or the
log grows?

A command here is the service call a move makes, ``games.services.submit``:
load the match (the stream's tip and its kept state), decide, append (with
the read models and listeners in the same transaction). Doubting Love Letter
matches between heuristic bots (no clock, so nothing but the bots writes)
are played through the services on PostgreSQL, in pairs: one played untimed
to its 249th move, one new; then the new one's first moves (1 to W) and the
old one's 250th on (250 to 249 + W) are timed alternately (the bot's choice is
not). Two databases take turns, pair by pair: one whose log holds about 10^4
events, one filled to 10^6 (``INSERT ... SELECT generate_series`` into the
event table itself, triggers and indexes in place, then ``VACUUM ANALYZE``),
so that the drift of a shared machine hits every cell alike.

The matches are timed in the process that made the last move (the warm
path: its own kept state), with the state cache in the process, as without
REDIS_URL. The shows part (growth_shows.py) times a show command at about 60
and 1,600 events both warm and cold (another process wrote last), from two
processes sharing a private redis-server.

Goals: p50 at the 250th move ≤ 1.2 × p50 at the first moves, p50 with 10^6
events ≤ 1.2 × p50 with 10^4, and a show command's p50 at 1,600 events ≤ 1.2 ×
at 60, cold and warm. Settings: BENCH_GROWTH_PARTS (matches,shows),
BENCH_GROWTH_PAIRS (2 per log size; none started after PHASE_BUDGET_S),
BENCH_GROWTH_WINDOW (20), BENCH_GROWTH_SMALL (10000), BENCH_GROWTH_LARGE
(1000000), BENCH_GROWTH_SHOW_SHORT (60), BENCH_GROWTH_SHOW_LONG (1600),
BENCH_GROWTH_SHOW_ROUNDS (20), BENCH_GROWTH_REDIS_PORT (8198), BENCH_PG,
BENCH_DB_PREFIX, BENCH_KEEP_DB.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_eventstore as es  # noqa: E402  (the shared PostgreSQL helpers)
import growth_shows  # noqa: E402  (the shows part)
import stack  # noqa: E402  (the result's header and environment)

TITLE = "Growth: command p50 as the match and the log grow"
GAME = "doubting-love-letter"
OPTIONS = {"first_to": 60, "decision_s": 0}  # long enough for 250+ moves, no clock
LATE = 250
GOAL = 1.2
FILL_CHUNK = 200_000
FILL_TIMEOUT_S = 240
PHASE_BUDGET_S = 120  # no new pair of matches is started after this long
FILL_DATA = '{"seat": "p1", "card": {"rank": 3, "suit": "hearts"}, "round": 1, "trick": 2}'
FILL_META = (
    '{"actor": "fill", "role": "player", "causation": null, '
    '"visibility": {"to": null, "public": null}}'
)


def say(msg: str) -> None:
    stack.log("growth", msg)


def _count() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM eventlog_storedevent")
        return cur.fetchone()[0]


def _fill_to(total: int, log) -> dict:
    """Background streams of 100 events each until the log holds ``total``."""
    from django.db import connection

    have = _count()
    start = time.perf_counter()
    first = have
    with connection.cursor() as cur:
        cur.execute("SELECT COALESCE(max(id), 0) FROM eventlog_storedevent")
        offset = cur.fetchone()[0]
        while have < total:
            if time.perf_counter() - start > FILL_TIMEOUT_S:
                raise RuntimeError(f"filling the log took over {FILL_TIMEOUT_S} s")
            n = min(FILL_CHUNK, total - have)
            a = offset + have
            cur.execute(
                "INSERT INTO eventlog_storedevent "
                "(stream, version, type, data, metadata, command_id, command_seq, recorded_at) "
                "SELECT 'fill-' || (g / 100), g %% 100 + 1, 'card_played', %s::jsonb, %s::jsonb, "
                "NULL, 0, statement_timestamp() FROM generate_series(%s, %s) AS g",
                [FILL_DATA, FILL_META, a * 100, a * 100 + n - 1],
            )
            have += n
            log(f"log filled to {have:,} events ({time.perf_counter() - start:.0f} s)")
    with connection.cursor() as cur:
        cur.execute("VACUUM ANALYZE eventlog_storedevent")
    return {
        "inserted": have - first,
        "seconds": round(time.perf_counter() - start, 1),
    }


def _use(db_name: str) -> None:
    """Point Django's connection at another bench database."""
    from django.db import connection

    connection.close()
    connection.settings_dict["NAME"] = db_name
    connection.ensure_connection()


def _bot_move(series, match, rng) -> int:
    """One heuristic bot move through the services; the nanoseconds
    ``submit`` took (the bot's choice is not timed)."""
    from games import services
    from games.core.playout import bot_command

    state = services.load(match).state
    if state.finished:
        raise RuntimeError(f"{match.stream} ended: raise first_to")
    for d in series.pending(state):
        command = bot_command(series, state, d.seat, "heuristic", rng)
        if command is not None:
            t = time.perf_counter_ns()
            services.submit(match, d.seat, command, actor=f"bot:{d.seat}", rng=rng)
            return time.perf_counter_ns() - t
    raise RuntimeError(f"{match.stream}: no bot can move")


def _play(dbs: dict, n_pairs: int, window: int, log) -> dict:
    """For each log size, pairs of matches: one played untimed to its
    249th move, one new; then their moves are timed alternately (the new
    one's first, the old one's 250th on), one log size after the other in
    alternating order, so that the machine's drift hits every cell alike."""
    from games import services, states
    from games.core.registry import series_for

    series = series_for(GAME)
    timed = {label: {"first": [], "late": []} for label in dbs}
    began, played = time.perf_counter(), 0
    for pair in range(n_pairs):
        if pair and time.perf_counter() - began > PHASE_BUDGET_S:
            log(f"time budget spent after {pair} pairs")
            break
        order = list(dbs) if pair % 2 == 0 else list(dbs)[::-1]
        ready = {}
        for label in order:
            _use(dbs[label])
            rng = random.Random(1000 + pair)
            holders = {"ana": "bot:heuristic", "ben": "bot:heuristic"}
            old = services.create_match(
                GAME, ["ana", "ben"], options=OPTIONS, holders=holders, rng=rng
            )
            for _ in range(LATE - 1):
                _bot_move(series, old, rng)
            new = services.create_match(
                GAME, ["ana", "ben"], options=OPTIONS, holders=holders, rng=rng
            )
            ready[label] = (old, new, rng)
        for label in order:
            _use(dbs[label])
            old, new, rng = ready[label]
            states.tip(old.stream)  # the connection is warm before the first timing
            for _ in range(window):
                timed[label]["first"].append(_bot_move(series, new, rng))
                timed[label]["late"].append(_bot_move(series, old, rng))
        played += 1
        log(f"pair {pair + 1}/{n_pairs} timed in each log size")
    return {
        label: {"pairs": played, **{k: _stats(v) for k, v in t.items()}}
        for label, t in timed.items()
    }


def _stats(ns: list[int]) -> dict:
    s = sorted(ns)
    return {
        "n": len(s),
        "p50_ms": round(statistics.median(s) / 1e6, 3),
        "p90_ms": round(s[int(0.9 * (len(s) - 1))] / 1e6, 3),
        "min_ms": round(s[0] / 1e6, 3),
    }


def _create_databases(server: str, dbs: dict) -> None:
    for name in dbs.values():
        es._admin(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)", f"CREATE DATABASE {name}")


def _drop_databases(server: str, dbs: dict, keep: bool) -> None:
    for name in dbs.values():
        if keep:
            say(f"kept database {name} (BENCH_KEEP_DB=1)")
        else:
            es._admin(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    if not keep:
        say(f"dropped databases {', '.join(dbs.values())}")


def _migrate_and_fill(dbs: dict, sizes: dict) -> dict:
    """Each database migrated and its log filled to its size; how each fill went."""
    from django.core.management import call_command

    fills = {}
    for label, size in sizes.items():
        _use(dbs[label])
        call_command("migrate", interactive=False, verbosity=0)
        fills[label] = _fill_to(size, say)
    return fills


def _goals(phases: dict) -> dict:
    """The p50 ratios judged: late moves against first ones in each log size,
    the large log against the small one at each point of the match."""

    def ratio(a, b):
        return round(a / b, 3)

    goals = {
        f"late_vs_first_{label}": ratio(ph["late"]["p50_ms"], ph["first"]["p50_ms"])
        for label, ph in phases.items()
    }
    goals.update(
        {
            f"large_vs_small_{w}": ratio(phases["large"][w]["p50_ms"], phases["small"][w]["p50_ms"])
            for w in ("first", "late")
        }
    )
    return {k: {"target": GOAL, "value": v, "met": v <= GOAL} for k, v in goals.items()}


def _matches_part(server: str, db_name: str, keep: bool) -> dict:
    """The matches: two log sizes, new and long matches timed alternately."""
    n_matches = es._env_int("BENCH_GROWTH_PAIRS", 2, 1)
    window = es._env_int("BENCH_GROWTH_WINDOW", 20, 1)
    small = es._env_int("BENCH_GROWTH_SMALL", 10_000, 1)
    large = es._env_int("BENCH_GROWTH_LARGE", 1_000_000, 1)
    say(f"creating databases {db_name}_small and _large on {urlsplit(server).hostname}")
    dbs = {"small": f"{db_name}_small", "large": f"{db_name}_large"}
    _create_databases(server, dbs)
    phases = {}
    try:
        _use(dbs["small"])
        fills = _migrate_and_fill(dbs, {"small": small, "large": large})
        say(f"playing {n_matches} pairs of matches in each log size")
        played = _play(dbs, n_matches, window, say)
        for label in dbs:
            _use(dbs[label])
            phases[label] = {"events_in_log": _count(), "fill": fills[label], **played[label]}
    finally:
        _drop_databases(server, dbs, keep)
    params = {
        "pairs_per_log_size": n_matches,
        "window": window,
        "late_from": LATE,
        "game": GAME,
        "options": OPTIONS,
        "small": small,
        "large": large,
    }
    return {"params": params, "phases": phases, "goals": _goals(phases)}


def _shows_part(server: str, db_name: str, keep: bool) -> dict:
    """A show at two lengths, its commands timed cold and warm from two processes."""
    from django.core.management import call_command

    sizes = {
        "short": es._env_int("BENCH_GROWTH_SHOW_SHORT", 60, 5),
        "long": es._env_int("BENCH_GROWTH_SHOW_LONG", 1600, 5),
    }
    rounds = es._env_int("BENCH_GROWTH_SHOW_ROUNDS", 20, 1)
    port = es._env_int("BENCH_GROWTH_REDIS_PORT", 8198, 1024)
    dbs = {"shows": f"{db_name}_shows"}
    _create_databases(server, dbs)
    try:
        _use(dbs["shows"])
        call_command("migrate", interactive=False, verbosity=0)
        say(f"growing shows to {sizes['short']} and {sizes['long']} events")
        timed = growth_shows.run(es._with_db(server, dbs["shows"]), sizes, rounds, port, say)
    finally:
        _drop_databases(server, dbs, keep)
    shows = {
        label: {"events": t["events"], "cold": _stats(t["cold"]), "warm": _stats(t["warm"])}
        for label, t in timed.items()
    }
    goals = {}
    for kind in ("cold", "warm"):
        value = round(shows["long"][kind]["p50_ms"] / shows["short"][kind]["p50_ms"], 3)
        goals[f"show_long_vs_short_{kind}"] = {"target": GOAL, "value": value, "met": value <= GOAL}
    params = {"rounds": rounds, "sizes": sizes, "state_cache": "a private redis-server"}
    return {"params": params, "phases": shows, "goals": goals}


def main(results_dir) -> dict:
    parts = os.environ.get("BENCH_GROWTH_PARTS", "matches,shows").replace(" ", "").split(",")
    keep = os.environ.get("BENCH_KEEP_DB", "") == "1"
    prefix = os.environ.get("BENCH_DB_PREFIX", "").strip() or "gameshow_bench"
    db_name = f"{prefix}_growth"
    server = es._server_url()
    started = time.perf_counter()
    os.environ.pop("REDIS_URL", None)  # in-process cache, channel layer and clock
    es._django_setup(es._with_db(server, "postgres"))
    from django.db import connection

    pg_version = es._pg_version()
    matches = _matches_part(server, db_name, keep) if "matches" in parts else None
    shows = _shows_part(server, db_name, keep) if "shows" in parts else None
    connection.close()
    result = {
        **stack.result_header("growth", TITLE, started),
        "params": matches["params"] if matches else None,
        "environment": {
            "versions": stack.versions(*es.VERSIONS),
            "postgres": pg_version,
            "server": stack.server_address(server),
            "cpus": os.cpu_count(),
            "machine": stack.machine(),
            "state_cache": "in-process (LocMemCache), as without REDIS_URL",
        },
        "phases": matches["phases"] if matches else None,
        "shows": shows,
        "goals": {**(matches["goals"] if matches else {}), **(shows["goals"] if shows else {})},
    }
    for k, g in result["goals"].items():
        say(f"goal {k}: {g['value']} (<= {GOAL}) {'met' if g['met'] else 'MISSED'}")
    return result


def _fmt(value: float) -> str:
    mark = "met" if value <= GOAL else "**missed**"
    return f"{value:.2f}× ({mark})"


def markdown(result: dict) -> str:
    env = result["environment"]
    head = (
        f"{result['finished_at']}, {env['postgres'].split(' on ')[0]}, {env['cpus']} CPUs, "
        f"Python {env['versions']['python']}, Django {env['versions']['Django']} (DEBUG off)."
    )
    parts = [f"**{result['title']}** — {head}"]
    if result.get("phases"):
        parts.append(_matches_markdown(result))
    if result.get("shows"):
        parts.append(_shows_markdown(result["shows"]))
    return "\n\n".join(parts)


def _matches_markdown(result: dict) -> str:
    p, env, ph, g = result["params"], result["environment"], result["phases"], result["goals"]
    w, late = p["window"], p["late_from"]
    lines = [
        f"Matches: `services.submit` (load, decide, append) timed for moves "
        f"1–{w} of a new match and {late}–{late + w - 1} of one played to move {late - 1}, "
        f"alternately, in up to {p['pairs_per_log_size']} such pairs of Doubting Love Letter "
        f"bot matches per log size, the log sizes taking turns (options `{p['options']}`), "
        f"on PostgreSQL: one database whose log holds about {p['small']:,} events, one "
        f"filled to {p['large']:,} (`generate_series` into the event table, triggers and "
        f"indexes in place). Each move is timed in the process that made the match's last "
        f"move (the warm path: its own kept state); state cache: {env['state_cache']}.",
        "",
        f"| events in the log | moves 1–{w} p50 / p90 ms | moves {late}–{late + w - 1} "
        f"p50 / p90 ms | {late}th / first (goal ≤ {GOAL:g}×) |",
        "|---:|---:|---:|---|",
    ]
    for label in ("small", "large"):
        x = ph[label]
        lines.append(
            f"| {x['events_in_log']:,} ({x['pairs']} pairs) "
            f"| {x['first']['p50_ms']:.2f} / {x['first']['p90_ms']:.2f} "
            f"| {x['late']['p50_ms']:.2f} / {x['late']['p90_ms']:.2f} "
            f"| {_fmt(g[f'late_vs_first_{label}']['value'])} |"
        )
    lines.append(
        f"| large / small (goal ≤ {GOAL:g}×) | {_fmt(g['large_vs_small_first']['value'])} "
        f"| {_fmt(g['large_vs_small_late']['value'])} | |"
    )
    fill = ph["large"]["fill"]
    lines += [
        "",
        f"Filling the log took {fill['seconds']:g} s for {fill['inserted']:,} events. A "
        "command reads the stream's tip (one row of the `(stream, version)` index) and the "
        "state kept at it (`games/states.py`), never the whole stream, so neither the "
        "match's length nor the log's size enters its cost in the process that wrote last; "
        "the cold path (another process wrote last) is measured for shows below, not here.",
    ]
    return "\n".join(lines)


def _shows_markdown(shows: dict) -> str:
    p, ph, g = shows["params"], shows["phases"], shows["goals"]
    lines = [
        "Shows: `show_services.command` (load, decide, append, the read models and the "
        "show's reconciliation) for a moderator handing an item on, in a show grown to "
        f"about {p['sizes']['short']:,} and to {p['sizes']['long']:,} events by the same "
        "command (its state keeps its size, its log grows). Two processes, each with its own "
        f"connection and in-process caches, sharing {p['state_cache']} (the `states` cache) "
        f"take turns, {p['rounds']} rounds: each makes two commands on each show, the first "
        "**cold** (the other process wrote last), the second **warm** (it wrote last).",
        "",
        "| events in the show | cold p50 / p90 ms | warm p50 / p90 ms |",
        "|---:|---:|---:|",
    ]
    for label in ("short", "long"):
        x = ph[label]
        lines.append(
            f"| {x['events']:,} | {x['cold']['p50_ms']:.2f} / {x['cold']['p90_ms']:.2f} "
            f"| {x['warm']['p50_ms']:.2f} / {x['warm']['p90_ms']:.2f} |"
        )
    lines += [
        f"| long / short (goal ≤ {GOAL:g}×) | {_fmt(g['show_long_vs_short_cold']['value'])} "
        f"| {_fmt(g['show_long_vs_short_warm']['value'])} |",
        "",
        "A show command reads the stream's tip and the show's fold kept at it "
        "(`tournaments/kept_folds.py`: this process's, else the shared cache's, sealed and "
        "checked against the tip's row), never the stream; the show's log is kept as its "
        "length and read from the event log only by what reads it (history pages, rulings).",
    ]
    return "\n".join(lines)


def verdicts(result: dict) -> list[dict]:
    """The goals as bench/run.py's goals table reads them, each naming the sizes
    this run measured."""
    g, rows = result["goals"], []
    if result.get("phases"):
        p, ph = result["params"], result["phases"]
        small, large = ph["small"]["events_in_log"], ph["large"]["events_in_log"]
        w, late = p["window"], p["late_from"]
        for label in ("small", "large"):
            x = g[f"late_vs_first_{label}"]
            rows.append(
                stack.verdict(
                    result,
                    f"moves {late}–{late + w - 1} vs 1–{w} ≤ {x['target']:g} ×, "
                    f"a log of {ph[label]['events_in_log']:,} events",
                    f"{x['value']:.2f} ×",
                    x["met"],
                )
            )
        for when, words in (("first", f"moves 1–{w}"), ("late", f"moves {late}–{late + w - 1}")):
            x = g[f"large_vs_small_{when}"]
            rows.append(
                stack.verdict(
                    result,
                    f"a log of {large:,} vs {small:,} events ≤ {x['target']:g} ×, {words}",
                    f"{x['value']:.2f} ×",
                    x["met"],
                )
            )
    if result.get("shows"):
        sizes = result["shows"]["params"]["sizes"]
        for kind, words in (("cold", "cold (another process wrote last)"), ("warm", "warm")):
            x = g[f"show_long_vs_short_{kind}"]
            rows.append(
                stack.verdict(
                    result,
                    f"show command at {sizes['long']:,} vs {sizes['short']:,} events "
                    f"≤ {x['target']:g} ×, {words}",
                    f"{x['value']:.2f} ×",
                    x["met"],
                )
            )
    return rows
