#!/usr/bin/env python
"""`make prod-check`: the production processes under play and under faults.

Starts what production runs, the way production starts it (docker/entrypoint.sh):
`migrate` (as the database owner, then the app role's grant), two `web`
(gunicorn + uvicorn workers) on two loopback ports, two Celery `worker`s
(prefork) and one `beat`, against a fresh PostgreSQL database of its own and a
private Redis on its own port. Then bots and scripted HTTP players play clocked
matches over both web ports, letting clocks run out now and then, while the
faults a host meets happen: one Celery worker is SIGKILLed, Redis is restarted,
every PostgreSQL connection of the app is terminated. At the end it checks:

- no 5xx except a 503 during a fault, no request hangs (every one answers
  within its timeout);
- every match played to its end, and the show went on within 10 s of each fault;
- versions gapless per stream, command ids unique, each deadline's timeout
  written exactly once, none lost (each written within a bound of its deadline);
- read models equal a rebuild from the log; the logs are one JSON object a line,
  and the clock's carry the match's stream.

Bounded: every loop has a count and a time limit. Prints a summary; exit 1 on
any failure (logs kept and named), 0 otherwise.

Environment (all optional): PROD_CHECK_PG (admin URL, default
postgresql://postgres@127.0.0.1:5432/postgres), PROD_CHECK_DB (default
prodcheck), PROD_CHECK_PORTS (8181,8182), PROD_CHECK_REDIS_PORT (8189),
PROD_CHECK_MATCHES (8), PROD_CHECK_PLAY_S (time limit of play, 180),
PROD_CHECK_KEEP=1 keeps the database and logs (a failed run always keeps them).
"""

from __future__ import annotations

import http.client
import json
import os
import random
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode, urlsplit, urlunsplit

import psycopg

ROOT = Path(__file__).resolve().parents[1]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"

ADMIN_URL = os.environ.get("PROD_CHECK_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
DB = os.environ.get("PROD_CHECK_DB", "prodcheck")
PORTS = [int(p) for p in os.environ.get("PROD_CHECK_PORTS", "8181,8182").split(",")]
REDIS_PORT = int(os.environ.get("PROD_CHECK_REDIS_PORT", "8189"))
N_MATCHES = int(os.environ.get("PROD_CHECK_MATCHES", "8"))
PLAY_S = float(os.environ.get("PROD_CHECK_PLAY_S", "180"))
KEEP = os.environ.get("PROD_CHECK_KEEP") == "1"

GAME = "doubting-love-letter"
DECISION_S = 4  # short clocks, so timeouts happen
OPTIONS = {"decision_s": DECISION_S, "reserve_s": 0, "first_to": 5}
REQUEST_TIMEOUT_S = 15  # a request that has not answered by then has hung
DB_AWAY_S = 4.0  # how long the database refuses connections
RECOVERY_S = 10  # the show goes on within this long after a fault
# a deadline not enforced within this counts as lost: a worker the supervisor restarts
# takes ~10 s to boot on a busy 2-core host, and the sweep (every 2 s) then finds it
MAX_TIMEOUT_LATENESS_S = 30
PASSWORD = secrets.token_urlsafe(16)


def say(msg: str) -> None:
    print(f"[prod-check {time.strftime('%H:%M:%S')}] {msg}", flush=True)


def db_url(user: str, db: str = DB) -> str:
    parts = urlsplit(ADMIN_URL)
    host = parts.hostname or "127.0.0.1"
    netloc = f"{user}@{host}:{parts.port or 5432}"
    return urlunsplit((parts.scheme, netloc, f"/{db}", "", ""))


# ---- the processes ---------------------------------------------------------------------


class Processes:
    def __init__(self, workdir: Path, env: dict):
        self.workdir, self.env = workdir, env
        self.procs: dict[str, subprocess.Popen] = {}
        self.args: dict[str, tuple[str, dict]] = {}
        self.lock = threading.Lock()  # held while a fault or the supervisor handles a process
        self.restarts: list[str] = []
        self.supervising = False

    def supervise(self, t0: float) -> None:
        """What compose's `restart: unless-stopped` does: a process that exits is
        started again (each restart is reported: it is not a reconnection)."""
        self.supervising = True
        while self.supervising:
            with self.lock:
                for name, proc in list(self.procs.items()):
                    if proc.poll() is not None and self.supervising:
                        self.restarts.append(
                            f"{name} exited (code {proc.returncode}) at +{time.time() - t0:.0f} s "
                            "and was started again by the supervisor"
                        )
                        say(self.restarts[-1])
                        self.stop(name, signal.SIGKILL, wait_s=1)
                        role, env = self.args[name]
                        self.start(name, role, **env)
            time.sleep(0.5)

    def start(self, name: str, role: str, **env) -> subprocess.Popen:
        self.args[name] = (role, env)
        log = open(self.workdir / f"{name}.log", "ab")
        proc = subprocess.Popen(
            [str(ENTRYPOINT), role],
            env={**self.env, **env},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stopped with its children
        )
        self.procs[name] = proc
        return proc

    def run(self, *args, timeout=180, env=None) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(ENTRYPOINT), *args],
            env={**self.env, **(env or {})},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def stop(self, name: str, sig=signal.SIGTERM, wait_s: float = 20) -> None:
        proc = self.procs.get(name)
        if proc is None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        try:
            proc.wait(timeout=wait_s)
        except subprocess.TimeoutExpired:
            pass
        try:  # whatever is left of the group (prefork children, gunicorn workers)
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)

    def stop_all(self) -> None:
        self.supervising = False
        for name in list(self.procs):
            self.stop(name)


