"""What a move made over the JSON match socket costs the server, counted
(tests/helpers/move_cost.py), not timed: PostgreSQL statements and
transactions, Redis round trips, Celery publishes and channel-layer calls,
from the command's send to its ack and both seats' pushes of the new
version, on a live two-player Love Letter match as the peer benchmark plays
it (production's web role: no inline reactors). The bounds are what a move
costs now (docs/architecture/live.md says so): a change that adds a round
trip per move fails here, whatever the machine's load. MOVE_COST_REPORT=1
prints the breakdown by kind and caller."""

import asyncio
import copy
import json
import os
import random
import uuid

import pytest
from asgiref.sync import async_to_sync
from channels.layers import channel_layers
from channels.testing import WebsocketCommunicator

from api.models import ApiToken
from config.asgi import application
from games import services
from live import publisher
from tests.helpers.move_cost import Census
from tests.helpers.sockets import users

pytestmark = pytest.mark.usefixtures("live_db")

MOVES = 12
# what a move costs now, at most (each change that cut it lowered its line)
BUDGET = {
    "pg_round_trips": 2,
    # the read's, the append's, and its NOTIFY's own (sent with it: no round trip)
    "pg_transactions": 3,
    "redis_round_trips": 3,
    "celery_publishes": 0,
    "group_send": 1,
}


def bot_socket(match_pk, secret: str) -> WebsocketCommunicator:
    headers = [(b"host", b"localhost"), (b"authorization", b"Token " + secret.encode())]
    return WebsocketCommunicator(application, f"/ws/api/matches/{match_pk}/", headers=headers)


def love_letter(ana, ben):
    """As bench/bench_peer.py makes its matches."""
    return services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"first_to": 5, "decision_s": 600, "ready_check_s": 0},
        holders={"ana": ana.pk, "ben": ben.pk},
        title="census",
        rng=random.Random(3),
    )


async def _next(comm) -> dict:
    return await comm.receive_json_from(timeout=10)


def played(moves: int = MOVES) -> tuple[list, int, dict]:
    """``moves`` moves over the two bots' sockets, each counted on its own:
    (each move's Counts, the moves made, the match's last pushes)."""
    ana, ben = users("ana_c", "ben_c")
    match = love_letter(ana, ben)
    secrets = {"ana": ApiToken.issue(ana, "bot")[1], "ben": ApiToken.issue(ben, "bot")[1]}
    rng = random.Random(7)
    per_move = []

    async def body():
        sockets = {s: bot_socket(match.pk, secrets[s]) for s in secrets}
        last = {}
        for seat, comm in sockets.items():
            connected, _ = await comm.connect()
            assert connected
            await comm.send_json_to({"since": 0})
            last[seat] = await _next(comm)
        with Census() as census:
            for n in range(moves + 1):  # the first warms the connections: not counted
                movers = [s for s in last if last[s]["legal"]["commands"]]
                if not movers or last[movers[0]]["view"]["finished"]:
                    break
                seat = movers[0]
                census.reset()
                ident = f"c-{n}"
                await sockets[seat].send_json_to(
                    {"command": rng.choice(last[seat]["legal"]["commands"]), "id": ident}
                )
                version = None
                while version is None:
                    msg = await _next(sockets[seat])
                    if msg.get("type") == "ack":
                        assert msg["id"] == ident
                        version = msg["version"]
                    elif msg.get("type") == "refused":
                        raise AssertionError(msg)
                    elif msg.get("type") == "update":
                        last[seat] = msg
                for s, comm in sockets.items():
                    while last[s]["version"] < version:
                        msg = await _next(comm)
                        if msg.get("type") == "update":
                            last[s] = msg
                # every group's send done (moderators', spectators'), not only the seats'
                await asyncio.get_running_loop().run_in_executor(None, publisher.flush)
                await asyncio.sleep(0.05)  # the layer's clean-ups after a delivery
                counted = census.reset()
                if n:
                    per_move.append(counted)
        for comm in sockets.values():
            await comm.disconnect()
        return last

    last = async_to_sync(body)()
    return per_move, len(per_move), last


def total(per_move):
    from tests.helpers.move_cost import Counts

    out = Counts()
    for c in per_move:
        out.pg_round_trips += c.pg_round_trips
        out.pg_statements.update(c.pg_statements)
        out.pg_transactions += c.pg_transactions
        out.redis_round_trips += c.redis_round_trips
        out.redis_commands.update(c.redis_commands)
        out.celery_publishes.update(c.celery_publishes)
        out.layer_calls.update(c.layer_calls)
        out.where.update(c.where)
    return out


@pytest.fixture
def production_web_role(settings, monkeypatch):
    """As the web role runs: no inline reactors, the rate limits counted in Redis."""
    from django.core.cache import cache
    from rest_framework.throttling import SimpleRateThrottle

    settings.REACTORS_INLINE = False  # the reactors run in their own processes
    settings.LIVE_REJOIN_S = 600  # no socket's periodic catch-up inside the counts
    # a layer prefix of its own: another worker's test empties the shared one's keys
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    layers["default"].setdefault("CONFIG", {})["prefix"] = f"cost-{uuid.uuid4().hex[:8]}"
    settings.CHANNEL_LAYERS = layers
    channel_layers.backends.clear()
    monkeypatch.setattr(SimpleRateThrottle, "cache", cache)  # not the tests' own counts
    client = cache._cache.get_client(None, write=True)
    for key in client.scan_iter(match="*throttle_commands*"):  # ids repeat across tests
        client.delete(key)


@pytest.mark.redis
def test_what_a_move_over_the_socket_costs(production_web_role, capsys):
    per_move, n, _last = played()
    assert n >= 8
    report = total(per_move).per(n)
    if os.environ.get("MOVE_COST_REPORT"):  # the breakdown, for a reader (docs, a commit)
        _report(report, per_move, n, capsys)
    spent = {**report, "group_send": report["layer_calls"].get("group_send", 0)}
    # half a round trip of slack: a layer's clean-up late by a move moves a count
    # from one move to the next; one more round trip per move is still caught
    over = {k: (spent[k], most) for k, most in BUDGET.items() if spent[k] > most + 0.5}
    assert not over, (over, report)


def _report(report, per_move, n, capsys):
    with capsys.disabled():
        print("\nper move over the socket:", json.dumps(report, indent=1))
        print("by caller:")
        for (what, where), k in sorted(total(per_move).where.items(), key=lambda x: x[0][1]):
            print(f"    {k / n:5.2f}  {what[:60]:60} {where}")
        print("first move's PostgreSQL round trips:")
        for line in per_move[1].sql:
            print("   ", line)
