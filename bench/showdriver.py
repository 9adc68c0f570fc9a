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

import json
import random
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run as a script or imported
from showclients import (  # noqa: E402
    REQUEST_TIMEOUT_S,
    Call,
    Http,
    Recorder,
    Socket,
    Sockets,
)

__all__ = ["Call", "Http", "Recorder", "ShowDriver", "people_script", "parse_people", "run_show"]

# the quicker games (Higher-Lower's auctions and Bleven's crowns take minutes)
SHOW_GAMES = ["doubting-love-letter", "love-letter", "love-me-not"]
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
        self.matches: dict[str, dict] = {}  # stream -> {"id", "game", "seats"}
        self.matches_lock = threading.Lock()
        self.sessions: dict[str, str] = {}  # username -> its browser's cookie header
        self.started = threading.Event()  # the show exists and its bots play
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
        """Play one match until it ends (back to the show now and then)."""
        idle = 0
        for _ in range(300):
            if time.time() > until or idle >= 20:
                return
            status, view = client.request("GET", f"/api/matches/{pk}/")
            if status != 200:
                time.sleep(0.5)
                return
            if view.get("finished"):
                return
            asked = [p for p in view.get("pending") or [] if p["seat"] == me]
            if not asked:
                idle += 1
                time.sleep(0.25)  # the other seat's turn
                continue
            idle = 0
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
            time.sleep(rng.uniform(0.02, 0.15))  # a bot thinks a little
            self._send(client, pk, rng.choice(legal["commands"]), me, rng)

    def _send(self, client: Http, pk: int, command: dict, me: str, rng) -> None:
        path = f"/api/matches/{pk}/commands"
        body = {"command": command, "command_id": f"{me}:{uuid.uuid4()}"}
        for attempt in range(5):
            status, answer = client.request("POST", path, body)
            if status in (0, 429, 503):
                # no answer or a clear retry: the same command id again (written at most once)
                self.tally.add(throttled=int(status == 429))
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
            # each seat's browser logs in (password hashing is slow on purpose: in parallel)
            def login(i: int, p: dict) -> None:
                browser = Http(self.ports, self.recorder, first=i)
                browser.login(p["username"], self.password)
                self.sessions[p["username"]] = "; ".join(
                    f"{k}={v}" for k, v in browser.cookies.items()
                )

            with ThreadPoolExecutor(4) as pool:
                list(pool.map(login, *zip(*enumerate(self.people["players"]), strict=True)))
        created = self._create(org)
        self.show_id = created["id"]
        self.say(f"show {self.show_id} created: {len(self.people['players'])} entrants")
        bots = [
            threading.Thread(target=self._play, args=(p, i, until), daemon=True)
            for i, p in enumerate(self.people["players"])
        ]
        for t in bots:
            t.start()
        self.started.set()
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
                "throttled": t.throttled,
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
