"""Moves over the match socket, played: a whole match by two bots on the JSON
socket, a person's table form on the HTML socket, and every hostile or
out-of-place message refused in the API's words with nothing written."""

import asyncio
import json
import random

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import Client

from api.models import ApiToken
from config.asgi import application
from eventlog.store import read
from games import services
from games.core.protocol import Viewer
from games.presenters.table import table_for
from live.consumers import NOT_AUTHENTICATED
from tests.helpers.redaction import assert_no_leak, hidden_facts
from tests.helpers.sockets import count_trips, opened, seated, session, socket, users

pytestmark = pytest.mark.usefixtures("live_db")


def token(user) -> bytes:
    return ApiToken.issue(user, "bot")[1].encode()


def bot_socket(match_pk, secret: bytes | None, query: str = "") -> WebsocketCommunicator:
    headers = [(b"host", b"localhost")]
    if secret is not None:
        headers.append((b"authorization", b"Token " + secret))
    path = f"/ws/api/matches/{match_pk}/" + (f"?{query}" if query else "")
    return WebsocketCommunicator(application, path, headers=headers)


async def answer_to(comm, ident) -> dict:
    """The answer to move ``ident``, past any push that comes first."""
    while True:
        msg = await comm.receive_json_from(timeout=10)
        if msg.get("type") in ("ack", "refused"):
            assert msg["id"] == ident, msg
            return msg


def events(match) -> int:
    return len(read(match.stream))


count = database_sync_to_async(events)


def to_move(match) -> str:
    """The seat whose turn it is now."""
    for seat in match.seats:
        if services.legal_for(match, Viewer.of_seat(seat))[1]:
            return seat
    raise AssertionError("nobody may move")


# ---- a whole match -------------------------------------------------------------------
async def play(comm, seat: str, pushes: list, acks: list, rng: random.Random):
    """A bot on the JSON socket: on each push with legal commands, one of them."""
    await comm.send_json_to({"since": 0})
    n = 0
    while True:
        msg = await comm.receive_json_from(timeout=20)
        if msg.get("type") == "refused":  # the state moved meanwhile: the table again
            assert msg["code"] in ("rule", "conflict", "throttled"), msg
            await asyncio.sleep(msg.get("retry_after", 0))  # the API's limits hold here too
            await comm.send_json_to({"since": 0})
            continue
        if msg.get("type") == "ack":
            acks.append(msg["version"])
            continue
        if msg.get("type") != "update":
            continue
        pushes.append(msg)
        assert msg["view"]["viewer"] == {"kind": "seat", "seat": seat}
        if msg["view"]["finished"]:
            return
        commands = msg["legal"]["commands"]
        if commands:
            n += 1
            await comm.send_json_to({"command": rng.choice(commands), "id": f"{seat}-{n}"})


def test_two_bots_play_a_whole_match_over_the_json_socket_and_see_no_other_hand():
    ana, ben = users("ana_s", "ben_s")
    match = seated(ana, ben)
    secrets = {"ana": token(ana), "ben": token(ben)}
    before = events(match)
    pushes = {"ana": [], "ben": []}
    acks = {"ana": [], "ben": []}

    async def body():
        sockets = {s: bot_socket(match.pk, secrets[s]) for s in secrets}
        for comm in sockets.values():
            assert (await comm.connect())[0]
        await asyncio.wait_for(
            asyncio.gather(
                *(
                    play(sockets[s], s, pushes[s], acks[s], random.Random(i))
                    for i, s in enumerate(sockets)
                )
            ),
            timeout=120,
        )
        for comm in sockets.values():
            await comm.disconnect()

    async_to_sync(body)()
    match.refresh_from_db()
    assert match.status != "live" and match.winners
    rows = read(match.stream)
    written = {r.version for r in rows}
    moved = acks["ana"] + acks["ben"]
    assert len(moved) >= 6 and all(v in written for v in moved)  # acknowledged = in the log
    assert len(rows) > before
    assert pushes["ana"][-1]["view"]["finished"] and pushes["ben"][-1]["view"]["finished"]
    # hidden information: no push to a seat before the end holds what it may not see
    for seat, user in (("ana", ana), ("ben", ben)):
        facts = hidden_facts(match, user)
        assert facts
        for push in pushes[seat]:
            if not push["view"]["replay"]:
                assert_no_leak(push, facts)


def test_the_push_carries_the_apis_view_and_legal_commands():
    ana, ben = users("ana_v", "ben_v")
    match = seated(ana, ben)
    seat = to_move(match)
    user = ana if seat == "ana" else ben

    async def body():
        comm = bot_socket(match.pk, await database_sync_to_async(token)(user))
        first = await opened(comm)
        await comm.disconnect()
        return first

    first = async_to_sync(body)()
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(user)
    assert first["type"] == "update"
    assert first["view"] == api.get(f"/api/matches/{match.pk}/").json()
    assert first["legal"] == api.get(f"/api/matches/{match.pk}/legal").json()
    assert first["legal"]["commands"]


