"""The chat under a bot show (prod-check): the show's bots greet in its show
room all along the show, over the API (tokens), each message with its own
command id, resent with the same id until it is acknowledged (a fault's
5xx, a dropped connection, a 409) or refused in words (a limit). Bounded:
one message every PACE_S, at most MAX_MESSAGES, each tried at most TRIES
times. Afterwards every acknowledged message must be in the log and in the
chat's read model, once (check_chat)."""

from __future__ import annotations

import threading
import time

from showclients import Http

PACE_S = 0.5
MAX_MESSAGES = 200
TRIES = 40
RETRY_S = 0.5


class Greeter:
    def __init__(self, ports, recorder, players: list[dict], show_id: int, done: threading.Event):
        self.clients = [(p["username"], Http(ports, recorder, token=p["token"])) for p in players]
        self.room = f"s{show_id}-show"
        self.done = done
        self.acked: dict[str, int] = {}  # command id -> message id
        self.refused: list[str] = []  # refusals in words (a limit)
        self.unanswered: list[str] = []  # never acknowledged within TRIES

    def _send(self, client: Http, text: str, ident: str) -> None:
        body = {"text": text, "command_id": ident}
        for _ in range(TRIES):
            status, answer = client.request("POST", f"/api/chat/rooms/{self.room}/messages", body)
            if status == 201 and isinstance(answer, dict):
                self.acked[ident] = answer["id"]
                return
            if status in (400, 403, 422, 429):  # refused in words: not written
                self.refused.append(f"{status} {answer}")
                return
            time.sleep(RETRY_S)  # a fault (0, 5xx) or a conflict (409): the same id again
        self.unanswered.append(ident)

    def run(self) -> None:
        for n in range(MAX_MESSAGES):
            if self.done.is_set():
                return
            name, client = self.clients[n % len(self.clients)]
            started = time.time()
            self._send(client, f"good luck everyone! ({name}, {n})", f"greet-{name}-{n}")
            time.sleep(max(0.0, PACE_S - (time.time() - started)))


def check_chat(conn, greeter: Greeter, facts: list[str]) -> list[str]:
    """Every acknowledged message in the log (a chat_message event of the show
    room, its id the one acknowledged) and in the read model, each once."""
    failures = []
    ids = list(greeter.acked.values())
    stream = f"chat-{greeter.room}"
    logged = {
        row[0]
        for row in conn.execute(
            "SELECT id FROM eventlog_storedevent WHERE stream = %s AND type = 'chat_message'",
            [stream],
        ).fetchall()
    }
    shown = {row[0] for row in conn.execute("SELECT id FROM chat_chatmessage").fetchall()}
    lost = [i for i in ids if i not in logged or i not in shown]
    facts.append(
        f"chat: {len(ids)} greetings acknowledged in the show room across the faults, "
        f"{len(greeter.refused)} refused in words, {len(greeter.unanswered)} never answered; "
        f"{len(logged)} in the log"
    )
    if not ids:
        failures.append("chat: no greeting was acknowledged (the chat was not exercised)")
    if lost:
        failures.append(f"chat: {len(lost)} acknowledged message(s) not in the log: {lost[:10]}")
    if len(set(ids)) != len(ids) or len(logged) != len(ids):
        failures.append(f"chat: {len(ids)} acknowledged, {len(logged)} written (doubled or stray)")
    if greeter.unanswered:
        failures.append(f"chat: {len(greeter.unanswered)} greeting(s) never acknowledged")
    return failures
