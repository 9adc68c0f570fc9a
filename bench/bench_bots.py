"""Bots benchmark (issue #46): a ladder of levels per game, move times, and
a scripted beginner against level 1.

For each game, bouts (one deal, one round) are played by the engine alone,
one process, one core, no database:

- the ladder: each level against the level below at two seats, seat-rotated
  (which seat each holds and who starts alternate), its win rate with a 95 %
  error (a drawn or shared bout counts half); for the four-seat games also one
  seat of the level among three of the level below, rotated over the seats, as
  its share of wins against its fair share (a quarter; a half for Bleven's
  teams);
- the p95 move time of each level over every move it made in the ladder, in
  the process's CPU time (one core's work: on a shared machine the wall clock
  also counts the time spent waiting for a core; that p95 is in the JSON as
  ``p95_wall_ms``; the bots' caps are wall-clock, so a loaded machine makes
  them search less, never longer);
- a scripted "reasonable beginner" per game (a plain strategy a newcomer would
  follow) against level 1.

Goals: each level ≥ 60 % against the level below at two seats (≥ 1.5 × its
fair share at four) over ≥ 1,000 bouts a pair; p95 move time L1 ≤ 30 ms, L2 ≤
100 ms, L3 ≤ 300 ms, L4 ≤ 1 s; the beginner ≥ 50 % against level 1.

Settings (environment): BENCH_BOTS_GAMES (1000: bouts per pair at two
seats), BENCH_BOTS_GAMES4 (BENCH_BOTS_GAMES / 4: at four seats; 0: none),
BENCH_BOTS_ONLY (comma-separated game slugs; all by default),
BENCH_BOTS_RUNGS (comma-separated levels, e.g. "level2,level3": only those
rungs, each against the level below; "beginner" for the beginner's pair;
"span" for level 4 against level 0, the widest the ladder is in that game
(reported, not judged: four rungs of 60 % need about 84 %, ``SPAN_NEEDED``);
all by default), BENCH_BOTS_MERGE (1: keep the games, rungs and move times of the
last bench/results/bots.json that this run does not measure, so a table is
assembled from runs sized to a few minutes each; each cell says its bouts),
BENCH_BOTS_SEED (1), BENCH_BOTS_JOBS (1: processes playing bouts at once;
each bout is seeded by its place in the run, so the results do not depend on
it), BENCH_BOTS_RUNG_S (3600: seconds after which a pair starts no more
bouts, the cell saying how many it played: the bench stays bounded),
BENCH_BOTS_QUICK (1: a short run, 40 bouts a pair, 10 at four seats, 240 s
a pair at most, unless the settings above say otherwise). The params say
the bouts a pair asked for, the bound and the run's duration; each cell
says the bouts it played.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402  (the result's header and environment)

TITLE = "Bots: a ladder of levels per game, move times, a beginner against level 1"
GAMES = ("doubting-love-letter", "love-letter", "love-me-not", "higher-lower", "bleven")
FOUR_SEATS = {"love-letter": 0.25, "bleven": 0.5}  # game -> a seat's fair share at four
LEVELS = ("level0", "level1", "level2", "level3", "level4")
GOAL_RATE = 0.60
GOAL_FOUR = 1.5
GOAL_BEGINNER = 0.50
GOAL_P95_MS = {"level1": 30, "level2": 100, "level3": 300, "level4": 1000}
# the span: level 4 against level 0. Four rungs of 60 % (odds of 1.5 each)
# compound, as ratings model it (Bradley–Terry), to odds of 1.5^4 ≈ 5.1: a
# ladder of four such rungs fits in a game only if its strongest level wins
# about 84 % of its bouts against random play
SPAN = ("level4", "level0")
RUNG_ODDS = GOAL_RATE / (1 - GOAL_RATE)
SPAN_NEEDED = RUNG_ODDS**4 / (1 + RUNG_ODDS**4)
SEATS = ("ana", "ben", "cal", "dee")
RUNG_S = 3600  # a pair's bouts stop being started after this long (the bench stays bounded)
QUICK_GAMES = 40  # BENCH_BOTS_QUICK=1: bouts a pair at two seats
QUICK_RUNG_S = 240


if str(ROOT) not in sys.path:  # the engines are pure: no Django to set up
    sys.path.insert(0, str(ROOT))

from games.core import search  # noqa: E402
from games.core.protocol import Ctx, Viewer  # noqa: E402
from games.core.registry import rules_for  # noqa: E402

# the search's caps on CPU time: what one core does, however busy the machine
search.CLOCK = time.process_time


def _env_int(name: str, default: int, least: int = 1) -> int:
    raw = os.environ.get(name, "").strip()
    value = int(raw) if raw else default
    if value < least:
        raise SystemExit(f"{name} must be at least 1 (got {value})")
    return value


# ---- the reasonable beginners: what a newcomer plays after reading the rules ------
def _beginner_dll(view, seat, rng, legal):
    """Plays the lower card and tells the truth, never challenges, passes on
    items, names a random card with a Guard."""
    if view.get("phase") == "play":
        low = min(c for c in view["hand"] if c != 8)
        for c in legal:
            if c["type"] == "play" and c["card"] == str(low) and c["claim"] == str(low):
                if c.get("target", "opponent") == "opponent" or len(legal) == 1:
                    return c
        return next(c for c in legal if c["type"] == "play" and c["card"] == c["claim"])
    if view.get("phase") == "guess":
        return rng.choice([c for c in legal if c["type"] == "guess"])
    passes = [c for c in legal if c["type"] == "pass"]
    return passes[0] if passes else rng.choice(legal)


def _beginner_ll(view, seat, rng, legal):
    """Plays the lower card (never the Princess), at a random rival; a Guard
    names a random card."""
    low = min(int(c["card"]) for c in legal if c["card"] != "8") if len(legal) > 1 else None
    pool = [c for c in legal if low is None or c["card"] == str(low)]
    return rng.choice(pool)


def _beginner_lmn(view, seat, rng, legal):
    """Keeps the card whose suit is already in its pile (to pair), else the higher."""
    pile = {c[-1] for c in (view["piles"].get(seat) or [])}
    for c in legal:
        if c["keep"][-1] in pile and c["discard"][-1] not in pile:
            return c
    order = "2345J"
    return max(legal, key=lambda c: order.index(c["keep"][0]))


def _beginner_hl(view, seat, rng, legal):
    """Bids the opening 10 once, guesses the bigger side staking half its
    chips until it has the declared amount, deals random cards."""
    phase = view["phase"]
    if phase == "auction":
        return legal[0] if view["auction"]["standing_bid"] is None else None
    if phase == "show":
        return rng.choice(legal)
    if view["your_role"] == "dealer":
        return rng.choice(legal)
    prev, left = view["previous"], view["remaining"]
    up = sum(1 for c in left if c > prev)
    direction = "higher" if 2 * up >= len(left) else "lower"
    chips = view["chips"]
    stake = 0 if chips >= view["declared"] else chips // 2
    return {"type": "guess", "direction": direction, "stake": stake}


def _beginner_bleven(view, seat, rng, legal):
    """Keeps its high cards, declares one trick for 9 stones with a field of
    20 or more, believes every bid."""
    kind = (view.get("pending") or {}).get("kind")
    values = {"A": 1, "J": 8, "Q": 9, "K": 10}

    def value(card):
        return values.get(card[0]) or int(card[0])

    if kind == "discard":
        return {"type": "discard", "card": min(view["hand"], key=value)}
    if kind == "turn" and sum(value(c) for c in view["hand"]) >= 20:
        return {"type": "declare", "tricks": 1, "stones": 9}
    if kind == "review":
        return {"type": "respond", "answer": "believe"}
    for wanted in ({"type": "draw"}, {"type": "confirm"}):
        if wanted in legal:
            return wanted
    return rng.choice(legal)


BEGINNERS = {
    "doubting-love-letter": _beginner_dll,
    "love-letter": _beginner_ll,
    "love-me-not": _beginner_lmn,
    "higher-lower": _beginner_hl,
    "bleven": _beginner_bleven,
}


# ---- playing bouts -----------------------------------------------------------------
def play_bout(rules, players, first, rng, times, walls=None):
    """One bout by ``players`` (seat -> (name, bot)); returns each seat's
    score (1 a win, shared when tied, 0.5 each for a drawn bout); each move's
    time is added to ``times[name]``."""
    seats = tuple(players)
    options = rules.resolve_options({}, len(seats))
    now = 0.0
    state = None
    for e in rules.start(Ctx(now=now, rng=rng, role="system"), seats, options, first, {}, None, 1):
        state = rules.evolve(state, e)
    for _ in range(5000):
        out = rules.outcome(state)
        if out is not None:
            if not out.winners:
                return {s: 0.5 for s in seats}
            return {s: (1 / len(out.winners) if s in out.winners else 0.0) for s in seats}
        state, now = _step(rules, state, players, now, rng, times, walls)
    raise RuntimeError(f"{rules.slug}: a bout did not end")


def _step(rules, state, players, now, rng, times, walls=None):
    pending = rules.pending(state)
    for d in pending:
        legal = rules.legal_commands(state, d.seat)
        if not legal:
            continue
        name, bot = players[d.seat]
        view = rules.view(state, Viewer.of_seat(d.seat))
        started, cpu = time.perf_counter(), time.process_time()
        command = bot(view, d.seat, rng, legal)
        times.setdefault(name, []).append(time.process_time() - cpu)
        if walls is not None:
            walls.setdefault(name, []).append(time.perf_counter() - started)
        if command is not None:
            now += 1.0
            for e in rules.decide(state, dict(command), Ctx(now=now, rng=rng, seat=d.seat)):
                state = rules.evolve(state, e)
            return state, now
    d = min((d for d in pending if d.deadline is not None), key=lambda d: d.deadline)
    now = max(now, d.deadline)
    for e in rules.timeout(state, d, Ctx(now=now, rng=rng, role="system")):
        state = rules.evolve(state, e)
    return state, now


def _rate(total: float, n: int) -> dict:
    p = total / n if n else 0.0
    return {"games": n, "rate": round(p, 4), "error95": round(1.96 * math.sqrt(p * (1 - p) / n), 4)}


def _bout(job):
    """One seat-rotated bout of a pair, seeded by its place in the run (so a
    run's bouts are the same whatever the number of processes): ``high``'s
    score and every move's CPU and wall time by level."""
    slug, high, low, g, n_seats, team_share, seed = job
    rules = rules_for(slug)
    bots = {**{name: rules.bots[name] for name in LEVELS}, "beginner": BEGINNERS[slug]}
    rng = random.Random(f"{seed}:{slug}:{high}:{low}:{n_seats}:{g}")
    seats = SEATS[:n_seats]
    at = g % n_seats
    players = {
        s: ((high, bots[high]) if i == at else (low, bots[low])) for i, s in enumerate(seats)
    }
    first = seats[(g // n_seats) % n_seats]
    times: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    scores = play_bout(rules, players, first, rng, times, walls)
    if team_share:  # the level's side: itself and its partner opposite
        score = scores[seats[at]] * (2 if n_seats == 4 else 1)
    else:
        score = scores[seats[at]]
    return score, times, walls


def _played(jobs, pool):
    """The bouts' results in batches, a process's worth at a time, so that a
    pair which stops early leaves no bouts queued behind it."""
    if pool is None:
        for job in jobs:
            yield [_bout(job)]
        return
    width = pool._processes  # noqa: SLF001  (the pool's size, as it was made)
    for i in range(0, len(jobs), width):
        yield pool.map(_bout, jobs[i : i + width])


def duel(slug, high, low, games, n_seats, team_share, seed, times, walls, pool=None, bound_s=None):
    """``high`` (a level's name, or "beginner") at one seat (two seats: one
    each) against ``low`` at the others, rotated over seats and first
    players: ``high``'s total score and the bouts played (fewer than
    ``games`` when ``bound_s`` seconds ran out first)."""
    jobs = [(slug, high, low, g, n_seats, team_share, seed) for g in range(games)]
    results = _played(jobs, pool)
    started = time.perf_counter()
    total, played = 0.0, 0
    for batch in results:
        for score, bout_times, bout_walls in batch:
            total += score
            played += 1
            for name, samples in bout_times.items():
                times.setdefault(name, []).extend(samples)
            for name, samples in bout_walls.items():
                walls.setdefault(name, []).extend(samples)
        if bound_s is not None and time.perf_counter() - started > bound_s:
            break
    return total, played


def _ladder(slug, games, games4, seed, times, rungs, walls, pool, bound_s):
    two, four = [], []
    fair = FOUR_SEATS.get(slug)
    for lo, hi in zip(LEVELS, LEVELS[1:], strict=False):
        if hi not in rungs:
            continue
        total, n = duel(slug, hi, lo, games, 2, False, seed, times, walls, pool, bound_s)
        two.append({"level": hi, "against": lo, **_rate(total, n)})
        if fair is not None and games4:
            won, n4 = duel(slug, hi, lo, games4, 4, fair == 0.5, seed, times, walls, pool, bound_s)
            share = _rate(won, n4)
            four.append({"level": hi, "against": lo, "fair": fair, **share})
            four[-1]["over_fair"] = round(share["rate"] / fair, 2)
    return two, four


def _p95_ms(samples) -> float | None:
    if not samples:
        return None
    s = sorted(samples)
    return round(1000 * s[int(0.95 * (len(s) - 1))], 2)


RUNGS = (*LEVELS[1:], "beginner", "span")


def bench_game(slug, games, games4, seed, log, rungs=RUNGS, pool=None, bound_s=None) -> dict:
    times: dict[str, list[float]] = {}
    walls: dict[str, list[float]] = {}
    started, cpu = time.perf_counter(), time.process_time()
    two, four = _ladder(slug, games, games4, seed, times, rungs, walls, pool, bound_s)
    out = {
        "ladder": two,
        "ladder_four": four,
        "p95_ms": {name: _p95_ms(times.get(name)) for name in LEVELS},
        "p95_wall_ms": {name: _p95_ms(walls.get(name)) for name in LEVELS},
        "moves": {name: len(times.get(name, ())) for name in LEVELS},
        "duration_s": round(time.perf_counter() - started, 1),
    }
    if "beginner" in rungs:
        won, n = duel(slug, "beginner", "level1", games, 2, False, seed, {}, {}, pool, bound_s)
        out["beginner_vs_level1"] = _rate(won, n)
        out["duration_s"] = round(time.perf_counter() - started, 1)
    if "span" in rungs:  # its move times stay out of the levels' (the ladder's)
        won, n = duel(slug, *SPAN, games, 2, False, seed, {}, {}, pool, bound_s)
        out["span"] = _rate(won, n)
        out["duration_s"] = round(time.perf_counter() - started, 1)
    # the CPU time of the bouts' processes: this one's, or the workers' (the
    # moves' CPU times, summed)
    out["cpu_s"] = round(
        time.process_time() - cpu if pool is None else sum(sum(t) for t in times.values()), 1
    )
    rates = ", ".join(f"{r['level']} {100 * r['rate']:.0f}% ({r['games']})" for r in two)
    if "beginner_vs_level1" in out:
        rates += f"; beginner {100 * out['beginner_vs_level1']['rate']:.0f}%"
    if "span" in out:
        rates += f"; L4 v L0 {100 * out['span']['rate']:.0f}% ({out['span']['games']})"
    log(f"{slug}: {rates} ({out['duration_s']} s)")
    return out


def merge_game(old: dict, new: dict) -> dict:
    """``new``'s rungs, beginner and move times over ``old``'s (a level's
    move times come from the run in which it made the most moves)."""
    out = dict(old)
    for key in ("ladder", "ladder_four"):
        have = {r["level"]: r for r in old.get(key, [])}
        have.update({r["level"]: r for r in new.get(key, [])})
        out[key] = [have[lv] for lv in LEVELS if lv in have]
    for key in ("beginner_vs_level1", "span"):
        if key in new:
            out[key] = new[key]
    p95, moves = dict(old.get("p95_ms", {})), dict(old.get("moves", {}))
    wall = dict(old.get("p95_wall_ms", {}))
    for lv in LEVELS:
        if new["moves"].get(lv, 0) > moves.get(lv, 0):
            p95[lv], moves[lv] = new["p95_ms"][lv], new["moves"][lv]
            wall[lv] = new["p95_wall_ms"][lv]
    out["p95_ms"], out["moves"], out["p95_wall_ms"] = p95, moves, wall
    out["duration_s"] = round(old.get("duration_s", 0) + new["duration_s"], 1)
    out["cpu_s"] = round(old.get("cpu_s", 0) + new.get("cpu_s", 0), 1)
    return out


def _goals(games: dict) -> dict:
    """Each goal met (True), missed (False) or not measured in these results (None)."""

    def judged(checks) -> bool | None:
        checks = list(checks)
        return all(checks) if checks else None

    ok_rate = judged(r["rate"] >= GOAL_RATE for g in games.values() for r in g["ladder"])
    ok_four = judged(r["over_fair"] >= GOAL_FOUR for g in games.values() for r in g["ladder_four"])
    ok_time = judged(
        g["p95_ms"][k] <= limit
        for g in games.values()
        for k, limit in GOAL_P95_MS.items()
        if g["p95_ms"].get(k) is not None
    )
    ok_beg = judged(
        g["beginner_vs_level1"]["rate"] >= GOAL_BEGINNER
        for g in games.values()
        if "beginner_vs_level1" in g
    )
    return {"ladder_two": ok_rate, "ladder_four": ok_four, "move_time": ok_time, "beginner": ok_beg}


def _env_list(name: str, allowed) -> list[str]:
    given = [s.strip() for s in os.environ.get(name, "").split(",") if s.strip()]
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise SystemExit(f"{name}: unknown {unknown}; known: {', '.join(allowed)}")
    return [s for s in allowed if not given or s in given]


def main(results_dir) -> dict:
    quick = os.environ.get("BENCH_BOTS_QUICK") == "1"
    games_n = _env_int("BENCH_BOTS_GAMES", QUICK_GAMES if quick else 1000)
    games4 = _env_int("BENCH_BOTS_GAMES4", max(1, games_n // 4), least=0)
    seed = _env_int("BENCH_BOTS_SEED", 1)
    jobs = _env_int("BENCH_BOTS_JOBS", 1)
    bound_s = _env_int("BENCH_BOTS_RUNG_S", QUICK_RUNG_S if quick else RUNG_S)
    slugs = _env_list("BENCH_BOTS_ONLY", GAMES)
    rungs = tuple(_env_list("BENCH_BOTS_RUNGS", RUNGS))

    def log(msg: str) -> None:
        print(f"  bots: {msg}", flush=True)

    started = time.perf_counter()
    pool = multiprocessing.get_context("fork").Pool(jobs) if jobs > 1 else None
    try:
        per_game = {
            slug: bench_game(slug, games_n, games4, seed, log, rungs, pool, bound_s)
            for slug in slugs
        }
    finally:
        if pool is not None:
            pool.terminate()
    params = {
        "games": games_n,
        "games_four": games4,
        "seed": seed,
        "games_list": slugs,
        "rungs": list(rungs),
        "jobs": jobs,
        "rung_bound_s": bound_s,
        "quick": quick,
        "duration_s": round(time.perf_counter() - started, 1),
    }
    last = Path(results_dir) / "bots.json"
    if os.environ.get("BENCH_BOTS_MERGE") == "1" and last.exists():
        previous = json.loads(last.read_text())
        before = previous.get("games", {})
        old = previous.get("params", {})
        runs = old.get("runs") or [{k: v for k, v in old.items() if k != "runs"}]
        params["runs"] = [*runs, {k: v for k, v in params.items() if k != "runs"}]
        per_game = {
            s: merge_game(before[s], per_game[s])
            if s in before and s in per_game
            else per_game.get(s, before.get(s))
            for s in GAMES
            if s in per_game or s in before
        }
    return {
        **stack.result_header("bots", TITLE, started),
        "params": params,
        "environment": stack.process_environment(),
        "games": per_game,
        "goals": _goals(per_game),
    }


def _pct(r: dict | None) -> str:
    if r is None:
        return "—"
    return f"{100 * r['rate']:.0f} ± {100 * r['error95']:.0f} % ({r['games']})"


def _processes(p: dict) -> str:
    jobs = p.get("jobs", 1)
    return "one process" if jobs == 1 else f"{jobs} processes"


def _runs_in_words(p: dict) -> str:
    runs = p.get("runs")
    if runs and len(runs) > 1:  # assembled with BENCH_BOTS_MERGE
        return f"{len(runs)} runs merged, the rungs each measured: see params.runs"
    words = f"{p['games']} at two seats, {p['games_four']} at four"
    if p.get("rung_bound_s"):
        words += f", fewer where a pair's {p['rung_bound_s']} s ran out"
    return words


def markdown(result: dict) -> str:
    p, env = result["params"], result["environment"]
    lines = [
        f"**{result['title']}** — bouts a pair in brackets ({_runs_in_words(p)}), "
        f"seat-rotated, {_processes(p)}, no database, "
        f"± the 95 % error. {result['finished_at']}, "
        f"{env['cpus']} CPUs, Python {env['python']}.",
        "",
        "| game | L1 v L0 | L2 v L1 | L3 v L2 | L4 v L3 | four seats (× fair) "
        "| p95 CPU ms L1 / L2 / L3 / L4 | beginner v L1 | span: L4 v L0 |",
        "|---|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for slug, g in result["games"].items():
        by_level = {r["level"]: r for r in g["ladder"]}
        rungs = " | ".join(_pct(by_level.get(lv)) for lv in LEVELS[1:])
        four = ", ".join(f"{r['over_fair']:.2f}" for r in g["ladder_four"]) or "—"
        if g["ladder_four"]:
            four += f" ({g['ladder_four'][0]['games']})"
        p95 = " / ".join(
            f"{g['p95_ms'][k]:g}" if g["p95_ms"].get(k) is not None else "—" for k in LEVELS[1:]
        )
        beginner, span = _pct(g.get("beginner_vs_level1")), _pct(g.get("span"))
        lines.append(f"| {slug} | {rungs} | {four} | {p95} | {beginner} | {span} |")
    goals = result["goals"]
    words = {True: "met", False: "**missed**", None: "not measured"}
    lines += [
        "",
        f"Goals: each level ≥ {100 * GOAL_RATE:.0f} % against the level below at two seats: "
        f"{words[goals['ladder_two']]}; ≥ {GOAL_FOUR} × its fair share at four: "
        f"{words[goals['ladder_four']]}; p95 move time L1 ≤ 30 ms, L2 ≤ 100 ms, L3 ≤ 300 ms, "
        f"L4 ≤ 1 s: {words[goals['move_time']]}; the beginner ≥ 50 % against L1: "
        f"{words[goals['beginner']]}. The issue asks for ≥ 1,000 bouts a pair.",
        "",
        f"The span (L4 against L0, reported, not judged): four rungs of "
        f"{100 * GOAL_RATE:.0f} % each compound, as ratings model them (Bradley–Terry: odds "
        f"of {RUNG_ODDS:g} a rung, {RUNG_ODDS**4:.1f} "
        f"over four), to about {100 * SPAN_NEEDED:.0f} % for L4 against L0: a game whose span "
        "is below that has no room for the ladder in single bouts, whatever the levels.",
    ]
    return "\n".join(lines)


def _closest(cells: list[tuple[float, str]], what: str) -> str:
    """How many cells fall short of their goal and the one furthest below it
    (or closest to it): each cell is (its figure over the goal, its words)."""
    short = sum(1 for margin, _ in cells if margin < 1)
    worst = min(cells)[1]
    if short:
        return f"{short} of {len(cells)} {what} short; the furthest: {worst}"
    return f"all {len(cells)} {what} met; the closest: {worst}"


def verdicts(result: dict) -> list[dict]:
    """The goals measured, as bench/run.py's goals table reads them."""
    games, goals = result["games"], result["goals"]

    def lv(key: str) -> str:
        return "L" + key.removeprefix("level")

    two = [
        (r["rate"] / GOAL_RATE, f"{slug} {lv(r['level'])} v {lv(r['against'])}, {_pct(r)}")
        for slug, g in games.items()
        for r in g["ladder"]
    ]
    four = [
        (r["over_fair"] / GOAL_FOUR, f"{slug} {lv(r['level'])}, {r['over_fair']:.2f} ×")
        for slug, g in games.items()
        for r in g["ladder_four"]
    ]
    times = [
        (limit / max(g["p95_ms"][k], 1e-9), f"{slug} {lv(k)}, {g['p95_ms'][k]:g} of {limit:,} ms")
        for slug, g in games.items()
        for k, limit in GOAL_P95_MS.items()
        if g["p95_ms"].get(k) is not None
    ]
    beginner = [
        (
            g["beginner_vs_level1"]["rate"] / GOAL_BEGINNER,
            f"{slug}, {_pct(g['beginner_vs_level1'])}",
        )
        for slug, g in games.items()
        if "beginner_vs_level1" in g
    ]
    judged = [
        (
            "ladder_two",
            f"each level ≥ {100 * GOAL_RATE:.0f} % against the level below, two seats",
            two,
            "rungs",
        ),
        ("ladder_four", f"each level ≥ {GOAL_FOUR:g} × its fair share, four seats", four, "rungs"),
        ("move_time", "p95 move time L1 ≤ 30 ms, L2 ≤ 100, L3 ≤ 300, L4 ≤ 1,000", times, "levels"),
        ("beginner", f"a beginner ≥ {100 * GOAL_BEGINNER:.0f} % against L1", beginner, "games"),
    ]
    return [
        stack.verdict(result, goal, _closest(cells, what), goals[key])
        for key, goal, cells, what in judged
        if cells and goals[key] is not None
    ]