class Redis:
    """A private redis-server on its own port: restarting it disturbs no one else."""

    def __init__(self, workdir: Path, port: int):
        self.workdir, self.port, self.proc = workdir, port, None

    def start(self) -> None:
        log = open(self.workdir / "redis.log", "ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", ""]
            + ["--appendonly", "no", "--dir", str(self.workdir)],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        for _ in range(50):
            if (
                subprocess.run(
                    ["redis-cli", "-p", str(self.port), "ping"], capture_output=True, text=True
                ).stdout.strip()
                == "PONG"
            ):
                return
            time.sleep(0.1)
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)


# ---- HTTP, as a browser behind the TLS proxy speaks it ----------------------------------


@dataclass
class Call:
    at: float
    method: str
    path: str
    port: int
    status: int  # 0: no answer (refused, reset or timed out)
    error: str = ""
    elapsed: float = 0.0
    clear: bool = False  # a 5xx that tells the client what happened and when to retry


CALLS: list[Call] = []
CALLS_LOCK = threading.Lock()


class Client:
    """Session cookies and CSRF as a browser keeps them; each request goes to
    the next web port in turn, so one session is served by both servers."""

    def __init__(self, ports: list[int], first: int = 0):
        self.ports, self.turn = ports, first
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body=None, form=False, port=None):
        if port is None:
            port = self.ports[self.turn % len(self.ports)]
            self.turn += 1
        origin = f"https://127.0.0.1:{port}"
        headers = {
            "Host": f"127.0.0.1:{port}",
            "X-Forwarded-Proto": "https",  # as the TLS-terminating proxy sets it
            "Accept": "application/json",
        }
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if method != "GET":
            headers.update(
                {
                    "Origin": origin,
                    "Referer": origin + "/",
                    "X-CSRFToken": self.cookies.get("csrftoken", ""),
                }
            )
            if form:
                data = urlencode(body).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
        started = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            for header, value in resp.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name.strip()] = rest.split(";", 1)[0]
            call = Call(started, method, path, port, resp.status, elapsed=time.time() - started)
            try:
                payload = json.loads(raw) if raw else None
            except ValueError:
                payload = raw.decode(errors="replace")
            if resp.status >= 500:
                call.error = str(payload)[:300]
                # a clear error: JSON that says what happened, and when to come back
                call.clear = (
                    isinstance(payload, dict)
                    and bool(payload.get("message"))
                    and resp.getheader("Retry-After") is not None
                )
            return resp.status, payload
        except (OSError, http.client.HTTPException) as exc:
            call = Call(started, method, path, port, 0, f"{type(exc).__name__}: {exc}")
            call.elapsed = time.time() - started
            return 0, None
        finally:
            conn.close()
            with CALLS_LOCK:
                CALLS.append(call)

    def login(self, username: str) -> None:
        self.request("GET", "/accounts/login/")
        status, _ = self.request(
            "POST",
            "/accounts/login/",
            {
                "username": username,
                "password": PASSWORD,
                "csrfmiddlewaretoken": self.cookies.get("csrftoken", ""),
            },
            form=True,
        )
        if status != 302:
            raise RuntimeError(f"login of {username} answered {status}")


