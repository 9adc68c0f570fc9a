#!/usr/bin/env python
"""CPU per move of the web process's socket path, in one process, for
before/after comparisons of issue #42's web CPU (not part of ``make bench``).

Two bots play Love Letter (first to 5, as bench_peer makes its matches) over their JSON
match sockets (``ws/api/matches/<id>/``, an API token each) through the
project's ASGI application in this process (channels' WebsocketCommunicator,
the in-memory channel layer), configured as the web role runs it: DEBUG off,
no inline reactors (the mover's process announces the version), the socket
work on the pool's threads, a pool of database connections, the caches and
rate-limit windows in Redis when REDIS_URL is set (else in memory). Each move
is the command's send, its ack and both seats' pushes of the new version.
After WARMUP moves, MOVES moves are measured: the process's CPU time
(``time.process_time``: every thread, the in-process driver's share included)
and the wall time per move, and the p50 and p90 of a command's send to its
ack. With ``--profile`` (or BENCH_SOCKET_CPU_PROFILE=1) the measured moves
run under cProfile on every thread (its clock: each thread's CPU time,
time.thread_time), and the top functions by own time and by cumulated time
are printed (profiled times are inflated: compare CPU figures of runs without
it).

Environment: BENCH_SOCKET_CPU_MOVES (300), BENCH_SOCKET_CPU_WARMUP (30),
BENCH_SOCKET_CPU_TOP (25), BENCH_SOCKET_CPU_STATS (a file for the merged
profile, read with ``python -m pstats``), BENCH_PG (the server; loopback only), REDIS_URL,
BENCH_SOCKET_CPU_POOL_CHECK=0 (no health check of a
connection taken from the pool: an empty statement each), BENCH_DB_PREFIX, BENCH_KEEP_DB=1 (keep the database, migrated once, between
runs). Prints one JSON object last."""

from __future__ import annotations

import asyncio
import cProfile
import io
import json
import os
import pstats
import random
import statistics
import sys
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import stack  # noqa: E402  (env helpers, the loopback check)

NAME = "socket_cpu"


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _setup(db_url: str) -> None:
    for p in (ROOT / "platform", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ.update(
        DATABASE_URL=db_url,
        DJANGO_DEBUG="0",
        DJANGO_SETTINGS_MODULE="config.settings",
        REACTORS_INLINE="0",  # the web role's (docker/entrypoint.sh)
        DB_POOL_SIZE=os.environ.get("DB_POOL_SIZE", "8"),
        DB_CONN_MAX_AGE="0",
        # the limits are checked on every move, never reached (as socket_moves sets them)
        API_COMMAND_BURST_RATE="100000/s",
        API_COMMAND_SUSTAINED_RATE="1000000/min",
        API_COMMAND_ADDRESS_RATE="1000000/min",
        LOG_LEVEL=os.environ.get("LOG_LEVEL", "WARNING"),
    )
    os.environ.setdefault("DJANGO_SECRET_KEY", "bench-only-not-a-secret-" + "b" * 30)
    os.environ.setdefault("DJANGO_ALLOWED_HOSTS", "localhost,127.0.0.1")
    import django
    from django.conf import settings

    django.setup()
    # in memory: this process's own CPU, not a layer's round trips
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    settings.LIVE_SOCKET_THREADS = True
    if os.environ.get("BENCH_SOCKET_CPU_POOL_CHECK") == "0":  # what the pool's check costs
        settings.DATABASES["default"]["CONN_HEALTH_CHECKS"] = False


def _database() -> tuple[str, str, bool]:
    import psycopg

    admin = stack.admin_url()
    name = os.environ.get("BENCH_DB_PREFIX", "gameshow_bench_") + NAME
    keep = os.environ.get("BENCH_KEEP_DB") == "1"
    with psycopg.connect(admin, autocommit=True, connect_timeout=10) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if exists and not keep:
            conn.execute(f"DROP DATABASE {name} WITH (FORCE)")
        if not exists or not keep:
            conn.execute(f"CREATE DATABASE {name}")
    return admin, name, keep


def _match(n: int):
    from django.contrib.auth.models import User

    from api.models import ApiToken
    from games import services

    ana = User.objects.create_user(f"cpu_a{n}_{random.randrange(10**9)}")
    ben = User.objects.create_user(f"cpu_b{n}_{random.randrange(10**9)}")
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"first_to": 5, "decision_s": 600, "ready_check_s": 0},  # as bench_peer
        holders={"ana": ana.pk, "ben": ben.pk},
        title="socket cpu",
        rng=random.Random(n),
    )
    return match.pk, {"ana": ApiToken.issue(ana, "bot")[1], "ben": ApiToken.issue(ben, "bot")[1]}


