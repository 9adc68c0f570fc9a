"""A fake show provider and small helpers for the visibility tests.

The tournaments app registers the real provider at startup; these tests put
a fake one in its place, so the policy is tested on its own."""

import pytest

from games import visibility
from games.visibility import ShowFacts


class FakeShows:
    def __init__(self):
        self.facts: dict[str, ShowFacts] = {}
        self.unsettled: set[str] = set()
        self.opened: list[tuple[str, int, str]] = []

    def show_facts(self, show_stream):
        return self.facts.get(show_stream)

    def result_settled(self, show_stream, match_stream):
        return match_stream not in self.unsettled

    def opened_omnisciently(self, show_stream, user_id, match_stream):
        return (show_stream, user_id, match_stream) in self.opened

    def record_omniscient_view(self, show_stream, user, match_stream, *, now=None, command_id=None):
        self.opened.append((show_stream, user.pk, match_stream))
        return True

    def add(self, stream, *, organizer=(), moderators=(), delay=300, policy="public"):
        self.facts[stream] = ShowFacts(frozenset(organizer), frozenset(moderators), delay, policy)
        return stream


@pytest.fixture
def fake_shows():
    fake = FakeShows()
    previous = visibility.register_show_provider(fake)
    yield fake
    visibility.register_show_provider(previous)


@pytest.fixture
def at(monkeypatch):
    """at(t): every read made from now on happens at time t."""

    def set_clock(t):
        monkeypatch.setattr(visibility, "clock", lambda: t)

    return set_clock