# ---- the scripted player ------------------------------------------------------------------


def choose_command(view: dict, seat: str, rng: random.Random) -> dict | None:
    """A plausible move from what the seat sees (the server rejects what is not legal)."""
    mine = [p for p in view.get("pending") or [] if p["seat"] == seat]
    if not mine:
        return None
    if mine[0]["kind"] == "choose_first":
        return {"type": "choose_first", "seat": rng.choice(view["seats"])}
    bout = view.get("bout") or {}
    phase = bout.get("phase")
    if phase == "challenge":
        return {"type": rng.choice(["pass", "pass", "challenge"])}
    if phase == "guess":
        return {"type": "guess", "card": str(rng.randint(2, 8))}
    if phase == "play":
        hand = [c for c in bout.get("hand") or [] if c != 8] or [1]
        card = rng.choice(hand)
        command = {"type": "play", "card": str(card), "claim": str(card)}
        if card == 5:
            command["target"] = "opponent"
        return command
    return {"type": "pass"}  # deck rigging, plus one: let them go


@dataclass
class Player:
    username: str
    match_id: int
    seat: str
    client: Client
    rng: random.Random
    sleeps: int = 0  # decisions left to run out on purpose
    moves: int = 0
    resent: int = 0
    rejected: int = 0
    finished: bool = False
    notes: list = field(default_factory=list)

    def play(self, until: float) -> None:
        path = f"/api/matches/{self.match_id}/"
        slept_for = None
        for _ in range(5000):
            if time.time() > until:
                return
            status, view = self.client.request("GET", path)
            if status != 200 or not isinstance(view, dict):
                time.sleep(0.5)
                continue
            if view.get("finished"):
                self.finished = True
                return
            pend = [p for p in view.get("pending") or [] if p["seat"] == self.seat]
            if not pend:
                time.sleep(0.3)
                continue
            deadline = pend[0].get("deadline")
            if slept_for == deadline:
                time.sleep(0.3)  # still asleep on this decision: the clock will run out
                continue
            if deadline and self.rng.random() < 0.08:
                slept_for = deadline  # let this clock run out
                self.sleeps += 1
                continue
            command = choose_command(view, self.seat, self.rng)
            if command is None:
                continue
            self.send(command)
            time.sleep(0.2)

    def send(self, command: dict) -> None:
        path = f"/api/matches/{self.match_id}/commands"
        command_id = f"{self.username}:{uuid.uuid4()}"
        status, body = self.client.request(
            "POST", path, {"command": command, "command_id": command_id}
        )
        if status == 201:
            self.moves += 1
            if self.rng.random() < 0.15:
                # the same command again, as a client retrying after a lost answer:
                # it must return what the first did and write nothing
                again, body2 = self.client.request(
                    "POST", path, {"command": command, "command_id": command_id}
                )
                self.resent += 1
                if again != 201 or (body2 or {}).get("appended") != (body or {}).get("appended"):
                    self.notes.append(f"resent {command_id}: {again} {body2} vs {body}")
        elif status in (409, 422):
            self.rejected += 1


# ---- faults ----------------------------------------------------------------------------------


def last_event_at(conn) -> float:
    row = conn.execute(
        "SELECT extract(epoch FROM max(recorded_at)) FROM eventlog_storedevent"
    ).fetchone()
    return float(row[0] or 0)


def wait_for_progress(admin_db_url: str, since: float, limit: float = 30) -> float | None:
    """Seconds from ``since`` until an event is recorded after it (None: not within limit)."""
    end = since + limit
    while time.time() < end:
        try:
            with psycopg.connect(admin_db_url, connect_timeout=3) as conn:
                at = last_event_at(conn)
            if at > since:
                return at - since
        except psycopg.Error:
            pass
        time.sleep(0.2)
    return None


