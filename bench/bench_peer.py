"""Benchmark: ours against a peer, boardgame.io, side by side in one run.

Both sides play two-player Love Letter (the classic game: hidden hands, a draw
and a play per turn, a shuffled deck, first to 5 tokens: a few dozen moves a
match) with the same bot, from the same Node driver
(bench/peers/boardgameio/driver.js), under the same load: the same number of
matches at once, the same number of moves, loopback only.

- peer: boardgame.io 0.50 (its Server: the lobby's REST API and the socket.io
  transport) storing matches with bgio-postgres on the same PostgreSQL, in a
  database of its own (bench/peers/boardgameio: game.js, server.js). Each seat
  is boardgame.io's own Client on its socket.io transport.
- ours: the production web process as bench/stack.py starts it (gunicorn +
  uvicorn workers, DEBUG off, PostgreSQL, Redis, the reactors' process that
  announces each version), Love Letter matches held by token users. Over the
  match socket (the default): each seat holds ``ws/api/matches/<id>/`` (its
  API token in the handshake), each push carries its view and legal moves,
  the seat to move sends ``{"command", "id"}`` and a move's latency is its
  send to its ack (sent once its event committed). Over HTTP
  (BENCH_PEER_OURS_OVER=http): a seat GETs its view when the turn comes to it
  and POSTs its command (``/api/matches/<id>/commands``).

First each side plays WARM_MOVES moves under load, not measured, so that
both are measured as running servers, not cold ones (ours: each pooled
PostgreSQL connection's caches, plans and trigger functions; the peer's
Node JIT). Then phases, interleaved (ours, peer, then peer, ours, ... so a
drift of the machine's load falls on both): ``latency`` (one match at a
time) and ``load`` (BENCH_PEER_MATCHES at once). Then, not counted: a census of what each side
does per move (statements; for ours through the Django test client) and, for
ours, a py-spy profile of the web workers during one more load phase. Every
move acknowledged is checked to be in each side's database. Last, the
durability check: one more load phase a side, whose server is SIGKILLed
(ours: the web process group, master and workers; boardgame.io: its Node
process) BENCH_PEER_KILL_AFTER_S into it; then the moves its driver had
acknowledged are looked up in its database (ours: each command id among the
events; boardgame.io: each acknowledged state id against its match row's
stored state), and those missing are counted.

Environment: BENCH_PEER_MATCHES (50 at once), BENCH_PEER_MOVES (1000 measured
moves a side under load), BENCH_PEER_LATENCY_MOVES (600), BENCH_PEER_ROUNDS (2:
each side's moves are split into this many interleaved phases),
BENCH_PEER_SECONDS (30: a phase's time limit), BENCH_PEER_TARGET (5 tokens),
BENCH_PEER_PORT (8193: the boardgame.io server), BENCH_PEER_PG_POOL (10: its
Sequelize pool), BENCH_PEER_PROFILE_S (8; 0: no profile),
BENCH_PEER_WEB_WORKERS (2), BENCH_PEER_OURS_OVER (socket; or http),
BENCH_PEER_KILL_AFTER_S (1: seconds after the kill phase's 100th
acknowledged move; 0: no kill check), and bench/stack.py's.
"""

from __future__ import annotations

import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402

NAME = "peer"
TITLE = "Ours and a peer (boardgame.io 0.50 on bgio-postgres), side by side"
PEER = BENCH / "peers" / "boardgameio"
NODE_PROJECTS = [PEER]  # bench/run.py installs their package-lock.json when missing
GAME = "love-letter"
SEATS = ["ana", "ben"]
GOAL_RATIO = 1.5
GOAL_MOVES_PER_S = 300  # over the load phase's live matches, over sockets
DECISION_S = 600  # no deadline falls due while the pool waits its turn
SHORTEST_MATCH = 12  # moves: the pools hold enough matches even if every one is this short
KILL_RATE = 600  # moves/s: the pools hold enough matches for the kill phase at this rate
KILL_WAIT_MS = 3000  # in the kill phase, a wait's bound (a dead server answers nothing)
KILL_AT_MOVES = 100  # the kill phase is under way once this many moves are acknowledged
KILL_PHASE_S = 90  # the kill phase's bound
WARM_MOVES = 500  # a side's moves under load before anything is measured


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _settings() -> dict:
    return {
        "matches": stack.env_int("BENCH_PEER_MATCHES", 50, 1, 200),
        "moves": stack.env_int("BENCH_PEER_MOVES", 1000, 20, 20_000),
        "latency_moves": stack.env_int("BENCH_PEER_LATENCY_MOVES", 600, 10, 5000),
        "rounds": stack.env_int("BENCH_PEER_ROUNDS", 2, 1, 10),
        "seconds": stack.env_float("BENCH_PEER_SECONDS", 30, 2, 300),
        "target": stack.env_int("BENCH_PEER_TARGET", 5, 1, 20),
        "port": stack.env_int("BENCH_PEER_PORT", 8193, 1024, 65535),
        "pg_pool": stack.env_int("BENCH_PEER_PG_POOL", 10, 1, 100),
        "profile_s": stack.env_float("BENCH_PEER_PROFILE_S", 8, 0, 120),
        "web_workers": stack.env_int("BENCH_PEER_WEB_WORKERS", 2, 1, 16),
        "ours_over": "http" if os.environ.get("BENCH_PEER_OURS_OVER") == "http" else "socket",
        "kill_after_s": stack.env_float("BENCH_PEER_KILL_AFTER_S", 1, 0, 60),
    }


# ------------------------------------------------------------ the results


def merge(results: list[dict]) -> dict:
    """The phases of one side and kind, as one: moves/s over their summed
    measured time, latency percentiles over all their moves."""
    moves = sum(r["moves"] for r in results)
    seconds = sum(r["seconds"] for r in results)
    latency = [x / 1e3 for r in results for x in r["latency_ms"]]
    fetch = [x / 1e3 for r in results for x in r.get("fetch_ms", [])]
    out = {
        "phases": len(results),
        "moves": moves,
        "seconds": round(seconds, 3),
        "moves_per_s": round(moves / seconds, 1) if seconds > 0 else None,
        "latency_ms": stack.summary_ms(latency),
        "errors": sum(r["error_count"] for r in results),
        "error_samples": [e for r in results for e in r["errors"]][:5],
        "matches_finished": sum(r["matches_finished"] for r in results),
        "pool_ran_dry": any(r["pool_ran_dry"] for r in results),
    }
    if fetch:
        out["view_fetch_ms"] = stack.summary_ms(fetch)
    for key in ("open_ms", "push_wait_ms"):  # opening: both sides; the push's wait: ours
        samples = [x / 1e3 for r in results for x in r.get(key, [])]
        if samples:
            out[key] = stack.summary_ms(samples)
    if any("requests" in r for r in results):
        req = Counter()
        for r in results:
            req.update(r.get("requests", {}))
        out["requests"] = dict(req)
        every = sum(r.get("moves_all", r["moves"]) for r in results)  # requests count warm-up too
        sent = sum(n for method, n in req.items() if method in ("GET", "POST"))  # not "retried"
        out["requests_per_move"] = round(sent / every, 2) if every else None
    return out


