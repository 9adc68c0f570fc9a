"""The web processes' HTTP handler (config.http): every request's middleware,
view and request signals run in one hop to one sync thread, off the event
loop, and a move over it is the same move as over Django's own handler.

Requests go through ``config.asgi.application`` in an event loop of a thread
of its own, as uvicorn runs it (no async_to_sync on the calling thread)."""

import asyncio
import json
import random
import socket
import threading
import time

import pytest
from asgiref.sync import sync_to_async
from channels.testing import HttpCommunicator
from django.contrib.auth.models import User
from django.core.mail import get_connection
from django.core.signals import request_finished, request_started
from django.db import connections

from api.models import ApiToken
from config.asgi import application
from config.http import HTTPHandler
from eventlog.models import StoredEvent
from games import services

pytestmark = pytest.mark.usefixtures("committed_db")


def _serve(requests):
    """Answer ``requests`` ([(method, path, body, headers)]) one by one through
    the ASGI application; returns the answers and the event loop's thread id."""
    out = {}

    async def main():
        out["loop_thread"] = threading.get_ident()
        out["answers"] = []
        for method, path, body, headers in requests:
            headers = [
                (b"host", b"testserver"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ]
            talk = HttpCommunicator(application, method, path, body=body, headers=headers)
            out["answers"].append(await talk.get_response(timeout=20))
            await talk.wait(20)  # the handler's close of the response, after sending it
        # the handler's thread keeps its connection: close it before the tables are emptied
        await sync_to_async(connections.close_all)()

    worker = threading.Thread(target=lambda: asyncio.run(main()))
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), "the handler did not answer"
    return out["answers"], out["loop_thread"]


def _token_headers(user):
    _token, secret = ApiToken.issue(user, "bot")
    return [(b"authorization", f"Token {secret}".encode()), (b"content-type", b"application/json")]


@pytest.fixture
def ana_seated():
    ana = User.objects.create_user("ana_h")
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": "bot:random"},
        options={"first_to": 1},
        rng=random.Random(4),
    )
    services.play_bots(match, rng=random.Random(1))
    return ana, match


def test_the_web_processes_serve_http_with_the_middleware_loaded_sync():
    handler = application.application_mapping["http"]
    assert isinstance(handler, HTTPHandler)
    assert not asyncio.iscoroutinefunction(handler._middleware_chain)


def test_a_requests_signals_middleware_and_view_share_one_thread(ana_seated, monkeypatch):
    ana, match = ana_seated
    seen = {"started": [], "response": [], "finished": []}

    def on_started(**_kw):
        seen["started"].append(threading.get_ident())

    def on_finished(**_kw):
        seen["finished"].append(threading.get_ident())

    handler = application.application_mapping["http"]
    plain = handler.get_response

    def get_response(request):
        seen["response"].append(threading.get_ident())
        return plain(request)

    monkeypatch.setattr(handler, "get_response", get_response)
    request_started.connect(on_started)
    request_finished.connect(on_finished)
    try:
        headers = _token_headers(ana)
        answers, loop_thread = _serve([("GET", f"/api/matches/{match.pk}/legal", b"", headers)] * 3)
    finally:
        request_started.disconnect(on_started)
        request_finished.disconnect(on_finished)
    assert [a["status"] for a in answers] == [200, 200, 200]
    threads = set(seen["started"] + seen["response"] + seen["finished"])
    assert len(seen["response"]) == 3 and len(seen["finished"]) == 3
    assert len(threads) == 1, "one sync thread for the signals, the middleware and the view"
    assert loop_thread not in threads, "nothing sync runs on the event loop"


def test_a_move_over_the_handler_is_written_once_and_bad_input_writes_nothing(ana_seated):
    ana, match = ana_seated
    headers = _token_headers(ana)
    before = StoredEvent.objects.filter(stream=match.stream).count()
    legal, _ = _serve([("GET", f"/api/matches/{match.pk}/legal", b"", headers)])
    move = json.loads(legal[0]["body"])["commands"][0]
    body = json.dumps({"command": move, "command_id": "h-1"}).encode()
    commands = f"/api/matches/{match.pk}/commands"
    answers, _ = _serve(
        [
            ("POST", commands, body, headers),
            ("POST", commands, body, headers),  # the same command id: a replay
            ("POST", commands, b'{"command": ', headers),
            ("POST", commands, json.dumps({"command": {"type": "x"}}).encode(), headers),
            ("GET", "/api/matches/999999999/legal", b"", headers),
        ]
    )
    first, again, broken, unknown, missing = answers
    assert first["status"] == 201, first["body"]
    assert again["status"] == 200, again["body"]  # the first result, nothing written now
    assert json.loads(again["body"])["appended"] == json.loads(first["body"])["appended"]
    assert broken["status"] == 400 and b"JSON" in broken["body"]
    assert unknown["status"] == 422, unknown["body"]
    assert missing["status"] == 404
    written = StoredEvent.objects.filter(stream=match.stream).count() - before
    assert written == len(json.loads(first["body"])["appended"])


def test_a_mail_server_that_hangs_cannot_hold_a_web_process(settings):
    """A password reset sends its mail inside the request, and a web process
    answers one request at a time: SMTP waits EMAIL_TIMEOUT at most."""
    assert 0 < get_connection("django.core.mail.backends.smtp.EmailBackend").timeout <= 30
    with socket.socket() as silent:  # accepts, never greets
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        settings.EMAIL_TIMEOUT = 0.3
        mail = get_connection(
            "django.core.mail.backends.smtp.EmailBackend",
            host="127.0.0.1",
            port=silent.getsockname()[1],
        )
        started = time.monotonic()
        with pytest.raises(OSError):
            mail.open()
        assert time.monotonic() - started < 5