def port_in_use(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def healthy(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3)
        conn.request("GET", "/healthz", headers={"Host": "127.0.0.1"})
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except (OSError, http.client.HTTPException):
        return False


def wait_healthy(ports, limit: float) -> float | None:
    start = time.time()
    while time.time() - start < limit:
        if all(healthy(p) for p in ports):
            return time.time() - start
        time.sleep(0.25)
    return None


# ---- the checks after the run ----------------------------------------------------------------

REBUILD_CHECK = r"""
import json
import django
django.setup()
from django.apps import apps
from django.db import models, transaction
from eventlog.readmodels import rebuild_all

def snapshot():
    out = {}
    for label in ("games", "tournaments"):
        for model in apps.get_app_config(label).get_models():
            names = [
                f.attname for f in model._meta.concrete_fields
                if not f.primary_key and not isinstance(f, models.ForeignKey)
                and not getattr(f, "auto_now", False) and not getattr(f, "auto_now_add", False)
            ]
            rows = sorted(json.dumps(r, sort_keys=True, default=str) for r in model.objects.values(*names))
            out[model._meta.label] = rows
    return out

before = snapshot()
with transaction.atomic():
    n = rebuild_all()
    after = snapshot()
    transaction.set_rollback(True)
diff = [k for k in before if before[k] != after.get(k)]
print(json.dumps({"events": n, "equal": not diff, "differ": diff,
                  "rows": {k: len(v) for k, v in before.items()}}))
"""


def check_log(conn) -> list[str]:
    failures = []
    gaps = conn.execute(
        "SELECT stream, count(*), min(version), max(version), count(DISTINCT version) "
        "FROM eventlog_storedevent GROUP BY stream "
        "HAVING min(version) <> 1 OR max(version) <> count(*) OR count(DISTINCT version) <> count(*)"
    ).fetchall()
    for stream, n, lo, hi, distinct in gaps:
        failures.append(
            f"{stream}: versions not gapless ({n} events, {lo}..{hi}, {distinct} distinct)"
        )
    doubled = conn.execute(
        "SELECT command_id, count(DISTINCT stream), count(*), count(DISTINCT command_seq) "
        "FROM eventlog_storedevent WHERE command_id IS NOT NULL GROUP BY command_id "
        "HAVING count(DISTINCT stream) > 1 OR count(*) <> count(DISTINCT command_seq)"
    ).fetchall()
    for cid, streams, n, seqs in doubled:
        failures.append(
            f"command id {cid} written twice ({n} events, {seqs} seqs, {streams} streams)"
        )
    twice = conn.execute(
        "SELECT stream, data->>'seat', data->>'at', count(*) FROM eventlog_storedevent "
        "WHERE type = 'timed_out' GROUP BY 1, 2, 3 HAVING count(*) > 1"
    ).fetchall()
    for stream, seat, at, n in twice:
        failures.append(f"{stream}: the timeout of {seat} at {at} written {n} times")
    return failures


def main() -> int:
    if shutil.which("redis-server") is None:
        print("prod-check needs redis-server on PATH (it runs a private one)", file=sys.stderr)
        return 2
    busy = [p for p in [*PORTS, REDIS_PORT] if port_in_use(p)]
    if busy:
        print(f"prod-check: port(s) {busy} already in use (another run?)", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="prod-check-"))
    failures: list[str] = []
    facts: list[str] = []
    owner, app = f"{DB}_owner", f"{DB}_app"
    admin_db = db_url(urlsplit(ADMIN_URL).username or "postgres")

    say(f"work dir {workdir}; database {DB}; web ports {PORTS}; private Redis :{REDIS_PORT}")
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
        for role in (app, owner):
            conn.execute(f'DROP ROLE IF EXISTS "{role}"')
        conn.execute(f'CREATE ROLE "{owner}" LOGIN')
        conn.execute(f'CREATE ROLE "{app}" LOGIN')
        conn.execute(f'CREATE DATABASE "{DB}" OWNER "{owner}"')
    redis = Redis(workdir, REDIS_PORT)
    redis.start()

    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "LOG_"))
    }
    owner_url = db_url(owner)
    env.update(
        PYTHON=sys.executable,
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
        DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
        DJANGO_SSL_REDIRECT="1",  # as the image has it; requests come "through the proxy"
        MIGRATE_DATABASE_URL=owner_url,
        DATABASE_URL=owner_url,
        REDIS_URL=f"redis://127.0.0.1:{REDIS_PORT}/0",
        VAR_DIR=str(workdir / "var"),
        LOG_FORMAT="json",
        WEB_WORKERS="2",
        CELERY_CONCURRENCY="2",
    )
    procs = Processes(workdir, env)
    ok = played = False
    try:
        has_grant = (
            "grant_app_role" in procs.run(sys.executable, "manage.py", "help", "--commands").stdout
        )
        if has_grant:
            env.update(APP_DB_USER=app, DATABASE_URL=db_url(app))
            facts.append(f"web, workers and beat connect as the app role {app}")
        else:
            facts.append(
                "NOT CHECKED: the least-privileged app role (no grant_app_role command in this "
                "tree): web, workers and beat connected as the owner"
            )
        t0 = time.time()
        out = procs.run("migrate", timeout=300)
        if out.returncode != 0:
            raise RuntimeError(f"migrate failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        say(f"migrate (as {owner}) done in {time.time() - t0:.1f} s")

        users = procs.run(
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "import json, sys\n"
            "from django.contrib.auth.models import User\n"
            f"pw = {PASSWORD!r}\n"
            "User.objects.create_user('organizer', password=pw, is_staff=True)\n"
            f"ids = {{f'p{{i}}': User.objects.create_user(f'p{{i}}', password=pw).pk for i in range({N_MATCHES})}}\n"
            "sys.stderr.write('USERS ' + json.dumps(ids) + '\\n')",
        )
        line = [ln for ln in users.stderr.splitlines() if ln.startswith("USERS ")]
        if users.returncode != 0 or not line:
            raise RuntimeError(f"could not create the users: {users.stderr[-2000:]}")
        user_ids = json.loads(line[0][6:])

        for i, port in enumerate(PORTS):
            procs.start(f"web{i + 1}", "web", WEB_BIND=f"127.0.0.1:{port}")
        for i in (1, 2):
            procs.start(f"worker{i}", "worker", CELERY_HOSTNAME=f"w{i}@%h")
        procs.start("beat", "beat")
        took = wait_healthy(PORTS, 90)
        if took is None:
            raise RuntimeError("the web servers did not answer /healthz within 90 s")
        say(f"2 web servers (2 workers each), 2 Celery workers, beat: healthy in {took:.1f} s")
        threading.Thread(target=procs.supervise, args=(time.time(),), daemon=True).start()

        organizer = Client(PORTS)
        organizer.login("organizer")
        players: list[Player] = []
        for i in range(N_MATCHES):
            username = f"p{i}"
            status, match = organizer.request(
                "POST",
                "/api/matches/",
                {
                    "game": GAME,
                    "seats": ["bot", username],
                    "options": OPTIONS,
                    "holders": {"bot": "bot:random", username: user_ids[username]},
                    "title": f"prod-check {i}",
                },
            )
            if status != 201:
                raise RuntimeError(f"creating match {i} answered {status}: {match}")
            client = Client(PORTS, first=i)
            client.login(username)
            players.append(Player(username, match["id"], username, client, random.Random(i)))
        say(f"{N_MATCHES} clocked matches created over HTTP ({GAME}, {OPTIONS})")

        play_start = time.time()
        until = play_start + PLAY_S
        peak = [0]

        def sample_connections():
            for _ in range(int(PLAY_S) + 30):
                if time.time() > until or (played and all(not t.is_alive() for t in threads)):
                    return
                try:
                    with psycopg.connect(admin_db, connect_timeout=3) as conn:
                        n = conn.execute(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [DB]
                        ).fetchone()[0]
                    peak[0] = max(peak[0], n - 1)
                except psycopg.Error:
                    pass
                time.sleep(1)

        threads = [threading.Thread(target=p.play, args=(until,), daemon=True) for p in players]
        for t in threads:
            t.start()
        played = True
        sampler = threading.Thread(target=sample_connections, daemon=True)
        sampler.start()

        faults: list[tuple[str, float, float]] = []  # (name, start, end) windows

        def fault(name: str, at: float, act) -> None:
            # at its time, and a few seconds after the one before recovered
            after = faults[-1][2] + 3 if faults else 0
            time.sleep(max(0.0, play_start + at - time.time(), after - time.time()))
            if all(not t.is_alive() for t in threads):
                failures.append(f"{name}: the play ended before the fault could happen")
                return
            start = time.time()
            act()
            back = time.time()  # the fault is over: from here the show must go on
            healthy_in = wait_healthy(PORTS, 30)
            progress = wait_for_progress(admin_db, back)
            end = time.time()
            faults.append((name, start, end + 2))
            if progress is None or progress > RECOVERY_S:
                failures.append(f"{name}: no event written within {RECOVERY_S} s after it")
            facts.append(
                f"{name} ({back - start:.1f} s): /healthz ok again after "
                + (f"{healthy_in:.1f} s" if healthy_in is not None else "NEVER")
                + ", first event after "
                + (f"{progress:.1f} s" if progress is not None else "NEVER")
            )
            say(facts[-1])

        def kill_worker():
            with procs.lock:
                kill_and_restart()

        def kill_and_restart():
            proc = procs.procs["worker1"]
            os.kill(proc.pid, signal.SIGKILL)  # the main process, mid-work
            proc.wait(timeout=10)
            time.sleep(3)
            procs.stop("worker1", signal.SIGKILL)  # its orphaned pool, as a container stop would
            procs.start("worker1", "worker", CELERY_HOSTNAME="w1@%h")  # the supervisor restarts it

        def restart_redis():
            redis.stop()
            time.sleep(2)
            redis.start()

        def database_away():
            # as a restart of PostgreSQL looks to the app (the shared server itself is
            # not restarted): every connection cut, and none accepted for a few seconds
            with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
                conn.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS false')
                try:
                    n = conn.execute(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                        "WHERE datname = %s AND pid <> pg_backend_pid()",
                        [DB],
                    ).fetchone()[0]
                    time.sleep(DB_AWAY_S)
                finally:
                    conn.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS true')
            facts.append(
                f"PostgreSQL: {n} connections of the app cut, none accepted for {DB_AWAY_S:.0f} s"
            )

        fault("SIGKILL of Celery worker 1", 10, kill_worker)
        fault("Redis restart", 25, restart_redis)
        fault("PostgreSQL away (restart)", 40, database_away)

        for t in threads:
            t.join(timeout=max(1.0, until - time.time() + 5))
        play_s = time.time() - play_start
        facts.append(f"PostgreSQL: at most {peak[0]} connections of the app at once")
        unfinished = [p.match_id for p in players if not p.finished]
        if unfinished:
            failures.append(f"matches not finished within {PLAY_S:.0f} s: {unfinished}")
        facts.append(
            f"play: {play_s:.0f} s, {sum(p.moves for p in players)} scripted moves, "
            f"{sum(p.resent for p in players)} resent with the same command id, "
            f"{sum(p.rejected for p in players)} rejected (409/422), "
            f"{sum(p.sleeps for p in players)} clocks let run out on purpose"
        )
        for p in players:
            failures += [f"{p.username}: {n}" for n in p.notes]
        # a process that had to be started again did not reconnect by itself
        failures += procs.restarts
        if not procs.restarts:
            facts.append("no process exited: each one reconnected by itself")

        # HTTP: no 5xx but a 503 during a fault, no request without an answer
        def in_fault(call: Call) -> bool:
            return any(s - 1 <= call.at <= e for _, s, e in faults)

        statuses: dict[int, int] = {}
        for call in CALLS:
            statuses[call.status] = statuses.get(call.status, 0) + 1
            if call.status == 0:
                failures.append(f"no answer: {call.method} {call.path} :{call.port} {call.error}")
            elif call.status >= 500 and not (call.status == 503 and call.clear and in_fault(call)):
                failures.append(
                    f"{call.status}: {call.method} {call.path} :{call.port} {call.error}"
                )
        per_port = {p: sum(1 for c in CALLS if c.port == p) for p in PORTS}
        slowest = max((c.elapsed for c in CALLS), default=0)
        facts.append(
            f"HTTP: {len(CALLS)} requests {per_port} by port, statuses {dict(sorted(statuses.items()))}, "
            f"slowest {slowest:.2f} s"
        )
    except Exception as exc:
        failures.append(f"aborted: {type(exc).__name__}: {exc}")
    finally:
        say("stopping the processes")
        procs.stop_all()
        redis.stop()

    try:
        if not played:
            raise RuntimeError("no play happened, nothing to check")
        with psycopg.connect(db_url(owner), autocommit=True) as conn:
            failures += check_log(conn)
            n_events, n_streams = conn.execute(
                "SELECT count(*), count(DISTINCT stream) FROM eventlog_storedevent"
            ).fetchone()
            timeouts, by_clock, late = conn.execute(
                "SELECT count(*), count(*) FILTER (WHERE command_id LIKE 'timeout:%%'), "
                "max(extract(epoch FROM recorded_at) - (data->>'at')::float) "
                "FROM eventlog_storedevent WHERE type = 'timed_out'"
            ).fetchone()
            live = conn.execute(
                "SELECT count(*) FROM games_match WHERE status = 'live'"
            ).fetchone()[0]
        facts.append(
            f"log: {n_events} events in {n_streams} streams, gapless, command ids unique; "
            f"{timeouts} timeouts ({by_clock} written by the clock workers, the rest by the "
            f"move that found them due), latest {late or 0:.2f} s after its deadline"
        )
        if not timeouts:
            failures.append("no timeout happened: the clocks were not exercised")
        elif late is not None and late > MAX_TIMEOUT_LATENESS_S:
            failures.append(f"a timeout was written {late:.1f} s after its deadline")
        if live:
            failures.append(f"{live} match(es) still live at the end")
        rebuild = procs.run(
            sys.executable,
            "-c",
            REBUILD_CHECK,
            env={"DATABASE_URL": db_url(owner), "LOG_LEVEL": "WARNING"},
        )
        result = (
            json.loads(rebuild.stdout.strip().splitlines()[-1]) if rebuild.returncode == 0 else None
        )
        if not result or not result["equal"]:
            failures.append(
                f"read models differ from a rebuild: {result or rebuild.stderr[-2000:]}"
            )
        else:
            facts.append(f"read models equal a rebuild of {result['events']} events")
    except Exception as exc:
        failures.append(f"checks aborted: {type(exc).__name__}: {exc}")

    if played:
        failures += check_logs(workdir, facts)

    print()
    print("prod-check summary")
    for fact in facts:
        print(f"  - {fact}")
    if failures:
        print(f"FAILED ({len(failures)}):")
        for f in failures[:40]:
            print(f"  x {f}")
        print(f"logs kept in {workdir}, database {DB} kept (dropped by the next run)")
    else:
        print("OK: every check passed")
        ok = True
    if not KEEP and ok:
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
            for role in (app, owner):
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')
        shutil.rmtree(workdir, ignore_errors=True)
    return 0 if ok else 1


CELERY_SHUTDOWN = re.compile(r"^worker: \w+ shutdown \(MainProcess\)$")


def check_logs(workdir: Path, facts: list[str]) -> list[str]:
    """Every line a Django process wrote is one JSON object; the clock's carry the stream."""
    failures = []
    lines = with_stream = 0
    for name in ("web1", "web2", "worker1", "worker2", "beat"):
        path = workdir / f"{name}.log"
        if not path.exists():
            continue
        for raw in path.read_text(errors="replace").splitlines():
            if not raw.strip() or CELERY_SHUTDOWN.match(raw):
                continue  # Celery's last words on shutdown are printed, not logged
            try:
                record = json.loads(raw)
            except ValueError:
                failures.append(f"{name}.log: not JSON: {raw[:200]}")
                continue
            lines += 1
            if record.get("logger", "").startswith("clocks") and record.get("stream"):
                with_stream += 1
    if len(failures) > 10:
        failures = failures[:10] + [f"... and {len(failures) - 10} more lines not JSON"]
    facts.append(f"logs: {lines} JSON lines, {with_stream} clock lines carrying their stream")
    if not with_stream:
        failures.append("no clock log line carried its match's stream")
    return failures


if __name__ == "__main__":
    sys.exit(main())
