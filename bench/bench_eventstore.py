"""Event-store benchmark: append one event per commit to one stream, then
read the stream back, side by side in one run (and, for ours and raw, the
append from 16 concurrent writer processes on 16 streams) for

- ours: ``eventlog.store.append(stream, v, [NewEvent(...)])`` / ``read(stream)``
  through Django, on the project's migrated schema;
- raw psycopg: one ``INSERT`` + ``commit()`` per event into an equivalent
  table / one ``SELECT ... ORDER BY version``;
- eventsourcing: ``PostgresApplicationRecorder.insert_events([StoredEvent])``
  (what an eventsourcing application writes through) / ``select_events``.

It creates its own database (``gameshow_bench``) on the PostgreSQL server
given by BENCH_PG, migrates it in-process, measures, and drops it. Appends
are interleaved in blocks of BENCH_BLOCK events per contender (the order
rotates each block), so that drift on a shared machine (disk flush latency,
checkpoints, other processes) hits every contender alike.

Each commit mode is measured separately: ``sync`` is the server's durable
default (``synchronous_commit=on``, every commit waits for the WAL flush);
``async`` sets ``synchronous_commit=off`` on the bench database only, which
takes the disk out of the loop and shows the client-side cost of each code
path. The goals are judged on ``sync``.

Settings (environment; bench/run.py sets them from its options):
BENCH_EVENTS (1000), BENCH_BLOCK (10), BENCH_WARMUP (100), BENCH_READS (5),
BENCH_MODES ("sync,async"), BENCH_WRITERS (16 concurrent writers; 0: none),
BENCH_CONCURRENT_EVENTS (100 per writer), BENCH_CONCURRENT_ROUNDS (2),
BENCH_PG, BENCH_DB_PREFIX (the database's name), BENCH_KEEP_DB ("1": keep it).
"""

from __future__ import annotations

import ipaddress
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402  (the result's header and environment)

TITLE = "Event store: append and read, one stream, one event per commit"
DB_NAME = os.environ.get("BENCH_DB_PREFIX", "").strip() or "gameshow_bench"
DEFAULT_PG = "postgresql://postgres@127.0.0.1:5432/postgres"
GOALS = {
    # ours / raw psycopg append rate, sync mode: one writer, and WRITERS
    # concurrent writers on as many streams (eventsourcing: a reference only,
    # its 3x goal was withdrawn in issue #15)
    "append_vs_raw": 0.67,
    "concurrent_append_vs_raw": 0.67,
}
WRITERS = 16
GOAL_MODE = "sync"
MODES = {"sync": "on", "async": "off"}  # mode -> synchronous_commit
CONTENDERS = ("ours", "raw", "eventsourcing")
LABELS = {
    "ours": "ours (`eventlog.store`)",
    "raw": "raw psycopg",
    "eventsourcing": "eventsourcing",
}
PARAMS = (  # the settings a result reports
    "events",
    "block",
    "warmup",
    "reads",
    "modes",
    "writers",
    "concurrent_events",
    "concurrent_rounds",
)
VERSIONS = ("Django", "psycopg", "psycopg-binary", "eventsourcing", "psycopg-pool")

# a typical small game event, and the metadata our append writes for it
SUITS = ("hearts", "spades", "diamonds", "clubs")
METADATA = {
    "actor": "bench",
    "role": "player",
    "causation": None,
    "visibility": {"to": None, "public": None},
}


def say(msg: str) -> None:
    stack.log("eventstore", msg)


def event(i: int) -> tuple[str, dict]:
    return "card_played", {
        "seat": f"p{i % 4 + 1}",
        "card": {"rank": i % 13 + 1, "suit": SUITS[i % 4]},
        "round": i // 20,
        "trick": i % 5,
    }


# ---------------------------------------------------------------- settings


def _env_int(name: str, default: int, minimum: int) -> int:
    raw = os.environ.get(name, "").strip()
    value = int(raw) if raw else default
    if value < minimum:
        raise SystemExit(f"{name} must be at least {minimum} (got {value})")
    return value


def _settings() -> dict:
    modes = [m.strip() for m in os.environ.get("BENCH_MODES", "sync,async").split(",") if m.strip()]
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        raise SystemExit(f"BENCH_MODES: unknown {unknown}; choose from {sorted(MODES)}")
    s = {
        "events": _env_int("BENCH_EVENTS", 1000, 1),
        "block": _env_int("BENCH_BLOCK", 10, 1),
        "warmup": _env_int("BENCH_WARMUP", 100, 0),
        "reads": _env_int("BENCH_READS", 5, 1),
        "writers": _env_int("BENCH_WRITERS", WRITERS, 0),
        "concurrent_events": _env_int("BENCH_CONCURRENT_EVENTS", 100, 1),
        "concurrent_rounds": _env_int("BENCH_CONCURRENT_ROUNDS", 2, 1),
        "modes": modes,
        "keep_db": os.environ.get("BENCH_KEEP_DB", "") == "1",
    }
    return s


def _server_url() -> str:
    """BENCH_PG, refused unless every host in it is a loopback address."""
    from psycopg.conninfo import conninfo_to_dict

    url = os.environ.get("BENCH_PG", "").strip() or DEFAULT_PG
    hosts = [h for h in str(conninfo_to_dict(url).get("host") or "").split(",") if h]
    if not hosts:
        raise SystemExit(f"BENCH_PG={url!r}: give an explicit loopback host (127.0.0.1)")
    for host in hosts:
        if host == "localhost":
            continue
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise SystemExit(f"BENCH_PG host {host!r} is not a loopback address")
    return url


def _with_db(url: str, dbname: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path="/" + dbname))


