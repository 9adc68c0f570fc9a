"""Benchmark 6: a full show of 64 entrants, bots over HTTP and websockets, to a champion.

What production runs (bench/stack.py: docker/entrypoint.sh's ``web`` on two
loopback ports, two ``worker``s and ``beat``, PostgreSQL, a private Redis),
and a show driven entirely through the public API:

- the organizer (a token user with ``add_showrecord``) creates the show (64
  entrants, each held by a token user; death matches and the final first to 1;
  16 candidates a round; the game picked by the organizer from a pool of
  Doubting Love Letter, Love Letter and Love Me Not; no step deadlines; no
  spectator delay) and takes every organizer step over HTTP: the main-match
  ranking (two winners while four or more remain, else one), the game picks,
  extra rounds;
- each candidate nominates its death-match opponent over HTTP with its own
  token (a refusal, e.g. two candidates naming the same opponent at once, is
  retried on the fresh show);
- every match is played by a bot client (a pool of threads): ``/legal`` as
  the seat whose turn it is, then a random legal command, each seat with its
  own token; requests alternate between the two web ports;
- every match is watched by an anonymous websocket on ``/ws/matches/<pk>/``
  (asyncio, the ``websockets`` library), which must end holding the match's
  final version.

Reported: the show's duration to the champion, commands written (match and
show), HTTP requests by status (5xx must be 0), lost events (must be 0:
versions gapless in every stream and command ids unique, checked in the
database as prod-check checks them; plus websockets that never received
their match's last version).

``run_show(ports, users, ...)`` is the driver; it is written so that the HTTP
show driver of prod-check can replace it.

Environment: BENCH_SHOW64_ENTRANTS (64), BENCH_SHOW64_CLIENTS (16 player
threads), BENCH_SHOW64_LIMIT_S (300: the show's time limit), and
bench/stack.py's.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import prod_check  # noqa: E402  (its checks of the log)
import stack  # noqa: E402

NAME = "show64"
TITLE = "A show of 64 entrants, bots over HTTP and websockets, to a champion"
POOL = ["doubting-love-letter", "love-letter", "love-me-not"]
MAX_MATCH_COMMANDS = 2000  # a death match first to 1 takes a few dozen
STALL_S = 60.0  # a match with no progress this long is given up (and reported)


def say(msg: str) -> None:
    stack.log(NAME, msg)


def _settings() -> dict:
    return {
        "entrants": stack.env_int("BENCH_SHOW64_ENTRANTS", 64, 4, 256),
        "clients": stack.env_int("BENCH_SHOW64_CLIENTS", 16, 1, 64),
        "limit_s": stack.env_float("BENCH_SHOW64_LIMIT_S", 300, 10, 1200),
    }


class Counted:
    """HTTP calls alternating over the web ports, every answer's status counted."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self.lock = threading.Lock()
        self.statuses: dict[int, int] = {}
        self.errors: list[str] = []
        self.local = threading.local()
        self.turn = 0

    def call(self, method: str, path: str, body=None, token: str | None = None):
        apis = getattr(self.local, "apis", None)
        if apis is None:
            apis = self.local.apis = [stack.Api(p) for p in self.ports]
        with self.lock:
            self.turn += 1
            api = apis[self.turn % len(apis)]
        status, payload, took = api.call(method, path, body, token=token)
        with self.lock:
            self.statuses[status] = self.statuses.get(status, 0) + 1
            if status >= 500 or status == 0:
                self.errors.append(f"{status} {method} {path}: {str(payload)[:200]}")
        return status, payload