class Bots:
    """Two seats' sockets on one match; ``move()`` plays one move."""

    def __init__(self, pk: int, secrets: dict[str, str], rng: random.Random, acks: list):
        from channels.testing import WebsocketCommunicator

        from config.asgi import application

        self.pk, self.rng, self.n = pk, rng, 0
        self.sockets = {
            seat: WebsocketCommunicator(
                application,
                f"/ws/api/matches/{pk}/",
                headers=[(b"host", b"localhost"), (b"authorization", b"Token " + s.encode())],
            )
            for seat, s in secrets.items()
        }
        self.last: dict[str, dict] = {}
        self.acks = acks  # each command's send to its ack, seconds

    async def open(self) -> None:
        for seat, comm in self.sockets.items():
            connected, _ = await comm.connect(timeout=10)
            assert connected, "socket refused"
            await comm.send_json_to({"since": 0})
            self.last[seat] = await comm.receive_json_from(timeout=10)

    async def move(self) -> bool:
        """One move and both seats' pushes of it; False once the match is over."""
        movers = [s for s in self.last if self.last[s]["legal"]["commands"]]
        if not movers or self.last[movers[0]]["view"]["finished"]:
            return False
        seat = movers[0]
        self.n += 1
        ident = f"m-{self.pk}-{self.n}"
        command = self.rng.choice(self.last[seat]["legal"]["commands"])
        sent = time.perf_counter()
        await self.sockets[seat].send_json_to({"command": command, "id": ident})
        version = None
        while version is None:
            msg = await self.sockets[seat].receive_json_from(timeout=10)
            if msg.get("type") == "ack":
                version = msg["version"]
                self.acks.append(time.perf_counter() - sent)
            elif msg.get("type") == "refused":
                raise RuntimeError(f"refused: {msg}")
            elif msg.get("type") == "update":
                self.last[seat] = msg
        for s, comm in self.sockets.items():
            while self.last[s]["version"] < version:
                msg = await comm.receive_json_from(timeout=10)
                if msg.get("type") == "update":
                    self.last[s] = msg
        return True

    async def close(self) -> None:
        for comm in self.sockets.values():
            await comm.disconnect()


class ThreadProfiles:
    """cProfile on every thread started once installed, and on this one from
    ``start()``: the pools' threads live for the whole run, so they are
    profiled from their start and their counts cleared at ``start()``."""

    def __init__(self):
        self.profiles: list[cProfile.Profile] = []
        self.on = True

    def _begin(self, *_):
        sys.setprofile(None)
        if self.on:
            p = cProfile.Profile(time.thread_time)
            self.profiles.append(p)
            p.enable()

    def install(self) -> None:  # before any thread of the pools starts
        threading.setprofile(self._begin)

    def start(self) -> None:
        for p in self.profiles:  # the warm-up's: the threads are idle now
            p.clear()
        self.main = cProfile.Profile(time.thread_time)  # the event loop's (and the driver's)
        self.profiles.append(self.main)
        self.main.enable()

    def report(self, top: int, dump: str = "") -> dict:
        self.on = False
        threading.setprofile(None)
        stats = None
        for p in self.profiles:
            p.disable()
            p.create_stats()
            if not p.stats:  # a thread idle all along
                continue
            stats = pstats.Stats(p) if stats is None else stats.add(p)
        if dump:  # for pstats' browser: python -m pstats <file>; the loop's thread alone too
            stats.dump_stats(dump)
            pstats.Stats(self.main).dump_stats(dump + ".loop")
        out = {}
        for key in ("tottime", "cumulative"):
            buf = io.StringIO()
            stats.stream = buf
            stats.sort_stats(key).print_stats(top)
            out[key] = buf.getvalue()
        return out


async def _play(moves: int, warmup: int, profiles: ThreadProfiles | None) -> dict:
    from asgiref.sync import sync_to_async

    n = 0
    bots = None
    acks: list[float] = []

    async def one() -> None:
        nonlocal bots, n
        while True:
            if bots is None:
                pk, secrets = await sync_to_async(_match, thread_sensitive=False)(n)
                bots = Bots(pk, secrets, random.Random(pk), acks)
                await bots.open()
            if await bots.move():
                return
            await bots.close()
            bots = None

    for _ in range(warmup):
        await one()
    if profiles is not None:
        profiles.start()
    acks.clear()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(moves):
        await one()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if bots is not None:
        await bots.close()
    return {
        "moves": moves,
        "cpu_ms_per_move": round(cpu * 1000 / moves, 3),
        "wall_ms_per_move": round(wall * 1000 / moves, 3),
        "ack_p50_ms": round(statistics.median(acks) * 1000, 3),
        "ack_p90_ms": round(statistics.quantiles(acks, n=10)[-1] * 1000, 3),
    }


def main() -> dict:
    profile = "--profile" in sys.argv or os.environ.get("BENCH_SOCKET_CPU_PROFILE") == "1"
    moves = stack.env_int("BENCH_SOCKET_CPU_MOVES", 300, 10, 100_000)
    warmup = stack.env_int("BENCH_SOCKET_CPU_WARMUP", 30, 1, 10_000)
    top = stack.env_int("BENCH_SOCKET_CPU_TOP", 25, 5, 200)
    admin, name, keep = _database()
    profiles = ThreadProfiles() if profile else None
    if profiles is not None:
        profiles.install()
    _setup(stack.with_db(admin, name))
    from django.core.management import call_command
    from django.db import connections

    say(f"migrating {name}")
    call_command("migrate", interactive=False, verbosity=0)
    load = os.getloadavg()[0]
    result = asyncio.run(_play(moves, warmup, profiles))
    result.update(
        profiled=profile,
        redis=bool(os.environ.get("REDIS_URL")),
        load_before=round(load, 2),
        load_after=round(os.getloadavg()[0], 2),
    )
    if profiles is not None:
        dump = os.environ.get("BENCH_SOCKET_CPU_STATS", "")
        for key, text in profiles.report(top, dump).items():
            print(f"---- top {top} by {key} ({moves} moves)\n{text}", file=sys.stderr)
    connections.close_all()
    if not keep:
        import psycopg

        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    return result


if __name__ == "__main__":
    print(json.dumps(main()))
