"""The production processes for the benchmarks that need them (http_command,
spectators, show64, clocks_scale): a fresh PostgreSQL database, a private
redis-server, and docker/entrypoint.sh's roles started exactly as
`make prod-check` starts them (its Processes and Redis classes).

The processes run the project's settings through ``benchsite.settings``
(bench/benchsite: the same settings plus the benchmarks' reference endpoints),
DEBUG off, JSON logs, behind a "proxy" (requests carry X-Forwarded-Proto).
Loopback only: BENCH_PG must name a loopback host, the web servers bind
127.0.0.1.

Environment: BENCH_PG (admin URL, default postgresql://postgres@127.0.0.1:5432/postgres),
BENCH_DB_PREFIX (default gameshow_bench_), BENCH_WEB_PORTS (8191,8192),
BENCH_REDIS_PORT (8199), BENCH_KEEP_DB=1 keeps the database.
"""

from __future__ import annotations

import http.client
import ipaddress
import json
import os
import platform
import resource
import secrets
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import prod_check  # noqa: E402  (the processes and the private Redis, as prod-check runs them)

DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
REQUEST_TIMEOUT_S = 30


def log(name: str, msg: str) -> None:
    print(f"  {name}: {msg}", flush=True)


def env_int(name: str, default: int, lo: int, hi: int) -> int:
    raw = os.environ.get(name, "").strip()
    try:
        value = int(raw) if raw else default
    except ValueError:
        raise SystemExit(f"{name}: a whole number, not {raw!r}") from None
    if not lo <= value <= hi:
        raise SystemExit(f"{name} must be from {lo} to {hi} (got {value})")
    return value


def env_float(name: str, default: float, lo: float, hi: float) -> float:
    raw = os.environ.get(name, "").strip()
    try:
        value = float(raw) if raw else default
    except ValueError:
        raise SystemExit(f"{name}: a number, not {raw!r}") from None
    if not lo <= value <= hi:
        raise SystemExit(f"{name} must be from {lo} to {hi} (got {value})")
    return value


def admin_url() -> str:
    url = os.environ.get("BENCH_PG", "").strip() or DEFAULT_PG
    host = urlsplit(url).hostname or ""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        raise SystemExit(f"BENCH_PG host {host!r} is not a loopback address")
    return url


def with_db(url: str, db: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + db))


def web_ports() -> list[int]:
    raw = os.environ.get("BENCH_WEB_PORTS", "8191,8192")
    return [int(p) for p in raw.split(",") if p.strip()]


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's soft RLIMIT_NOFILE (children inherit it); returns it."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_kib(pid: int) -> int:
    """Resident memory of one process (KiB), 0 when gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            out += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return out


_TICK = os.sysconf("SC_CLK_TCK")


def cpu_s(pid: int) -> float:
    """CPU seconds (user and system) one process has used, 0 when gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children(p)
    return out


def _pids_named(name: str) -> list[int]:
    pids = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                if (d / "comm").read_text().strip() == name:
                    pids.append(int(d.name))
            except OSError:
                continue
    return pids


