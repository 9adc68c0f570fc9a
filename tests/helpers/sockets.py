"""What the socket tests (tests/live, tests/chat, tests/broadcast) share: two
players seated at a match, the cookies of a browser, a browser's socket (to
a match's table or any other path), its opening, and the chat over it."""

import random

from channels.testing import WebsocketCommunicator
from django.contrib.auth.models import User
from django.test import Client

from config.asgi import application
from games import services


def users(*names):
    return [User.objects.create_user(n, password="pw-123456") for n in names]


def seated(ana, ben, **kw):
    """A Love Me Not match of ``ana`` and ``ben`` (no decision clock)."""
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana.pk, "ben": ben.pk},
        rng=random.Random(9),
        **kw,
    )


def cookie(user, page: str | None = None, browser=None) -> bytes:
    """The cookies of ``user``'s browser (its session; with ``page`` loaded,
    a CSRF cookie too), made outside the event loop."""
    c = browser or Client()
    c.force_login(user)
    if page is not None:
        assert c.get(page).status_code == 200
    return "; ".join(f"{k}={v.value}" for k, v in c.cookies.items()).encode()


def session(user, match, browser=None) -> bytes:
    """The cookies of ``user``'s browser once it has loaded the match page
    (a session and a CSRF cookie), made outside the event loop."""
    return cookie(user, f"/games/matches/{match.pk}/", browser)


def communicator(path: str, cookie=None, origin=b"http://localhost") -> WebsocketCommunicator:
    """A browser's socket to ``path`` (with ``cookie``: logged in)."""
    headers = [(b"origin", origin), (b"host", b"localhost")]
    if cookie is not None:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, path, headers=headers)


def socket(match_pk, cookie=None, origin=b"http://localhost") -> WebsocketCommunicator:
    """A browser's socket to the match page's live table."""
    return communicator(f"/ws/matches/{match_pk}/", cookie, origin)


def socket_as(path: str, user=None) -> WebsocketCommunicator:
    """``user``'s browser's socket to ``path`` (None: nobody logged in)."""
    return communicator(path, None if user is None else cookie(user))


async def opened(comm, since=0) -> dict:
    """The first message of ``comm`` once connected, asking from ``since``."""
    connected, code = await comm.connect()
    assert connected, code
    await comm.send_json_to({"since": since})
    return await comm.receive_json_from(timeout=5)


async def chat_news(comm, timeout=10) -> dict:
    """The next chat message on the socket (past a table's pushes and any
    other news)."""
    while True:
        msg = await comm.receive_json_from(timeout=timeout)
        if msg.get("type") in ("chat", "chat_ack", "refused"):
            return msg


async def say(comm, room, text, ident) -> dict:
    """Send ``text`` to ``room`` over the socket: its answer (a chat_ack, or
    refused in words)."""
    await comm.send_json_to({"chat": {"room": room, "text": text}, "id": ident})
    while True:
        msg = await chat_news(comm)
        if msg.get("id") == ident:
            return msg


def count_trips(monkeypatch) -> list[str]:
    """The names of what the match sockets run on a thread, in order, once
    called (not when wrapped): live.consumers' pool and live.auth's sync
    thread both counted."""
    from live import auth, consumers

    trips = []
    real = consumers._off_loop

    def counted(fn):
        on_a_thread = real(fn)

        async def trip(*args, **kwargs):
            trips.append(fn.__name__)
            return await on_a_thread(*args, **kwargs)

        return trip

    monkeypatch.setattr(consumers, "_off_loop", counted)
    monkeypatch.setattr(auth, "database_sync_to_async", counted)
    return trips