def test_the_movers_table_after_its_ack_is_the_apis_view_and_legal_commands():
    """The mover's table is rendered from the row its own append left (not
    read again): it is what GET /view and /legal give right after the move."""
    ana, ben = users("ana_a", "ben_a")
    match = seated(ana, ben)
    mover = to_move(match)
    user = ana if mover == "ana" else ben
    secret = token(user)

    async def body():
        comm = bot_socket(match.pk, secret)
        first = await opened(comm)
        await comm.send_json_to({"command": first["legal"]["commands"][0], "id": "mine-1"})
        ack = await answer_to(comm, "mine-1")
        pushed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return ack, pushed

    ack, pushed = async_to_sync(body)()
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(user)
    assert ack["type"] == "ack" and pushed["type"] == "update"
    assert pushed["version"] == ack["version"] == pushed["view"]["version"]
    assert pushed["view"] == api.get(f"/api/matches/{match.pk}/").json()
    assert pushed["legal"] == api.get(f"/api/matches/{match.pk}/legal").json()


# ---- a move over its socket, and the other seat's push of it -------------------------
def _two_bots(prefix: str):
    ana, ben = users(f"ana_{prefix}", f"ben_{prefix}")
    match = seated(ana, ben)
    mover = to_move(match)
    other = "ben" if mover == "ana" else "ana"
    who = {"ana": ana, "ben": ben}
    issued = {s: ApiToken.issue(who[s], "bot") for s in who}
    return match, mover, other, who, issued


async def _move_over_its_socket(match, mover, other, issued, between=None):
    """Both seats' sockets open, ``between()`` done, then the mover's move
    over its socket: (its ack, what the other seat's socket gets next)."""
    sockets = {s: bot_socket(match.pk, issued[s][1].encode()) for s in issued}
    first = {s: await opened(comm) for s, comm in sockets.items()}
    if between is not None:
        await database_sync_to_async(between)()
    command = first[mover]["legal"]["commands"][0]
    await sockets[mover].send_json_to({"command": command, "id": "with-1"})
    ack = await answer_to(sockets[mover], "with-1")
    got = await sockets[other].receive_output(timeout=5)
    for comm in sockets.values():
        await comm.disconnect()
    return ack, got


def test_the_other_seat_hears_of_a_move_from_the_process_that_made_it(settings):
    """Production's web role (no inline reactors, and none running here): the
    socket's move is told to the other seat at once, not after a reactors' pass."""
    settings.REACTORS_INLINE = False
    settings.LIVE_REJOIN_S = 60  # the sockets' own catch-up would tell it after that
    match, mover, other, _who, issued = _two_bots("t")
    ack, got = async_to_sync(_move_over_its_socket)(match, mover, other, issued)
    pushed = json.loads(got["text"])
    assert ack["type"] == "ack"
    assert pushed["type"] == "update" and pushed["view"]["version"] == ack["version"]


def test_a_match_sockets_messages_take_no_trip_to_close_old_connections(monkeypatch):
    """Channels' dispatch sends every frame and group message to the one
    sync thread first (close_old_connections); the match socket's database
    work closes its own connections, so its messages skip that trip: a move
    and the other seat's push of it call it not once, and each still
    answers."""
    import channels.consumer

    trips = []

    async def counted():
        trips.append(1)

    monkeypatch.setattr(channels.consumer, "aclose_old_connections", counted)
    match, mover, other, _who, issued = _two_bots("d")
    ack, got = async_to_sync(_move_over_its_socket)(match, mover, other, issued)
    assert ack["type"] == "ack" and json.loads(got["text"])["version"] == ack["version"]
    assert trips == []