def ratios(ours: dict, peer: dict) -> dict:
    def div(a, b):
        return round(a / b, 2) if a is not None and b else None

    return {
        "moves_per_s": div(ours["moves_per_s"], peer["moves_per_s"]),
        "p50": div(ours["latency_ms"]["p50"], peer["latency_ms"]["p50"]),
        "p99": div(ours["latency_ms"]["p99"], peer["latency_ms"]["p99"]),
    }


def judge(load: dict, latency: dict) -> dict:
    r = load["ratio"]["moves_per_s"]
    return {
        "moves_per_s_ratio_at_least": GOAL_RATIO,
        "moves_per_s_met": r is not None and r >= GOAL_RATIO,
        "moves_per_s_at_least": GOAL_MOVES_PER_S,
        "moves_per_s_absolute_met": (load["ours"]["moves_per_s"] or 0) >= GOAL_MOVES_PER_S,
        "p50_lower_under_load": load["ours"]["latency_ms"]["p50"]
        < load["peer"]["latency_ms"]["p50"],
        "p50_lower_one_match": latency["ours"]["latency_ms"]["p50"]
        < latency["peer"]["latency_ms"]["p50"],
    }


# ------------------------------------------------------- the Node processes


def node_bin() -> str:
    node = shutil.which("node")
    if node is None:
        raise SystemExit("the peer benchmark needs Node.js (node) on PATH")
    if not (PEER / "node_modules" / "boardgame.io").is_dir():
        raise SystemExit(
            f"{PEER}/node_modules is missing: run the benchmark through bench/run.py "
            f"(it installs it), or `npm ci` in {PEER}"
        )
    return node


class Driver:
    """driver.js for one side: prepares its pool, then runs the phases it is given."""

    def __init__(self, side: str, config: dict, workdir: Path):
        self.side = side
        path = workdir / f"driver-{side}.json"
        path.write_text(json.dumps({"side": side, **config}))
        self.err = open(workdir / f"driver-{side}.log", "ab")
        self.proc = subprocess.Popen(
            [node_bin(), str(PEER / "driver.js"), str(path)],
            cwd=PEER,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.err,
            text=True,
            start_new_session=True,
        )
        self.lines: queue.Queue = queue.Queue()
        self.last: dict | None = None  # the last phase's result
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def expect(self, kind: str, timeout: float) -> dict:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise RuntimeError(f"{self.side} driver: no {kind} within {timeout:.0f} s")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError(
                    f"{self.side} driver exited ({self.proc.wait(timeout=10)}): see {self.err.name}"
                )
            if line.startswith(kind + " "):
                return json.loads(line[len(kind) + 1 :])

    def phase(self, spec: dict) -> dict:
        self.start_phase(spec)
        return self.result(spec)

    def start_phase(self, spec: dict) -> None:
        self.proc.stdin.write(json.dumps(spec) + "\n")
        self.proc.stdin.flush()

    def progress(self, timeout: float) -> dict | None:
        """Wait for the phase's PROGRESS line; None if it did not come in
        time, or the phase's result if the phase ended first (kept as last)."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None:
                raise RuntimeError(f"{self.side} driver exited: see {self.err.name}")
            if line.startswith("PROGRESS "):
                return {}
            if line.startswith("RESULT "):
                self.last = json.loads(line[len("RESULT ") :])
                return self.last
        return None

    def result(self, spec: dict) -> dict:
        self.last = self.expect("RESULT", spec["seconds"] + 60)
        return self.last

    def quit(self) -> dict | None:
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            return self.expect("BYE", 30)
        except (OSError, RuntimeError):
            return None
        finally:
            self.stop()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.err.close()


class PeerServer:
    """server.js: boardgame.io with bgio-postgres, on a database of its own."""

    def __init__(self, admin: str, db: str, port: int, pool: int, workdir: Path):
        self.admin, self.db, self.port, self.pool = admin, db, port, pool
        self.url = stack.with_db(admin, db)
        self.log = workdir / "peer-server.log"
        self.counts = workdir / "peer-queries.json"
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        import psycopg
        from prod_check import port_in_use

        if port_in_use(self.port):
            raise SystemExit(f"port {self.port} is in use (BENCH_PEER_PORT)")
        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.db}"')
        env = {
            **os.environ,
            "DATABASE_URL": self.url,
            "PORT": str(self.port),
            "PEER_PG_POOL": str(self.pool),
            "PEER_QUERY_COUNTS": str(self.counts),
        }
        self.proc = subprocess.Popen(
            [node_bin(), str(PEER / "server.js")],
            cwd=PEER,
            env=env,
            stdout=open(self.log, "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the boardgame.io server exited: see {self.log}")
            if f"READY {self.port}" in self.log.read_text(errors="replace"):
                return
            time.sleep(0.2)
        raise RuntimeError(f"the boardgame.io server did not start within 60 s: see {self.log}")

    def query_counts(self) -> dict:
        """The statements its store has sent so far, by kind (server.js writes
        them on SIGUSR2)."""
        if self.counts.exists():
            self.counts.unlink()
        os.kill(self.proc.pid, signal.SIGUSR2)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                return json.loads(self.counts.read_text())
            except (OSError, ValueError):
                time.sleep(0.05)
        raise RuntimeError("the boardgame.io server wrote no query counts")

    def sql(self, query: str, params=None) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.url, autocommit=True, connect_timeout=10) as conn:
            return conn.execute(query, params).fetchall()

    def kill(self) -> None:
        """SIGKILL: no shutdown of its own, no flush of its store."""
        os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self, keep: bool) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=10)
        if keep:
            return
        import psycopg

        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')


# --------------------------------------------------------- the durability check


def _kill_phase(driver: Driver, s: dict, kill) -> dict:
    """One more load phase (every match at once), the side's server SIGKILLed
    in the middle of it: once KILL_AT_MOVES moves are acknowledged (every
    match under way), then ``kill_after_s`` later. The driver's result, with
    every move it had acknowledged in that phase."""
    spec = {
        "name": "kill",
        "matches": s["matches"],
        "moves": 1_000_000,  # bounded by the time and the errors
        "warmup": 0,
        "seconds": KILL_PHASE_S,
        "request_ms": KILL_WAIT_MS,
        "report_acked": True,
        "progress_at": KILL_AT_MOVES,
        "max_errors": s["matches"],  # every slot failed once: the server is gone
    }
    driver.start_phase(spec)
    ended = driver.progress(KILL_PHASE_S)
    if ended:  # the phase ended before the kill (a dead server, a dry pool)
        return ended
    time.sleep(s["kill_after_s"])
    kill()
    return driver.result(spec)


def _ours_missing(st: stack.Stack, acked: list[str]) -> int:
    """Our acknowledged moves (command ids) with no event in the log."""
    ids = sorted({f"c:{a}" for a in acked})
    if not ids:
        return 0
    (found,) = st.sql(
        "SELECT count(DISTINCT command_id) FROM eventlog_storedevent WHERE command_id = ANY(%s)",
        [ids],
    )[0]
    return len(ids) - found


def _peer_missing(peer: PeerServer, acked: list[list]) -> int:
    """boardgame.io's acknowledged moves ((match, state id) its client was
    pushed) past what its match row stores."""
    matches = sorted({m for m, _ in acked})
    if not matches:
        return 0
    stored = dict(
        peer.sql(
            """SELECT id, (state->>'_stateID')::int FROM "Games" WHERE id = ANY(%s)""", [matches]
        )
    )
    # a match its store never saw (or a row without a state) holds nothing acknowledged
    return sum(1 for m, state_id in acked if (stored.get(m) or 0) < state_id)


def _durability(sides: dict, st: stack.Stack, peer: PeerServer, s: dict) -> dict:
    """Each side's server SIGKILLed in the middle of a load phase, ours first;
    the acknowledged moves its store lacks afterwards."""
    if s["kill_after_s"] <= 0:
        return {"skipped": "off"}
    web = st.procs.procs["web1"]
    kills = {
        "ours": lambda: os.killpg(web.pid, signal.SIGKILL),  # gunicorn's master and workers
        "peer": peer.kill,
    }
    out = {}
    for side in ("ours", "peer"):
        res = _kill_phase(sides[side], s, kills[side])
        acked = res.get("acked") or []
        missing = _ours_missing(st, acked) if side == "ours" else _peer_missing(peer, acked)
        out[side] = {
            "acknowledged": len(acked),
            "missing": missing,
            "errors_after_kill": res["error_count"],
            "killed_after_s": s["kill_after_s"],
        }
        say(f"kill {side}: {len(acked)} moves acknowledged, {missing} missing from its store")
    return out


# ----------------------------------------------------------- our side's setup

SETUP = r"""
import json, random, sys
from games import services
users = json.loads(%(users)r)
out = []
for i in range(%(n)d):
    a, b = users[f"p{2 * (i %% %(pairs)d)}"], users[f"p{2 * (i %% %(pairs)d) + 1}"]
    m = services.create_match(
        %(game)r, %(seats)r, options=%(options)r,
        holders={%(seats)r[0]: a["id"], %(seats)r[1]: b["id"]},
        title=f"peer bench {i}", rng=random.Random(i),
    )
    out.append({"id": m.pk, "tokens": {%(seats)r[0]: a["token"], %(seats)r[1]: b["token"]}})