def _admin(url: str, *statements: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True, connect_timeout=10) as conn:
        for sql in statements:
            conn.execute(sql)


# -------------------------------------------------------------- contenders


class Ours:
    """The project's event store, through Django (DEBUG off, as deployed)."""

    name = "ours"
    how = (
        "eventlog.store.append(stream, v, [NewEvent(type, data)], actor=..., role=...) "
        "per event; read(stream)"
    )

    def __init__(self) -> None:
        from eventlog import store

        self.store = store
        self.NewEvent = store.NewEvent

    def append(self, stream: str, version: int, i: int) -> None:
        type_, data = event(i)
        self.store.append(
            stream, version, [self.NewEvent(type_, data)], actor="bench", role="player"
        )

    def read(self, stream: str) -> int:
        return len(self.store.read(stream))

    def setting(self, name: str) -> str:
        from django.db import connection

        with connection.cursor() as cur:
            cur.execute(f"SHOW {name}")
            return cur.fetchone()[0]

    def reconnect(self) -> None:
        from django.db import connection

        connection.close()

    def close(self) -> None:
        from django.db import connections

        connections.close_all()


RAW_DDL = (
    """CREATE TABLE raw_event (
        id bigserial PRIMARY KEY,
        stream varchar(200) NOT NULL,
        version integer NOT NULL CHECK (version >= 0),
        type varchar(100) NOT NULL,
        data jsonb NOT NULL,
        metadata jsonb NOT NULL,
        recorded_at timestamptz NOT NULL,
        CONSTRAINT raw_event_stream_version_uniq UNIQUE (stream, version)
    )""",
    "CREATE INDEX raw_event_type_idx ON raw_event (type)",
)
RAW_INSERT = (
    "INSERT INTO raw_event (stream, version, type, data, metadata, recorded_at) "
    "VALUES (%s, %s, %s, %s, %s, %s)"
)
RAW_SELECT = (
    "SELECT id, stream, version, type, data, metadata, recorded_at "
    "FROM raw_event WHERE stream = %s ORDER BY version"
)


class Raw:
    """psycopg 3, one INSERT then commit() per event, on a table with the same
    columns and keys as eventlog_storedevent (less the command-id columns)."""

    name = "raw"
    how = "psycopg: INSERT ... VALUES (...) + conn.commit() per event; SELECT ... ORDER BY version"

    def __init__(self, url: str, create: bool) -> None:
        import psycopg
        from psycopg.types.json import Jsonb

        self.psycopg, self.Jsonb, self.url = psycopg, Jsonb, url
        self.conn = psycopg.connect(url)
        if create:
            with self.conn.cursor() as cur:
                for sql in RAW_DDL:
                    cur.execute(sql)
            self.conn.commit()
        self.cur = self.conn.cursor()

    def append(self, stream: str, version: int, i: int) -> None:
        type_, data = event(i)
        self.cur.execute(
            RAW_INSERT,
            (
                stream,
                version + 1,
                type_,
                self.Jsonb(data),
                self.Jsonb(METADATA),
                datetime.now(UTC),
            ),
        )
        self.conn.commit()

    def read(self, stream: str) -> int:
        self.cur.execute(RAW_SELECT, (stream,))
        rows = self.cur.fetchall()
        self.conn.commit()
        return len(rows)

    def setting(self, name: str) -> str:
        value = self.conn.execute(f"SHOW {name}").fetchone()[0]
        self.conn.commit()
        return value

    def reconnect(self) -> None:
        self.close()
        self.__init__(self.url, create=False)

    def close(self) -> None:
        self.conn.close()


