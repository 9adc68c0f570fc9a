"""The no-leak checker the API's fuzz (tests/api/test_schemathesis.py) and
the match socket's tests (tests/live/test_socket_moves.py) share: what a
user may not see of a match, and a body that must show none of it."""

from eventlog.store import read
from games import visibility
from games.core.adapt import as_game_event
from games.models import Match


def hidden_facts(match: Match, user) -> list[tuple[str, dict]]:
    """(event type, the fields this user may not see) of every event of the
    match redacted for them, as the policy decides."""
    viewer = visibility.viewer_of(match, user)
    out = []
    for row in read(match.stream):
        event = as_game_event(row)
        seen = event.for_viewer(viewer) or {}
        secret = {k: v for k, v in event.data.items() if k != "at" and seen.get(k, object()) != v}
        if secret:
            out.append((row.type, {**secret, "_seat": event.data.get("seat")}))
    return out


def _walk(value):
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


def assert_no_leak(body, facts: list[tuple[str, dict]]) -> None:
    """No hidden event shown whole, no hidden hand, deck or salt anywhere."""
    nodes = list(_walk(body))
    for kind, fact in facts:
        seat = fact.get("_seat")
        secret = {k: v for k, v in fact.items() if k != "_seat"}
        for node in nodes:
            if not isinstance(node, dict):
                continue
            data = node.get("data") if isinstance(node.get("data"), dict) else node
            if node.get("type") == kind and all(data.get(k) == v for k, v in secret.items()):
                raise AssertionError(f"{kind} shown with {secret}")
            for key, value in secret.items():
                if isinstance(value, list) and len(value) >= 2:
                    if node.get(key) == value or (seat and node.get(seat) == value):
                        raise AssertionError(f"{kind}'s hidden {key} {value} shown")
        salt = secret.get("salt")
        if isinstance(salt, str) and any(n == salt for n in nodes):
            raise AssertionError(f"{kind}'s hidden salt shown")
