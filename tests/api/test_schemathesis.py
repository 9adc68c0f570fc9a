"""The API fuzzed from its own live schema (schemathesis, in make test):
every operation of /api/schema/, called in process through the WSGI app,
with a few examples each (derandomized, positive and negative data), as a
seated player and as an organizer, each with the ids it generated and with
real ones (a live match, a show, a bracket, a webhook, an invitation), so
that real paths are reached. Every answer: not a server error, its status,
content type and body as the schema declares, and no card its caller may
not see."""

import json
import random

import pytest
import schemathesis
from django.contrib.auth.models import Permission, User
from hypothesis import HealthCheck, Phase, given, note, settings
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from api.models import ApiToken
from eventlog.store import read, stream_version
from games import services, visibility
from games.models import Match
from hooks.models import WebhookEndpoint
from tests.helpers.redaction import assert_no_leak, hidden_facts
from tournaments import bracket_services, invitations
from tournaments import show_services as ss
from tournaments.models import BracketRecord, ShowRecord

CHECKS = [
    schemathesis.checks.not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
EXAMPLES = 3  # per operation; × 2 callers × (generated ids, real ids)
ENTRANTS = ["ana", "ben", "cal", "dee"]


class World:
    """The fixtures the fuzz reaches: callers with tokens, and real ids."""

    def __init__(self):
        self.organizer = User.objects.create_user("olga")
        self.organizer.user_permissions.add(
            *Permission.objects.filter(
                codename__in=["add_showrecord", "add_bracketrecord", "add_match"]
            )
        )
        self.player = User.objects.create_user("ana_user")
        User.objects.create_user("mia")
        self.match = services.create_match(
            "love-me-not",
            ["ana", "ben"],
            holders={"ana": self.player.pk},
            moderators=[self.organizer.pk],
            rng=random.Random(4),
        )
        stream = ss.create_show(
            name="Fuzzed",
            organizer="olga",
            entrants=ENTRANTS,
            holders={"ana": self.player.pk, **{e: "bot:random" for e in ENTRANTS[1:]}},
            options={"step_deadline_s": 0},
        )
        olga = ss.Acting("olga", "organizer")
        ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga)
        invitations.invite(stream, "cal", olga)
        self.show = ShowRecord.objects.get(stream=stream)
        self.hook = WebhookEndpoint.objects.create(
            show_stream=stream, url="http://127.0.0.1:9/", kinds=["result"], secret="s" * 64
        )
        bracket = bracket_services.create_bracket(
            name="Cup",
            game="higher-lower",
            format="single",
            entrants=ENTRANTS,
            holders={e: "bot:random" for e in ENTRANTS},
            actor="olga",
        )
        self.bracket = BracketRecord.objects.get(stream=bracket)
        self.tokens = {
            "player": ApiToken.issue(self.player, "fuzz")[1],
            "organizer": ApiToken.issue(self.organizer, "fuzz")[1],
        }
        self.users = {"player": self.player, "organizer": self.organizer}
        self._facts = {}
        self.answered = set()  # (caller, method, path) answered 2xx with real ids

    def real_ids(self, path: str) -> dict:
        first = {
            "/api/matches/": self.match.pk,
            "/api/shows/": self.show.pk,
            "/api/brackets/": self.bracket.pk,
        }
        ids = {"hook_id": self.hook.pk, "invitation_id": "invitation-1"}
        for prefix, pk in first.items():
            if path.startswith(prefix):
                ids["id"] = pk
        return ids

    def facts(self, caller: str) -> list[tuple[str, dict]]:
        out = []
        for match in Match.objects.all():
            key = (match.stream, caller)
            version = stream_version(match.stream)
            if self._facts.get(key, (None,))[0] != version:
                self._facts[key] = (version, hidden_facts(match, self.users[caller]))
            out.extend(self._facts[key][1])
        return out


def _live_schema():
    """/api/schema/ as the app serves it (loaded through WSGI when collected)."""
    from config.wsgi import application

    return schemathesis.openapi.from_wsgi("/api/schema/?format=json", application)


schema = _live_schema()


@pytest.fixture
def world(db, settings):
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    # every example reaches the views: no rate limit
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {"commands_burst": None, "commands_sustained": None},
    }
    # the WSGI app would close the test's connection (and its transaction) around
    # each request; Django's test client keeps it the same way
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield World()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _strategy(operation):
    """Positive and negative examples of one operation."""
    from hypothesis import strategies as st
    from schemathesis.generation.modes import GenerationMode

    return st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )


def _call(case, world) -> None:
    generated = dict(case.path_parameters or {})
    for caller, secret in world.tokens.items():
        for real, ids in enumerate((generated, {**generated, **world.real_ids(case.path)})):
            if case.path_parameters is not None:
                case.path_parameters = {k: ids.get(k, v) for k, v in generated.items()}
            response = case.call_and_validate(
                headers={"Authorization": f"Token {secret}"}, checks=CHECKS
            )
            if response.headers.get("Content-Type", [""])[0].startswith("application/json"):
                body = json.loads(response.content or b"null")
            else:  # JSON lines (exports)
                body = [json.loads(line) for line in response.text.splitlines() if line]
            assert_no_leak(body, world.facts(caller))
            if real and response.status_code < 300:
                world.answered.add((caller, case.method.upper(), case.path))


def test_every_operation_as_a_player_and_an_organizer(world):
    """One test for all operations, so the world is built once."""
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 29  # pytest must never collect nothing: nor may this loop
    for operation in operations:

        @settings(
            max_examples=EXAMPLES,
            deadline=None,
            derandomize=True,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        @given(case=_strategy(operation))
        def run(case):
            note(f"{case.method.upper()} {case.path}")
            _call(case, world)

        run()
    # real paths were reached, not only refusals
    for reached in [
        ("player", "GET", "/api/matches/{id}/"),
        ("player", "GET", "/api/matches/{id}/legal"),
        ("player", "GET", "/api/shows/{id}/"),
        ("organizer", "GET", "/api/shows/{id}/audit"),
        ("organizer", "GET", "/api/shows/{id}/invitations"),
        ("organizer", "GET", "/api/shows/{id}/webhooks"),
        ("organizer", "GET", "/api/matches/{id}/history"),
        ("organizer", "GET", "/api/brackets/{id}/"),
    ]:
        assert reached in world.answered, reached


# ---- the checker can fail -------------------------------------------------------------
@pytest.mark.django_db
def test_the_leak_checker_catches_an_opponents_hand_a_hidden_event_and_the_deck():
    player = User.objects.create_user("ana_user")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": player.pk}, rng=random.Random(4)
    )
    facts = hidden_facts(match, player)
    assert {"match_started", "cards_drawn"} <= {kind for kind, _ in facts}
    everything = services.view_for(match, services.MODERATOR_VIEW)
    mine = services.view_for(match, visibility.viewer_of(match, player))
    assert_no_leak(mine, facts)  # what the player is shown passes
    for leaky in (
        everything,  # ben's hand and the deck
        {"hands": {"ben": everything["bout"]["hands"]["ben"]}},
        [
            {"type": r.type, "data": dict(r.data)}
            for r in read(match.stream)
            if r.type == "cards_drawn" and r.data["seat"] == "ben"
        ],
    ):
        with pytest.raises(AssertionError):
            assert_no_leak(leaky, facts)