class EventSourcing:
    """eventsourcing's PostgreSQL application recorder (text originator ids,
    so that stream names fit); the payload is serialised to JSON bytes, as its
    JSON transcoder would, and decoded again on read."""

    name = "eventsourcing"
    how = (
        "PostgresApplicationRecorder.insert_events([StoredEvent(...)]) per event; "
        "select_events(stream) + json.loads(state)"
    )

    def __init__(self, url: str) -> None:
        from eventsourcing.persistence import StoredEvent
        from eventsourcing.postgres import PostgresApplicationRecorder, PostgresDatastore
        from psycopg.conninfo import conninfo_to_dict

        self.url = url
        info = conninfo_to_dict(url)
        self.StoredEvent = StoredEvent
        self.datastore = PostgresDatastore(
            dbname=str(info["dbname"]),
            host=str(info["host"]),
            port=str(info.get("port") or 5432),
            user=str(info.get("user") or "postgres"),
            password=str(info.get("password") or ""),
            pool_size=1,
            originator_id_type="text",
        )
        self.recorder = PostgresApplicationRecorder(
            self.datastore, events_table_name="es_stored_events"
        )
        self.recorder.create_table()  # idempotent

    def append(self, stream: str, version: int, i: int) -> None:
        type_, data = event(i)
        state = json.dumps({"data": data, "metadata": METADATA}).encode()
        self.recorder.insert_events(
            [
                self.StoredEvent(
                    originator_id=stream,
                    originator_version=version + 1,
                    topic=type_,
                    state=state,
                )
            ]
        )

    def read(self, stream: str) -> int:
        rows = self.recorder.select_events(stream)
        return len([json.loads(r.state) for r in rows])

    def setting(self, name: str) -> str:
        with self.datastore.get_connection() as conn:
            return next(iter(conn.execute(f"SHOW {name}").fetchone().values()))

    def reconnect(self) -> None:
        self.close()
        self.__init__(self.url)

    def close(self) -> None:
        self.datastore.close()


# ------------------------------------------------------------- measurement


def _pct(sorted_ns: list[int], q: float) -> float:
    """q-quantile of sorted nanosecond latencies, in milliseconds."""
    k = min(len(sorted_ns) - 1, max(0, round(q * (len(sorted_ns) - 1))))
    return round(sorted_ns[k] / 1e6, 3)


def _chunks(n: int, rounds: int) -> list[int]:
    base, extra = divmod(n, rounds)
    return [base + (1 if r < extra else 0) for r in range(rounds)]


def _ratio(a: float, b: float) -> float | None:
    return round(a / b, 3) if b else None


def _rotated(contenders: list, k: int) -> list:
    """The contenders, the ``k``-th first (the order rotates so no one always leads)."""
    k %= len(contenders)
    return contenders[k:] + contenders[:k]


def _warm_up(mode: str, contenders: list, warmup: int, log: Callable[[str], None]) -> None:
    warm_stream = f"warmup-{mode}"
    log(f"[{mode}] warm-up: {warmup} appends and 1 read each")
    for c in contenders:
        for i in range(warmup):
            c.append(warm_stream, i, i)
        c.read(warm_stream)


