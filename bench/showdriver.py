"""A bot show over HTTP and websockets, as people and their browsers drive one.

The organizer creates a show of N entrants through the API and takes every
organizer step (rounds, rankings, game picks) until the champion; each entrant
is a person's account whose bot plays its seat over HTTP with the account's API
token (show decisions and match moves), its requests spread over every web
server given. Websocket clients watch every match on /ws/matches/<pk>/: one
spectator per server, and each seat (logged in through the login form, as a
browser is). Bots let a clock run out now and then, and resend a command with
its command id as a client retrying after a lost answer.

Used by `make prod-check` (bench/prod_check.py) and the show benchmark. The
driver only plays and records; the callers judge (5xx, faults, the log):

    people = parse_people(run `manage.py shell -c people_script(n, password)`)
    summary = run_show(["http://127.0.0.1:8161", ...], people, password=password)

Every loop is bounded in count and time (time_limit_s); loopback only.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import random
import threading
import time
import uuid
from dataclasses import asdict, dataclass, field
from urllib.parse import urlencode, urlsplit

REQUEST_TIMEOUT_S = 15  # a request that has not answered by then has hung
SHOW_GAMES = ["doubting-love-letter", "love-letter", "love-me-not", "higher-lower"]
DEFAULT_OPTIONS = {
    "step_deadline_s": 0,
    "death_match_first_to": 1,
    "final_first_to": 1,
    "spectator_delay_s": 3,
    "game_pool": SHOW_GAMES,
    # short clocks, so that timeouts happen (no reserve behind the decision clock)
    "match_clock": {"decision_s": 4, "reserve_s": 0},
}


# ---- the people --------------------------------------------------------------------
def people_script(n_entrants: int, password: str) -> str:
    """Python for `manage.py shell -c`: an organizer and ``n_entrants`` players, each
    with an API token; prints ``PEOPLE <json>`` on stderr (see parse_people)."""
    return (
        "import json, sys\n"
        "from django.contrib.auth.models import Permission, User\n"
        "from api.models import ApiToken\n"
        f"pw, n = {password!r}, {int(n_entrants)}\n"
        "org = User.objects.create_user('organizer', password=pw)\n"
        "org.user_permissions.add(Permission.objects.get(codename='add_showrecord'))\n"
        "hashed = org.password  # one password hash for all: hashing is slow on purpose\n"
        "people = {'organizer': {'username': 'organizer', 'id': org.pk,\n"
        "          'token': ApiToken.issue(org, 'show driver')[1]}, 'players': []}\n"
        "for i in range(n):\n"
        "    u = User.objects.create(username=f'p{i}', password=hashed)\n"
        "    people['players'].append({'username': u.username, 'id': u.pk,\n"
        "                              'token': ApiToken.issue(u, 'show bot')[1]})\n"
        "sys.stderr.write('PEOPLE ' + json.dumps(people) + '\\n')\n"
    )


def parse_people(stderr: str) -> dict:
    lines = [ln for ln in stderr.splitlines() if ln.startswith("PEOPLE ")]
    if not lines:
        raise RuntimeError(f"no PEOPLE line in the script's output: {stderr[-2000:]}")
    return json.loads(lines[-1][len("PEOPLE ") :])


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


# ---- deciding ------------------------------------------------------------------------
def organizer_command(show: dict, step: str, rng: random.Random) -> dict | None:
    """The organizer's step, decided from the show as the API shows it."""
    if step == "add_round":
        return {"type": "add_round", "title": f"Round {len(show['rounds']) + 1}"}
    if step == "enter_ranking":
        live = [e["name"] for e in show["entrants"] if e["status"] == "active"]
        rng.shuffle(live)
        return {"type": "enter_ranking", "ranking": [[e] for e in live]}
    if step == "pick_game":
        rnd = next(r for r in show["rounds"] if r["status"] == "started")
        for duel in rnd["duels"]:
            if duel["dmo"] and not duel["game"]:
                banned = set(duel["bans"].values())
                pool = [g for g in show["options"]["game_pool"] if g not in banned]
                return {
                    "type": "pick_game",
                    "candidate": duel["candidate"],
                    "game": rng.choice(pool),
                }
    return None


