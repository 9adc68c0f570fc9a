"""What the live socket tests (tests/live/test_consumers.py,
tests/live/test_socket_moves.py) share: two players seated at a match, the
cookies of their browser, a browser's match socket, and its opening."""

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


def session(user, match, browser=None) -> bytes:
    """The cookies of ``user``'s browser once it has loaded the match page
    (a session and a CSRF cookie), made outside the event loop."""
    c = browser or Client()
    c.force_login(user)
    assert c.get(f"/games/matches/{match.pk}/").status_code == 200
    return "; ".join(f"{k}={v.value}" for k, v in c.cookies.items()).encode()


def socket(match_pk, cookie=None, origin=b"http://localhost") -> WebsocketCommunicator:
    """A browser's socket to the match page's live table."""
    headers = [(b"origin", origin), (b"host", b"localhost")]
    if cookie is not None:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, f"/ws/matches/{match_pk}/", headers=headers)


async def opened(comm, since=0) -> dict:
    """The first message of ``comm`` once connected, asking from ``since``."""
    connected, code = await comm.connect()
    assert connected, code
    await comm.send_json_to({"since": since})
    return await comm.receive_json_from(timeout=5)