def _machine_busy_s() -> float:
    """CPU seconds every core has spent not idle since boot."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle, iowait
    return (sum(ticks[:8]) - idle) / _TICK


class Stack:
    """A database of its own, a private Redis, and the entrypoint's roles."""

    def __init__(self, name: str, **env):
        self.name = name
        self.admin = admin_url()
        prefix = os.environ.get("BENCH_DB_PREFIX", "gameshow_bench_")
        self.db = f"{prefix}{name}"
        self.db_url = with_db(self.admin, self.db)
        self.redis_port = env_int("BENCH_REDIS_PORT", 8199, 1024, 65535)
        self.workdir = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
        self.keep = os.environ.get("BENCH_KEEP_DB") == "1"
        self.redis = prod_check.Redis(self.workdir, self.redis_port)
        base = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("DJANGO_", "DATABASE_URL", "REDIS_URL", "CELERY_", "LOG_"))
        }
        base.update(
            PYTHON=sys.executable,
            PYTHONPATH=str(BENCH),  # benchsite; the entrypoint adds the project's roots
            DJANGO_SETTINGS_MODULE="benchsite.settings",
            DJANGO_DEBUG="0",
            DJANGO_SECRET_KEY=secrets.token_urlsafe(50),
            DJANGO_ALLOWED_HOSTS="127.0.0.1,localhost",
            DJANGO_SSL_REDIRECT="1",  # as the image has it; requests come "through the proxy"
            DATABASE_URL=self.db_url,
            REDIS_URL=f"redis://127.0.0.1:{self.redis_port}/0",
            VAR_DIR=str(self.workdir / "var"),
            LOG_FORMAT="json",
            WEB_WORKERS="2",
            CELERY_CONCURRENCY="2",
        )
        base.update(env)
        self.procs = prod_check.Processes(self.workdir, base)

    # -- lifecycle
    def up(self) -> None:
        if prod_check.port_in_use(self.redis_port):
            raise SystemExit(f"port {self.redis_port} is in use (BENCH_REDIS_PORT)")
        import psycopg

        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{self.db}"')
        self.redis.start()
        t0 = time.time()
        out = self.procs.run("migrate", timeout=300)
        if out.returncode != 0:
            raise RuntimeError(f"migrate failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        log(self.name, f"database {self.db} migrated in {time.time() - t0:.1f} s")

    def web(self, ports: list[int], workers: int = 2) -> float:
        for p in ports:
            if prod_check.port_in_use(p):
                raise SystemExit(f"port {p} is in use (BENCH_WEB_PORTS)")
        for i, port in enumerate(ports):
            self.procs.start(
                f"web{i + 1}", "web", WEB_BIND=f"127.0.0.1:{port}", WEB_WORKERS=str(workers)
            )
        if "reactors" not in self.procs.procs:  # live updates and webhooks follow the log
            self.procs.start("reactors", "reactors")
        took = prod_check.wait_healthy(ports, 120)
        if took is None:
            raise RuntimeError(f"web servers not healthy within 120 s: see {self.workdir}")
        return took

    def workers(self, n: int = 2, beat: bool = True) -> None:
        for i in range(1, n + 1):
            self.procs.start(f"worker{i}", "worker", CELERY_HOSTNAME=f"w{i}@%h")
        if beat:
            self.procs.start("beat", "beat")

    def down(self, ok: bool = True) -> None:
        self.procs.stop_all()
        self.redis.stop()
        if self.keep or not ok:
            log(self.name, f"kept database {self.db} and logs in {self.workdir}")
            return
        import psycopg

        with psycopg.connect(self.admin, autocommit=True, connect_timeout=10) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{self.db}" WITH (FORCE)')
        shutil.rmtree(self.workdir, ignore_errors=True)

    # -- helpers
    def django(self, code: str, timeout: float = 300) -> dict:
        """Run Python in a Django shell of the same environment; it must print one
        JSON object (prefixed ``RESULT ``) on stderr."""
        out = self.procs.run(sys.executable, "manage.py", "shell", "-c", code, timeout=timeout)
        lines = [ln for ln in out.stderr.splitlines() if ln.startswith("RESULT ")]
        if out.returncode != 0 or not lines:
            raise RuntimeError(f"setup failed:\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}")
        return json.loads(lines[-1][7:])

    def sql(self, query: str, params=None) -> list[tuple]:
        import psycopg

        with psycopg.connect(self.db_url, autocommit=True, connect_timeout=10) as conn:
            cur = conn.execute(query, params)
            return cur.fetchall() if cur.description else []

    def server_rss_kib(self, name: str) -> dict:
        """RSS of a gunicorn server: its master and each worker process."""
        master = self.procs.procs[name].pid
        return {"master": rss_kib(master), "workers": [rss_kib(c) for c in children(master)]}

    def cpu_snapshot(self) -> dict[str, float]:
        """CPU seconds used so far by each of the stack's roles (a role's
        processes and their children), its Redis, every PostgreSQL process,
        this process (the benchmark's client threads), and the whole machine."""
        out = {
            name: sum(cpu_s(p) for p in descendants(proc.pid))
            for name, proc in self.procs.procs.items()
            if proc.poll() is None
        }
        if self.redis.proc is not None:
            out["redis"] = cpu_s(self.redis.proc.pid)
        out["postgres"] = sum(cpu_s(p) for p in _pids_named("postgres"))
        out["client"] = sum(os.times()[:2])
        out["machine"] = _machine_busy_s()
        return out


def cpu_spent(*snapshots: dict) -> dict[str, float]:
    """Each part's CPU seconds over spans of ``cpu_snapshot``s, given as
    pairs (from, to, from, to, ...); a part not running at a span's start
    counts from 0."""
    spent: dict[str, float] = {}
    for before, after in zip(snapshots[::2], snapshots[1::2], strict=True):
        for k, v in after.items():
            spent[k] = spent.get(k, 0.0) + max(0.0, v - before.get(k, 0.0))
    return spent


def cpu_ms_per(spent: dict, n: int) -> dict[str, float]:
    """Each part's CPU milliseconds per unit of work (``spent``: ``cpu_spent``
    over ``n`` units); ``other`` is the machine's busy time no part accounts for."""
    if n <= 0:
        return {}
    parts = {k: v for k, v in spent.items() if k != "machine"}
    machine = spent["machine"]
    out = {k: round(1000 * v / n, 2) for k, v in parts.items()}
    out["other"] = round(1000 * max(0.0, machine - sum(parts.values())) / n, 2)
    out["machine"] = round(1000 * machine / n, 2)
    return out


USERS_CODE = r"""
import json, sys
from django.contrib.auth.models import Permission, User
from api.models import ApiToken
out = {}
for name, perms in %(users)s:
    user = User.objects.create_user(name)
    if perms:
        user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    out[name] = {"id": user.pk, "token": ApiToken.issue(user, "bench")[1]}
sys.stderr.write("RESULT " + json.dumps(out) + "\n")
"""


def users_code(users: list[tuple[str, list[str]]]) -> str:
    """Django shell code creating users (with permissions) and a token each."""
    return USERS_CODE % {"users": repr(users)}


class Api:
    """One keep-alive HTTP connection, as a bot holds it, with a token."""

    def __init__(self, port: int, token: str | None = None):
        self.port, self.token = port, token
        self.conn: http.client.HTTPConnection | None = None

    def call(self, method: str, path: str, body=None, token: str | None = None):
        """(status, payload, seconds); status 0 when no answer came."""
        headers = {
            "Host": f"127.0.0.1:{self.port}",
            "X-Forwarded-Proto": "https",
            "Accept": "application/json",
        }
        token = token or self.token
        if token:
            headers["Authorization"] = f"Token {token}"
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        for attempt in (1, 2):  # the server may have closed an idle keep-alive connection
            if self.conn is None:
                self.conn = http.client.HTTPConnection(
                    "127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S
                )
            t0 = time.perf_counter()
            try:
                self.conn.request(method, path, body=data, headers=headers)
                resp = self.conn.getresponse()
                raw = resp.read()
                took = time.perf_counter() - t0
            except (OSError, http.client.HTTPException):
                self.close()
                if attempt == 2:
                    return 0, None, time.perf_counter() - t0
                continue
            if resp.getheader("Connection", "").lower() == "close":
                self.close()
            try:
                payload = json.loads(raw) if raw else None
            except ValueError:
                payload = raw.decode(errors="replace")
            return resp.status, payload, took
        return 0, None, 0.0

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


def pct(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile of values (any order)."""
    if not values:
        return None
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))]


def summary_ms(seconds: list[float]) -> dict:
    ms = [s * 1e3 for s in seconds]
    r = lambda x: None if x is None else round(x, 2)  # noqa: E731
    return {
        "n": len(ms),
        "p50": r(pct(ms, 0.5)),
        "p90": r(pct(ms, 0.9)),
        "p99": r(pct(ms, 0.99)),
        "max": r(max(ms)) if ms else None,
        "mean": r(sum(ms) / len(ms)) if ms else None,
    }


def versions(*dists: str) -> dict:
    """Python's version and each distribution's (None when it is not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    out = {"python": platform.python_version()}
    for dist in dists:
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            out[dist] = None
    return out


def machine() -> str:
    """The operating system and the processor's architecture."""
    return f"{platform.system()} {platform.machine()}"


def process_environment() -> dict:
    """What a benchmark run within one process measured on: Python and the machine."""
    return {"python": platform.python_version(), "cpus": os.cpu_count(), "machine": machine()}


def server_address(url: str) -> str:
    """host:port of a PostgreSQL URL (5432 when it names none)."""
    parts = urlsplit(url)
    return f"{parts.hostname}:{parts.port or 5432}"


def result_header(name: str, title: str, started: float) -> dict:
    """The first keys of every benchmark's result: which it is, when it finished,
    and how long it took since ``started`` (a ``time.perf_counter()``)."""
    return {
        "name": name,
        "title": title,
        "finished_at": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "duration_s": round(time.perf_counter() - started, 1),
    }


def verdict(result: dict, goal: str, figure: str, met: bool) -> dict:
    """One goal of a result, in the shape every benchmark's ``verdicts(result)``
    returns and bench/run.py's goals table reads: the goal, the figure the run
    measured, met or missed, and the run's date (its ``finished_at``)."""
    return {
        "goal": goal,
        "figure": figure,
        "verdict": "met" if met else "missed",
        "run": result["finished_at"][:10],
    }


def environment(stack: Stack) -> dict:
    """What the stack runs on, measured before the benchmark's load."""
    pg = stack.sql("SELECT version()")[0][0].split(" on ")[0]
    return {
        "versions": versions(
            "Django", "djangorestframework", "gunicorn", "uvicorn", "channels", "celery"
        ),
        "postgres": pg,
        "cpus": os.cpu_count(),
        "load_before": round(os.getloadavg()[0], 2),
        "machine": machine(),
    }


def environment_after(env: dict) -> dict:
    """``environment``'s, with the load average once the benchmark ran."""
    return {**env, "load_after": round(os.getloadavg()[0], 2)}