def _timed_appends(
    mode: str, contenders: list, s: dict, stream: str, log: Callable[[str], None]
) -> tuple[dict, dict, dict]:
    """Every contender's ``s["events"]`` appends, block by block in rotating
    order: (elapsed ns, each append's ns, each block's events/s) per contender."""
    n = s["events"]
    elapsed = {c.name: 0 for c in contenders}
    latencies: dict[str, list[int]] = {c.name: [] for c in contenders}
    block_rates: dict[str, list[float]] = {c.name: [] for c in contenders}
    blocks = _chunks(n, -(-n // s["block"]))
    next_report, done = n / 10, 0
    for b, size in enumerate(blocks):
        for c in _rotated(contenders, b):
            lat = latencies[c.name]
            t0 = time.perf_counter_ns()
            for i in range(done, done + size):
                a = time.perf_counter_ns()
                c.append(stream, i, i)
                lat.append(time.perf_counter_ns() - a)
            spent = time.perf_counter_ns() - t0
            elapsed[c.name] += spent
            block_rates[c.name].append(size * 1e9 / spent)
        done += size
        if done >= next_report or b == len(blocks) - 1:
            next_report += n / 10
            log(
                f"[{mode}] appended {done}/{n} each: "
                + ", ".join(f"{c.name} {done * 1e9 / elapsed[c.name]:,.0f}/s" for c in contenders)
            )
    return elapsed, latencies, block_rates


def _append_summary(n: int, elapsed: dict, latencies: dict, block_rates: dict) -> dict:
    append = {}
    for name in elapsed:
        lat = sorted(latencies[name])
        rates = sorted(block_rates[name])
        append[name] = {
            "events_per_s": round(n * 1e9 / elapsed[name], 1),
            "seconds": round(elapsed[name] / 1e9, 3),
            "latency_ms": {
                "p50": _pct(lat, 0.50),
                "p95": _pct(lat, 0.95),
                "p99": _pct(lat, 0.99),
                "max": round(lat[-1] / 1e6, 3),
            },
            "block_events_per_s": {
                "min": round(rates[0], 1),
                "median": round(statistics.median(rates), 1),
                "max": round(rates[-1], 1),
            },
        }
    return append


def _timed_reads(
    mode: str, contenders: list, s: dict, stream: str, log: Callable[[str], None]
) -> dict:
    """The stream read back ``s["reads"]`` times by each contender, in rotating order."""
    n, reads = s["events"], s["reads"]
    read_ns: dict[str, list[int]] = {c.name: [] for c in contenders}
    for rep in range(reads):
        for c in _rotated(contenders, rep):
            t0 = time.perf_counter_ns()
            got = c.read(stream)
            read_ns[c.name].append(time.perf_counter_ns() - t0)
            if got != n:
                raise RuntimeError(f"{c.name} read {got} events of stream {stream}, expected {n}")
    read = {}
    for c in contenders:
        med, best = statistics.median(read_ns[c.name]), min(read_ns[c.name])
        read[c.name] = {
            "events_per_s": round(n * 1e9 / med, 1),  # median of the repeats
            "best_events_per_s": round(n * 1e9 / best, 1),
            "ms_per_read": round(med / 1e6, 3),
        }
    log(
        f"[{mode}] read {n} events x{reads}: "
        + ", ".join(f"{c.name} {read[c.name]['events_per_s']:,.0f}/s" for c in contenders)
    )
    return read


def _ratios(append: dict, read: dict) -> dict:
    """ours / each other contender, events per second, for each operation."""
    ratios = {}
    for op, res in (("append", append), ("read", read)):
        ours = res.get("ours", {}).get("events_per_s")
        ratios[op] = {
            f"ours/{other}": _ratio(ours, res[other]["events_per_s"])
            for other in ("raw", "eventsourcing")
            if ours is not None and other in res
        }
    return ratios


def _measure_mode(mode: str, contenders: list, s: dict, log: Callable[[str], None]) -> dict:
    stream = f"bench-{mode}"
    _warm_up(mode, contenders, s["warmup"], log)
    elapsed, latencies, block_rates = _timed_appends(mode, contenders, s, stream, log)
    append = _append_summary(s["events"], elapsed, latencies, block_rates)
    read = _timed_reads(mode, contenders, s, stream, log)
    return {
        "synchronous_commit": MODES[mode],
        "append": append,
        "read": read,
        "ratios": _ratios(append, read),
    }


def _goals(append_ratios: dict, concurrent_ratio: float | None = None) -> dict:
    values = {
        "append_vs_raw": append_ratios.get("ours/raw"),
        "concurrent_append_vs_raw": concurrent_ratio,
    }
    return {
        key: {
            "target": target,
            "value": values[key],
            "met": None if values[key] is None else values[key] >= target,
        }
        for key, target in GOALS.items()
    }


# ------------------------------------------------------ concurrent writers


def _writer(kind: str, url: str, stream: str, n: int, barrier, out) -> None:
    """A child process: ``n`` appends to its own stream, one per commit,
    started with the others; reports (start, end) on its monotonic clock."""
    try:
        if kind == "ours":
            c = Ours()
            c.reconnect()  # never the parent's connection
        else:
            c = Raw(url, create=False)
        c.append(f"{stream}-warm", 0, 0)
        barrier.wait(timeout=60)
        t0 = time.perf_counter()
        for i in range(n):
            c.append(stream, i, i)
        out.put((t0, time.perf_counter(), None))
        c.close()
    except Exception as exc:  # the parent reports it
        out.put((0.0, 0.0, f"{kind}: {exc!r}"))


def _concurrent(mode: str, url: str, s: dict, log: Callable[[str], None]) -> dict:
    """WRITERS processes per contender, each on its own stream, rounds
    alternating which contender goes first; events per second over the span
    from the first writer's start to the last one's end."""
    import multiprocessing as mp

    from django.db import connections

    connections.close_all()  # the children open their own
    ctx = mp.get_context("fork")
    n, writers, rounds = s["concurrent_events"], s["writers"], s["concurrent_rounds"]
    spans: dict[str, list[float]] = {"ours": [], "raw": []}
    for r in range(rounds):
        for kind in ("ours", "raw") if r % 2 == 0 else ("raw", "ours"):
            barrier, out = ctx.Barrier(writers), ctx.Queue()
            procs = [
                ctx.Process(
                    target=_writer,
                    args=(kind, url, f"conc-{mode}-{kind}-{r}-{w}", n, barrier, out),
                )
                for w in range(writers)
            ]
            for p in procs:
                p.start()
            got = [out.get(timeout=300) for _ in procs]
            for p in procs:
                p.join(timeout=30)
                if p.is_alive():
                    p.kill()
            errors = [e for _, _, e in got if e]
            if errors:
                raise RuntimeError("concurrent writer failed: " + "; ".join(errors))
            span = max(end for _, end, _ in got) - min(start for start, _, _ in got)
            spans[kind].append(span)
            log(f"[{mode}] {writers} writers x {n}: {kind} {writers * n / span:,.0f} ev/s")
    out = {}
    for kind, ss in spans.items():
        total = writers * n * len(ss)
        out[kind] = {
            "events_per_s": round(total / sum(ss), 1),
            "round_events_per_s": [round(writers * n / x, 1) for x in ss],
        }
    return {
        "writers": writers,
        "events_per_writer": n,
        "rounds": rounds,
        "append": out,
        "ratio": _ratio(out["ours"]["events_per_s"], out["raw"]["events_per_s"]),
    }


# -------------------------------------------------------------------- main


def _django_setup(db_url: str) -> None:
    for p in (ROOT / "platform", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ["DATABASE_URL"] = db_url
    # measured as deployed: DEBUG off (DEBUG wraps every query in a logging cursor)
    os.environ["DJANGO_DEBUG"] = "0"
    # as deployed (docker/entrypoint.sh): the reactors follow the log in their
    # own process, no inline pass in the appending one
    os.environ["REACTORS_INLINE"] = "0"
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _migrate(log: Callable[[str], None]) -> None:
    """The project's migrations, in this process (Django set up)."""
    from django.core.management import call_command

    log("migrating (Django, in-process)")
    call_command("migrate", interactive=False, verbosity=0)


def _pg_version() -> str:
    """The server's ``SELECT version()``, through Django's connection."""
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT version()")
        return cur.fetchone()[0]


def _server_settings() -> dict:
    """The server's settings that decide what a commit costs."""
    from django.db import connection

    out = {}
    with connection.cursor() as cur:
        for name in ("fsync", "synchronous_commit", "wal_sync_method", "full_page_writes"):
            cur.execute(f"SHOW {name}")
            out[name] = cur.fetchone()[0]
    return out


def _drop_database(server: str, name: str, keep: bool, log: Callable[[str], None]) -> None:
    """Drop the bench database, unless BENCH_KEEP_DB=1 asked to keep it."""
    if keep:
        log(f"kept database {name} (BENCH_KEEP_DB=1)")
    else:
        _admin(server, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        log(f"dropped database {name}")


def _set_commit_mode(server: str, mode: str, contenders: list) -> None:
    """synchronous_commit of ``mode`` on the bench database, checked on every
    contender's fresh connection."""
    _admin(server, f"ALTER DATABASE {DB_NAME} SET synchronous_commit = {MODES[mode]}")
    for c in contenders:
        c.reconnect()
        got = c.setting("synchronous_commit")
        if got != MODES[mode]:
            raise RuntimeError(f"{c.name}: synchronous_commit is {got}, wanted {MODES[mode]}")


def _measure_commit_mode(mode: str, server: str, db_url: str, contenders: list, s: dict) -> dict:
    """Every measure of one commit mode, and the goals judged on it."""
    _set_commit_mode(server, mode, contenders)
    say(f"[{mode}] synchronous_commit={MODES[mode]}: {s['events']} events per contender")
    measured = _measure_mode(mode, contenders, s, say)
    if s["writers"] > 0:
        measured["concurrent"] = _concurrent(mode, db_url, s, say)
    conc = measured.get("concurrent", {}).get("ratio")
    measured["goals"] = _goals(measured["ratios"]["append"], conc)
    return measured


def _close(contenders: list) -> None:
    for c in contenders:
        try:
            c.close()
        except Exception as exc:  # closing must not hide the real error
            say(f"closing {c.name}: {exc}")


def main(results_dir: str | Path) -> dict:
    s = _settings()
    server = _server_url()
    db_url = _with_db(server, DB_NAME)
    started = time.perf_counter()

    say(f"creating database {DB_NAME} on {urlsplit(server).hostname}:{urlsplit(server).port}")
    _admin(
        server,
        f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)",
        f"CREATE DATABASE {DB_NAME}",
    )
    contenders: list = []
    try:
        _django_setup(db_url)
        _migrate(say)
        pg_version, server_settings = _pg_version(), _server_settings()
        contenders = [Ours(), Raw(db_url, create=True), EventSourcing(db_url)]
        modes = {
            mode: _measure_commit_mode(mode, server, db_url, contenders, s) for mode in s["modes"]
        }
    finally:
        _close(contenders)
        _drop_database(server, DB_NAME, s["keep_db"], say)

    goal_mode = GOAL_MODE if GOAL_MODE in modes else next(iter(modes))
    result = {
        **stack.result_header("eventstore", TITLE, started),
        "params": {k: s[k] for k in PARAMS},
        "environment": {
            "versions": stack.versions(*VERSIONS),
            "postgres": pg_version,
            "server_settings": server_settings,
            "server": stack.server_address(server),
            "cpus": os.cpu_count(),
            "machine": stack.machine(),
            "django_debug": False,
        },
        "contenders": {c.name: c.how for c in (Ours, Raw, EventSourcing)},
        "raw_table": [" ".join(sql.split()) for sql in RAW_DDL],
        "goals_mode": goal_mode,
        "goals": modes[goal_mode]["goals"],
        "modes": modes,
    }
    for key, g in result["goals"].items():
        state = "met" if g["met"] else "MISSED"
        say(f"goal {key}: ours/x = {g['value']} (target >= {g['target']}) {state}")
    return result


# ---------------------------------------------------------------- markdown


def _fmt_rate(x: float) -> str:
    return f"{x:,.0f}"


def _fmt_goal(value: float | None, target: float) -> str:
    if value is None:
        return "–"
    mark = "met" if value >= target else "**missed**"
    return f"{value:.2f} (goal ≥ {target:g}: {mark})"


def _md_header(result: dict) -> list[str]:
    env, p = result["environment"], result["params"]
    v = env["versions"]
    return [
        f"**{result['title']}** — {p['events']} events per contender, interleaved in blocks "
        f"of {p['block']} after {p['warmup']} warm-up appends; the stream read back "
        f"{p['reads']}× (median). {result['finished_at']}, {env['postgres'].split(' on ')[0]} "
        f"(fsync {env['server_settings']['fsync']}, {env['server_settings']['wal_sync_method']}) "
        f"on {env['server']}, {env['cpus']} CPUs, Python {v['python']}, Django {v['Django']} "
        f"(DEBUG off), psycopg {v['psycopg']}, eventsourcing {v['eventsourcing']}.",
    ]


def _md_rates(modes: dict, goal_mode: str) -> list[str]:
    """Each mode's append and read rates, and ours against the others."""
    lines = [
        "",
        "| commit | op | ours (`eventlog.store`) ev/s | raw psycopg ev/s | eventsourcing ev/s "
        "| ours / raw | ours / eventsourcing |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    for mode, m in modes.items():
        commit = f"`synchronous_commit={m['synchronous_commit']}`"
        for op in ("append", "read"):
            res, rat = m[op], m["ratios"][op]
            cells = [_fmt_rate(res[c]["events_per_s"]) if c in res else "–" for c in CONTENDERS]
            vs = []
            for other in ("raw", "eventsourcing"):
                value = rat.get(f"ours/{other}")
                if op == "append" and mode == goal_mode and other == "raw":
                    vs.append(_fmt_goal(value, GOALS["append_vs_raw"]))
                else:
                    vs.append("–" if value is None else f"{value:.2f}")
            lines.append(f"| {commit} | {op} | " + " | ".join(cells + vs) + " |")
    return lines


def _md_latency(modes: dict) -> list[str]:
    lines = [
        "",
        "Append latency p50 / p99 (ms):",
        "",
        "| commit | " + " | ".join(LABELS[c] for c in CONTENDERS) + " |",
        "|---|" + "---:|" * len(CONTENDERS),
    ]
    for m in modes.values():
        cells = []
        for c in CONTENDERS:
            lat = m["append"].get(c, {}).get("latency_ms")
            cells.append(f"{lat['p50']:.2f} / {lat['p99']:.2f}" if lat else "–")
        lines.append(
            f"| `synchronous_commit={m['synchronous_commit']}` | " + " | ".join(cells) + " |"
        )
    return lines


def _md_concurrent(modes: dict, goal_mode: str) -> list[str]:
    """The concurrent writers' table, when they were measured."""
    conc = [m for m in modes.values() if "concurrent" in m]
    if not conc:
        return []
    c0 = conc[0]["concurrent"]
    lines = [
        "",
        f"{c0['writers']} concurrent writers (processes), each on its own stream, "
        f"{c0['events_per_writer']} appends each, one event per commit, "
        f"{c0['rounds']} rounds alternating who goes first (ev/s over each round's span):",
        "",
        "| commit | ours ev/s | raw psycopg ev/s | ours / raw |",
        "|---|---:|---:|---|",
    ]
    for mode, m in modes.items():
        if "concurrent" not in m:
            continue
        c = m["concurrent"]
        ratio = (
            _fmt_goal(c["ratio"], GOALS["concurrent_append_vs_raw"])
            if mode == goal_mode
            else f"{c['ratio']:.2f}"
        )
        lines.append(
            f"| `synchronous_commit={m['synchronous_commit']}` "
            f"| {_fmt_rate(c['append']['ours']['events_per_s'])} "
            f"| {_fmt_rate(c['append']['raw']['events_per_s'])} | {ratio} |"
        )
    return lines


def _md_goals(result: dict) -> list[str]:
    names = {
        "append_vs_raw": "one writer",
        "concurrent_append_vs_raw": "concurrent writers",
    }
    verdict = "; ".join(
        f"{names[key]}, ours ≥ {g['target']:g} × raw: "
        + ("met" if g["met"] else "**missed**")
        + f" ({g['value']:.2f}, {abs(g['value'] - g['target']):.2f} "
        + ("over" if g["met"] else "short")
        + ")"
        for key, g in result["goals"].items()
        if g["value"] is not None
    )
    judged = result["modes"][result["goals_mode"]]
    return [
        "",
        f"Goals, judged on `synchronous_commit={judged['synchronous_commit']}`: {verdict}.",
        "`synchronous_commit=off` is set on the bench database only, to show the "
        "client-side cost with the WAL flush out of the loop. The `on` rates follow the "
        "disk's flush latency at the time of the run (the slower the flush, the closer "
        "all three come to each other), so compare ratios from one run, not rates "
        "across runs. eventsourcing's recorder is a reference column (its 3 × goal was "
        "withdrawn).",
    ]


def markdown(result: dict) -> str:
    """The README table for one result."""
    modes, goal_mode = result["modes"], result["goals_mode"]
    lines = (
        _md_header(result)
        + _md_rates(modes, goal_mode)
        + _md_latency(modes)
        + _md_concurrent(modes, goal_mode)
        + _md_goals(result)
    )
    return "\n".join(lines)


def verdicts(result: dict) -> list[dict]:
    """The goals, judged on the goal mode's commits (bench/run.py's goals table)."""
    conc = result["modes"][result["goals_mode"]].get("concurrent") or {}
    names = {
        "append_vs_raw": "append, one writer",
        "concurrent_append_vs_raw": f"append, {conc.get('writers')} writers on as many streams",
    }
    return [
        stack.verdict(
            result,
            f"{names[key]}: ≥ {g['target']:g} × raw psycopg",
            f"{g['value']:.2f} ×",
            g["met"],
        )
        for key, g in result["goals"].items()
        if g["value"] is not None
    ]