class Watchers:
    """One anonymous spectator websocket per match, on a loop of its own."""

    def __init__(self, ports: list[int]):
        self.ports = ports
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.seen: dict[int, list[int]] = {}
        self.errors: dict[int, str] = {}
        self.stop: dict[int, asyncio.Event] = {}

    def watch(self, match_id: int) -> None:
        self.seen[match_id] = []
        asyncio.run_coroutine_threadsafe(self._watch(match_id), self.loop)

    async def _watch(self, match_id: int) -> None:
        from websockets.asyncio.client import connect

        port = self.ports[match_id % len(self.ports)]
        self.stop[match_id] = asyncio.Event()
        try:
            async with connect(
                f"ws://127.0.0.1:{port}/ws/matches/{match_id}/",
                origin=f"https://127.0.0.1:{port}",
                open_timeout=30,
                ping_interval=None,
                max_size=2**22,
            ) as ws:
                await ws.send(json.dumps({"since": 0}))
                stop = asyncio.ensure_future(self.stop[match_id].wait())
                while not stop.done():
                    recv = asyncio.ensure_future(ws.recv())
                    await asyncio.wait({recv, stop}, return_when=asyncio.FIRST_COMPLETED)
                    if recv.done():
                        msg = json.loads(recv.result())
                        if "version" in msg:
                            self.seen[match_id].append(msg["version"])
                    else:
                        recv.cancel()
        except Exception as exc:
            if not self.stop[match_id].is_set():  # not our own closing
                self.errors[match_id] = f"{type(exc).__name__}: {exc}"

    def finish(self, match_id: int, version: int, grace_s: float = 10.0) -> bool:
        """Wait (bounded) until the socket holds ``version``, then close it."""
        until = time.time() + grace_s
        while time.time() < until and max(self.seen.get(match_id) or [0]) < version:
            if match_id in self.errors:
                break
            time.sleep(0.1)
        ev = self.stop.get(match_id)
        if ev is not None:
            self.loop.call_soon_threadsafe(ev.set)
        return max(self.seen.get(match_id) or [0]) >= version

    def close(self) -> None:
        async def cancel_all() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(cancel_all(), self.loop).result(timeout=15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)


def _organizer_command(view: dict, step: str, rng: random.Random) -> dict:
    if step == "add_round":
        return {"type": "add_round", "title": f"Round {len(view['rounds']) + 1}"}
    if step == "enter_ranking":
        live = [e["name"] for e in view["entrants"] if e["status"] == "active"]
        rng.shuffle(live)
        top = 2 if len(live) >= 4 else 1  # two winners: no token to give, no choice
        return {"type": "enter_ranking", "ranking": [live[:top]] + [[e] for e in live[top:]]}
    if step == "pick_game":
        rnd = next(r for r in view["rounds"] if r["status"] == "started")
        duel = next(d for d in rnd["duels"] if d["dmo"] and not d["game"])
        return {"type": "pick_game", "candidate": duel["candidate"], "game": rng.choice(POOL)}
    raise RuntimeError(f"an organizer step the driver does not know: {step}")


def _nomination(view: dict, candidate: str, rng: random.Random) -> dict:
    rnd = next(r for r in view["rounds"] if r["status"] == "started")
    taken = {d["dmo"] for d in rnd["duels"] if d["dmo"]}
    options = [
        e["name"]
        for e in view["entrants"]
        if e["status"] == "active"
        and e["name"] != candidate
        and e["name"] not in rnd["immune"]
        and e["name"] not in rnd["candidates"]
        and e["name"] not in taken
    ]
    return {"type": "nominate", "dmo": rng.choice(options)}


