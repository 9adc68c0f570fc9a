"""Benchmark 2: a command over HTTP on the production server.

The server is what docker/entrypoint.sh's ``web`` role runs (gunicorn with
WEB_WORKERS uvicorn workers, DEBUG off, JSON logs, PostgreSQL, channels and
the rate limits on a private Redis), started by bench/stack.py in a database of
its own, with the benchmarks' URLconf (bench/benchsite) adding two reference
endpoints that exist only there:

- ``POST /bench/insert``: a bare DRF view doing one INSERT, no authentication;
- ``POST /bench/insert-token``: the same behind the API's token authentication.

1. Latency: one client plays Doubting Love Letter matches (first to 5) whose two
   seats are held by two token users, one command at a time: it asks
   ``/legal`` as the seat whose turn it is (not timed), then times, in turn, the
   command (``POST /api/matches/<id>/commands``: authenticate, load, decide,
   append, respond with the seat's view) and each reference endpoint, in a
   rotating order, so the three are measured side by side under the same load.
   Goal: command p50 ≤ 1.5 × the bare INSERT's p50.
2. Throughput: 50 live matches (100 token users), a pool of client threads,
   each owning some matches and playing them as bots do (``/legal``, then the
   command); a finished match is replaced by a new one created over the API.
   Goal: ≥ 300 commands/s, with WEB_WORKERS (2) on this 2-core machine.
3. The bare view under the same client load: the same client threads POST
   ``/bench/insert`` as fast as it answers, half the throughput run's time
   before the matches are played and half after (so a drift of the machine's
   load falls on both). Goal: commands/s ≥ 0.5 × its requests/s.

The API's rate limits (10/s, 300/min per token, 1,200/min per address) would
refuse a bot that plays this fast: the server runs with
API_COMMAND_BURST_RATE/SUSTAINED_RATE/ADDRESS_RATE raised, so every command
still pays for the limiters' Redis round trips but none is refused. No Celery
worker runs: matches have their default clocks (60 s a decision), which are
not armed when set (clocks.arming: only the next 10 s are), as in production.

Environment: BENCH_HTTP_PAIRS (150 measured rounds of the three calls, after
BENCH_HTTP_WARMUP 40), BENCH_HTTP_MATCHES (50), BENCH_HTTP_CLIENTS (8 threads),
BENCH_HTTP_SECONDS (20: the throughput run's length; at most 20,000 commands),
BENCH_HTTP_WEB_WORKERS (2), and bench/stack.py's.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402

NAME = "http_command"
TITLE = "Command over HTTP on the production server"
GAME = "doubting-love-letter"
OPTIONS = {"first_to": 5, "ready_check_s": 0}  # the seats play at once: no "I am here"
GOAL_RATIO = 1.5
GOAL_RATE = 300.0
GOAL_RATE_VS_BARE = 0.5
MAX_COMMANDS = 20_000
MAX_BARE_REQUESTS = 200_000
LATENCY_LIMIT_S = 75.0  # the latency rounds stop here, however many were done
SEATS = ["ana", "ben"]


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _settings() -> dict:
    return {
        "pairs": stack.env_int("BENCH_HTTP_PAIRS", 150, 10, 5000),
        "warmup": stack.env_int("BENCH_HTTP_WARMUP", 40, 0, 1000),
        "matches": stack.env_int("BENCH_HTTP_MATCHES", 50, 1, 200),
        "clients": stack.env_int("BENCH_HTTP_CLIENTS", 8, 1, 64),
        "seconds": stack.env_float("BENCH_HTTP_SECONDS", 20, 2, 300),
        "web_workers": stack.env_int("BENCH_HTTP_WEB_WORKERS", 2, 1, 16),
    }


SETUP = r"""
import json, random, sys
from games import services
users = json.loads(%(users)r)
out = []
for i, (a, b) in enumerate(%(pairs)r):
    m = services.create_match(
        %(game)r, %(seats)r, options=%(options)r,
        holders={%(seats)r[0]: users[a]["id"], %(seats)r[1]: users[b]["id"]},
        title=f"bench {i}", rng=random.Random(i),
    )
    out.append(m.pk)
