#!/usr/bin/env python
"""Moves over HTTP against moves over the match socket, side by side on the
production server (docker/entrypoint.sh's web role, bench/stack.py, as
bench_http_command runs it; loopback only). Not part of ``make bench`` yet:
a quick before/after for issue #42.

1. One match at a time: a bot pair plays SEQ_MOVES moves of Doubting Love
   Letter over HTTP (GET /legal untimed, then POST /commands timed) and then
   over ``ws/api/matches/<id>/`` (the push carries the legal commands; the
   command is timed from its send to its ack). Moves/s counts the whole loop
   (for the socket: the other seat's push included).
2. Many matches at once: MATCHES matches over HTTP (bench_http_command's
   client threads), then MATCHES other matches over their sockets (one
   asyncio client, two sockets a match), each SECONDS long: moves/s and the
   command's p50 (POST, or send to ack).

Environment: BENCH_SOCKET_SEQ_MOVES (150), BENCH_SOCKET_MATCHES (50),
BENCH_SOCKET_SECONDS (15), BENCH_HTTP_CLIENTS (8), and bench/stack.py's.
Prints one JSON object."""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

import bench_http_command as hc  # noqa: E402
import stack  # noqa: E402

NAME = "socket_moves"


def say(msg: str) -> None:
    stack.log(NAME, msg)


def http_sequential(port: int, ids: list[int], tokens: dict, moves: int) -> dict:
    api = stack.Api(port)
    rng = random.Random(1)
    took: list[float] = []
    began = time.perf_counter()
    seats = [hc.Seated(api, i, tokens) for i in ids]
    n = 0
    while n < moves and seats:
        match = seats[0]
        chosen = match.next_command(rng)
        if chosen is None:
            if match.finished:
                seats.pop(0)
            continue
        seat, command = chosen
        status, t = match.send(seat, command, f"h-{match.id}-{n}")
        if status in (200, 201):
            took.append(t)
            n += 1
    elapsed = time.perf_counter() - began
    api.close()
    return {"moves": n, "moves_per_s": round(n / elapsed, 1), "command_ms": stack.summary_ms(took)}


class SocketMatch:
    """A match played by its two seats' bots, each on its own JSON socket."""

    def __init__(self, port: int, match_id: int, tokens: dict[str, str], rng: random.Random):
        self.port, self.id, self.tokens, self.rng = port, match_id, tokens, rng
        self.took: list[float] = []
        self.sent: dict[str, float] = {}
        self.refused: dict[str, int] = {}
        self.finished = False
        self.chosen: dict[str, dict] = {}

    async def seat(self, seat: str, stop_at: float, limit: int | None) -> None:
        import websockets

        url = f"ws://127.0.0.1:{self.port}/ws/api/matches/{self.id}/"
        headers = {"Authorization": f"Token {self.tokens[seat]}"}
        async with websockets.connect(url, additional_headers=headers, max_size=2**22) as ws:
            await ws.send(json.dumps({"since": 0}))
            while time.perf_counter() < stop_at and not self.finished:
                if limit is not None and len(self.took) >= limit:
                    return
                try:
                    raw = await asyncio.wait_for(
                        ws.recv(), max(0.01, stop_at - time.perf_counter())
                    )
                except TimeoutError:
                    return
                msg = json.loads(raw)
                kind = msg.get("type")
                if kind == "update":
                    if msg["view"]["finished"]:
                        self.finished = True
                        return
                    legal = msg["legal"]
                    if legal["commands"]:
                        ident = f"s-{self.id}-{seat}-{legal['version']}"
                        self.sent[ident] = time.perf_counter()
                        command = self.chosen.setdefault(ident, self.rng.choice(legal["commands"]))
                        await ws.send(json.dumps({"command": command, "id": ident}))
                elif kind == "ack":
                    self.took.append(time.perf_counter() - self.sent.pop(msg["id"]))
                elif kind == "refused":
                    self.refused[msg["code"]] = self.refused.get(msg["code"], 0) + 1
                    await ws.send(json.dumps({"since": 0}))

    async def play(self, stop_at: float, limit: int | None = None) -> None:
        await asyncio.gather(*(self.seat(s, stop_at, limit) for s in self.tokens))