sys.stderr.write("RESULT " + json.dumps(out) + "\n")
"""

# What one move costs us in statements: the same HTTP requests as the driver's
# (a seat's GET of its view, then its POST), through Django's test client in
# this process, on one match played to its end (at most MOVES moves).
CENSUS = r"""
import json, random, sys
from collections import Counter
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.contrib.auth.models import User
from games import services
users = json.loads(%(users)r)
a, b = users["p0"], users["p1"]
people = {%(seats)r[0]: User.objects.get(pk=a["id"]), %(seats)r[1]: User.objects.get(pk=b["id"])}
m = services.create_match(
    %(game)r, %(seats)r, options=%(options)r,
    holders={%(seats)r[0]: a["id"], %(seats)r[1]: b["id"]}, title="census", rng=random.Random(99),
)
tokens = {%(seats)r[0]: a["token"], %(seats)r[1]: b["token"]}
client = Client(HTTP_HOST="127.0.0.1", HTTP_X_FORWARDED_PROTO="https")
rng = random.Random(5)
kinds = {"get": Counter(), "post": Counter()}
moves = 0
def kind(sql):
    return sql.lstrip().split(None, 1)[0].upper() if sql.strip() else "?"
for _ in range(%(moves)d):
    h = lambda seat: {"HTTP_AUTHORIZATION": "Token " + tokens[seat]}
    view = client.get(f"/api/matches/{m.pk}/", **h(%(seats)r[0])).json()
    pend = [p["seat"] for p in view["pending"]]
    if view["finished"] or not pend:
        break
    seat = pend[0]
    with CaptureQueriesContext(connection) as q:
        view = client.get(f"/api/matches/{m.pk}/", **h(seat)).json()
    kinds["get"].update(kind(x["sql"]) for x in q.captured_queries)
    m.refresh_from_db()  # the match as it stands (a kept state is as current as its row)
    legal = services.legal_for(m, services.viewer_for(m, people[seat]))
    command = rng.choice(legal[1])
    with CaptureQueriesContext(connection) as q:
        r = client.post(f"/api/matches/{m.pk}/commands", {"command": command},
                        content_type="application/json", **h(seat))
    assert r.status_code == 201, r.content[:300]
    kinds["post"].update(kind(x["sql"]) for x in q.captured_queries)
    moves += 1