sys.stderr.write("RESULT " + json.dumps(out) + "\n")
"""


class Seated:
    """A match played by two token users through one connection."""

    def __init__(self, api: stack.Api, match_id: int, tokens: dict[str, str], holder_ids=()):
        self.api, self.id, self.tokens = api, match_id, tokens
        self.holder_ids = holder_ids  # the seats' user ids, to replace the match when it ends
        self.turn: str | None = None
        self.finished = False

    def whose_turn(self) -> str | None:
        if self.turn is None:
            status, view, _ = self.api.call(
                "GET", f"/api/matches/{self.id}/", token=self.tokens[SEATS[0]]
            )
            if status == 200:
                self._learn(view)
        return self.turn

    def _learn(self, view: dict) -> None:
        self.finished = bool(view.get("finished"))
        pend = [p["seat"] for p in view.get("pending") or [] if p["seat"] in self.tokens]
        self.turn = None if self.finished or not pend else pend[0]

    def next_command(self, rng: random.Random) -> tuple[str, dict] | None:
        seat = self.whose_turn()
        if seat is None:
            return None
        status, legal, _ = self.api.call(
            "GET", f"/api/matches/{self.id}/legal", token=self.tokens[seat]
        )
        if status != 200 or not legal.get("commands"):
            self.turn = None
            return None
        return seat, rng.choice(legal["commands"])

    def send(self, seat: str, command: dict, command_id: str) -> tuple[int, float]:
        status, body, took = self.api.call(
            "POST",
            f"/api/matches/{self.id}/commands",
            {"command": command, "command_id": command_id},
            token=self.tokens[seat],
        )
        if status in (200, 201) and isinstance(body, dict):
            self._learn(body["view"])
        else:
            self.turn = None
        return status, took


def _latency(port: int, matches: list[Seated], s: dict, token: str) -> dict:
    rng = random.Random(7)
    api = matches[0].api
    times: dict[str, list[float]] = {"command": [], "bare": [], "token": []}
    statuses: dict[str, dict[int, int]] = {k: {} for k in times}
    legal_s: list[float] = []
    playing = list(matches)
    n, rounds = 0, 0
    deadline = time.time() + LATENCY_LIMIT_S
    while rounds < s["warmup"] + s["pairs"] and playing and time.time() < deadline:
        m = playing[0]
        t0 = time.perf_counter()
        nxt = m.next_command(rng)
        legal_s.append(time.perf_counter() - t0)
        if nxt is None:
            if m.finished:
                playing.pop(0)
            continue
        seat, command = nxt
        measured = rounds >= s["warmup"]
        order = ["command", "bare", "token"]
        k = rounds % 3
        for what in order[k:] + order[:k]:
            if what == "command":
                status, took = m.send(seat, command, f"lat-{n}")
                n += 1
            elif what == "bare":
                status, _, took = api.call("POST", "/bench/insert", {"n": rounds}, token="")
            else:
                status, _, took = api.call(
                    "POST", "/bench/insert-token", {"n": rounds}, token=token
                )
            if measured:
                times[what].append(took)
                statuses[what][status] = statuses[what].get(status, 0) + 1
        rounds += 1
    ms = {k: stack.summary_ms(v) for k, v in times.items()}
    ratio = (
        round(ms["command"]["p50"] / ms["bare"]["p50"], 2)
        if ms["command"]["p50"] and ms["bare"]["p50"]
        else None
    )
    ratio99 = (
        round(ms["command"]["p99"] / ms["bare"]["p99"], 2)
        if ms["command"]["p99"] and ms["bare"]["p99"]
        else None
    )
    return {
        "rounds": rounds - s["warmup"],
        "ms": ms,
        "legal_ms": stack.summary_ms(legal_s),
        "statuses": {k: {str(c): n for c, n in v.items()} for k, v in statuses.items()},
        "ratio_p50": ratio,
        "ratio_p99": ratio99,
        "ratio_p50_token": (
            round(ms["command"]["p50"] / ms["token"]["p50"], 2) if ms["token"]["p50"] else None
        ),
        "goal": {"p50_ratio_at_most": GOAL_RATIO, "met": ratio is not None and ratio <= GOAL_RATIO},
    }


def _run_clients(n: int, seconds: float, client) -> float:
    """``client(k, go)`` on ``n`` threads: each gets ready, then calls ``go()``,
    which returns once all are ready, with the time to stop at (``seconds``
    on); the seconds the run took."""
    start = threading.Barrier(n + 1)
    stop_at = [0.0]

    def go() -> float:
        start.wait()
        return stop_at[0]

    threads = [threading.Thread(target=client, args=(k, go), daemon=True) for k in range(n)]
    for t in threads:
        t.start()
    began = time.time()
    stop_at[0] = began + seconds
    start.wait()
    for t in threads:
        t.join(timeout=seconds + 60)
    return time.time() - began


def _bare_throughput(port: int, s: dict, seconds: float) -> dict:
    """The bare INSERT view's requests/s from ``s["clients"]`` threads, each
    on its own keep-alive connection, for ``seconds``."""
    lock = threading.Lock()
    done, statuses = [0], {}

    def client(k: int, go) -> None:
        api = stack.Api(port)
        stop_at = go()
        n = 0
        while time.time() < stop_at:
            status, _, _ = api.call("POST", "/bench/insert", {"n": n, "k": k}, token="")
            n += 1
            with lock:
                statuses[status] = statuses.get(status, 0) + 1
                if status == 201:
                    done[0] += 1
                if done[0] >= MAX_BARE_REQUESTS:
                    break
        api.close()

    elapsed = _run_clients(s["clients"], seconds, client)
    return {
        "requests": done[0],
        "statuses": {str(c): n for c, n in sorted(statuses.items())},
        "elapsed": elapsed,
    }


def _bare_rate(halves: list[dict]) -> dict:
    requests = sum(h["requests"] for h in halves)
    elapsed = sum(h["elapsed"] for h in halves)
    statuses: dict[str, int] = {}
    for h in halves:
        for c, n in h["statuses"].items():
            statuses[c] = statuses.get(c, 0) + n
    return {
        "seconds": round(elapsed, 1),
        "requests_written": requests,
        "requests_per_s": round(requests / elapsed, 1) if elapsed > 0 else 0.0,
        "halves_per_s": [round(h["requests"] / h["elapsed"], 1) for h in halves if h["elapsed"]],
        "statuses": statuses,
    }


def _throughput(port: int, ids: list[int], users: dict, s: dict) -> dict:
    organizer = users["organizer"]["token"]
    lock = threading.Lock()
    done: list[float] = []  # completion times of written commands
    took: list[float] = []
    statuses: dict[int, int] = {}
    replaced = [0]

    def client(k: int, go) -> None:
        rng = random.Random(100 + k)
        api = stack.Api(port)
        mine = []
        for i in range(k, len(ids), s["clients"]):
            a, b = users[f"p{2 * i}"], users[f"p{2 * i + 1}"]
            tokens = {SEATS[0]: a["token"], SEATS[1]: b["token"]}
            mine.append(Seated(api, ids[i], tokens, (a["id"], b["id"])))
        stop_at = go()
        n = 0
        while time.time() < stop_at:
            with lock:
                if len(done) >= MAX_COMMANDS:
                    break
            for j, m in enumerate(mine):
                if time.time() >= stop_at:
                    break
                if m.finished:
                    a, b = m.tokens[SEATS[0]], m.tokens[SEATS[1]]
                    status, body, _ = api.call(
                        "POST",
                        "/api/matches/",
                        {
                            "game": GAME,
                            "seats": SEATS,
                            "options": OPTIONS,
                            "holders": {
                                SEATS[0]: m.holder_ids[0],
                                SEATS[1]: m.holder_ids[1],
                            },
                        },
                        token=organizer,
                    )
                    if status == 201:
                        mine[j] = Seated(api, body["id"], {SEATS[0]: a, SEATS[1]: b}, m.holder_ids)
                        with lock:
                            replaced[0] += 1
                    continue
                nxt = m.next_command(rng)
                if nxt is None:
                    continue
                seat, command = nxt
                status, t = m.send(seat, command, f"tp-{k}-{n}")
                n += 1
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == 201:
                        done.append(time.time())
                        took.append(t)
        api.close()

    elapsed = _run_clients(s["clients"], s["seconds"], client)
    rate = len(done) / elapsed if elapsed > 0 else 0.0
    return {
        "seconds": round(elapsed, 1),
        "clients": s["clients"],
        "matches": len(ids),
        "commands_written": len(done),
        "commands_per_s": round(rate, 1),
        "command_ms": stack.summary_ms(took),
        "statuses": {str(c): n for c, n in sorted(statuses.items())},
        "matches_replaced": replaced[0],
        "goal": {"commands_per_s_at_least": GOAL_RATE, "met": rate >= GOAL_RATE},
    }


def _prepare(st: stack.Stack, s: dict) -> tuple[dict, list[int]]:
    """The reference endpoints' table, the token users and the matches:
    (users, match ids; the first 6 for the latency rounds)."""
    st.sql(
        "CREATE TABLE bench_insert (id bigserial PRIMARY KEY, body text NOT NULL, "
        "at timestamptz NOT NULL DEFAULT now())"
    )
    n_users = 2 * s["matches"]
    users = st.django(
        stack.users_code(
            [("organizer", ["add_match"]), ("lat_a", []), ("lat_b", [])]
            + [(f"p{i}", []) for i in range(n_users)]
        )
    )
    users_json = json.dumps(users)
    pairs = [("lat_a", "lat_b")] * 6 + [(f"p{2 * i}", f"p{2 * i + 1}") for i in range(s["matches"])]
    ids = st.django(
        SETUP
        % {
            "users": users_json,
            "pairs": pairs,
            "game": GAME,
            "seats": SEATS,
            "options": OPTIONS,
        }
    )
    say(f"{len(ids)} matches and {len(users)} token users created")
    return users, ids


def _measure_latency(port: int, ids: list[int], users: dict, s: dict) -> dict:
    api = stack.Api(port)
    lat_tokens = {SEATS[0]: users["lat_a"]["token"], SEATS[1]: users["lat_b"]["token"]}
    latency = _latency(port, [Seated(api, i, lat_tokens) for i in ids[:6]], s, lat_tokens[SEATS[0]])
    api.close()
    say(
        f"latency p50/p99 ms: command {latency['ms']['command']['p50']}/"
        f"{latency['ms']['command']['p99']}, bare insert {latency['ms']['bare']['p50']}/"
        f"{latency['ms']['bare']['p99']}, token insert {latency['ms']['token']['p50']}/"
        f"{latency['ms']['token']['p99']}; ratio p50 {latency['ratio_p50']}"
    )
    return latency


def _measure_throughput(st: stack.Stack, port: int, ids: list[int], users: dict, s: dict) -> dict:
    """The commands' throughput between two halves of the bare view's, the CPU
    each part spent on them, and the commands' rate against the bare view's."""
    cpu0 = st.cpu_snapshot()
    before = _bare_throughput(port, s, s["seconds"] / 2)
    cpu1 = st.cpu_snapshot()
    throughput = _throughput(port, ids[6:], users, s)
    cpu2 = st.cpu_snapshot()
    say(
        f"throughput: {throughput['commands_written']} commands in {throughput['seconds']} s "
        f"= {throughput['commands_per_s']}/s with {s['clients']} clients; "
        f"statuses {throughput['statuses']}"
    )
    bare = _bare_rate([before, _bare_throughput(port, s, s["seconds"] / 2)])
    cpu3 = st.cpu_snapshot()
    throughput["cpu_ms_per_command"] = stack.cpu_ms_per(
        stack.cpu_spent(cpu1, cpu2), throughput["commands_written"]
    )
    bare["cpu_ms_per_request"] = stack.cpu_ms_per(
        stack.cpu_spent(cpu0, cpu1, cpu2, cpu3), bare["requests_written"]
    )
    ratio = (
        round(throughput["commands_per_s"] / bare["requests_per_s"], 3)
        if bare["requests_per_s"]
        else None
    )
    throughput["bare"] = bare
    throughput["ratio_to_bare"] = ratio
    throughput["goal_vs_bare"] = {
        "ratio_at_least": GOAL_RATE_VS_BARE,
        "met": ratio is not None and ratio >= GOAL_RATE_VS_BARE,
    }
    say(
        f"bare view under the same {s['clients']} clients: {bare['requests_per_s']}/s "
        f"(halves {bare['halves_per_s']}); commands/s / bare requests/s = {ratio}"
    )
    return throughput


def _server_errors(latency: dict, throughput: dict) -> int:
    """Answers 5xx, or none at all, over every phase."""
    return sum(
        n
        for part in (
            latency["statuses"].values(),
            [throughput["statuses"], throughput["bare"]["statuses"]],
        )
        for d in part
        for c, n in d.items()
        if c.startswith("5") or c == "0"
    )


def main(results_dir) -> dict:
    s = _settings()
    port = stack.web_ports()[0]
    st = stack.Stack(
        "http_command",
        API_COMMAND_BURST_RATE="100000/s",
        API_COMMAND_SUSTAINED_RATE="1000000/min",
        API_COMMAND_ADDRESS_RATE="1000000/min",  # every client is 127.0.0.1
    )
    started = time.perf_counter()
    ok = False
    try:
        st.up()
        users, ids = _prepare(st, s)
        took = st.web([port], s["web_workers"])
        say(f"gunicorn with {s['web_workers']} uvicorn workers healthy in {took:.1f} s")
        env = stack.environment(st)
        latency = _measure_latency(port, ids, users, s)
        throughput = _measure_throughput(st, port, ids, users, s)
        rss = st.server_rss_kib("web1")
        server_errors = _server_errors(latency, throughput)
        ok = True
    finally:
        st.down(ok)
    return {
        **stack.result_header(NAME, TITLE, started),
        "params": {**s, "game": GAME, "options": OPTIONS},
        "environment": stack.environment_after(env),
        "server_rss_kib": rss,
        "server_errors": server_errors,
        "latency": latency,
        "throughput": throughput,
    }


def _v(x, fmt="{:,.1f}") -> str:
    return "–" if x is None else fmt.format(x)


def _md_latency(r: dict) -> list[str]:
    lat, env, p = r["latency"], r["environment"], r["params"]
    v = env["versions"]
    rows = [
        ("command (`POST /api/matches/<id>/commands`)", lat["ms"]["command"]),
        ("bare DRF view, one INSERT (no auth)", lat["ms"]["bare"]),
        ("the same behind token auth", lat["ms"]["token"]),
    ]
    lines = [
        f"**{r['title']}** — gunicorn + {p['web_workers']} uvicorn workers through "
        "`docker/entrypoint.sh web` (DEBUG off, JSON logs), PostgreSQL, Redis; one client "
        f"timing a command and each reference endpoint in turn, {lat['rounds']} rounds. "
        f"{r['finished_at']}, {env['postgres']}, {env['cpus']} CPUs (load "
        f"{env['load_before']} before, {env['load_after']} after: other work shared the "
        f"machine), Python {v['python']}, Django {v['Django']}, gunicorn {v['gunicorn']}, "
        f"uvicorn {v['uvicorn']}.",
        "",
        "| endpoint | p50 ms | p90 ms | p99 ms | max ms |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, m in rows:
        lines.append(
            f"| {label} | {_v(m['p50'])} | {_v(m['p90'])} | {_v(m['p99'])} | {_v(m['max'])} |"
        )
    g = lat["goal"]
    lines += [
        "",
        f"Command / bare INSERT: p50 **{_v(lat['ratio_p50'], '{:.2f}')} ×** "
        f"(goal ≤ {g['p50_ratio_at_most']:g} ×: {'met' if g['met'] else '**missed**'}), "
        f"p99 {_v(lat['ratio_p99'], '{:.2f}')} ×; against the token-authenticated INSERT "
        f"{_v(lat['ratio_p50_token'], '{:.2f}')} ×.",
    ]
    return lines


def _md_throughput(r: dict) -> list[str]:
    tp = r["throughput"]
    return [
        "",
        f"Throughput: {tp['matches']} live Doubting Love Letter matches (first to 5; a finished "
        f"one replaced over the API: {tp['matches_replaced']}), {tp['clients']} client threads "
        f"on the same 2 cores, each command preceded by its seat's `GET /api/matches/<id>/legal`: "
        f"**{_v(tp['commands_per_s'])} commands/s** ({tp['commands_written']:,} in "
        f"{tp['seconds']} s; command p50 {_v(tp['command_ms']['p50'])} ms, p99 "
        f"{_v(tp['command_ms']['p99'])} ms under load; statuses {tp['statuses']}). Goal ≥ "
        f"{tp['goal']['commands_per_s_at_least']:g}/s: "
        + ("met" if tp["goal"]["met"] else "**missed**")
        + f" ({tp['commands_per_s'] / tp['goal']['commands_per_s_at_least']:.2f} × the goal). "
        f"Server errors (5xx or no answer): {r['server_errors']}.",
    ]


def _md_bare(tp: dict) -> list[str]:
    bare = tp.get("bare")
    if not bare:
        return []
    gb = tp["goal_vs_bare"]
    return [
        "",
        f"The bare INSERT view under the same {tp['clients']} client threads (half before the "
        f"matches are played, half after: {', '.join(_v(h) for h in bare['halves_per_s'])} "
        f"/s): **{_v(bare['requests_per_s'])} requests/s** ({bare['requests_written']:,} in "
        f"{bare['seconds']} s; statuses {bare['statuses']}). Commands/s against it: "
        f"**{_v(tp['ratio_to_bare'], '{:.2f}')} ×** (goal ≥ {gb['ratio_at_least']:g} ×: "
        + ("met" if gb["met"] else "**missed**")
        + ").",
    ]


def _md_cpu(tp: dict) -> list[str]:
    """Where the CPU went, per command and per bare request, when it was measured."""
    per_command = tp.get("cpu_ms_per_command")
    per_bare = (tp.get("bare") or {}).get("cpu_ms_per_request")
    if not (per_command and per_bare):
        return []
    parts = {
        "web1": "web (gunicorn and its uvicorn workers)",
        "reactors": "`run_reactors` (live, clocks, webhooks, reminders, ratings)",
        "postgres": "PostgreSQL (all its processes)",
        "redis": "Redis",
        "client": "the benchmark's client threads",
        "other": "the rest of the machine",
        "machine": "**the machine, all of it**",
    }
    lines = [
        "",
        "Where the CPU goes, from `/proc` before and after each phase (milliseconds of CPU per "
        "command, its `GET /api/matches/<id>/legal` included, and per bare request; 2 cores give 2,000 ms a "
        "second, so 300 commands/s leave 6.7 ms a command for everything):",
        "",
        "| part | ms per command | ms per bare request |",
        "|---|---:|---:|",
    ]
    for key, label in parts.items():
        if key in per_command or key in per_bare:
            lines.append(
                f"| {label} | {_v(per_command.get(key), '{:.2f}')} | "
                f"{_v(per_bare.get(key), '{:.2f}')} |"
            )
    return lines


def markdown(r: dict) -> str:
    tp = r["throughput"]
    return "\n".join(_md_latency(r) + _md_throughput(r) + _md_bare(tp) + _md_cpu(tp))


def verdicts(r: dict) -> list[dict]:
    """The goals as bench/run.py's goals table reads them."""
    lat, tp = r["latency"], r["throughput"]
    ms, g = lat["ms"], lat["goal"]
    rows = [
        stack.verdict(
            r,
            f"command p50 ≤ {g['p50_ratio_at_most']:g} × a bare one-INSERT DRF view's",
            f"{_v(lat['ratio_p50'], '{:.2f}')} × ({_v(ms['command']['p50'], '{:.1f}')} "
            f"against {_v(ms['bare']['p50'], '{:.1f}')} ms)",
            g["met"],
        ),
        stack.verdict(
            r,
            f"≥ {tp['goal']['commands_per_s_at_least']:g} commands/s over "
            f"{tp['matches']} live bot matches",
            f"{_v(tp['commands_per_s'])} /s",
            tp["goal"]["met"],
        ),
    ]
    if tp.get("bare"):
        gb = tp["goal_vs_bare"]
        rows.append(
            stack.verdict(
                r,
                f"commands/s ≥ {gb['ratio_at_least']:g} × the bare view's requests/s",
                f"{_v(tp['ratio_to_bare'], '{:.2f}')} × ({_v(tp['commands_per_s'])} against "
                f"{_v(tp['bare']['requests_per_s'])} /s)",
                gb["met"],
            )
        )
    return rows
