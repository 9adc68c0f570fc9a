"""The shows part of the growth benchmark (bench_growth.py): does a show
command cost more as the show's log grows, in the process that wrote last
(warm) and in another one (cold)?

Two worker processes (this file run as ``worker``), each with its own
Django, database connection and in-process caches, share the database and a
private redis-server (the ``states`` cache, as in production). A show is a
moderator's command, ``show_services.command`` (load, decide, append, the
read models and the show's reconciliation in its transaction): an item handed
from one entrant to another, so that the show's state keeps its size and only
its log grows. One show is grown to about BENCH_GROWTH_SHOW_SHORT events (60),
one to BENCH_GROWTH_SHOW_LONG (1,600), untimed; then, BENCH_GROWTH_SHOW_ROUNDS
times (20), each worker in turn makes two commands on each show, the shows
taking turns: its first is cold (the other worker wrote last), its second
warm. The workers read and write only through the services, so the same file
measures any tree."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
MODERATOR = "mia"
ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay", "gus", "hal"]


# ---- in a worker -------------------------------------------------------------------
def _setup(db_url: str, redis_url: str) -> None:
    for p in (ROOT / "platform", ROOT):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ.update(DATABASE_URL=db_url, REDIS_URL=redis_url, DJANGO_DEBUG="0")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def _moderator():
    from tournaments import show_services as ss
    from tournaments import shows

    return ss.Acting(MODERATOR, shows.MODERATOR)


def _create(events: int) -> dict:
    """A show grown to ``events`` by an item handed to and fro (untimed)."""
    from django.contrib.auth.models import User

    from eventlog.store import stream_version
    from tournaments import show_services as ss
    from tournaments import shows

    for name in ("olga", MODERATOR):
        User.objects.get_or_create(username=name)
    stream = ss.create_show(
        name="Growth", organizer="olga", entrants=ENTRANTS, options={"step_deadline_s": 0}
    )
    organizer = ss.Acting("olga", shows.ORGANIZER)
    ss.command(stream, {"type": "appoint_moderator", "username": MODERATOR}, organizer)
    grant = {"type": "grant_item", "entrant": "ana", "item": "plus_one", "given_by": MODERATOR}
    ss.command(stream, grant, _moderator())
    item = next(iter(ss.load(stream)[0].items))
    holder, other = "ana", "ben"
    while stream_version(stream) < events:
        _transfer(stream, item, holder, other)
        holder, other = other, holder
    return {"stream": stream, "item": item, "holder": holder, "events": stream_version(stream)}


def _transfer(stream: str, item: str, src: str, dst: str) -> None:
    from tournaments import show_services as ss

    cmd = {"type": "transfer_item", "item_id": item, "from": src, "to": dst}
    ss.command(stream, cmd, _moderator())


def _timed(stream: str, item: str, src: str, dst: str) -> int:
    t = time.perf_counter_ns()
    _transfer(stream, item, src, dst)
    return time.perf_counter_ns() - t


def worker(db_url: str, redis_url: str) -> None:
    """Answer the parent's requests, one JSON line each, until stdin ends
    (whatever else prints goes to stderr)."""
    answers, sys.stdout = sys.stdout, sys.stderr
    _setup(db_url, redis_url)
    for line in sys.stdin:
        ask = json.loads(line)
        if ask["do"] == "create":
            out = _create(ask["events"])
        else:
            out = {"ns": _timed(ask["stream"], ask["item"], ask["from"], ask["to"])}
        print(json.dumps(out), file=answers, flush=True)


# ---- in the benchmark's process ------------------------------------------------------
class _Worker:
    def __init__(self, db_url: str, redis_url: str):
        self.proc = subprocess.Popen(
            [sys.executable, __file__, "worker", db_url, redis_url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=ROOT,
        )

    def ask(self, **request) -> dict:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError(f"a show worker ended (exit {self.proc.wait()})")
        return json.loads(line)

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run(db_url: str, sizes: dict[str, int], rounds: int, redis_port: int, log) -> dict:
    """Grow a show to each size, time its commands cold and warm from two
    processes; the p50s and how many."""
    import prod_check  # the private redis-server of the production check

    with tempfile.TemporaryDirectory(prefix="growth-redis-") as workdir:
        redis = prod_check.Redis(Path(workdir), redis_port)
        redis.start()
        workers = []
        try:
            redis_url = f"redis://127.0.0.1:{redis_port}/0"
            workers = [_Worker(db_url, redis_url) for _ in range(2)]
            return _measure(workers, sizes, rounds, log)
        finally:
            for w in workers:
                w.close()
            redis.stop()


def _measure(workers: list[_Worker], sizes: dict[str, int], rounds: int, log) -> dict:
    shows = {}
    for label, events in sizes.items():
        shows[label] = workers[0].ask(do="create", events=events)
        log(f"show {label} grown to {shows[label]['events']} events")
    timed = {label: {"cold": [], "warm": []} for label in sizes}
    for i in range(rounds):
        for w in workers[::-1]:  # the creator wrote last: each turn follows the other's
            for label in sizes if i % 2 == 0 else list(sizes)[::-1]:
                s = shows[label]
                for kind in ("cold", "warm"):  # another process wrote last, then this one
                    src, dst = s["holder"], "ben" if s["holder"] == "ana" else "ana"
                    route = {"from": src, "to": dst}
                    ns = w.ask(do="command", stream=s["stream"], item=s["item"], **route)
                    s["holder"] = dst
                    timed[label][kind].append(ns["ns"])
    log(f"{rounds} rounds of cold and warm commands timed on each show")
    return {label: {"events": shows[label]["events"], **timed[label]} for label in sizes}


if __name__ == "__main__" and sys.argv[1:2] == ["worker"]:
    worker(sys.argv[2], sys.argv[3])