sys.stderr.write("RESULT " + json.dumps({"moves": moves, **{k: dict(v) for k, v in kinds.items()}}) + "\n")
"""


# ------------------------------------------------------------- the profile

# where a sample of the web workers falls, first match wins (inclusive: a frame
# anywhere in the stack); the label is what the README table shows
PROFILE_BUCKETS = [
    ("services.submit: load, decide, append, hooks", r"\bsubmit \([^)]*games/services\.py"),
    ("of which, the event store's append", r"\bappend \([^)]*eventlog/store\.py"),
    ("of which, after-commit hooks (publish, webhooks, clocks)", r"run_and_clear_commit_hooks"),
    ("the seat's view (services.view_for)", r"\bview_for \([^)]*games/services\.py"),
    ("authentication, the seat (token, viewer_for)", r"api/authentication\.py|\bviewer_for \("),
    ("rate limits (api/throttling.py)", r"api/throttling\.py"),
    ("DRF parsing and rendering", r"rest_framework/(renderers|parsers)\.py"),
]
# where the sample's thread is at that moment (its innermost frames)
LEAF_BUCKETS = [
    ("opening a PostgreSQL connection", r"\bconnect \([^)]*(psycopg|django/db/backends)"),
    ("waiting on PostgreSQL (psycopg)", r"psycopg[/\\]"),
    ("Redis (rate limits, Celery publish, channel layer)", r"redis[/\\]|kombu[/\\]"),
]
# the ORM's own CPU: a sample inside django/db/models/ whose thread is not
# waiting on PostgreSQL or Redis (building and compiling queries, making rows
# into objects)
ORM = re.compile(r"django/db/models/")
ORM_LABEL = "Django ORM, not waiting (building, compiling, making objects)"
# project frames that wrap every request: not worth a row of their own
WRAPPERS = re.compile(r"config/middleware\.py")


def profile_table(raw: str, moves: int, rate: int) -> dict:
    """py-spy's raw (collapsed) stacks of the web workers, cut to the samples
    inside a request (Django's handler), summed per bucket: ms of a worker
    thread per move, inclusive (a sample may fall in several buckets)."""
    request = re.compile(r"django/core/handlers/|asgiref/sync\.py")
    totals: Counter = Counter()
    leaf: Counter = Counter()
    functions: Counter = Counter()
    n_request = 0
    for line in raw.splitlines():
        stack_s, _, count = line.rpartition(" ")
        if not count.isdigit() or not request.search(stack_s):
            continue
        n = int(count)
        n_request += n
        for label, pattern in PROFILE_BUCKETS:
            if re.search(pattern, stack_s):
                totals[label] += n
        frames = stack_s.split(";")
        for label, pattern in LEAF_BUCKETS:
            if any(re.search(pattern, f) for f in frames[-8:]):
                leaf[label] += n
                break
        else:
            if ORM.search(stack_s):
                totals[ORM_LABEL] += n
        seen = set()
        for f in frames:
            m = re.match(
                r"(.+?) \((?:.*/)?((?:games|platform|api|config|live|hooks|clocks)/.+?):\d+\)", f
            )
            if m and not WRAPPERS.search(m.group(2)):
                key = f"{m.group(2)}:{m.group(1)}"
                if key not in seen:
                    seen.add(key)
                    functions[key] += n

    def ms(n):
        return round(n / rate / moves * 1e3, 2) if moves else None

    return {
        "moves": moves,
        "rate_hz": rate,
        "request_samples": n_request,
        "request_ms_per_move": ms(n_request),
        "buckets": [
            {
                "what": k,
                "ms_per_move": ms(totals[k]),
                "share": round(totals[k] / n_request, 3) if n_request else None,
            }
            for k in [*(label for label, _ in PROFILE_BUCKETS), ORM_LABEL]
        ],
        "leaves": [
            {
                "what": k,
                "ms_per_move": ms(leaf[k]),
                "share": round(leaf[k] / n_request, 3) if n_request else None,
            }
            for k, _ in LEAF_BUCKETS
        ],
        "top_functions": [
            {"function": k, "ms_per_move": ms(v), "share": round(v / n_request, 3)}
            for k, v in functions.most_common(15)
        ]
        if n_request
        else [],
    }


def py_spy() -> str | None:
    found = Path(sys.executable).parent / "py-spy"
    return str(found) if found.exists() else shutil.which("py-spy")


def web_worker_pids(st: stack.Stack) -> list[int]:
    """The gunicorn workers under web1 (the entrypoint execs gunicorn)."""
    master = st.procs.procs["web1"].pid
    return stack.children(master)


def _profile(st: stack.Stack, ours: Driver, s: dict, workdir: Path) -> dict:
    spy = py_spy()
    if spy is None:
        return {"skipped": "py-spy is not installed (bench/requirements.txt)"}
    rate = 100
    procs, outs = [], []
    for pid in web_worker_pids(st):
        out = workdir / f"profile-{pid}.txt"
        outs.append(out)
        procs.append(
            subprocess.Popen(
                [spy, "record", "--pid", str(pid), "--rate", str(rate), "--duration"]
                + [str(math.ceil(s["profile_s"])), "--format", "raw", "--idle", "--nonblocking"]
                + ["--output", str(out)],
                stdout=subprocess.DEVNULL,
                stderr=open(workdir / f"profile-{pid}.log", "ab"),
            )
        )
    time.sleep(0.5)  # py-spy attached
    res = ours.phase(
        {
            "name": "profile",
            "matches": s["matches"],
            "moves": 1_000_000,  # bounded by the time
            "warmup": 0,
            "seconds": s["profile_s"],
        }
    )
    for p in procs:
        try:
            p.wait(timeout=s["profile_s"] + 30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=10)
    raw = "\n".join(o.read_text() for o in outs if o.exists())
    if not raw.strip():
        return {"skipped": f"py-spy recorded nothing: see {workdir}/profile-*.log"}
    # every sample of the profile's span, py-spy's span a little longer than the phase
    table = profile_table(raw, res["moves"], rate)
    table["seconds"] = res["seconds"]
    table["workers"] = len(procs)
    table["moves_per_s_while_profiled"] = (
        round(res["moves"] / res["seconds"], 1) if res["seconds"] else None
    )
    return table


def _pg_checks(st: stack.Stack, peer: PeerServer) -> tuple[dict, dict]:
    (moves, events, matches) = st.sql(
        "SELECT count(*) FILTER (WHERE type = 'card_played'), count(*), "
        "count(DISTINCT stream) FROM eventlog_storedevent WHERE command_id LIKE 'c:peer-%'"
    )[0]
    (per_match,) = st.sql(
        "SELECT round(avg(n), 1)::float FROM (SELECT stream, count(*) AS n "
        "FROM eventlog_storedevent WHERE type = 'card_played' AND stream IN "
        "(SELECT stream FROM eventlog_storedevent WHERE type = 'series_ended') "
        "GROUP BY stream) AS finished"
    )[0]
    ours = {
        "card_played_rows": moves,
        "event_rows": events,
        "matches": matches,
        "moves_per_finished_match": per_match,
    }
    (logged, games) = peer.sql(
        'SELECT count(*), count(DISTINCT g.id) FROM "Games" g, json_array_elements(g.log) e '
        "WHERE e->'action'->>'type' = 'MAKE_MOVE'"
    )[0]
    (state_b, log_b, log_n) = peer.sql(
        "SELECT avg(pg_column_size(state))::int, avg(pg_column_size(log))::int, "
        'max(json_array_length(log)) FROM "Games" WHERE json_array_length(log) > 0'
    )[0]
    (per_match,) = peer.sql(
        "SELECT round(avg(n), 1)::float FROM (SELECT g.id, count(*) AS n "
        'FROM "Games" g, json_array_elements(g.log) e '
        "WHERE g.gameover IS NOT NULL AND e->'action'->>'type' = 'MAKE_MOVE' "
        "GROUP BY g.id) AS finished"
    )[0]
    bgio = {
        "moves_per_finished_match": per_match,
        "make_move_entries": logged,
        "matches": games,
        "state_bytes_avg": state_b,
        "log_bytes_avg": log_b,
        "log_entries_max": log_n,
    }
    return ours, bgio


def _sizes(s: dict) -> dict:
    """Moves per phase, warm-up moves per phase, and each side's pool of matches
    (enough even if every match is SHORTEST_MATCH moves long)."""
    m = s["matches"]
    per = {
        "latency": math.ceil(s["latency_moves"] / s["rounds"]),
        "load": math.ceil(s["moves"] / s["rounds"]),
    }
    warm = {"latency": 5, "load": m}
    played = s["latency_moves"] + s["moves"] + s["rounds"] * (warm["latency"] + warm["load"])
    played += WARM_MOVES
    # the kill phase: a load phase again, at up to KILL_RATE moves/s until the kill
    played += KILL_AT_MOVES + math.ceil(s["kill_after_s"] * KILL_RATE)
    pool_peer = 2 * m + math.ceil(played / SHORTEST_MATCH) + 2
    pool_ours = pool_peer + math.ceil(s["profile_s"] * 80 / SHORTEST_MATCH)
    return {"per": per, "warm": warm, "pool": {"ours": pool_ours, "peer": pool_peer}}


def _start_peer_driver(s: dict, pool_size: int, workdir: Path) -> Driver:
    return Driver(
        "peer",
        {
            "server": f"http://127.0.0.1:{s['port']}",
            "seed": 2,
            "target": s["target"],
            "pool_size": pool_size,
        },
        workdir,
    )


def _start_our_driver(s: dict, port: int, pool: list, workdir: Path) -> Driver:
    return Driver(
        "ours",
        {
            "server": f"http://127.0.0.1:{port}",
            "seed": 2,
            "pool": pool,
            "sockets": s["matches"],
            "transport": s["ours_over"],
        },
        workdir,
    )


def _prepare_ours(st: stack.Stack, s: dict, pool_size: int, options: dict) -> tuple[str, list]:
    """Our token users (two a match at once) and our pool of matches:
    (the users as JSON, the matches)."""
    m = s["matches"]
    users = st.django(stack.users_code([(f"p{i}", []) for i in range(2 * m)]))
    users_json = json.dumps(users)
    pool = st.django(
        SETUP
        % {
            "users": users_json,
            "n": pool_size,
            "pairs": m,
            "game": GAME,
            "seats": SEATS,
            "options": options,
        },
        timeout=600,
    )
    return users_json, pool


def _cpu_snapshot(st: stack.Stack, peer: PeerServer, drivers: dict) -> dict[str, float]:
    """CPU seconds so far of our stack's roles, PostgreSQL, Redis and the
    machine (stack.cpu_snapshot), and of the peer's server and both drivers."""
    snap = st.cpu_snapshot()
    snap["peer_server"] = stack.cpu_s(peer.proc.pid) if peer.proc else 0.0
    for side, driver in drivers.items():
        snap[f"driver_{side}"] = stack.cpu_s(driver.proc.pid)
    return snap


def cpu_per_move(spans: list[tuple[dict, dict]], moves: int) -> dict[str, float]:
    """Each part's CPU milliseconds a move over a side's load phases."""
    return stack.cpu_ms_per(stack.cpu_spent(*(snap for span in spans for snap in span)), moves)


def _phases(
    sides: dict, peer: PeerServer, s: dict, sizes: dict, snapshot
) -> tuple[dict, dict, dict]:
    """Each kind's phases, the sides taking turns (ours first in even rounds);
    (each phase's result by kind and side, the peer's statements counted
    around its latency phases, each side's CPU a move over its load phases:
    ``snapshot()`` before and after each)."""
    runs: dict[str, dict[str, list]] = {k: {"ours": [], "peer": []} for k in sizes["per"]}
    cpu_spans: dict[str, list] = {"ours": [], "peer": []}
    census_peer = {}
    for side in ("ours", "peer"):
        res = sides[side].phase(
            {
                "name": "warm",
                "matches": s["matches"],
                "moves": WARM_MOVES,
                "warmup": 0,
                "seconds": s["seconds"],
            }
        )
        say(f"warm {side}: {res['moves']} moves in {res['seconds']} s (not measured)")
    for kind in ("latency", "load"):
        for r in range(s["rounds"]):
            order = ["ours", "peer"] if r % 2 == 0 else ["peer", "ours"]
            for side in order:
                if side == "peer" and kind == "latency" and not runs[kind]["peer"]:
                    census_peer["before"] = peer.query_counts()
                before = snapshot() if kind == "load" else None
                res = sides[side].phase(
                    {
                        "name": f"{kind}-{r + 1}",
                        "matches": 1 if kind == "latency" else s["matches"],
                        "moves": sizes["per"][kind],
                        "warmup": sizes["warm"][kind],
                        "seconds": s["seconds"],
                    }
                )
                # a span's moves are its phase's own, warm-up included (the
                # driver's moves_total counts every phase before it too)
                if before is not None:
                    cpu_spans[side].append((before, snapshot(), res["moves_all"]))
                runs[kind][side].append(res)
                if side == "peer" and kind == "latency" and r == s["rounds"] - 1:
                    census_peer["after"] = peer.query_counts()
                    census_peer["moves"] = sum(x["moves_all"] for x in runs[kind]["peer"])
                lat = sorted(res["latency_ms"])
                say(
                    f"{kind} {r + 1} {side}: {res['moves']} moves in {res['seconds']} s, "
                    f"p50 {stack.pct(lat, 0.5)} ms, errors {res['error_count']}"
                )
    cpu = {
        side: cpu_per_move([(b, a) for b, a, _ in spans], sum(n for _, _, n in spans))
        for side, spans in cpu_spans.items()
    }
    return runs, census_peer, cpu


def _census_of_peer(counted: dict) -> dict:
    """The peer's statements over its latency phases, in all and per move."""
    before, after = counted["before"], counted["after"]
    peer_moves = counted["moves"]
    census = {
        "moves": peer_moves,
        "statements": {k: after.get(k, 0) - before.get(k, 0) for k in after},
    }
    census["per_move"] = {k: round(v / peer_moves, 2) for k, v in census["statements"].items() if v}
    return census


def _persisted(totals: dict, db_ours: dict, db_peer: dict) -> dict:
    """What each side's database holds against the moves its driver had acknowledged."""
    acked = {k: (v or {}).get("moves_total") for k, v in totals.items()}
    return {
        "ours": {
            **db_ours,
            "moves_acknowledged": acked["ours"],
            "every_move_written": acked["ours"] is not None
            and db_ours["card_played_rows"] == acked["ours"],
        },
        "peer": {
            **db_peer,
            "moves_acknowledged": acked["peer"],
            "every_move_written": acked["peer"] is not None
            and db_peer["make_move_entries"] == acked["peer"],
        },
    }


def _our_stack() -> stack.Stack:
    return stack.Stack(
        NAME,
        API_COMMAND_BURST_RATE="100000/s",
        API_COMMAND_SUSTAINED_RATE="1000000/min",
        API_COMMAND_ADDRESS_RATE="1000000/min",  # every client is 127.0.0.1
    )


def main(results_dir) -> dict:
    s = _settings()
    node_bin()
    port = stack.web_ports()[0]
    st = _our_stack()
    workdir = st.workdir
    prefix = os.environ.get("BENCH_DB_PREFIX", "gameshow_bench_")
    peer = PeerServer(st.admin, f"{prefix}peer_bgio", s["port"], s["pg_pool"], workdir)
    sizes = _sizes(s)
    # the seats play at once: no "I am here" (games.ready_check)
    options = {"first_to": s["target"], "decision_s": DECISION_S, "ready_check_s": 0}
    started = time.perf_counter()
    ok = False
    drivers: list[Driver] = []
    try:
        peer.start()
        bgio = _start_peer_driver(s, sizes["pool"]["peer"], workdir)
        drivers.append(bgio)
        say(
            f"boardgame.io server up; its driver prepares {sizes['pool']['peer']} matches meanwhile"
        )
        st.up()
        users_json, pool = _prepare_ours(st, s, sizes["pool"]["ours"], options)
        took = st.web([port], s["web_workers"])
        say(f"{len(pool)} Love Letter matches; gunicorn healthy in {took:.1f} s")
        env = stack.environment(st)
        ours = _start_our_driver(s, port, pool, workdir)
        drivers.append(ours)
        ready = {"ours": ours.expect("READY", 300), "peer": bgio.expect("READY", 600)}
        say(f"drivers ready: {ready}")

        sides = {"ours": ours, "peer": bgio}
        runs, census_peer, cpu = _phases(
            sides, peer, s, sizes, lambda: _cpu_snapshot(st, peer, sides)
        )
        results = {}
        for kind in sizes["per"]:
            ours_m, peer_m = merge(runs[kind]["ours"]), merge(runs[kind]["peer"])
            results[kind] = {"ours": ours_m, "peer": peer_m, "ratio": ratios(ours_m, peer_m)}
        profile = _profile(st, ours, s, workdir) if s["profile_s"] > 0 else {"skipped": "off"}
        # what each driver had acknowledged so far (its last phase's running total)
        totals = {"ours": ours.last, "peer": bgio.last}
        db_ours, db_peer = _pg_checks(st, peer)
        census_ours = st.django(
            CENSUS
            % {"users": users_json, "game": GAME, "seats": SEATS, "options": options, "moves": 40}
        )
        durability = _durability({"ours": ours, "peer": bgio}, st, peer, s)
        for d in drivers:
            d.quit()
        ok = True
    finally:
        for d in drivers:
            d.stop()
        peer.stop(keep=st.keep or not ok)
        st.down(ok)

    return {
        **stack.result_header(NAME, TITLE, started),
        "params": {**s, "game": GAME, "options": options, "pool": sizes["pool"]},
        "environment": {
            **stack.environment_after(env),
            "node": subprocess.run(
                [node_bin(), "--version"], capture_output=True, text=True
            ).stdout.strip(),
            "peer_versions": _peer_versions(),
        },
        "prepare": ready,
        "latency": results["latency"],
        "load": results["load"],
        "cpu_ms_per_move": cpu,
        "goal": judge(results["load"], results["latency"]),
        "census": {"ours": census_ours, "peer": _census_of_peer(census_peer)},
        "persisted": _persisted(totals, db_ours, db_peer),
        "durability": durability,
        "profile": profile,
    }


def _peer_versions() -> dict:
    lock = json.loads((PEER / "package-lock.json").read_text())
    packages = lock.get("packages", {})
    return {
        name: packages.get(f"node_modules/{name}", {}).get("version")
        for name in (
            "boardgame.io",
            "bgio-postgres",
            "sequelize",
            "pg",
            "socket.io",
            "socket.io-client",
        )
    }


# ------------------------------------------------------------------ README


def _v(x, fmt="{:,.1f}") -> str:
    return "–" if x is None else fmt.format(x)


def _kinds(d: dict) -> str:
    return ", ".join(f"{v:g} {k}" for k, v in sorted(d.items(), key=lambda kv: -kv[1])) or "–"


def _md_table(r: dict) -> list[str]:
    p, env = r["params"], r["environment"]
    v, pv = env["versions"], env["peer_versions"]
    lines = [
        f"**{r['title']}** — two-player Love Letter, first to {p['target']} tokens, the same "
        f"bot (bench/peers/boardgameio/bot.js) from the same Node driver on both sides; "
        f"phases interleaved, {p['rounds']} a side and kind. Ours: gunicorn + "
        f"{p['web_workers']} uvicorn workers (`docker/entrypoint.sh web`, DEBUG off), Django "
        f"{v['Django']}, Python {v['python']}, API tokens, "
        + (
            "moves over HTTP (GET the view, POST the command)"
            if p.get("ours_over") == "http"
            else "moves over the match socket (`ws/api/matches/<id>/`: pushes carry the view "
            "and legal moves; latency = a command's send to its ack, after its commit)"
        )
        + f". Peer: boardgame.io {pv['boardgame.io']} (socket.io {pv['socket.io']}), "
        f"bgio-postgres {pv['bgio-postgres']} (Sequelize {pv['sequelize']}, pool "
        f"{p['pg_pool']}), Node {env['node']}, one process. Same PostgreSQL "
        f"({env['postgres']}). {r['finished_at']}, {env['cpus']} CPUs (load "
        f"{env['load_before']} before, {env['load_after']} after), {r['duration_s']} s in all.",
        "",
        "| load | side | moves | moves/s | p50 ms | p90 ms | p99 ms | errors |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for kind, label in (("load", f"{p['matches']} matches at once"), ("latency", "one match")):
        for side, name in (("ours", "ours"), ("peer", "boardgame.io")):
            x = r[kind][side]
            lat = x["latency_ms"]
            lines.append(
                f"| {label} | {name} | {x['moves']:,} | {_v(x['moves_per_s'])} | "
                f"{_v(lat['p50'])} | {_v(lat['p90'])} | {_v(lat['p99'])} | {x['errors']} |"
            )
    return lines


def _md_goal(r: dict) -> list[str]:
    g = r["goal"]
    lr, lt = r["load"]["ratio"], r["latency"]["ratio"]
    ol, pl = r["load"]["ours"], r["load"]["peer"]
    lines = [
        "",
        f"Ours / boardgame.io, moves/s under load: **{_v(lr['moves_per_s'], '{:.2f}')} ×** "
        f"(goal ≥ {g['moves_per_s_ratio_at_least']:g} ×: "
        + ("met" if g["moves_per_s_met"] else "**missed**")
        + f"); ours {_v(ol['moves_per_s'])} moves/s over {r['params']['matches']} live matches "
        f"(goal ≥ {g.get('moves_per_s_at_least', GOAL_MOVES_PER_S):g}: "
        + ("met" if g.get("moves_per_s_absolute_met") else "**missed**")
        + f"); p50 move latency under load {_v(ol['latency_ms']['p50'])} ms against "
        f"{_v(pl['latency_ms']['p50'])} ms ({_v(lr['p50'], '{:.2f}')} ×, goal lower: "
        + ("met" if g["p50_lower_under_load"] else "**missed**")
        + f"), one match at a time {_v(r['latency']['ours']['latency_ms']['p50'])} ms against "
        f"{_v(r['latency']['peer']['latency_ms']['p50'])} ms ({_v(lt['p50'], '{:.2f}')} ×: "
        + ("met" if g["p50_lower_one_match"] else "**missed**")
        + ").",
    ]
    if "view_fetch_ms" in ol:
        lines.append(
            f"Ours also GETs the view of the seat whose turn comes (p50 "
            f"{_v(ol['view_fetch_ms']['p50'])} ms under load): {_v(ol['requests_per_move'], '{:.2f}')} "
            "requests a move; boardgame.io pushes each seat its state over its socket."
        )
    return lines


def _md_per_move(r: dict) -> list[str]:
    """What a move costs each side in statements, and what each side's database holds."""
    co, cp = r["census"]["ours"], r["census"]["peer"]
    po, pp = r["persisted"]["ours"], r["persisted"]["peer"]
    n_o = co.get("moves") or 1
    return [
        "",
        "Per move, as measured (statements by kind):",
        "",
        f"- ours, {co.get('moves')} moves over HTTP through Django's test client: the POST "
        f"{_kinds({k: round(x / n_o, 1) for k, x in co.get('post', {}).items()})}; the "
        f"view's GET {_kinds({k: round(x / n_o, 1) for k, x in co.get('get', {}).items()})}. "
        f"Written: {po['event_rows'] / max(po['card_played_rows'], 1):.1f} event rows a move "
        f"({po['event_rows']:,} rows for {po['card_played_rows']:,} plays), every acknowledged "
        f"move in the log: {'yes' if po['every_move_written'] else '**no**'} "
        f"({po['card_played_rows']:,} `card_played` rows, {po['moves_acknowledged']:,} moves "
        "acknowledged).",
        f"- boardgame.io, {cp['moves']} moves counted at its store (Sequelize): "
        f"{_kinds(cp['per_move'])}. Every acknowledged move in its `log` column: "
        f"{'yes' if pp['every_move_written'] else '**no**'} ({pp['make_move_entries']:,} "
        f"`MAKE_MOVE` entries, {pp['moves_acknowledged']:,} acknowledged); a finished match "
        f"row holds its state ({_v(pp['state_bytes_avg'], '{:,}')} bytes) and its whole log "
        f"({_v(pp['log_bytes_avg'], '{:,}')} bytes, up to {pp['log_entries_max']} entries), "
        "rewritten at every move.",
        f"- the same game on both sides: a finished match took "
        f"{_v(po.get('moves_per_finished_match'))} moves on average on ours, "
        f"{_v(pp.get('moves_per_finished_match'))} on boardgame.io.",
    ]


def _md_profile(r: dict) -> list[str]:
    prof = r.get("profile") or {}
    if not prof.get("buckets"):
        return ["", f"Profile: {prof.get('skipped')}."] if prof else []
    lines = [
        "",
        f"Where our time goes (py-spy on both web workers, {prof['rate_hz']} Hz, idle "
        f"included, {prof['moves']:,} moves in {prof['seconds']} s under the same load): "
        f"a worker thread spends **{_v(prof['request_ms_per_move'], '{:.1f}')} ms** a move "
        + (
            "inside Django's handler (the POST and its GET)"
            if r["params"].get("ours_over") == "http"
            else "on the pool's threads (the socket's commands and pushes)"
        )
        + ", of which (inclusive, so rows overlap):",
        "",
        "| where | ms / move | share |",
        "|---|---:|---:|",
    ]
    for b in prof["buckets"] + prof["leaves"]:
        lines.append(
            f"| {b['what']} | {_v(b['ms_per_move'], '{:.2f}')} | "
            f"{_v(b['share'] and b['share'] * 100, '{:.0f}')} % |"
        )
    return lines


CPU_PARTS = {
    "web1": "our web (gunicorn and its uvicorn workers)",
    "reactors": "our `run_reactors` (live, clocks, webhooks, reminders, ratings)",
    "peer_server": "boardgame.io's server (Node)",
    "postgres": "PostgreSQL (all its processes)",
    "redis": "Redis (ours)",
    "driver_ours": "the driver of our side (Node)",
    "driver_peer": "the driver of boardgame.io's side (Node)",
    "client": "this benchmark's process",
    "other": "the rest of the machine",
    "machine": "**the machine, all of it**",
}


def _md_cpu(r: dict) -> list[str]:
    """Where the CPU went under load, a move, on each side."""
    cpu = r.get("cpu_ms_per_move")
    if not cpu:
        return []
    ours, peer = cpu.get("ours", {}), cpu.get("peer", {})
    lines = [
        "",
        "Where the CPU goes under load, from `/proc` before and after each load phase "
        "(milliseconds of CPU a move, warm-up moves included; 2 cores give 2,000 ms a second, so "
        f"{GOAL_MOVES_PER_S} moves/s leave {2000 / GOAL_MOVES_PER_S:.1f} ms a move for everything):",
        "",
        "| part | ours | boardgame.io |",
        "|---|---:|---:|",
    ]
    for key, label in CPU_PARTS.items():
        if ours.get(key) or peer.get(key):
            lines.append(
                f"| {label} | {_v(ours.get(key), '{:.2f}')} | {_v(peer.get(key), '{:.2f}')} |"
            )
    return lines


def _md_cycle(r: dict) -> list[str]:
    """Ours over the socket: a match's cycle under load beside its acks (the
    waits the latency column leaves out)."""
    ours = r["load"]["ours"]
    push, opened = ours.get("push_wait_ms"), ours.get("open_ms")
    peer_opened = r["load"]["peer"].get("open_ms")
    if not push:
        return []
    one = r["latency"]["ours"].get("push_wait_ms") or {}
    return [
        "",
        f"A match's cycle on ours under load: the ack p50 {_v(ours['latency_ms']['p50'])} ms; "
        f"then the wait for the push that names the seat to move, p50 **{_v(push['p50'])} ms** "
        f"(mean {_v(push['mean'])}, p99 {_v(push['p99'])}; one match at a time p50 "
        f"{_v(one.get('p50'))} ms)"
        + (
            f"; a new match's two sockets opened in p50 {_v(opened['p50'])} ms ({opened['n']} opened)"
            if opened
            else ""
        )
        + (
            f" (boardgame.io's two clients connected and synced in p50 {_v(peer_opened['p50'])} ms)"
            if opened and peer_opened
            else ""
        )
        + ". "
        + (
            "The pushes, not the commands, hold the matches back: that wait is where the "
            "throughput goes."
            if push["p50"] > ours["latency_ms"]["p50"]
            else "The commands, not the pushes, hold the matches back: the ack is most of "
            "the cycle."
        ),
    ]


def _md_durability(r: dict) -> list[str]:
    d = r.get("durability") or {}
    if "ours" not in d:
        return ["", f"Durability check: {d.get('skipped', 'not run')}."] if d else []
    o, p = d["ours"], d["peer"]
    return [
        "",
        f"Durability: each server SIGKILLed {o['killed_after_s']:g} s after the "
        f"{KILL_AT_MOVES}th acknowledged move of a load phase of "
        f"{r['params']['matches']} matches: ours **{o['missing']}** of {o['acknowledged']:,} "
        f"acknowledged moves missing from its log afterwards (goal 0: "
        + ("met" if o["missing"] == 0 else "**missed**")
        + f"); boardgame.io {p['missing']} of {p['acknowledged']:,} missing from its store "
        "(its client's acknowledgement is the server's push, sent before it writes).",
    ]


def markdown(r: dict) -> str:
    return "\n".join(
        _md_table(r)
        + _md_goal(r)
        + _md_cycle(r)
        + _md_cpu(r)
        + _md_durability(r)
        + _md_per_move(r)
        + _md_profile(r)
    )


def verdicts(r: dict) -> list[dict]:
    """The goals as bench/run.py's goals table reads them."""
    g, p = r["goal"], r["params"]
    ol, pl = r["load"]["ours"], r["load"]["peer"]
    one_o, one_p = r["latency"]["ours"], r["latency"]["peer"]
    over = "both over their sockets" if p.get("ours_over") == "socket" else "ours over HTTP"
    matches = f"{p['matches']} matches at once"
    rows = [
        stack.verdict(
            r,
            f"ours ≥ {g['moves_per_s_ratio_at_least']:g} × boardgame.io's moves/s, {matches}, "
            f"{over}",
            f"{_v(r['load']['ratio']['moves_per_s'], '{:.2f}')} × ({_v(ol['moves_per_s'])} "
            f"against {_v(pl['moves_per_s'])} /s)",
            g["moves_per_s_met"],
        ),
        stack.verdict(
            r,
            f"ours ≥ {g.get('moves_per_s_at_least', GOAL_MOVES_PER_S):g} moves/s, {matches}",
            f"{_v(ol['moves_per_s'])} /s",
            bool(g.get("moves_per_s_absolute_met")),
        ),
        stack.verdict(
            r,
            "a lower p50 move latency than boardgame.io's, one match at a time",
            f"{_v(one_o['latency_ms']['p50'])} against {_v(one_p['latency_ms']['p50'])} ms",
            g["p50_lower_one_match"],
        ),
        stack.verdict(
            r,
            f"a lower p50 move latency than boardgame.io's, {matches}",
            f"{_v(ol['latency_ms']['p50'])} against {_v(pl['latency_ms']['p50'])} ms",
            g["p50_lower_under_load"],
        ),
    ]
    d = r.get("durability") or {}
    if "ours" in d:
        o, peer = d["ours"], d["peer"]
        rows.append(
            stack.verdict(
                r,
                "the server SIGKILLed under load: 0 acknowledged moves lost",
                f"ours {o['missing']} of {o['acknowledged']:,}; boardgame.io {peer['missing']} "
                f"of {peer['acknowledged']:,}",
                o["missing"] == 0,
            )
        )
    return rows
