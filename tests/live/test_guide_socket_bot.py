"""The bot of the API guide that plays over the match socket
(docs/api/index.md, "Playing over the match socket"), run as printed: two
of it, one a seat, play a whole match against the site's own socket
consumer. Only the transport is stood in for: its `websockets.connect`
opens the site's ASGI application in this process (the handshake's
address and token header as the guide writes them), and the socket ends
once it has pushed the finished match."""

import asyncio
import json
import re
from contextlib import asynccontextmanager
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import websockets
from asgiref.sync import async_to_sync
from channels.testing import WebsocketCommunicator

from api.models import ApiToken
from config.asgi import application
from eventlog.models import StoredEvent
from tests.helpers.sockets import seated, users

pytestmark = pytest.mark.usefixtures("live_db")

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api" / "index.md"


def the_guides_socket_bot() -> str:
    page = GUIDE.read_text()
    section = page[page.index("## Playing over the match socket") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    call = 'asyncio.run(play(12, "your-token"))'
    assert code.count(call) == 1
    return code.replace(call, "")  # the test calls play() itself, once a seat


class _Socket:
    def __init__(self, comm):
        self.comm, self.over = comm, False

    async def send(self, text):
        await self.comm.send_to(text_data=text)

    def __aiter__(self):
        return self

    async def __anext__(self):
        if self.over:
            raise StopAsyncIteration
        raw = await self.comm.receive_from(timeout=20)
        message = json.loads(raw)
        self.over = message.get("type") == "update" and message["view"]["finished"]
        return raw


@asynccontextmanager
async def _connect(url, additional_headers):
    address = urlsplit(url)
    assert (address.scheme, address.netloc) == ("ws", "127.0.0.1:8000")
    headers = [(b"host", b"localhost")]
    headers += [(k.lower().encode(), v.encode()) for k, v in additional_headers.items()]
    comm = WebsocketCommunicator(application, address.path, headers=headers)
    assert (await comm.connect())[0]
    try:
        yield _Socket(comm)
    finally:
        await comm.disconnect()


def test_the_guides_socket_bot_plays_a_whole_match(monkeypatch):
    monkeypatch.setattr(websockets, "connect", _connect)
    ana, ben = users("ana_g", "ben_g")
    match = seated(ana, ben)
    secrets = [ApiToken.issue(user, "the guide's bot")[1] for user in (ana, ben)]
    guide = {"__name__": "the_guides_socket_bot"}
    exec(compile(the_guides_socket_bot(), str(GUIDE), "exec"), guide)

    async def both():
        seats = (guide["play"](match.pk, secret) for secret in secrets)
        await asyncio.wait_for(asyncio.gather(*seats), timeout=120)

    async_to_sync(both)()
    match.refresh_from_db()
    assert match.status == "finished" and match.winners
    for seat in ("ana", "ben"):  # every move of a seat carried the guide's command id
        moved = StoredEvent.objects.filter(
            stream=match.stream, command_id__startswith=f"c:{match.pk}-{seat}-"
        )
        assert moved.values("command_id").distinct().count() >= 5
