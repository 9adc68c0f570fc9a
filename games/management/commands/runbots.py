"""Play the caller's seats of open matches through the HTTP API, as any
script would: list my live matches, ask each for the legal commands, send
one. Bounded in moves and in time."""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request

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


def play(api, *, max_moves: int, seconds: float, rng: random.Random, poll_s: float = 0.5, log=None):
    """Move until ``max_moves`` moves are made or ``seconds`` pass. Returns the moves made."""
    deadline, moves = time.monotonic() + seconds, 0
    while moves < max_moves and time.monotonic() < deadline:
        status, matches = api.get("/api/matches/?mine=1")
        if status != 200:
            raise CommandError(f"listing my matches failed ({status}): {matches}")
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


class Command(BaseCommand):
    help = "Play the token's seats of open matches through the HTTP API (random legal moves)."

    def add_arguments(self, parser):
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument("--token", required=True, help="an API token of the bots' account")
        parser.add_argument("--max-moves", type=int, default=10_000)
        parser.add_argument("--seconds", type=float, default=600.0)
        parser.add_argument("--poll", type=float, default=0.5, help="wait when nothing to do")
        parser.add_argument("--seed", type=int, default=None)

    def handle(self, *args, url, token, max_moves, seconds, poll, seed, **kw):
        api = Api(url, token)
        moves = play(
            api,
            max_moves=max_moves,
            seconds=seconds,
            rng=random.Random(seed),
            poll_s=poll,
            log=self.stdout.write if kw.get("verbosity", 1) > 1 else None,
        )
        self.stdout.write(f"{moves} moves made")