def _play(http: Counted, match_id: int, tokens: dict, seed: int, until: float) -> dict:
    """A bot plays every seat of one match to its end."""
    rng = random.Random(seed)
    written = refused = 0
    last_progress = time.time()
    view_token = next(iter(tokens.values()))
    version = 0
    for n in range(MAX_MATCH_COMMANDS):
        if time.time() > until or time.time() - last_progress > STALL_S:
            return {"finished": False, "written": written, "refused": refused, "version": version}
        status, view = http.call("GET", f"/api/matches/{match_id}/", token=view_token)
        if status != 200:
            time.sleep(0.2)
            continue
        version = view["version"]
        if view.get("finished"):
            return {"finished": True, "written": written, "refused": refused, "version": version}
        seats = [p["seat"] for p in view.get("pending") or [] if p["seat"] in tokens]
        moved = False
        for seat in seats:
            status, legal = http.call("GET", f"/api/matches/{match_id}/legal", token=tokens[seat])
            if status != 200 or not legal.get("commands"):
                continue
            status, _ = http.call(
                "POST",
                f"/api/matches/{match_id}/commands",
                {"command": rng.choice(legal["commands"]), "command_id": f"b{seed}-{n}"},
                token=tokens[seat],
            )
            if status == 201:
                written += 1
                moved = True
                last_progress = time.time()
            else:
                refused += 1
            break
        if not moved:
            time.sleep(0.1)  # nothing to do now (the clock, or the other side)
    return {"finished": False, "written": written, "refused": refused, "version": version}


class _ShowRun:
    """One show driven over HTTP: the organizer's and the candidates' steps
    taken, a bot client and a spectator socket for each match."""

    def __init__(self, ports: list[int], users: dict, limit_s: float, seed: int):
        self.rng = random.Random(seed)
        self.http = Counted(ports)
        self.watchers = Watchers(ports)
        self.users = users
        self.org = users["organizer"]["token"]
        self.limit_s = limit_s
        self.pk: int | None = None
        self.show_commands = self.show_refused = 0
        self.playing: dict[str, object] = {}  # match stream -> future
        self.results: dict[int, dict] = {}
        self.ids: dict[str, int] = {}
        self.champion = None
        self.rounds = 0

    def create(self, entrants: int) -> None:
        """The show, created by the organizer; its time limit starts now."""
        names = [f"e{i}" for i in range(entrants)]
        self.started = time.time()
        self.until = self.started + self.limit_s
        status, show = self.http.call(
            "POST",
            "/api/shows/",
            {
                "name": f"Bench show of {entrants}",
                "entrants": names,
                "holders": {n: self.users[n]["id"] for n in names},
                "options": {
                    "step_deadline_s": 0,
                    "death_match_first_to": 1,
                    "final_first_to": 1,
                    "spectator_delay_s": 0,
                    "candidates_per_round": 16,
                    "game_pool": POOL,
                },
            },
            token=self.org,
        )
        if status != 201:
            raise RuntimeError(f"creating the show answered {status}: {show}")
        self.pk = show["id"]

    def drive(self, pool: ThreadPoolExecutor) -> None:
        """Until the champion (or the time limit): take each pending step,
        start a bot on each new match, collect the finished ones."""
        for _ in range(100_000):
            if time.time() > self.until:
                break
            status, body = self.http.call("GET", f"/api/shows/{self.pk}/", token=self.org)
            if status != 200:
                time.sleep(0.5)
                continue
            view = body["show"]
            if view["status"] == "over":
                self.champion = view["champion"]
                break
            self.rounds = len(view["rounds"])
            if self._take_step(view):
                continue  # the show moved on: read it again
            self._start_matches(view, pool)
            for s, fut in list(self.playing.items()):
                if fut.done() and self.ids[s] not in self.results:
                    self._collect(s, fut.result())
            time.sleep(0.2)
        for s, fut in self.playing.items():
            if self.ids[s] not in self.results:
                self._collect(s, fut.result(timeout=max(1.0, self.until - time.time() + 30)))

    def _take_step(self, view: dict) -> bool:
        """The first pending step, taken (refusals counted); whether there was one."""
        for p in view["pending"]:
            if p["who"] == view["organizer"]:
                command = _organizer_command(view, p["step"], self.rng)
                token, entrant = self.org, None
            elif p["step"] == "nominate":
                command = _nomination(view, p["who"], self.rng)
                token, entrant = self.users[p["who"]]["token"], p["who"]
            else:
                raise RuntimeError(f"a step the driver does not take: {p}")
            body = {"command": command} | ({"entrant": entrant} if entrant else {})
            status, _ = self.http.call("POST", f"/api/shows/{self.pk}/commands", body, token=token)
            if status == 201:
                self.show_commands += 1
            else:
                self.show_refused += 1
            return True
        return False

    def _start_matches(self, view: dict, pool: ThreadPoolExecutor) -> None:
        """A bot and a watching socket for each match of the show not yet played."""
        seats_of = {
            d["match_stream"]: (d["candidate"], d["dmo"])
            for r in view["rounds"]
            for d in r["duels"]
            if d["match_stream"] and not d["winner"]
        }
        if view["final"] and view["final"]["match_stream"]:
            seats_of[view["final"]["match_stream"]] = tuple(view["final"]["players"])
        new = [s for s in seats_of if s not in self.playing]
        if any(s not in self.ids for s in new):
            status, rows = self.http.call("GET", "/api/matches/")
            if status == 200:
                self.ids.update({m["stream"]: m["id"] for m in rows})
        for s in new:
            if s not in self.ids:
                continue
            match_id = self.ids[s]
            tokens = {seat: self.users[seat]["token"] for seat in seats_of[s]}
            self.watchers.watch(match_id)
            self.playing[s] = pool.submit(_play, self.http, match_id, tokens, match_id, self.until)

    def _collect(self, stream: str, played: dict) -> None:
        """A match's bot result, with whether its socket got the last version."""
        match_id = self.ids[stream]
        self.results[match_id] = played
        played["socket_has_last"] = self.watchers.finish(match_id, played["version"])

    def report(self) -> dict:
        http, watchers, results = self.http, self.watchers, self.results
        server_errors = sum(n for c, n in http.statuses.items() if c >= 500 or c == 0)
        return {
            "show_id": self.pk,
            "champion": self.champion,
            "duration_s": round(time.time() - self.started, 1),
            "rounds": self.rounds,
            "matches": len(results),
            "matches_finished": sum(1 for r in results.values() if r["finished"]),
            "match_commands": sum(r["written"] for r in results.values()),
            "match_commands_refused": sum(r["refused"] for r in results.values()),
            "show_commands": self.show_commands,
            "show_commands_refused": self.show_refused,
            "requests": sum(http.statuses.values()),
            "statuses": {str(c): n for c, n in sorted(http.statuses.items())},
            "server_errors": server_errors,
            "server_error_samples": http.errors[:10],
            "sockets": len(watchers.seen),
            "socket_errors": len(watchers.errors),
            "socket_error_samples": list(watchers.errors.values())[:5],
            "sockets_missing_last_version": sum(
                1 for r in results.values() if not r.get("socket_has_last")
            ),
            "sockets_missing": {
                mid: {
                    "final_version": r["version"],
                    "seen": (watchers.seen.get(mid) or [])[-5:],
                    "error": watchers.errors.get(mid),
                }
                for mid, r in results.items()
                if not r.get("socket_has_last")
            },
        }


