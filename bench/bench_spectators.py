"""Benchmark 5: 500 spectators on one match's delayed group.

The production web server (docker/entrypoint.sh ``web``: gunicorn + 2 uvicorn
workers, channels-redis on a private Redis, PostgreSQL; bench/stack.py) serves
one Doubting Love Letter match whose spectators see it ``DELAY_S`` late. This
process opens BENCH_SPECTATORS_CLIENTS (500) anonymous websockets on
``/ws/matches/<pk>/`` (asyncio, the ``websockets`` library; the soft
RLIMIT_NOFILE is raised first), each sending ``{"since": 0}`` as the page does,
and measures:

- memory: the server's RSS (master + workers) before the sockets and once all
  are open and idle; the difference / clients = memory per idle socket;
- delivery: two token users then play BENCH_SPECTATORS_MOVES moves over HTTP,
  one every BENCH_SPECTATORS_GAP_S; for each move and each socket, the time it
  received a table at that move's version (or later) minus (the move's last
  event's ``recorded_at`` + the delay). Goal: p99 ≤ 500 ms. A table received
  before its time is counted as early (it must never happen: a spectator never
  sees an event younger than the delay).

Environment: BENCH_SPECTATORS_CLIENTS (500), BENCH_SPECTATORS_MOVES (6),
BENCH_SPECTATORS_GAP_S (2), BENCH_SPECTATORS_DELAY_S (2), and bench/stack.py's.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402

NAME = "spectators"
TITLE = "Spectators: one match's delayed group, many websockets"
GAME = "doubting-love-letter"
GOAL_P99_MS = 500.0
SEATS = ["ana", "ben"]
CONNECT_AT_ONCE = 100
CONNECT_LIMIT_S = 90.0  # sockets not open by then count as failed


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _settings() -> dict:
    return {
        "clients": stack.env_int("BENCH_SPECTATORS_CLIENTS", 500, 1, 5000),
        "moves": stack.env_int("BENCH_SPECTATORS_MOVES", 6, 1, 100),
        "gap_s": stack.env_float("BENCH_SPECTATORS_GAP_S", 2.0, 0.1, 30),
        "delay_s": stack.env_int("BENCH_SPECTATORS_DELAY_S", 2, 1, 60),
    }


SETUP = r"""
import json, random, sys
from games import services
users = json.loads(%(users)r)
m = services.create_match(
    %(game)r, %(seats)r, options={"decision_s": 0, "first_to": 5, "ready_check_s": 0},
    holders={%(seats)r[0]: users["ana"]["id"], %(seats)r[1]: users["ben"]["id"]},
    title="spectated", rng=random.Random(5), spectator_delay_s=%(delay)r,
)
sys.stderr.write("RESULT " + json.dumps({"id": m.pk, "stream": m.stream}) + "\n")
"""


class Spectator:
    def __init__(self, k: int):
        self.k = k
        self.received: list[tuple[int, float]] = []  # (version, when)
        self.errors: list[str] = []
        self.ws = None

    async def open(self, url: str, origin: str) -> None:
        from websockets.asyncio.client import connect

        try:
            self.ws = await connect(
                url,
                origin=origin,
                additional_headers={"X-Forwarded-Proto": "https"},
                open_timeout=60,
                ping_interval=None,
                max_size=2**22,
            )
            await self.ws.send(json.dumps({"since": 0}))
        except Exception as exc:  # counted, not fatal: the report says how many failed
            self.errors.append(f"connect: {type(exc).__name__}: {exc}")
            self.ws = None

    async def listen(self) -> None:
        if self.ws is None:
            return
        try:
            async for raw in self.ws:
                at = time.time()
                msg = json.loads(raw)
                if "version" in msg:
                    self.received.append((msg["version"], at))
        except Exception as exc:
            self.errors.append(f"recv: {type(exc).__name__}: {exc}")

    def first_at_least(self, version: int) -> float | None:
        return next((at for v, at in self.received if v >= version), None)


async def _open_all(clients: list[Spectator], url: str, origin: str) -> float:
    """Every socket opened (CONNECT_AT_ONCE at a time, bounded by
    CONNECT_LIMIT_S: those not open by then count as failed); the seconds it took."""
    t0 = time.time()
    gate = asyncio.Semaphore(CONNECT_AT_ONCE)

    async def open_one(c: Spectator) -> None:
        async with gate:
            await c.open(url, origin)

    tasks = [asyncio.ensure_future(open_one(c)) for c in clients]
    _done, late = await asyncio.wait(tasks, timeout=CONNECT_LIMIT_S)
    for t in late:
        t.cancel()
    for c in clients:
        if c.ws is None and not c.errors:
            c.errors.append(f"not open within {CONNECT_LIMIT_S:.0f} s")
    return time.time() - t0


async def _play_moves(port: int, match: dict, users: dict, s: dict) -> list[int]:
    """The moves, one every ``gap_s``; the last version each wrote."""
    api = stack.Api(port)
    tokens = {seat: users[seat]["token"] for seat in SEATS}
    rng = random.Random(3)
    moves: list[int] = []
    for n in range(s["moves"]):
        began = time.time()
        wrote = await asyncio.to_thread(_move, api, match["id"], tokens, rng, n)
        if wrote:
            moves.append(wrote)
        await asyncio.sleep(max(0.0, s["gap_s"] - (time.time() - began)))
    api.close()
    return moves


def _deliveries(st: stack.Stack, match: dict, open_: list[Spectator], moves: list[int], s: dict):
    """(each delivery's seconds after it was due, how many never came, how many
    came early, each move's summary)."""
    rows = st.sql(
        "SELECT version, extract(epoch FROM recorded_at)::float8 FROM eventlog_storedevent "
        "WHERE stream = %s",
        [match["stream"]],
    )
    recorded = {v: float(at) for v, at in rows}
    delays, missing, early, per_move = [], 0, 0, []
    for v in moves:
        due = recorded[v] + s["delay_s"]
        of_move = []
        for c in open_:
            at = c.first_at_least(v)
            if at is None:
                missing += 1
                continue
            of_move.append(at - due)
        delays += of_move
        # where a slow p99 comes from: one late move (the publish) or every move (the fan-out)
        first = round(min(of_move) * 1e3, 2) if of_move else None
        per_move.append({"version": v, "min": first, **stack.summary_ms(of_move)})
    for c in open_:
        for v, at in c.received:
            if v in recorded and at < recorded[v] + s["delay_s"]:
                early += 1
    return delays, missing, early, per_move


async def _spectate(st: stack.Stack, port: int, match: dict, users: dict, s: dict) -> dict:
    url = f"ws://127.0.0.1:{port}/ws/matches/{match['id']}/"
    origin = f"https://127.0.0.1:{port}"
    clients = [Spectator(k) for k in range(s["clients"])]
    rss_before = st.server_rss_kib("web1")
    connect_s = await _open_all(clients, url, origin)
    listeners = [asyncio.ensure_future(c.listen()) for c in clients]
    open_ = [c for c in clients if c.ws is not None]
    # every socket answered its {"since": 0} (the table, or just the version)
    for _ in range(300):
        if all(c.received or c.errors for c in open_):
            break
        await asyncio.sleep(0.1)
    await asyncio.sleep(3)  # idle
    rss_idle = st.server_rss_kib("web1")
    say(
        f"{len(open_)}/{len(clients)} sockets open in {connect_s:.1f} s; server RSS "
        f"{sum(rss_before['workers'])} -> {sum(rss_idle['workers'])} KiB (workers)"
    )

    moves = await _play_moves(port, match, users, s)
    # every socket has the last move, or the bound passed
    last = moves[-1] if moves else 0
    until = time.time() + s["delay_s"] + 30
    while time.time() < until and not all(c.first_at_least(last) or c.errors for c in open_):
        await asyncio.sleep(0.2)
    rss_after = st.server_rss_kib("web1")
    for c in open_:
        await c.ws.close()
    for f in listeners:
        f.cancel()

    delays, missing, early, per_move = _deliveries(st, match, open_, moves, s)
    summary = stack.summary_ms(delays)
    per_socket = (sum(rss_idle["workers"]) - sum(rss_before["workers"])) / max(1, len(open_))
    return {
        "opened": len(open_),
        "connect_s": round(connect_s, 1),
        "connect_errors": sum(1 for c in clients if c.ws is None),
        "receive_errors": sum(1 for c in open_ if c.errors),
        "moves": len(moves),
        "deliveries": len(delays),
        "missing": missing,
        "early": early,
        "delivery_after_delay_ms": summary,
        "per_move_ms": per_move,
        "rss_kib": {"before": rss_before, "idle": rss_idle, "after_moves": rss_after},
        "kib_per_idle_socket": round(per_socket, 1),
        "goal": {
            "p99_at_most_ms": GOAL_P99_MS,
            "met": summary["p99"] is not None
            and summary["p99"] <= GOAL_P99_MS
            and missing == 0
            and early == 0,
        },
    }


def _move(api: stack.Api, match_id: int, tokens: dict, rng: random.Random, n: int) -> int | None:
    """One legal move by whoever must act; the last version it wrote."""
    for seat in SEATS:
        status, legal, _ = api.call("GET", f"/api/matches/{match_id}/legal", token=tokens[seat])
        if status == 200 and legal.get("commands"):
            status, body, _ = api.call(
                "POST",
                f"/api/matches/{match_id}/commands",
                {"command": rng.choice(legal["commands"]), "command_id": f"spec-{n}"},
                token=tokens[seat],
            )
            if status == 201 and body.get("appended"):
                return max(body["appended"])
            say(f"move {n} answered {status}: {body}")
            return None
    return None


def main(results_dir) -> dict:
    s = _settings()
    port = stack.web_ports()[0]
    nofile = stack.raise_fd_limit(4 * s["clients"] + 1024)
    if nofile < 2 * s["clients"] + 256:
        raise SystemExit(f"RLIMIT_NOFILE is {nofile}: too low for {s['clients']} sockets")
    st = stack.Stack(NAME)
    started = time.perf_counter()
    ok = False
    try:
        st.up()
        users = st.django(stack.users_code([("ana", []), ("ben", [])]))
        match = st.django(
            SETUP
            % {"users": json.dumps(users), "game": GAME, "seats": SEATS, "delay": s["delay_s"]}
        )
        took = st.web([port], 2)
        say(f"gunicorn with 2 uvicorn workers healthy in {took:.1f} s; match {match['id']}")
        env = stack.environment(st)
        time.sleep(s["delay_s"] + 0.5)  # the match must be older than the delay to be watched
        result = asyncio.run(_spectate(st, port, match, users, s))
        d = result["delivery_after_delay_ms"]
        say(
            f"delivery after the delay ms: p50 {d['p50']} p99 {d['p99']} max {d['max']} "
            f"({result['deliveries']} deliveries, {result['missing']} missing, "
            f"{result['early']} early); {result['kib_per_idle_socket']} KiB per idle socket"
        )
        say(
            "per move (first / p50 / max ms): "
            + ", ".join(
                f"v{m['version']} {m['min']}/{m['p50']}/{m['max']}" for m in result["per_move_ms"]
            )
        )
        ok = True
    finally:
        st.down(ok)
    return {
        **stack.result_header(NAME, TITLE, started),
        "params": {**s, "game": GAME, "rlimit_nofile": nofile},
        "environment": stack.environment_after(env),
        **result,
    }


def _v(x) -> str:
    return "–" if x is None else f"{x:,.0f}"


def markdown(r: dict) -> str:
    p, env, d, g = r["params"], r["environment"], r["delivery_after_delay_ms"], r["goal"]
    rss = r["rss_kib"]
    before, idle = sum(rss["before"]["workers"]), sum(rss["idle"]["workers"])
    return "\n".join(
        [
            f"**{r['title']}** — {r['opened']}/{p['clients']} anonymous websockets on one "
            f"match's spectator group (delay {p['delay_s']} s), gunicorn + 2 uvicorn workers "
            "through `docker/entrypoint.sh web`, channels-redis; "
            f"{r['moves']} moves over HTTP, one every {p['gap_s']:g} s. {r['finished_at']}, "
            f"{env['postgres']}, {env['cpus']} CPUs (load {env['load_before']} before, "
            f"{env['load_after']} after; the 500 clients run on the same 2 cores).",
            "",
            "| sockets | deliveries | missing | early | p50 ms | p90 ms | p99 ms | max ms "
            f"| goal p99 ≤ {g['p99_at_most_ms']:g} ms | KiB per idle socket |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|",
            f"| {r['opened']} | {r['deliveries']:,} | {r['missing']} | {r['early']} "
            f"| {_v(d['p50'])} | {_v(d['p90'])} | {_v(d['p99'])} | {_v(d['max'])} "
            f"| {'met' if g['met'] else '**missed**'} | {r['kib_per_idle_socket']:,.0f} |",
            "",
            "Delivery = when a socket received the table at a move's version − (the move's "
            "last event's `recorded_at` + the delay); the consumer itself waits 50 ms past "
            "the delay. Missing = a socket that had not received a move's table 30 s after "
            "the last move was due (left out of the percentiles, so the true p99 is worse when "
            "any are missing). Early = a table received before its time (must be 0). Memory: the "
            f"web workers' RSS {before:,} KiB before the sockets, {idle:,} KiB with all open "
            f"and idle ({r['connect_s']} s to open them).",
        ]
    )


def verdicts(r: dict) -> list[dict]:
    """The goal as bench/run.py's goals table reads it."""
    g, d = r["goal"], r["delivery_after_delay_ms"]
    return [
        stack.verdict(
            r,
            f"{r['params']['clients']} sockets on a delayed group: delivery p99 "
            f"≤ {g['p99_at_most_ms']:g} ms after the delay, none missing or early",
            f"{_v(d['p99'])} ms ({r['opened']} open, {r['missing']} missing, {r['early']} early)",
            g["met"],
        )
    ]
