#!/usr/bin/env python
"""`make prod-check`: the production processes under a show and under faults.

Starts what production runs, the way production starts it (docker/entrypoint.sh):
`migrate` (as the database owner, then grant_app_role for the least-privileged
app role), two `web` (gunicorn + uvicorn workers) on two loopback ports, two
Celery `worker`s (prefork) and one `beat`, all three connecting as the app
role, against a fresh PostgreSQL database of its own and a private Redis on its
own port. Then a bot show of 16 entrants is played to its champion over HTTP
(API tokens) and websockets, spread over both web ports (bench/showdriver.py),
on clocks short enough that timeouts happen, while the faults a host meets
happen: one Celery worker is SIGKILLed, Redis is restarted (broker, cache and
channel layer gone), every PostgreSQL connection of the app is terminated and
none accepted for a few seconds; all along, the organizer's webhook receiver
takes 4 s to answer each delivery (a send inside a transaction would hold back
every reactor: live pushes, clock arming). At the end it checks
(bench/prod_checks.py):

- no 5xx except a clear 503 during a fault, no request hangs (every one answers
  within its timeout);
- the show reached its champion, every match ended, and the show went on within
  10 s of each fault;
- versions gapless per stream, command ids unique, each deadline's timeout
  written exactly once, none lost (each written within a bound of its deadline);
- every websocket client's versions only go up and reach it within a few seconds
  (or within 10 s of the fault they were written in: reconnect and `since`), each
  ends at its match's last version, no spectator gets a version before the delay;
- every webhook delivery to the slow receiver delivered, none lost;
- the bots greet in the show room all along (bench/showchat.py): every message
  acknowledged is in the log and the chat's read model, once;
- the app role cannot UPDATE, DELETE or TRUNCATE events (psql);
- read models equal a rebuild from the log; the logs are one JSON object a line,
  and the clock's carry the match's stream.

Bounded: every loop has a count and a time limit. Prints a summary; exit 1 on
any failure (logs kept and named), 0 otherwise.

Environment (all optional): PROD_CHECK_PG (admin URL, default
postgresql://postgres@127.0.0.1:5432/postgres), PROD_CHECK_DB (default
prodcheck), PROD_CHECK_PORTS (8181,8182), PROD_CHECK_REDIS_PORT (8189),
PROD_CHECK_ENTRANTS (16), PROD_CHECK_PLAY_S (time limit of the show, 240),
PROD_CHECK_FAULTS=0 plays without faults, PROD_CHECK_KEEP=1 keeps the database
and logs (a failed run always keeps them).
"""

from __future__ import annotations

import http.client
import http.server
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or imported
from prod_checks import (  # noqa: E402
    REBUILD_CHECK,
    RECOVERY_S,
    check_app_role,
    check_hooks,
    check_http,
    check_log,
    check_logs,
    check_sockets,
)
from showchat import Greeter, check_chat  # noqa: E402
from showdriver import (  # noqa: E402  (Call: for importers)
    Call,  # noqa: F401
    Http,
    Recorder,
    ShowDriver,
    parse_people,
    people_script,
    socket_records,
)

ROOT = Path(__file__).resolve().parents[1]
ENTRYPOINT = ROOT / "docker" / "entrypoint.sh"

