"""The clients of a bot show (bench/showdriver.py): HTTP as a browser behind the
TLS proxy speaks it, with an API token or session cookies, every call recorded;
websockets on /ws/matches/<pk>/ as live.js uses them, every message recorded."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlencode

REQUEST_TIMEOUT_S = 15  # a request that has not answered by then has hung


# ---- HTTP ---------------------------------------------------------------------------
@dataclass
class Call:
    at: float
    method: str
    path: str
    port: int
    status: int  # 0: no answer (refused, reset or timed out)
    error: str = ""
    elapsed: float = 0.0
    clear: bool = False  # a 5xx that says what happened and when to retry


class Recorder:
    def __init__(self):
        self.calls: list[Call] = []
        self.lock = threading.Lock()

    def add(self, call: Call) -> None:
        with self.lock:
            self.calls.append(call)


class Http:
    """One client: an API token (bots, scripts) or the session cookies a browser
    keeps (CSRF included). Each request goes to the next server in turn."""

    def __init__(self, ports: list[int], recorder: Recorder, token: str = "", first: int = 0):
        self.ports, self.turn, self.recorder, self.token = ports, first, recorder, token
        self.cookies: dict[str, str] = {}

    def request(self, method: str, path: str, body=None, form=False, port=None):
        if port is None:
            port = self.ports[self.turn % len(self.ports)]
            self.turn += 1
        origin = f"https://127.0.0.1:{port}"
        headers = {
            "Host": f"127.0.0.1:{port}",
            "X-Forwarded-Proto": "https",  # as the TLS-terminating proxy sets it
            "Accept": "application/json",
        }
        if self.token:
            headers["Authorization"] = f"Token {self.token}"
        if self.cookies:
            headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        data = None
        if method != "GET":
            headers.update({"Origin": origin, "Referer": origin + "/"})
            if self.cookies.get("csrftoken"):
                headers["X-CSRFToken"] = self.cookies["csrftoken"]
            if form:
                data = urlencode(body).encode()
                headers["Content-Type"] = "application/x-www-form-urlencoded"
            else:
                data = json.dumps(body).encode()
                headers["Content-Type"] = "application/json"
        started = time.time()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=REQUEST_TIMEOUT_S)
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            raw = resp.read()
            for header, value in resp.getheaders():
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    self.cookies[name.strip()] = rest.split(";", 1)[0]
            call = Call(started, method, path, port, resp.status, elapsed=time.time() - started)
            try:
                payload = json.loads(raw) if raw else None
            except ValueError:
                payload = raw.decode(errors="replace")
            if resp.status >= 500:
                call.error = str(payload)[:300]
                call.clear = (
                    isinstance(payload, dict)
                    and bool(payload.get("message"))
                    and resp.getheader("Retry-After") is not None
                )
            return resp.status, payload
        except (OSError, http.client.HTTPException) as exc:
            call = Call(started, method, path, port, 0, f"{type(exc).__name__}: {exc}")
            call.elapsed = time.time() - started
            return 0, None
        finally:
            conn.close()
            self.recorder.add(call)

    def login(self, username: str, password: str) -> None:
        """The login form, as a browser submits it: the session then opens sockets."""
        port = self.ports[self.turn % len(self.ports)]
        self.request("GET", "/accounts/login/", port=port)
        status, _ = self.request(
            "POST",
            "/accounts/login/",
            {
                "username": username,
                "password": password,
                "csrfmiddlewaretoken": self.cookies.get("csrftoken", ""),
            },
            form=True,
            port=port,
        )
        if status != 302:
            raise RuntimeError(f"login of {username} answered {status}")


# ---- the sockets ----------------------------------------------------------------------
@dataclass
class Socket:
    """One websocket client of one match: what it received, when."""

    match_id: int
    stream: str
    kind: str  # "spectator" or "seat:<name>"
    port: int
    opened: float = 0.0
    received: list = field(default_factory=list)  # (at, version, with_html, connection no)
    connects: int = 0
    closes: dict = field(default_factory=dict)  # close code -> how often
    # connection attempts that failed: (at, HTTP status or 0, why)
    failures: list = field(default_factory=list)
    stop: bool = False

    @property
    def shown(self) -> int:
        return max((v for _, v, html, _ in self.received if html), default=0)


async def watch(sock: Socket, cookie: str, until: float) -> None:
    """Connect, say {"since": v} (on every connect, as live.js does), keep what comes;
    on a close try again after a second (4404: no such match, give up)."""
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed, InvalidStatus

    url = f"ws://127.0.0.1:{sock.port}/ws/matches/{sock.match_id}/"
    headers = {"Cookie": cookie} if cookie else {}
    sock.opened = time.time()
    for _ in range(1000):
        if sock.stop or time.time() > until:
            return
        try:
            async with connect(
                url,
                origin=f"https://127.0.0.1:{sock.port}",
                additional_headers=headers,
                open_timeout=REQUEST_TIMEOUT_S,
                ping_interval=3,
                ping_timeout=5,
                close_timeout=2,
            ) as ws:
                sock.connects += 1
                await ws.send(json.dumps({"since": sock.shown}))
                while not sock.stop and time.time() < until:
                    try:
                        raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
                    except TimeoutError:
                        continue
                    msg = json.loads(raw)
                    if isinstance(msg.get("version"), int):
                        sock.received.append(
                            (time.time(), msg["version"], "html" in msg, sock.connects)
                        )
                return
        except ConnectionClosed as exc:
            code = exc.rcvd.code if exc.rcvd else 1006
            sock.closes[code] = sock.closes.get(code, 0) + 1
            if code == 4404:
                return
        except InvalidStatus as exc:
            code = exc.response.status_code
            sock.failures.append((time.time(), code, f"refused with HTTP {code}"))
        except (OSError, TimeoutError) as exc:
            sock.failures.append((time.time(), 0, f"{type(exc).__name__}: {exc}"[:200]))
        await asyncio.sleep(1.0)


class Sockets:
    """An event loop in a thread of its own, holding every socket of the show."""

    def __init__(self):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.all: list[Socket] = []
        self.futures = []

    def open(self, sock: Socket, cookie: str, until: float) -> None:
        self.all.append(sock)
        self.futures.append(asyncio.run_coroutine_threadsafe(watch(sock, cookie, until), self.loop))

    def close(self, grace_s: float) -> None:
        end = time.time() + grace_s
        for f in self.futures:
            try:
                f.result(timeout=max(0.1, end - time.time()))
            except Exception:  # still open at the end: told to stop below
                pass
        for s in self.all:
            s.stop = True
        for f in self.futures:
            try:
                f.result(timeout=5)
            except Exception:
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