def run_show(ports: list[int], users: dict, *, entrants: int, clients: int, limit_s: float,
             seed: int = 64) -> dict:  # fmt: skip
    """Create a show of ``entrants`` over HTTP and drive it to its champion.
    ``users``: username -> {"id", "token"}, with "organizer" and e0, e1, ..."""
    show = _ShowRun(ports, users, limit_s, seed)
    show.create(entrants)
    pool = ThreadPoolExecutor(max_workers=clients)
    try:
        show.drive(pool)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        show.watchers.close()
    return show.report()


def _check_log(st: stack.Stack) -> dict:
    import psycopg

    with psycopg.connect(st.db_url, autocommit=True) as conn:
        failures = prod_check.check_log(conn)
        events, streams = conn.execute(
            "SELECT count(*), count(DISTINCT stream) FROM eventlog_storedevent"
        ).fetchone()
    return {"events": events, "streams": streams, "failures": failures[:20], "lost": len(failures)}


def main(results_dir) -> dict:
    s = _settings()
    ports = stack.web_ports()[:2]
    stack.raise_fd_limit(4096)
    st = stack.Stack(NAME)
    started = time.perf_counter()
    ok = False
    try:
        st.up()
        users = st.django(
            stack.users_code(
                [("organizer", ["add_showrecord"])] + [(f"e{i}", []) for i in range(s["entrants"])]
            )
        )
        took = st.web(ports, 2)
        st.workers(2, beat=True)
        say(f"2 web servers (2 uvicorn workers each), 2 workers and beat; healthy in {took:.1f} s")
        env = stack.environment(st)
        show = run_show(
            ports, users, entrants=s["entrants"], clients=s["clients"], limit_s=s["limit_s"]
        )
        checked = _check_log(st)
        say(
            f"champion {show['champion']} after {show['duration_s']} s: {show['matches']} matches, "
            f"{show['match_commands']} match commands + {show['show_commands']} show commands, "
            f"{show['requests']} requests {show['statuses']}; log: {checked['events']} events, "
            f"{checked['lost']} problems; sockets missing their last version "
            f"{show['sockets_missing_last_version']}"
        )
        ok = True
    finally:
        st.down(ok)
    goal_met = (
        show["champion"] is not None
        and show["server_errors"] == 0
        and checked["lost"] == 0
        and show["sockets_missing_last_version"] == 0
    )
    return {
        **stack.result_header(NAME, TITLE, started),
        "params": {**s, "game_pool": POOL, "ports": len(ports)},
        "environment": stack.environment_after(env),
        "show": show,
        "log": checked,
        "goal": {"server_errors": 0, "lost_events": 0, "met": goal_met},
    }