def test_every_bot_socket_of_a_seat_gets_the_same_bytes_from_one_render(monkeypatch):
    """Two tokens (two bot processes) on each seat: a move is rendered once
    per seat and the very same text sent to each of the seat's sockets; the
    other seat's text is another, with its own hand only; a token revoked
    meanwhile gets nothing of that version."""
    from live import commands as live_commands

    ana, ben = users("ana_b", "ben_b")
    match = seated(ana, ben)
    tokens = {"ana": [token(ana), token(ana)], "ben": [token(ben), token(ben), token(ben)]}
    renders = []
    real = live_commands.json_table

    def json_table(m, viewer):
        renders.append(viewer)
        return real(m, viewer)

    monkeypatch.setattr(live_commands, "json_table", json_table)
    revoked = ApiToken.objects.filter(user=ben).order_by("-pk").first()

    async def body():
        comms = {s: [bot_socket(match.pk, t) for t in ts] for s, ts in tokens.items()}
        for comm in [*comms["ana"], *comms["ben"]]:
            await opened(comm)
        renders.clear()
        await database_sync_to_async(revoked.revoke)()
        seat = await database_sync_to_async(to_move)(match)
        legal = await database_sync_to_async(services.legal_for)(match, Viewer.of_seat(seat))
        await database_sync_to_async(services.submit)(match, seat, legal[1][0])
        comms["gone"] = [comms["ben"].pop()]  # its token revoked
        texts = {
            s: [await c.receive_from(timeout=5) for c in cs]
            for s, cs in comms.items()
            if s != "gone"
        }
        last = await comms["gone"][0].receive_output(timeout=5)
        for comm in [*comms["ana"], *comms["ben"]]:
            assert await comm.receive_nothing(timeout=0.2)
            await comm.disconnect()
        return texts, last

    texts, last = async_to_sync(body)()
    assert sorted(v.seat for v in renders) == ["ana", "ben"]  # once per seat, not per socket
    for seat in ("ana", "ben"):
        assert len(set(texts[seat])) == 1  # the very same bytes
        pushed = json.loads(texts[seat][0])
        assert pushed["view"]["viewer"] == {"kind": "seat", "seat": seat}
        assert_no_leak(pushed, hidden_facts(match, {"ana": ana, "ben": ben}[seat]))
    assert texts["ana"][0] != texts["ben"][0]
    assert (last["type"], last.get("code")) == ("websocket.close", NOT_AUTHENTICATED)


# ---- refusals: each clear, each writing nothing ---------------------------------------
def test_every_hostile_or_misplaced_message_is_refused_and_writes_nothing():
    ana, ben, sam = users("ana_r", "ben_r", "sam_r")
    match = seated(ana, ben)
    mover = to_move(match)
    user = ana if mover == "ana" else ben
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    secret, spectator = token(user), token(sam)
    deep = '{"command": ' + "[" * 1000 + "]" * 1000 + ', "id": "d1"}'
    cases = [
        ("{not json", "parse_error"),
        (deep, "too_deep"),
        (json.dumps({"command": {"type": "x" * (1 << 20)}, "id": "big"}), "too_large"),
        ('{"command": {"type": "play", "card": 1e308}, "id": "n1"}', "invalid"),
        ('{"command": {"type": "play", "card": 1e999}, "id": "n2"}', "invalid"),
        ('{"command": {"type": "play", "card": NaN}, "id": "n3"}', "parse_error"),
        ('{"command": {"type": "play", "card": \u0663}, "id": "u1"}', "parse_error"),
        (json.dumps({"command": {**legal, "card": "\u0663"}, "id": "u2"}), "rule"),
        (json.dumps({"command": legal, "id": "m1", "match": match.pk + 1}), "invalid"),
        (json.dumps({"command": legal}), "invalid"),  # no id
        (json.dumps({"command": legal, "id": "bad id with spaces"}), "invalid"),
        (json.dumps({"command": "play", "id": "s1"}), "invalid"),
        (json.dumps({"command": [legal], "id": "s2"}), "invalid"),
        (json.dumps({"form": {"control": ["x"] * 50}, "id": "f1"}), "invalid"),
    ]
    before = events(match)

    async def body():
        answers = []
        comm = bot_socket(match.pk, secret)
        await opened(comm)
        for text, _ in cases:
            await comm.send_to(text_data=text)
            answers.append(await comm.receive_json_from(timeout=5))
        await comm.disconnect()
        # a spectator (an account with no seat) may not move
        watcher = bot_socket(match.pk, spectator)
        await opened(watcher)
        await watcher.send_json_to({"command": legal, "id": "w1"})
        answers.append(await answer_to(watcher, "w1"))
        await watcher.disconnect()
        return answers

    answers = async_to_sync(body)()
    codes = [(c, a.get("type"), a.get("code")) for (_, c), a in zip(cases, answers, strict=False)]
    assert codes == [(c, "refused", c) for _, c in cases], codes
    assert answers[-1]["code"] == "permission_denied"
    assert answers[-1]["message"] == "only a seated player may send moves"
    assert all(a["message"] for a in answers)
    assert "1000" not in answers[1]["message"] and "32" in answers[1]["message"]
    assert events(match) == before  # nothing written


def test_refusals_are_the_apis_words_in_the_readers_language():
    ana, ben = users("ana_l", "ben_l")
    match = seated(ana, ben)
    mover = to_move(match)
    user = ana if mover == "ana" else ben
    secret = token(user)
    command = {"type": "play", "card": "no-such-card"}
    from rest_framework.test import APIClient

    api = APIClient(HTTP_ACCEPT_LANGUAGE="fr")
    api.credentials(HTTP_AUTHORIZATION="Token " + secret.decode())
    http = api.post(f"/api/matches/{match.pk}/commands", {"command": command}, format="json")
    assert http.status_code in (400, 422), http.content

    async def body():
        comm = WebsocketCommunicator(
            application,
            f"/ws/api/matches/{match.pk}/",
            headers=[(b"authorization", b"Token " + secret), (b"accept-language", b"fr")],
        )
        await opened(comm)
        await comm.send_json_to({"command": command, "id": "fr-1"})
        answer = await answer_to(comm, "fr-1")
        await comm.disconnect()
        return answer

    answer = async_to_sync(body)()
    assert (answer["code"], answer["message"]) == (http.json()["code"], http.json()["message"])


