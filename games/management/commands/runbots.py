"""Play the caller's seats of open matches through the API, as any script
would: list my live matches, then on each match's JSON socket
(ws/api/matches/<id>/, docs/api/index.md) answer every push that holds legal
commands with one of them; or (``--over http``) ask each match for its
legal commands and POST one. Bounded in moves and in time."""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.error
import urllib.request

import websockets
from django.core.management.base import BaseCommand, CommandError


class Api:
    """The API over HTTP with a token (urllib only)."""

    def __init__(self, url: str, token: str, timeout: float = 10):
        self.url, self.timeout = url.rstrip("/"), timeout
        self.headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path, data=data, headers=self.headers, method=method
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as resp:  # noqa: S310
                return resp.status, json.loads(resp.read() or b"null")
        except urllib.error.HTTPError as exc:
            try:
                return exc.code, json.loads(exc.read() or b"null")
            except ValueError:
                return exc.code, None

    def get(self, path):
        return self.call("GET", path)

    def post(self, path, body):
        return self.call("POST", path, body)


def play(
    api,
    *,
    max_moves: int,
    seconds: float,
    rng: random.Random,
    poll_s: float = 0.5,
    log=None,
    until_done: bool = False,
):
    """Move until ``max_moves`` moves are made or ``seconds`` pass (or, with
    ``until_done``, no match of the token's is live). Returns the moves made."""
    deadline, moves = time.monotonic() + seconds, 0
    while moves < max_moves and time.monotonic() < deadline:
        status, matches = api.get("/api/matches/?mine=1")
        if status != 200:
            raise CommandError(f"listing my matches failed ({status}): {matches}")
        if until_done and not matches:
            break
        moved = False
        for m in matches:
            status, legal = api.get(f"/api/matches/{m['id']}/legal")
            if status != 200 or not legal["commands"]:
                continue
            command = rng.choice(legal["commands"])
            status, answer = api.post(
                f"/api/matches/{m['id']}/commands",
                {
                    "command": command,
                    "command_id": f"bot-{m['id']}-{legal['seat']}-{legal['version']}",
                },
            )
            if status == 201:
                moves, moved = moves + 1, True
                if log:
                    log(f"match {m['id']} ({legal['seat']}): {command}")
            elif status not in (409, 422, 429):  # the match moved on, or slow down: retry later
                raise CommandError(f"match {m['id']}: {status} {answer}")
            if moves >= max_moves:
                break
        if not moved:
            time.sleep(poll_s)
    return moves


class Sockets:
    """The caller's matches, each played on its JSON socket (one task each)."""

    def __init__(
        self,
        api: Api,
        token: str,
        *,
        max_moves: int,
        rng: random.Random,
        log=None,
        until_done: bool = False,
    ):
        self.api, self.token, self.rng, self.log = api, token, rng, log
        self.until_done = until_done
        self.max_moves, self.moves = max_moves, 0
        self.playing: dict[int, asyncio.Task] = {}
        self.failed: list[str] = []
        self.chosen: dict[str, dict] = {}  # command id -> the move sent with it
        self.tries: dict[str, int] = {}  # a version's id -> its moves refused by a rule
        self.base_of: dict[str, str] = {}  # a command id sent -> its version's id
        self.acked: set[str] = set()

    def socket_url(self, match_id: int) -> str:
        base = "ws" + self.api.url.removeprefix("http")  # http -> ws, https -> wss
        return f"{base}/ws/api/matches/{match_id}/"

    async def run(self, seconds: float, poll_s: float) -> int:
        deadline = time.monotonic() + seconds
        try:
            while self.moves < self.max_moves and time.monotonic() < deadline:
                status, matches = await asyncio.to_thread(self.api.get, "/api/matches/?mine=1")
                if status != 200:
                    raise CommandError(f"listing my matches failed ({status}): {matches}")
                if self.until_done and not matches:  # none live: each played to its end
                    await asyncio.gather(*self.playing.values(), return_exceptions=True)
                    break
                for m in matches:
                    if m["id"] not in self.playing or self.playing[m["id"]].done():
                        self.playing[m["id"]] = asyncio.create_task(self.play(m["id"]))
                if self.failed:
                    raise CommandError(self.failed[0])
                await asyncio.sleep(min(max(poll_s, 0.01), max(0.0, deadline - time.monotonic())))
        finally:
            for task in self.playing.values():
                task.cancel()
            await asyncio.gather(*self.playing.values(), return_exceptions=True)
        return self.moves

    async def play(self, match_id: int) -> None:
        auth = {"Authorization": f"Token {self.token}"}
        async with websockets.connect(self.socket_url(match_id), additional_headers=auth) as ws:
            await ws.send(json.dumps({"since": 0}))
            async for raw in ws:
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "update":
                    if msg["view"]["finished"]:
                        return
                    legal = msg["legal"]
                    if legal["commands"] and self.moves < self.max_moves:
                        base = f"bot-{match_id}-{legal['seat']}-{legal['version']}"
                        tries = self.tries.get(base, 0)
                        ident = f"{base}-{tries}" if tries else base
                        self.base_of[ident] = base
                        # the same version again (slowed down, the socket lost): the
                        # same move under the same id, a retry written once
                        command = self.chosen.setdefault(ident, self.rng.choice(legal["commands"]))
                        await ws.send(json.dumps({"command": command, "id": ident}))
                        if self.log:
                            self.log(f"match {match_id} ({legal['seat']}): {command}")
                elif kind == "ack" and msg["id"] not in self.acked:  # a retry's ack counts once
                    self.acked.add(msg["id"])
                    self.moves += 1
                elif kind == "refused":
                    base = self.base_of.get(msg.get("id"))
                    if msg["code"] == "rule" and base:  # another move next time, another id
                        self.tries[base] = self.tries.get(base, 0) + 1
                    if msg["code"] not in ("rule", "conflict", "throttled"):
                        self.failed.append(f"match {match_id}: {msg['code']} {msg['message']}")
                        return
                    # the match moved on, or slow down: the table again, then a move
                    await asyncio.sleep(msg.get("retry_after", 0))
                    await ws.send(json.dumps({"since": 0}))


class Command(BaseCommand):
    help = (
        "Play the token's seats of open matches over the API's match sockets "
        "(or --over http: its HTTP endpoints), with random legal moves."
    )

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--token", required=True, help="an API token of the bots' account")
        parser.add_argument("--max-moves", type=int, default=10_000)
        parser.add_argument("--seconds", type=float, default=600.0)
        parser.add_argument("--poll", type=float, default=0.5, help="wait when nothing to do")
        parser.add_argument("--seed", type=int, default=None)
        parser.add_argument(
            "--until-done",
            action="store_true",
            help="stop once none of the token's matches is live (else at --seconds)",
        )
        parser.add_argument(
            "--over",
            choices=["socket", "http"],
            default="socket",
            help="socket: each match's JSON socket (default); http: GET /legal, POST /commands",
        )

    def handle(self, *args, url, token, max_moves, seconds, poll, seed, over="socket", **kw):
        api = Api(url, token)
        log = self.stdout.write if kw.get("verbosity", 1) > 1 else None
        rng = random.Random(seed)
        until_done = bool(kw.get("until_done"))
        if over == "http":
            moves = play(
                api,
                max_moves=max_moves,
                seconds=seconds,
                rng=rng,
                poll_s=poll,
                log=log,
                until_done=until_done,
            )
        else:
            sockets = Sockets(
                api, token, max_moves=max_moves, rng=rng, log=log, until_done=until_done
            )
            moves = asyncio.run(sockets.run(seconds, poll))
        self.stdout.write(f"{moves} moves made")