def entrant_commands(show: dict, step: str, me: str, rng: random.Random) -> list[dict]:
    """An entrant's choices for ``step``, likeliest first (the show's rules refuse
    the others with a 422 and the bot tries the next)."""
    rnd = next((r for r in show["rounds"] if r["status"] == "started"), None)
    if rnd is None:
        return []
    active = [e["name"] for e in show["entrants"] if e["status"] == "active"]
    others = [e for e in active if e != me]
    rng.shuffle(others)
    immune, named = set(rnd["immune"]), set(rnd["candidates"])
    if step == "give_token":
        winners = set(rnd["winners"])
        return [{"type": "give_token", "to": e} for e in others if e not in winners]
    if step == "choose_candidate":
        pool = [e for e in others if e not in immune and e not in rnd["winners"]]
        n = max(1, rnd["candidates_needed"] - len(named))
        return [{"type": "choose_candidate", "candidates": rng.sample(pool, min(n, len(pool)))}]
    if step == "nominate":
        taken = {d["dmo"] for d in rnd["duels"] if d["dmo"]}
        fits = [e for e in others if e not in immune | named | taken]
        return [{"type": "nominate", "dmo": e} for e in fits] or [
            {"type": "nominate", "dmo": e} for e in others
        ]
    if step == "ban_game":
        duel = next(d for d in rnd["duels"] if me in (d["candidate"], d["dmo"]))
        banned = set(duel["bans"].values())
        pool = [g for g in show["options"]["game_pool"] if g not in banned]
        rng.shuffle(pool)
        return [{"type": "ban_game", "game": g} for g in pool]
    return []


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
    failures: list = field(default_factory=list)  # connection attempts refused, with why
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
            sock.failures.append(f"refused with HTTP {exc.response.status_code}")
        except (OSError, TimeoutError) as exc:
            sock.failures.append(f"{type(exc).__name__}: {exc}"[:200])
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


# ---- the driver ------------------------------------------------------------------------
@dataclass
class Tally:
    show_commands: int = 0
    moves: int = 0
    resent: int = 0
    rejected: int = 0  # 409/422: a rule or a concurrent write said no
    throttled: int = 0
    clocks_let_run: int = 0
    notes: list = field(default_factory=list)  # what a bot saw go wrong
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, **counts) -> None:
        with self.lock:
            for k, v in counts.items():
                setattr(self, k, getattr(self, k) + v)