def test_another_accounts_command_id_is_refused_and_a_retry_writes_once():
    ana, ben = users("ana_i", "ben_i")
    match = seated(ana, ben)
    mover = to_move(match)
    user, other = (ana, ben) if mover == "ana" else (ben, ana)
    other_seat = "ben" if mover == "ana" else "ana"
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    secrets = {mover: token(user), other_seat: token(other)}
    before = events(match)

    async def body():
        comm = bot_socket(match.pk, secrets[mover])
        await opened(comm)
        await comm.send_json_to({"command": legal, "id": "once-1"})
        first = await answer_to(comm, "once-1")
        after_first = await count(match)
        await comm.send_json_to({"command": legal, "id": "once-1"})  # the retry
        again = await answer_to(comm, "once-1")
        after_retry = await count(match)
        await comm.disconnect()
        theirs = bot_socket(match.pk, secrets[other_seat])
        await opened(theirs)
        their_legal = await database_sync_to_async(services.legal_for)(
            match, Viewer.of_seat(other_seat)
        )
        await theirs.send_json_to({"command": (their_legal[1] or [legal])[0], "id": "once-1"})
        reused = await answer_to(theirs, "once-1")
        after_reuse = await count(match)
        await theirs.disconnect()
        return first, after_first, again, after_retry, reused, after_reuse

    first, after_first, again, after_retry, reused, after_reuse = async_to_sync(body)()
    assert first["type"] == "ack" and after_first > before
    assert again == first and after_retry == after_first  # answered the same, written once
    assert reused["type"] == "refused" and reused["code"] == "command_id_reused"
    assert after_reuse == after_first


def test_the_ack_is_out_before_the_thread_makes_the_tables(monkeypatch):
    """The move's thread hands the ack to the event loop and gives way until
    it is sent: the tables it then makes (its own seat's, the other seat's)
    would otherwise hold the GIL and the ack with it."""
    from live import consumers

    monkeypatch.setattr(consumers, "ACK_SENT_WAIT_S", 30)  # the order, not the bound
    ana, ben = users("ana_g", "ben_g")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    secret = token(user)
    order = []
    render, send = consumers.MatchConsumer._shared_render, consumers.MatchConsumer.send_json

    def rendered(self, *args, **kwargs):
        order.append("table")
        return render(self, *args, **kwargs)

    async def sent(self, content, *args, **kwargs):
        if content.get("type") == "ack":
            order.append("ack")
        return await send(self, content, *args, **kwargs)

    monkeypatch.setattr(consumers.MatchConsumer, "_shared_render", rendered)
    monkeypatch.setattr(consumers.MatchConsumer, "send_json", sent)

    async def body():
        comm = bot_socket(match.pk, secret)
        await opened(comm)
        order.clear()
        await comm.send_json_to({"command": legal, "id": "gil-1"})
        answer = await answer_to(comm, "gil-1")
        await comm.disconnect()
        return answer

    assert async_to_sync(body)()["type"] == "ack"
    assert order[:2] == ["ack", "table"], order


@pytest.mark.parametrize("counts_in", ["process", "redis"])
def test_the_rate_limits_refuse_over_the_socket_as_over_http(settings, monkeypatch, counts_in):
    """The API's command limits hold on the socket, counted per account
    where the API counts them (Redis in production): past the burst, the
    command is refused with its wait, and nothing is written."""
    if counts_in == "redis":
        import os

        from django.core.cache import cache
        from rest_framework.throttling import SimpleRateThrottle

        if not os.environ.get("REDIS_URL"):
            pytest.skip("needs Redis: set REDIS_URL")
        monkeypatch.setattr(SimpleRateThrottle, "cache", cache)
        client = cache._cache.get_client(None, write=True)
        for key in client.scan_iter(match="*throttle_commands*"):  # ids repeat across tests
            client.delete(key)
    rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], commands_burst="2/min")
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    ana, ben = users(f"ana_{counts_in[:3]}", f"ben_{counts_in[:3]}")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    secret = token(user)

    async def body():
        comm = bot_socket(match.pk, secret)
        await opened(comm)
        answers = []
        for i in range(3):
            await comm.send_json_to({"command": legal, "id": f"rate-{i}"})
            answers.append(await answer_to(comm, f"rate-{i}"))
            if i == 1:
                written = await count(match)
        await comm.disconnect()
        return answers, written

    answers, written = async_to_sync(body)()
    assert answers[0]["type"] == "ack"
    assert answers[2]["type"] == "refused" and answers[2]["code"] == "throttled", answers[2]
    assert answers[2]["retry_after"] > 0
    assert events(match) == written  # the refused one wrote nothing