def socket_run(port: int, matches: list[SocketMatch], seconds: float, limit=None) -> dict:
    async def run():
        stop_at = time.perf_counter() + seconds
        began = time.perf_counter()
        await asyncio.gather(*(m.play(stop_at, limit) for m in matches))
        return time.perf_counter() - began

    elapsed = asyncio.run(run())
    took = [t for m in matches for t in m.took]
    refused: dict[str, int] = {}
    for m in matches:
        for code, n in m.refused.items():
            refused[code] = refused.get(code, 0) + n
    return {
        "moves": len(took),
        "seconds": round(elapsed, 1),
        "moves_per_s": round(len(took) / elapsed, 1),
        "command_ms": stack.summary_ms(took),
        "refused": refused,
    }


def main() -> dict:
    seq = stack.env_int("BENCH_SOCKET_SEQ_MOVES", 150, 10, 5000)
    k = stack.env_int("BENCH_SOCKET_MATCHES", 50, 1, 100)
    seconds = stack.env_float("BENCH_SOCKET_SECONDS", 15, 2, 300)
    s = {
        "matches": 2 * k,
        "clients": stack.env_int("BENCH_HTTP_CLIENTS", 8, 1, 64),
        "seconds": seconds,
    }
    port = stack.web_ports()[0]
    st = stack.Stack(
        NAME,
        API_COMMAND_BURST_RATE="100000/s",
        API_COMMAND_SUSTAINED_RATE="1000000/min",
        API_COMMAND_ADDRESS_RATE="1000000/min",
    )
    ok = False
    try:
        st.up()
        users, ids = hc._prepare(st, s)
        st.web([port], 2)
        lat = {hc.SEATS[0]: users["lat_a"]["token"], hc.SEATS[1]: users["lat_b"]["token"]}
        out = {"params": {"seq_moves": seq, "matches": k, "seconds": seconds}}
        out["one_at_a_time_http"] = http_sequential(port, ids[:3], lat, seq)
        say(f"one at a time, HTTP: {out['one_at_a_time_http']}")
        one = [SocketMatch(port, i, lat, random.Random(i)) for i in ids[3:6]]
        runs = []
        for m in one:  # one after the other until seq moves
            done = sum(len(x.took) for x in one)
            if done >= seq:
                break
            runs.append(socket_run(port, [m], 120, limit=seq - done))
        moves = sum(r["moves"] for r in runs)
        elapsed = sum(r["seconds"] for r in runs)
        out["one_at_a_time_socket"] = {
            "moves": moves,
            "moves_per_s": round(moves / elapsed, 1),
            "command_ms": stack.summary_ms([t for m in one for t in m.took]),
        }
        say(f"one at a time, socket: {out['one_at_a_time_socket']}")
        http = hc._throughput(port, ids[6 : 6 + k], users, s)
        out["many_http"] = {
            "matches": k,
            "moves": http["commands_written"],
            "moves_per_s": http["commands_per_s"],
            "command_ms": http["command_ms"],
        }
        say(f"{k} matches, HTTP: {out['many_http']}")
        many = []
        for j in range(k):
            i = k + j  # the matches after the HTTP run's, with their own players
            tokens = {
                hc.SEATS[0]: users[f"p{2 * i}"]["token"],
                hc.SEATS[1]: users[f"p{2 * i + 1}"]["token"],
            }
            many.append(SocketMatch(port, ids[6 + i], tokens, random.Random(i)))
        out["many_socket"] = {"matches": k, **socket_run(port, many, seconds)}
        say(f"{k} matches, socket: {out['many_socket']}")
        ok = True
        return out
    finally:
        st.down(ok)


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