class ShowDriver:
    def __init__(
        self,
        base_urls: list[str],
        people: dict,
        *,
        password: str = "",
        options: dict | None = None,
        time_limit_s: float = 240,
        sleep_p: float = 0.12,
        resend_p: float = 0.1,
        spectators_per_server: int = 1,
        seat_sockets: bool = True,
        seed: int = 0,
        say=print,
    ):
        self.ports = [urlsplit(u).port or 80 for u in base_urls]
        self.people, self.password = people, password
        self.options = {**DEFAULT_OPTIONS, **(options or {})}
        self.time_limit_s, self.sleep_p, self.resend_p = time_limit_s, sleep_p, resend_p
        self.spectators, self.seat_sockets = spectators_per_server, seat_sockets
        self.seed, self.say = seed, say
        self.recorder = Recorder()
        self.tally = Tally()
        self.sockets = Sockets()
        self.matches: dict[str, dict] = {}  # stream -> {"id", "game", "seats", "opened"}
        self.matches_lock = threading.Lock()
        self.sessions: dict[str, str] = {}  # username -> its browser's cookie header
        self.done = threading.Event()
        self.show_id: int | None = None
        self.final: dict = {}

    # -- the organizer
    def _create(self, org: Http) -> dict:
        names = [p["username"] for p in self.people["players"]]
        for _ in range(20):
            status, body = org.request(
                "POST",
                "/api/shows/",
                {
                    "name": f"Bot show of {len(names)}",
                    "entrants": names,
                    "holders": {p["username"]: p["id"] for p in self.people["players"]},
                    "options": self.options,
                },
            )
            if status == 201:
                return body
            if status not in (0, 429, 503):
                raise RuntimeError(f"creating the show answered {status}: {body}")
            time.sleep(1)
        raise RuntimeError("the show could not be created")

    def _organize(self, org: Http, until: float, rng: random.Random) -> None:
        me = self.people["organizer"]["username"]
        path = f"/api/shows/{self.show_id}/"
        for _ in range(100_000):
            if time.time() > until:
                self.tally.notes.append(f"the show did not end within {self.time_limit_s:.0f} s")
                return
            status, body = org.request("GET", path)
            if status != 200:
                time.sleep(0.5)
                continue
            show = body["show"]
            self._discover(org, show, until)
            if show["status"] == "over":
                self.final = show
                return
            mine = [p for p in show["pending"] if p["who"] == me]
            command = organizer_command(show, mine[0]["step"], rng) if mine else None
            if command is None:
                time.sleep(0.4)
                continue
            status, body = org.request("POST", f"{path}commands", {"command": command})
            if status == 201:
                self.tally.add(show_commands=1)
            elif status in (409, 422):
                self.tally.add(rejected=1)
                time.sleep(0.3)
            else:
                time.sleep(0.5)

    def _discover(self, org: Http, show: dict, until: float) -> None:
        """New matches of the show: their ids, and sockets to watch them."""
        streams = [d["match_stream"] for r in show["rounds"] for d in r["duels"]]
        streams.append((show.get("final") or {}).get("match_stream"))
        new = [s for s in streams if s and s not in self.matches]
        if not new:
            return
        status, rows = org.request("GET", "/api/matches/")
        if status != 200:
            return
        for row in rows:
            if row["stream"] in new:
                info = {"id": row["id"], "game": row["game"], "seats": row["seats"]}
                with self.matches_lock:
                    self.matches[row["stream"]] = info
                for port in self.ports * self.spectators:
                    self.sockets.open(
                        Socket(row["id"], row["stream"], "spectator", port), "", until
                    )
                if self.seat_sockets:
                    for j, seat in enumerate(row["seats"]):
                        cookie = self.sessions.get(seat, "")
                        port = self.ports[(row["id"] + j) % len(self.ports)]
                        self.sockets.open(
                            Socket(row["id"], row["stream"], f"seat:{seat}", port), cookie, until
                        )

    # -- an entrant's bot
    def _play(self, player: dict, n: int, until: float) -> None:
        rng = random.Random(self.seed * 1000 + n)
        client = Http(self.ports, self.recorder, token=player["token"], first=n)
        me = player["username"]
        show_path = f"/api/shows/{self.show_id}/"
        asleep: set = set()  # (match, version) whose clock this bot lets run out
        for _ in range(100_000):
            if self.done.is_set() or time.time() > until:
                return
            status, body = client.request("GET", show_path)
            if status != 200:
                time.sleep(0.5)
                continue
            show = body["show"]
            if show["status"] == "over":
                return
            me_now = next(e for e in show["entrants"] if e["name"] == me)
            if me_now["status"] == "eliminated":
                return
            mine = [p for p in show["pending"] if p["who"] == me]
            if mine:
                self._decide(client, show, mine[0]["step"], me, rng)
                continue
            status, live = client.request("GET", "/api/matches/?mine=true")
            if status != 200 or not live:
                time.sleep(0.5 + rng.random() * 0.5)
                continue
            for match in live:
                self._move(client, match["id"], me, rng, asleep, until)

    def _decide(self, client: Http, show: dict, step: str, me: str, rng) -> None:
        for command in entrant_commands(show, step, me, rng)[:10]:
            status, _ = client.request(
                "POST", f"/api/shows/{self.show_id}/commands", {"command": command}
            )
            if status == 201:
                self.tally.add(show_commands=1)
                return
            if status in (409, 422):
                self.tally.add(rejected=1)
                continue
            time.sleep(0.5)  # no answer, 429 or 503: read the show again first
            return

    def _move(self, client: Http, pk: int, me: str, rng, asleep: set, until: float) -> None:
        """Play one match while this seat has moves (a few at most, then back to the show)."""
        for _ in range(200):
            if time.time() > until:
                return
            status, view = client.request("GET", f"/api/matches/{pk}/")
            if status != 200:
                time.sleep(0.5)
                return
            asked = [p for p in view.get("pending") or [] if p["seat"] == me]
            if view.get("finished") or not asked:
                time.sleep(0.3)
                return
            deadline = asked[0].get("deadline")
            if (pk, deadline) in asleep:
                time.sleep(0.3)  # still asleep on this decision: the clock will run out
                continue
            if deadline and rng.random() < self.sleep_p:
                asleep.add((pk, deadline))
                self.tally.add(clocks_let_run=1)
                continue
            status, legal = client.request("GET", f"/api/matches/{pk}/legal")
            if status != 200 or not legal["commands"]:
                time.sleep(0.3)
                continue
            time.sleep(rng.uniform(0.05, 0.3))  # a bot thinks a little
            self._send(client, pk, rng.choice(legal["commands"]), me, rng)

    def _send(self, client: Http, pk: int, command: dict, me: str, rng) -> None:
        path = f"/api/matches/{pk}/commands"
        body = {"command": command, "command_id": f"{me}:{uuid.uuid4()}"}
        for attempt in range(5):
            status, answer = client.request("POST", path, body)
            if status in (0, 503) or status == 429:
                # no answer or a clear retry: the same command id again (written at most once)
                time.sleep(0.5 * (attempt + 1))
                continue
            break
        if status not in (200, 201):
            if status in (409, 422):
                self.tally.add(rejected=1)
            return
        self.tally.add(moves=1)
        if rng.random() < self.resend_p:
            # a client retrying after a lost answer: the first result, nothing written
            again, answer2 = client.request("POST", path, body)
            self.tally.add(resent=1)
            if again != 200 or answer2.get("appended") != answer.get("appended"):
                self.tally.notes.append(
                    f"resent {body['command_id']}: {again} {str(answer2)[:200]} "
                    f"vs {answer.get('appended')}"
                )

    # -- the whole show
    def run(self) -> dict:
        start = time.time()
        until = start + self.time_limit_s
        org = Http(self.ports, self.recorder, token=self.people["organizer"]["token"])
        if self.seat_sockets:
            for i, p in enumerate(self.people["players"]):
                browser = Http(self.ports, self.recorder, first=i)
                browser.login(p["username"], self.password)
                self.sessions[p["username"]] = "; ".join(
                    f"{k}={v}" for k, v in browser.cookies.items()
                )
        created = self._create(org)
        self.show_id = created["id"]
        self.say(f"show {self.show_id} created: {len(self.people['players'])} entrants")
        bots = [
            threading.Thread(target=self._play, args=(p, i, until), daemon=True)
            for i, p in enumerate(self.people["players"])
        ]
        for t in bots:
            t.start()
        try:
            self._organize(org, until, random.Random(self.seed))
        finally:
            self.done.set()
            for t in bots:
                t.join(timeout=max(1.0, until - time.time()) + REQUEST_TIMEOUT_S)
            # spectators see the end of the last match a delay later
            self.sockets.close(grace_s=self.options["spectator_delay_s"] + 4)
        return self.summary(created, time.time() - start)

    def summary(self, created: dict, duration_s: float) -> dict:
        calls = self.recorder.calls
        statuses: dict[int, int] = {}
        for c in calls:
            statuses[c.status] = statuses.get(c.status, 0) + 1
        socks = self.sockets.all
        t = self.tally
        return {
            "show_id": self.show_id,
            "show_stream": created["stream"],
            "entrants": len(self.people["players"]),
            "status": self.final.get("status", "unfinished"),
            "champion": self.final.get("champion"),
            "duration_s": round(duration_s, 1),
            "matches": dict(self.matches),
            "http": {
                "requests": len(calls),
                "by_port": {p: sum(1 for c in calls if c.port == p) for p in self.ports},
                "statuses": dict(sorted(statuses.items())),
                "slowest_s": round(max((c.elapsed for c in calls), default=0), 2),
            },
            "commands": {
                "show": t.show_commands,
                "moves": t.moves,
                "resent": t.resent,
                "rejected": t.rejected,
                "clocks_let_run": t.clocks_let_run,
            },
            "sockets": {
                "count": len(socks),
                "messages": sum(len(s.received) for s in socks),
                "connects": sum(s.connects for s in socks),
                "closes": _merge(s.closes for s in socks),
            },
            "notes": list(t.notes),
            # for the caller's checks: every call and every socket's messages
            "raw": {"calls": calls, "sockets": socks},
        }


def _merge(dicts) -> dict:
    out: dict = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0) + v
    return out


def run_show(base_urls: list[str], people: dict, **kwargs) -> dict:
    """Play a show of len(people["players"]) entrants to its champion (or the time
    limit); returns the summary (JSON-able but for its "raw" entry)."""
    return ShowDriver(base_urls, people, **kwargs).run()


def plain(summary: dict) -> dict:
    """The summary without its raw records (for JSON)."""
    return {k: v for k, v in summary.items() if k != "raw"}


def socket_records(summary: dict) -> list[dict]:
    return [asdict(s) for s in summary["raw"]["sockets"]]