# ---- rights change mid-match: the very next command is refused ------------------------
def _mover_socket(match, ana, ben):
    mover = to_move(match)
    return mover, (ana if mover == "ana" else ben)


def test_a_removed_seat_is_refused_at_its_next_command():
    ana, ben = users("ana_x", "ben_x")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    secret = token(user)
    before = events(match)

    async def body():
        comm = bot_socket(match.pk, secret)
        await opened(comm)
        # the seat's holder changes (what a substitution's projector writes)
        await database_sync_to_async(match.holders.filter(seat=mover).update)(
            user=None, bot="random"
        )
        await comm.send_json_to({"command": legal, "id": "gone-1"})
        answer = await answer_to(comm, "gone-1")
        await comm.disconnect()
        return answer

    answer = async_to_sync(body)()
    assert (answer["type"], answer["code"]) == ("refused", "permission_denied")
    assert events(match) == before


def test_a_revoked_token_is_refused_at_its_next_command_and_the_socket_closed():
    ana, ben = users("ana_t", "ben_t")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    issued, secret = ApiToken.issue(user, "bot")
    before = events(match)

    async def body():
        comm = bot_socket(match.pk, secret.encode())
        await opened(comm)
        await database_sync_to_async(issued.revoke)()
        await comm.send_json_to({"command": legal, "id": "rev-1"})
        answer = await answer_to(comm, "rev-1")
        closing = await comm.receive_output(timeout=5)
        return answer, closing

    answer, closing = async_to_sync(body)()
    assert (answer["type"], answer["code"]) == ("refused", "bad_token")
    assert "revoked" in answer["message"]
    assert (closing["type"], closing["code"]) == ("websocket.close", NOT_AUTHENTICATED)
    assert events(match) == before


def _change_behind_the_caches_back(change, issued, user):
    """The token ``issued`` to ``user`` revoked, deleted, or its account
    disabled, by an update the token cache is not told of."""
    from django.contrib.auth.models import User
    from django.utils import timezone

    tokens = ApiToken.objects.filter(pk=issued.pk)
    if change == "revoked":
        tokens.update(revoked=timezone.now())
    elif change == "deleted":
        tokens.delete()
    else:
        User.objects.filter(pk=user.pk).update(is_active=False)


@pytest.mark.parametrize("change", ["revoked", "deleted", "disabled"])
def test_a_token_changed_behind_the_caches_back_is_refused_at_its_next_command(change):
    """A command reads its token and account with its match, in the same
    statement: a change the token cache was not told of (no signal: an
    update in bulk) refuses the very next command and closes the socket."""

    ana, ben = users(f"ana_{change[:3]}", f"ben_{change[:3]}")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    legal = services.legal_for(match, Viewer.of_seat(mover))[1][0]
    issued, secret = ApiToken.issue(user, "bot")
    before = events(match)

    def change_it():
        _change_behind_the_caches_back(change, issued, user)

    async def body():
        comm = bot_socket(match.pk, secret.encode())
        await opened(comm)
        await database_sync_to_async(change_it)()
        await comm.send_json_to({"command": legal, "id": f"{change}-1"})
        answer = await answer_to(comm, f"{change}-1")
        closing = await comm.receive_output(timeout=5)
        return answer, closing

    answer, closing = async_to_sync(body)()
    assert (answer["type"], answer["code"]) == ("refused", "bad_token")
    words = {"revoked": "revoked", "deleted": "not valid", "disabled": "disabled"}[change]
    assert words in answer["message"]
    assert (closing["type"], closing["code"]) == ("websocket.close", NOT_AUTHENTICATED)
    assert events(match) == before


@pytest.mark.parametrize("change", ["revoked", "disabled"])
def test_a_token_changed_behind_the_caches_back_gets_no_more_pushes(change):
    """A seat's push checks its socket's token against the tokens in force
    read with the table: a token revoked, or its account disabled, without
    the token cache being told, gets nothing of the next version."""

    ana, ben = users(f"ana_p{change[:3]}", f"ben_p{change[:3]}")
    match = seated(ana, ben)
    mover = to_move(match)
    watcher, user = ("ben", ben) if mover == "ana" else ("ana", ana)
    issued, secret = ApiToken.issue(user, "bot")

    def change_it():
        _change_behind_the_caches_back(change, issued, user)

    async def body():
        comm = bot_socket(match.pk, secret.encode())
        await opened(comm)
        await database_sync_to_async(change_it)()
        legal = await database_sync_to_async(services.legal_for)(match, Viewer.of_seat(mover))
        await database_sync_to_async(services.submit)(match, mover, legal[1][0])
        return await comm.receive_output(timeout=5)

    last = async_to_sync(body)()
    assert (last["type"], last.get("code")) == ("websocket.close", NOT_AUTHENTICATED), watcher