ADMIN_URL = os.environ.get("PROD_CHECK_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
DB = os.environ.get("PROD_CHECK_DB", "prodcheck")
PORTS = [int(p) for p in os.environ.get("PROD_CHECK_PORTS", "8181,8182").split(",")]
REDIS_PORT = int(os.environ.get("PROD_CHECK_REDIS_PORT", "8189"))
# 16: the show outlasts its three faults even when few clocks run out (8 once ended
# in 41 s, before the third)
N_ENTRANTS = int(os.environ.get("PROD_CHECK_ENTRANTS", "16"))
PLAY_S = float(os.environ.get("PROD_CHECK_PLAY_S", "240"))
KEEP = os.environ.get("PROD_CHECK_KEEP") == "1"
FAULTS = os.environ.get("PROD_CHECK_FAULTS", "1") != "0"

SPECTATOR_DELAY_S = 3  # spectators see each match this much later
DB_AWAY_S = 4.0  # how long the database refuses connections
# a deadline not enforced within this counts as lost: a worker the supervisor restarts
# takes ~10 s to boot on a busy 2-core host, and the sweep (every 2 s) then finds it
MAX_TIMEOUT_LATENESS_S = 30
PASSWORD = secrets.token_urlsafe(16)
SLOW_HOOK_S = 4.0  # the webhook receiver's answer takes this long (HOOKS_TIMEOUT_S is 5)
HOOKS_SETTLE_S = 90  # the deliveries still pending when the show ends have this long


class SlowReceiver:
    """The organizer's webhook receiver on loopback: each POST answered after
    SLOW_HOOK_S; ``answered`` holds the delivery id of each (repeats included)."""

    def __init__(self):
        self.answered: list[str] = []
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                time.sleep(SLOW_HOOK_S)
                self.send_response(200)
                self.end_headers()
                receiver.answered.append(self.headers.get("X-Showtable-Delivery", ""))

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def hook_slow_receiver(org: Http, show_id: int, receiver: SlowReceiver) -> str | None:
    """The organizer registers ``receiver`` for the show's eliminations and
    champion, live (at once, not behind the delay); what went wrong, if anything."""
    body = {"url": receiver.url, "kinds": ["elimination", "champion"], "live": True}
    status, answer = org.request("POST", f"/api/shows/{show_id}/webhooks", body)
    return None if status == 201 else f"registering the slow webhook receiver: {status} {answer}"


def wait_for_hooks(db: str, limit: float) -> None:
    """Until no webhook delivery is pending (or ``limit`` seconds)."""
    end = time.time() + limit
    while time.time() < end:
        with psycopg.connect(db) as conn:
            (pending,) = conn.execute(
                "SELECT count(*) FROM hooks_webhookdelivery WHERE status = 'pending'"
            ).fetchone()
        if not pending:
            return
        time.sleep(1)


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
        """As an operator (or `docker stop`) stops a process: the signal goes to its
        main process alone, which shuts its own pool or workers down; whatever
        of its group is still there after `wait_s` is killed."""
        proc = self.procs.get(name)
        if proc is None:
            return
        try:
            os.kill(proc.pid, sig)
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
RECORDER = Recorder()
CALLS = RECORDER.calls


class Client(Http):
    """A browser's session (cookies and CSRF), its calls recorded in CALLS; each
    request goes to the next web port in turn."""

    def __init__(self, ports: list[int], first: int = 0):
        super().__init__(ports, RECORDER, first=first)

    def login(self, username: str, password: str = PASSWORD) -> None:
        super().login(username, password)


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


def refused_to_start() -> str | None:
    """Why prod-check cannot run here (no redis-server, a port taken), if so."""
    if shutil.which("redis-server") is None:
        return "prod-check needs redis-server on PATH (it runs a private one)"
    busy = [p for p in [*PORTS, REDIS_PORT] if port_in_use(p)]
    if busy:
        return f"prod-check: port(s) {busy} already in use (another run?)"
    return None


class ProdCheck:
    """One run: the database and roles, the processes, the show under faults,
    and what the checks found (``facts``, ``failures``)."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.failures: list[str] = []
        self.facts: list[str] = []
        self.owner, self.app = f"{DB}_owner", f"{DB}_app"
        self.admin_db = db_url(urlsplit(ADMIN_URL).username or "postgres")
        self.played = False
        self.summary: dict = {}
        self.faults: list[tuple[str, float, float]] = []  # (name, start, end) windows

    # -- set-up and tear-down

    def set_up(self) -> None:
        """A fresh database owned by its owner role, the app role, the private
        Redis, the processes' environment and the slow webhook receiver."""
        owner, app = self.owner, self.app
        say(
            f"work dir {self.workdir}; database {DB}; web ports {PORTS}; "
            f"private Redis :{REDIS_PORT}"
        )
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
            for role in (app, owner):
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')
            conn.execute(f'CREATE ROLE "{owner}" LOGIN')
            conn.execute(f'CREATE ROLE "{app}" LOGIN')
            conn.execute(f'CREATE DATABASE "{DB}" OWNER "{owner}"')
        self.redis = Redis(self.workdir, REDIS_PORT)
        self.redis.start()
        self.procs = Processes(self.workdir, self._environment())
        self.hooked = SlowReceiver() if FAULTS else None

    def _environment(self) -> dict:
        """The roles' environment, as compose gives it."""
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(
                ("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "LOG_", "APP_DB")
            )
        }
        env.update(
            PYTHON=sys.executable,
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_SSL_REDIRECT="1",  # as the image has it; requests come "through the proxy"
            MIGRATE_DATABASE_URL=db_url(self.owner),
            # web, workers and beat connect as the least-privileged app role, as in compose
            APP_DB_USER=self.app,
            DATABASE_URL=db_url(self.app),
            REDIS_URL=f"redis://127.0.0.1:{REDIS_PORT}/0",
            VAR_DIR=str(self.workdir / "var"),
            LOG_FORMAT="json",
            WEB_WORKERS="2",
            CELERY_CONCURRENCY="2",
            HOOKS_ALLOW_PRIVATE_ADDRESSES="1",  # the slow webhook receiver is on loopback
            CHAT_NEW_ACCOUNT_WAIT_S="0",  # the bots' accounts are made a moment before they greet
        )
        return env

    def stop(self) -> None:
        say("stopping the processes")
        self.procs.stop_all()
        self.redis.stop()
        if self.hooked is not None:
            self.hooked.close()

    def drop(self) -> None:
        """The database, the roles and the logs of a run that passed."""
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{DB}" WITH (FORCE)')
            for role in (self.app, self.owner):
                conn.execute(f'DROP ROLE IF EXISTS "{role}"')
        shutil.rmtree(self.workdir, ignore_errors=True)

    # -- the show

    def play(self) -> None:
        """The processes started, the show played to its end under the faults,
        and what the show itself tells checked."""
        people = self._migrate_and_people()
        self._start_roles()
        play = self._start_show(people)
        self.play_start = time.time()
        peak = [0]
        threading.Thread(target=self._sample_connections, args=(play, peak), daemon=True).start()
        if FAULTS:
            # early and one after the other: a show of 8 can end within a minute
            self._fault("SIGKILL of Celery worker 1", 10, self._kill_worker)
            self._fault("Redis restart", 20, self._restart_redis)
            self._fault("PostgreSQL away (restart)", 30, self._database_away)
        play.join(timeout=PLAY_S + 60)
        if play.is_alive() or not self.summary:
            raise RuntimeError("the show driver did not return")
        self.facts.append(f"PostgreSQL: at most {peak[0]} connections of the app at once")
        self._check_show()

    def _migrate_and_people(self) -> dict:
        """The migrations (as the owner, then grant_app_role) and the show's people."""
        t0 = time.time()
        out = self.procs.run("migrate", timeout=300)  # as the owner, then grant_app_role
        if out.returncode != 0:
            raise RuntimeError(f"migrate failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        say(
            f"migrate (as {self.owner}), grant_app_role {self.app}: "
            f"done in {time.time() - t0:.1f} s"
        )
        self.facts.append(
            f"migrations as the owner {self.owner}; web, workers and beat as the app role "
            f"{self.app}"
        )
        made = self.procs.run(
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            people_script(N_ENTRANTS, PASSWORD),
            env={"DATABASE_URL": db_url(self.owner)},
        )
        if made.returncode != 0:
            raise RuntimeError(f"could not create the people: {made.stderr[-2000:]}")
        return parse_people(made.stderr)

    def _start_roles(self) -> None:
        """Two web, two workers, beat and two reactors, supervised as compose would."""
        procs = self.procs
        for i, port in enumerate(PORTS):
            procs.start(f"web{i + 1}", "web", WEB_BIND=f"127.0.0.1:{port}")
        for i in (1, 2):
            procs.start(f"worker{i}", "worker", CELERY_HOSTNAME=f"w{i}@%h")
        procs.start("beat", "beat")
        for i in (1, 2):  # they share the log's partitions (reactors.follow)
            procs.start(f"reactors{i}", "reactors")
        took = wait_healthy(PORTS, 90)
        if took is None:
            raise RuntimeError("the web servers did not answer /healthz within 90 s")
        say(
            f"2 web servers (2 workers each), 2 Celery workers, beat, 2 reactors: "
            f"healthy in {took:.1f} s"
        )
        threading.Thread(target=procs.supervise, args=(time.time(),), daemon=True).start()

    def _start_show(self, people: dict) -> threading.Thread:
        """The show driver on a thread of its own (its summary lands in
        ``self.summary``), and the slow webhook receiver registered."""
        self.driver = driver = ShowDriver(
            [f"http://127.0.0.1:{p}" for p in PORTS],
            people,
            password=PASSWORD,
            options={"spectator_delay_s": SPECTATOR_DELAY_S},
            time_limit_s=PLAY_S,
            sleep_p=0.25,  # a quarter of the decisions run out of time: timeouts during faults
            seed=7,
            say=say,
        )
        driver.recorder = RECORDER
        play = threading.Thread(target=lambda: self.summary.update(driver.run()), daemon=True)
        play.start()
        self.played = True
        driver.started.wait(timeout=120)  # the players logged in, the show created
        # the bots greet in the show room all along, through the faults (bench/showchat.py)
        self.greeter = Greeter(PORTS, RECORDER, people["players"], driver.show_id, driver.done)
        self.greeting = threading.Thread(target=self.greeter.run, daemon=True)
        self.greeting.start()
        if self.hooked is not None:  # slow all along, no window excused: nothing may lag for it
            org = Http(PORTS, RECORDER, token=people["organizer"]["token"])
            wrong = hook_slow_receiver(org, driver.show_id, self.hooked)
            if wrong:
                self.failures.append(wrong)
        return play

    def _sample_connections(self, play: threading.Thread, peak: list[int]) -> None:
        """The most connections the app held at once, sampled every second."""
        for _ in range(int(PLAY_S) + 30):
            if not play.is_alive():
                return
            try:
                with psycopg.connect(self.admin_db, connect_timeout=3) as conn:
                    n = conn.execute(
                        "SELECT count(*) FROM pg_stat_activity WHERE datname = %s", [DB]
                    ).fetchone()[0]
                peak[0] = max(peak[0], n - 1)
            except psycopg.Error:
                pass
            time.sleep(1)

    def _check_show(self) -> None:
        """What the show's summary, the processes and the HTTP answers tell."""
        summary, facts = self.summary, self.facts
        c = summary["commands"]
        facts.append(
            f"show {summary['show_id']} of {summary['entrants']} entrants over HTTP: "
            f"{summary['status']}, champion {summary['champion']}, {summary['duration_s']:.0f} s, "
            f"{len(summary['matches'])} matches; {c['show']} show commands, {c['moves']} moves, "
            f"{c['resent']} resent with the same command id, {c['rejected']} rejected "
            f"(409/422), {c['clocks_let_run']} clocks let run out on purpose"
        )
        if summary["status"] != "over" or not summary["champion"]:
            self.failures.append(f"the show did not reach its champion within {PLAY_S:.0f} s")
        self.failures += summary["notes"]
        # a process that had to be started again did not reconnect by itself
        self.failures += self.procs.restarts
        if not self.procs.restarts:
            facts.append("no process exited: each one reconnected by itself")
        self.greeting.join(timeout=60)
        self.failures += check_http(summary["raw"]["calls"], self.faults, facts, PORTS)
        if self.hooked is not None:
            wait_for_hooks(db_url(self.owner), HOOKS_SETTLE_S)
        (self.workdir / "sockets.json").write_text(json.dumps(socket_records(summary), indent=1))
        (self.workdir / "faults.json").write_text(json.dumps(self.faults))

    # -- the faults

    def _fault(self, name: str, at: float, act) -> None:
        """``act`` at its time, and a few seconds after the one before recovered;
        how long the web servers and the show took to come back."""
        faults = self.faults
        after = faults[-1][2] + 3 if faults else 0
        time.sleep(max(0.0, self.play_start + at - time.time(), after - time.time()))
        if self.driver.done.is_set():
            self.failures.append(f"{name}: the show ended before the fault could happen")
            return
        start = time.time()
        act()
        back = time.time()  # the fault is over: from here the show must go on
        healthy_in = wait_healthy(PORTS, 30)
        progress = wait_for_progress(self.admin_db, back)
        end = time.time()
        faults.append((name, start, end + 2))
        if progress is None or progress > RECOVERY_S:
            self.failures.append(f"{name}: no event written within {RECOVERY_S} s after it")
        self.facts.append(
            f"{name} ({back - start:.1f} s): /healthz ok again after "
            + (f"{healthy_in:.1f} s" if healthy_in is not None else "NEVER")
            + ", first event after "
            + (f"{progress:.1f} s" if progress is not None else "NEVER")
        )
        say(self.facts[-1])

    def _kill_worker(self) -> None:
        procs = self.procs
        with procs.lock:
            proc = procs.procs["worker1"]
            os.kill(proc.pid, signal.SIGKILL)  # the main process, mid-work
            proc.wait(timeout=10)
            time.sleep(3)
            procs.stop("worker1", signal.SIGKILL)  # its orphaned pool, as a container stop
            procs.start("worker1", "worker", CELERY_HOSTNAME="w1@%h")  # as compose restarts it

    def _restart_redis(self) -> None:
        self.redis.stop()
        time.sleep(2)
        self.redis.start()

    def _database_away(self) -> None:
        # as a restart of PostgreSQL looks to the app (the shared server itself is
        # not restarted): its connections cut, and none accepted for a few seconds
        cut = (
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = %s AND usename = %s"
        )
        with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
            # most of the app's connections live one request or task: cut the
            # first ones seen (for 5 s at most), then refuse and cut what opened since
            n = 0
            for _ in range(250):
                n += conn.execute(cut, [DB, self.app]).fetchone()[0]
                if n:
                    break
                time.sleep(0.02)
            conn.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS false')
            try:
                n += conn.execute(cut, [DB, self.app]).fetchone()[0]
                time.sleep(DB_AWAY_S)
            finally:
                conn.execute(f'ALTER DATABASE "{DB}" ALLOW_CONNECTIONS true')
        self.facts.append(
            f"PostgreSQL: {n} connections of the app cut, none accepted for {DB_AWAY_S:.0f} s"
        )

    # -- the checks, once every process stopped

    def check_database(self) -> None:
        """The app role's privileges, the log, the webhooks, the sockets, the
        timeouts, the matches and the read models, in the database."""
        if not self.played:
            raise RuntimeError("no play happened, nothing to check")
        self.failures += check_app_role(db_url(self.app), self.facts)
        with psycopg.connect(db_url(self.owner), autocommit=True) as conn:
            self.failures += check_log(conn)
            if self.hooked is not None:
                self.failures += check_hooks(conn, self.hooked.answered, SLOW_HOOK_S, self.facts)
            if self.summary:
                self.failures += check_sockets(
                    conn, self.summary["raw"]["sockets"], self.faults, SPECTATOR_DELAY_S, self.facts
                )
            self._check_timeouts(conn)
            if getattr(self, "greeter", None) is not None:
                self.failures += check_chat(conn, self.greeter, self.facts)
        self._check_rebuild()

    def _check_timeouts(self, conn) -> None:
        """Every deadline enforced once and in time; no match left live."""
        n_events, n_streams = conn.execute(
            "SELECT count(*), count(DISTINCT stream) FROM eventlog_storedevent"
        ).fetchone()
        # every deadline enforced has the command id s:timeout:<deadline> in its match
        timeouts, late = conn.execute(
            "SELECT count(*), max(late) FROM (SELECT stream, command_id, "
            "min(extract(epoch FROM recorded_at)) - split_part(command_id, ':', 3)::float "
            "AS late FROM eventlog_storedevent WHERE command_id LIKE 's:timeout:%%' "
            "GROUP BY 1, 2) t"
        ).fetchone()
        live = conn.execute("SELECT count(*) FROM games_match WHERE status = 'live'").fetchone()[0]
        self.facts.append(
            f"log: {n_events} events in {n_streams} streams, gapless, command ids unique; "
            f"{timeouts} deadlines enforced (each written once), the latest "
            f"{late or 0:.2f} s after its deadline"
        )
        if not timeouts:
            self.failures.append("no timeout happened: the clocks were not exercised")
        elif late is not None and late > MAX_TIMEOUT_LATENESS_S:
            self.failures.append(f"a timeout was written {late:.1f} s after its deadline")
        if live:
            self.failures.append(f"{live} match(es) still live at the end")

    def _check_rebuild(self) -> None:
        """The read models equal a rebuild of them from the log."""
        rebuild = self.procs.run(
            sys.executable,
            "-c",
            REBUILD_CHECK,
            env={"DATABASE_URL": db_url(self.owner), "LOG_LEVEL": "WARNING"},
        )
        result = (
            json.loads(rebuild.stdout.strip().splitlines()[-1]) if rebuild.returncode == 0 else None
        )
        if not result or not result["equal"]:
            self.failures.append(
                f"read models differ from a rebuild: {result or rebuild.stderr[-2000:]}"
            )
        else:
            self.facts.append(f"read models equal a rebuild of {result['events']} events")

    def report(self) -> bool:
        """The summary printed; whether every check passed."""
        print()
        print("prod-check summary")
        for fact in self.facts:
            print(f"  - {fact}")
        if self.failures:
            print(f"FAILED ({len(self.failures)}):")
            for f in self.failures[:40]:
                print(f"  x {f}")
            print(f"logs kept in {self.workdir}, database {DB} kept (dropped by the next run)")
            return False
        print("OK: every check passed")
        return True


def main() -> int:
    refused = refused_to_start()
    if refused:
        print(refused, file=sys.stderr)
        return 2
    run = ProdCheck(Path(tempfile.mkdtemp(prefix="prod-check-")))
    run.set_up()
    try:
        run.play()
    except Exception as exc:
        run.failures.append(f"aborted: {type(exc).__name__}: {exc}")
    finally:
        run.stop()

    try:
        run.check_database()
    except Exception as exc:
        run.failures.append(f"checks aborted: {type(exc).__name__}: {exc}")
    if run.played:
        run.failures += check_logs(run.workdir, run.facts)

    ok = run.report()
    if not KEEP and ok:
        run.drop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
