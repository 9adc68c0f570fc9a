"""The webhook receiver of the API guide (docs/api/index.md, "A receiver in
a few lines"), run as printed: the site's own outbox signs and sends a
show's deliveries to it on loopback; it takes them, forwards the show room
(the kind "chat") to a stand-in for Discord as typed, handles a repeat once,
and refuses a body whose signature is wrong or too old."""

import json
import re
import threading
import time
from http.server import HTTPServer
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from chat import services as chat
from chat.rooms import SHOW, show_room
from hooks import outbox, signing
from hooks.models import WebhookDelivery, WebhookEndpoint
from tournaments.models import ShowRecord

from .test_hooks_outbox import _follow_once, _show

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api" / "index.md"
SECRET = "r" * 64


def _the_receiver() -> dict:
    page = GUIDE.read_text()
    section = page[page.index("### A receiver in a few lines") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    namespace = {"__name__": "the_guides_receiver"}  # not __main__: it does not serve
    exec(compile(code, str(GUIDE), "exec"), namespace)
    return namespace


@pytest.fixture
def served():
    receiver = _the_receiver()
    receiver["SECRET"] = SECRET
    server = HTTPServer(("127.0.0.1", 0), receiver["Handler"])
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield receiver, f"http://127.0.0.1:{server.server_port}/showtable"
    server.shutdown()
    server.server_close()


@pytest.mark.usefixtures("committed_db")
def test_the_guides_receiver_takes_what_the_site_sends(served, receiver, capsys):
    guide, url = served
    guide["DISCORD"] = receiver.url  # the stand-in for a Discord channel's webhook
    stream, olga = _show(delay=0)
    record = ShowRecord.objects.get(stream=stream)
    hook = WebhookEndpoint.objects.create(
        show_stream=stream, url=url, kinds=["chat"], format="json", secret=SECRET, owner_id=olga.pk
    )
    sam = User.objects.create_user("sam")
    typed = "@everyone **gg** <b>ana</b>"
    chat.post(show_room(record, SHOW), sam, typed)
    _follow_once()
    outbox.sweep(time.time() + 1)

    delivery = WebhookDelivery.objects.get(endpoint=hook)
    assert delivery.status == "delivered" and delivery.status_code == 200
    assert len(receiver.got) == 1
    forwarded = json.loads(receiver.got[0][1])
    assert forwarded["allowed_mentions"] == {"parse": []}
    assert forwarded["content"] == r"**sam**: \@everyone \*\*gg\*\* \<b\>ana\</b\>"
    assert guide["seen"] == {str(delivery.pk)}

    # a repeat of that delivery (its answer lost) is handled once
    body = delivery.body.encode()
    assert guide["receive"](str(delivery.pk), body, signing.sign(SECRET, body)) == 200
    assert len(receiver.got) == 1


def test_the_guides_receiver_refuses_a_wrong_or_stale_signature(capsys):
    guide = _the_receiver()
    guide["SECRET"] = SECRET
    body = json.dumps({"kind": "champion", "text": "ana is the champion!"}).encode()
    assert guide["receive"]("7", body, signing.sign("another secret", body)) == 401
    assert guide["receive"]("7", body, signing.sign(SECRET, body, now=time.time() - 301)) == 401
    assert guide["receive"]("7", body, "t=1,v1") == 401 and guide["seen"] == set()
    assert guide["receive"]("7", body, signing.sign(SECRET, body)) == 200
    assert "champion ana is the champion!" in capsys.readouterr().out
    # the guide's check is the site's own: both say yes to the same header
    header = signing.sign(SECRET, body)
    assert guide["verified"](body, header) and signing.verify(SECRET, body, header)