def test_a_token_in_the_url_or_a_bad_one_is_refused_at_the_handshake():
    ana, ben = users("ana_q", "ben_q")
    match = seated(ana, ben)
    secret = token(ana).decode()

    async def refused(comm):
        connected, _ = await comm.connect()
        assert connected
        told = await comm.receive_json_from(timeout=5)
        closing = await comm.receive_output(timeout=5)
        return told, closing

    async def body():
        return [
            await refused(bot_socket(match.pk, None, query=f"token={secret}")),
            await refused(bot_socket(match.pk, secret.encode(), query=f"token={secret}")),
            await refused(bot_socket(match.pk, b"not-a-token")),
        ]

    answers = async_to_sync(body)()
    for told, closing in answers:
        assert (told["type"], told["code"]) == ("refused", "bad_token")
        assert (closing["type"], closing["code"]) == ("websocket.close", NOT_AUTHENTICATED)
    assert "URL" in answers[0][0]["message"] and "Authorization" in answers[0][0]["message"]
    assert secret not in json.dumps([t for t, _ in answers])


def test_a_socket_without_origin_nor_token_is_still_refused():
    ana, ben = users("ana_o", "ben_o")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        comm = WebsocketCommunicator(
            application, f"/ws/matches/{match.pk}/", headers=[(b"cookie", cookie)]
        )
        connected, _ = await comm.connect()
        return connected

    assert async_to_sync(body)() is False


# ---- a person's table over the HTML socket ---------------------------------------------
def table_form(match, seat) -> dict:
    """What table_craft.js sends for the first control of ``seat``'s table."""
    table = table_for(match, Viewer.of_seat(seat))
    control = table.controls[0]
    form = {"control": control.key, "table_version": str(table.version)}
    for field in control.fields:
        form[field.name] = field.choices[0].value if field.choices else str(field.lo)
    return form


def test_a_persons_table_moves_over_its_socket_and_is_answered_as_the_post_would():
    ana, ben = users("ana_h", "ben_h")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    cookie = session(user, match)
    form = table_form(match, mover)
    before = events(match)

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        await comm.send_json_to({"form": form, "id": "tbl-1"})
        made = await answer_to(comm, "tbl-1")
        after = await count(match)
        # the same form again, as a new move on the old table: the table changed
        await comm.send_json_to({"form": form, "id": "tbl-2"})
        stale = await answer_to(comm, "tbl-2")
        # an API command on the same socket, from a spectator's seat: refused
        await comm.send_json_to({"command": {"type": "pass"}, "id": "tbl-3", "match": 0})
        wrong = await answer_to(comm, "tbl-3")
        await comm.disconnect()
        return made, after, stale, wrong

    made, after, stale, wrong = async_to_sync(body)()
    assert made["type"] == "ack" and after > before and made["version"] == after
    assert 'id="table"' in made["html"] and f'data-version="{made["version"]}"' in made["html"]
    assert stale["type"] == "refused" and stale["code"] in ("table_changed", "conflict", "rule")
    assert 'role="alert"' in stale["html"]  # shown beside the control, as the POST's 4xx
    assert (wrong["type"], wrong["code"]) == ("refused", "invalid")
    assert events(match) == after


def test_a_move_whose_socket_answer_was_lost_is_answered_as_made_when_posted_again():
    """table_craft.js posts a move whose socket answer never came with the
    same command id (static/js/table_craft.js, sendMove): the move was made,
    so each POST answers the table it made, not "the table changed", and
    writes nothing more; another command id on the old table is refused."""
    ana, ben = users("ana_w", "ben_w")
    match = seated(ana, ben)
    mover, user = _mover_socket(match, ana, ben)
    form = {**table_form(match, mover), "command_id": "lost-answer-1"}
    cookie = session(user, match)
    before = events(match)

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        await comm.send_json_to({"form": form, "id": form["command_id"]})
        made = await answer_to(comm, form["command_id"])  # the answer the page never got
        await comm.disconnect()
        return made

    made = async_to_sync(body)()
    after = events(match)
    assert made["type"] == "ack" and after > before
    browser = Client()
    browser.force_login(user)
    url, htmx = f"/games/matches/{match.pk}/command", {"HX-Request": "true"}
    for _ in range(2):
        page = browser.post(url, form, headers=htmx)
        assert page.status_code == 200
        assert f'data-version="{made["version"]}"' in page.content.decode()
        assert 'role="alert"' not in page.content.decode()
    assert events(match) == after
    other = browser.post(url, {**form, "command_id": "lost-answer-2"}, headers=htmx)
    assert 'role="alert"' in other.content.decode()
    assert events(match) == after