def markdown(r: dict) -> str:
    sh, lg, env, p = r["show"], r["log"], r["environment"], r["params"]
    verdict = "met" if r["goal"]["met"] else "**missed**"
    return "\n".join(
        [
            f"**{r['title']}** — {p['entrants']} entrants held by token users, the organizer's "
            "steps, the nominations and every move over HTTP (two `docker/entrypoint.sh web` "
            "servers, 2 uvicorn workers each, requests alternating), two Celery workers and "
            f"beat; {p['clients']} bot threads; one spectator websocket per match. "
            f"{r['finished_at']}, {env['postgres']}, {env['cpus']} CPUs (load "
            f"{env['load_before']} before, {env['load_after']} after: other work shared the "
            "machine).",
            "",
            "| champion | duration | rounds | matches | commands (match + show) | requests "
            "| 5xx / no answer | lost events | sockets without the last version |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
            f"| {sh['champion'] or 'none'} | {sh['duration_s']} s | {sh['rounds']} "
            f"| {sh['matches_finished']}/{sh['matches']} "
            f"| {sh['match_commands']:,} + {sh['show_commands']} | {sh['requests']:,} "
            f"| {sh['server_errors']} | {lg['lost']} | {sh['sockets_missing_last_version']} |",
            "",
            f"Goal (a champion, 0 5xx, 0 lost events): {verdict}. Lost events = streams whose "
            "versions are not gapless or command ids written twice, checked in the database "
            f"({lg['events']:,} events in {lg['streams']} streams), as prod-check does. "
            f"Statuses: {sh['statuses']}.",
        ]
    )


def verdicts(r: dict) -> list[dict]:
    """The goal as bench/run.py's goals table reads it."""
    sh = r["show"]
    return [
        stack.verdict(
            r,
            f"a show of {r['params']['entrants']} entrants to a champion: 0 5xx, 0 lost "
            "events, every socket at the last version",
            f"{sh['champion'] or 'no champion'} in {sh['duration_s']} s; {sh['server_errors']} "
            f"5xx, {r['log']['lost']} lost, {sh['sockets_missing_last_version']} sockets behind",
            r["goal"]["met"],
        )
    ]