# ---- manage.py runbots over the sockets of a real server -------------------------------
@pytest.fixture
def asgi_site(settings, monkeypatch):
    """The whole ASGI application on a loopback port, served by uvicorn in a
    thread of this process (so it sees this test's database)."""
    import socket as sockets
    import threading
    import time

    import uvicorn
    from django.db import connections

    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    with sockets.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(
        uvicorn.Config(
            application, host="127.0.0.1", port=port, lifespan="off", log_level="warning"
        )
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(10)


def test_runbots_plays_a_whole_match_over_the_sockets(asgi_site):
    import io
    import threading

    from django.core.management import call_command

    ana, ben = users("ana_b", "ben_b")
    match = seated(ana, ben)
    secrets = [token(ana).decode(), token(ben).decode()]
    outputs = [io.StringIO(), io.StringIO()]

    def run(i):
        call_command(
            "runbots",
            url=asgi_site,
            token=secrets[i],
            seconds=25,
            poll=0.1,
            seed=i,
            until_done=True,  # else it plays on, finding nothing, to the 25 s
            stdout=outputs[i],
        )

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for _ in range(600):
        match.refresh_from_db()
        if match.status != "live":
            break
        threads[0].join(0.1)
    assert match.status == "finished" and match.winners
    for t in threads:
        t.join(35)
    made = [int(o.getvalue().split()[-3]) for o in outputs]
    by_socket = read(match.stream)
    bots = {r.command_id for r in by_socket if r.command_id and "bot-" in r.command_id}
    assert sum(made) == len(bots) > 0  # every acknowledged move is one command in the log


def test_a_seat_resigns_over_its_socket_as_the_post_would():
    """The table's resign form goes over the socket as any table move: its
    confirmation needed, then the match ends as a loss for that seat."""
    ana, ben = users("ana_z", "ben_z")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        await comm.send_json_to({"form": {"control": "resign"}, "id": "rs-1"})
        unconfirmed = await answer_to(comm, "rs-1")
        before = await count(match)
        form = {"control": "resign", "confirm": "yes", "table_version": "1"}
        await comm.send_json_to({"form": form, "id": "rs-2"})
        made = await answer_to(comm, "rs-2")
        await comm.disconnect()
        return unconfirmed, before, made

    unconfirmed, before, made = async_to_sync(body)()
    assert (unconfirmed["type"], unconfirmed["code"]) == ("refused", "rule")
    assert "confirmation" in unconfirmed["message"]
    assert made["type"] == "ack" and made["version"] == before + 1  # an old table is no matter
    assert "You resigned" in made["html"]
    last = read(match.stream)[-1]
    assert last.type == "series_forfeited" and last.data["loser"] == "ana"


def test_the_other_seats_table_is_made_with_the_move_and_is_its_own(monkeypatch):
    """A token's move reads every seat's holder with its match: the other
    seat's socket in this process gets its table made with the move, read
    from nothing more (no statement of its own), and it is that seat's
    view, as GET /view gives its account, not the mover's."""
    from live import consumers

    reads = []
    real = consumers.match_and_seats

    def counted(pk):
        reads.append(pk)
        return real(pk)

    monkeypatch.setattr(consumers, "match_and_seats", counted)
    match, mover, other, who, issued = _two_bots("mw")

    async def body():
        return await _move_over_its_socket(
            match, mover, other, issued, between=lambda: reads.clear()
        )

    ack, got = async_to_sync(body)()
    pushed = json.loads(got["text"])
    assert ack["type"] == "ack" and pushed["version"] == ack["version"]
    assert reads == []  # neither seat's table after the move read the match again
    from rest_framework.test import APIClient

    api = APIClient()
    api.force_authenticate(who[other])
    assert pushed["view"]["viewer"] == {"kind": "seat", "seat": other}
    assert pushed["view"] == api.get(f"/api/matches/{match.pk}/").json()
    assert pushed["legal"] == api.get(f"/api/matches/{match.pk}/legal").json()


@pytest.mark.parametrize("change", ["revoked", "disabled", "removed"])
def test_the_other_seat_made_a_table_with_the_move_still_loses_its_rights_at_once(change):
    """The other seat's rights are checked against what the move's statement
    read: its token changed behind the cache's back, or its seat given to a
    bot, before the move: it gets nothing of the move, and is closed."""
    from live.consumers import VIEWER_CHANGED

    match, mover, other, who, issued = _two_bots(f"r{change[:3]}")

    def change_it():
        if change == "removed":
            match.holders.filter(seat=other).update(user=None, bot="random")
        else:
            _change_behind_the_caches_back(change, issued[other][0], who[other])

    async def body():
        return await _move_over_its_socket(match, mover, other, issued, between=change_it)

    ack, got = async_to_sync(body)()
    assert ack["type"] == "ack"
    closed = VIEWER_CHANGED if change == "removed" else NOT_AUTHENTICATED
    assert (got["type"], got.get("code")) == ("websocket.close", closed), got


def test_a_table_put_beside_a_render_is_served_for_its_key_alone_and_never_replaces_one():
    """viewer_tables.put: what a move made for another socket is served for
    that key only (another viewer or version renders its own), and a
    render already kept or under way for the key is left as it is."""
    from live.render import SharedRenders

    renders = SharedRenders()
    rendered = []

    async def render(name):
        rendered.append(name)
        return name

    async def body():
        seat_b, v2 = (1, "Json", "ben", 2, "en"), (1, "Json", "ben", 3, "en")
        assert renders.put(seat_b, "made with the move")
        got = [await renders.get(seat_b, lambda: render("b2"))]
        got.append(await renders.get((1, "Json", "ana", 2, "en"), lambda: render("a2")))
        got.append(await renders.get(v2, lambda: render("b3")))
        assert not renders.put(v2, "another")  # b3 is kept: not replaced
        got.append(await renders.get(v2, lambda: render("again")))
        return got

    got = async_to_sync(body)()
    assert got == ["made with the move", "a2", "b3", "b3"]
    assert rendered == ["a2", "b3"]


def test_the_ack_goes_out_before_the_tables_the_kept_state_and_the_announcement(
    settings, monkeypatch, every_version_shared
):
    """A move over the socket is acknowledged as soon as its event committed:
    while the tables after it are still being made, the mover has its ack,
    and neither the shared copy of the state nor the other seat's news of the
    version has gone out yet; both follow the tables (runtime.after_answer),
    the state's copy first, so the other seat's process finds it."""
    import threading

    from games import states
    from live import consumers, publisher

    settings.REACTORS_INLINE = False
    settings.LIVE_REJOIN_S = 60
    rendering, go_on = threading.Event(), threading.Event()
    real_render, real_send = consumers.MatchConsumer._shared_render, publisher.send
    order = []

    def held_render(self, *made):
        if made:  # the tables made with the move: held until the ack is seen
            rendering.set()
            assert go_on.wait(10)
        return real_render(self, *made)

    def told(layer, sends):
        order.append(("told", states.KEPT.shared(match.stream).version))
        return real_send(layer, sends)

    monkeypatch.setattr(consumers.MatchConsumer, "_shared_render", held_render)
    monkeypatch.setattr(publisher, "send", told)
    match, mover, other, _who, issued = _two_bots("af")

    async def body():
        sockets = {s: bot_socket(match.pk, issued[s][1].encode()) for s in issued}
        first = {s: await opened(comm) for s, comm in sockets.items()}
        command = first[mover]["legal"]["commands"][0]
        await sockets[mover].send_json_to({"command": command, "id": "af-1"})
        ack = await answer_to(sockets[mover], "af-1")
        # the ack may come before the tables are even begun: wait until they are
        held = await asyncio.to_thread(rendering.wait, 5) and not go_on.is_set()
        kept_then = states.KEPT.shared(match.stream)  # not on the sync thread: it is held
        told_then = list(order)
        go_on.set()
        got = json.loads((await sockets[other].receive_output(timeout=5))["text"])
        for comm in sockets.values():
            await comm.disconnect()
        return ack, held, kept_then, told_then, got

    ack, held, kept_then, told_then, got = async_to_sync(body)()
    assert ack["type"] == "ack" and held
    assert kept_then is None or kept_then.version < ack["version"]
    assert told_then == []
    assert order == [("told", ack["version"])]  # told once its state's copy was there
    assert got["type"] == "update" and got["version"] == ack["version"]


def test_a_bots_socket_opens_in_one_trip_to_a_thread_its_token_read_there(settings, monkeypatch):
    """A bot's socket: its token, its match and its first table are read in
    the handshake's one trip to a thread (under load each trip waits for a
    thread and a connection); a bad token there is still refused at once."""
    settings.LIVE_REJOIN_S = 60  # no catch-up trip meanwhile
    trips = count_trips(monkeypatch)
    match, mover, _other, _who, issued = _two_bots("o1")

    async def body():
        comm = bot_socket(match.pk, issued[mover][1].encode())
        first = await opened(comm)
        await comm.disconnect()
        bad = bot_socket(match.pk, b"not-a-token")
        assert (await bad.connect())[0]
        refusal = await bad.receive_json_from(timeout=5)
        closed = await bad.receive_output(timeout=5)
        return first, refusal, closed

    first, refusal, closed = async_to_sync(body)()
    assert first["type"] == "update" and first["legal"]["commands"]
    assert trips == ["_resolve", "_resolve"]
    assert refusal["type"] == "refused" and refusal["code"] == "bad_token"
    assert closed["type"] == "websocket.close" and closed["code"] == NOT_AUTHENTICATED
