"""Arbitrary bodies on the show, bracket and webhook POST endpoints: always
a 4xx (or a success) with a code, never a 500."""

import json

import pytest
from django.conf import settings as django_settings
from django.contrib.auth.models import Permission, User
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee"]
FIELDS = ["command", "type", "name", "entrants", "holders", "options", "rounds", "title"]
FIELDS += ["ranking", "to", "candidates", "dmo", "game", "entrant", "item", "scope", "item_id"]
FIELDS += ["dispute_id", "ruling", "params", "reason", "url", "kinds", "format", "first_to"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=40)
    | st.sampled_from(
        ["add_round", "enter_ranking", "grant_item", "give_token", "rule_dispute", "pick_game"]
        + ["ana", "ben", "single", "love-me-not", "d-1", "item-1", "void_to", "bot:random"]
        + ["http://127.0.0.1:9/", "discord", "result"]
    )
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=10), inner, max_size=6)
    ),
    max_leaves=25,
)
bodies = (
    values.map(json.dumps)
    | st.fixed_dictionaries({"command": values}).map(json.dumps)
    | st.text(max_size=100)
)
FUZZ = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
UNLIMITED = {
    **django_settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"commands_burst": None, "commands_sustained": None},
}


def organizer(name, *perms):
    """A user with the organizer's permissions named (no staff flag needed)."""
    user = User.objects.create_user(name)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return User.objects.get(pk=user.pk)  # a fresh instance: no stale permission cache


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=UNLIMITED)
@pytest.mark.parametrize("endpoint", ["commands", "create", "brackets", "webhooks"])
def test_no_body_is_a_server_error(as_user, endpoint):
    olga = organizer("olga", "add_showrecord", "add_bracketrecord")
    stream = ss.create_show(
        name="Fuzz",
        organizer="olga",
        entrants=ENTRANTS,
        holders={e: "bot:random" for e in ENTRANTS},
        options={"step_deadline_s": 0},
    )
    pk = ShowRecord.objects.get(stream=stream).pk
    url = {
        "commands": f"/api/shows/{pk}/commands",
        "create": "/api/shows/",
        "brackets": "/api/brackets/",
        "webhooks": f"/api/shows/{pk}/webhooks",
    }[endpoint]
    client = as_user(olga)

    @FUZZ
    @given(body=bodies)
    def check(body):
        resp = client.post(url, body, content_type="application/json")
        assert resp.status_code < 500, (body, resp.content)
        if resp.status_code >= 400:
            assert resp.json()["code"] and resp.json()["message"]

    check()


# ---- the bodies that took the site down once: each a clear 4xx, nothing written
HUGE = [2**70, 10**30, 1e308, -1, "٣", "\ud800"]


def _show_with_a_match(olga_name="olga"):
    from games.models import Match

    stream = ss.create_show(
        name="Known",
        organizer=olga_name,
        entrants=["ana", "ben"],
        holders={"ana": "bot:random", "ben": "bot:random"},
        options={"step_deadline_s": 0},
    )
    return ShowRecord.objects.get(stream=stream), Match.objects.get(show_stream=stream)


def _written(stream):
    from eventlog.models import StoredEvent

    return StoredEvent.objects.filter(stream=stream).count()


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=UNLIMITED)
@pytest.mark.parametrize(
    "command",
    [
        {"type": "rule_dispute", "dispute_id": ["d-1"], "ruling": "dismiss", "reason": "x"},
        {"type": "rule_dispute", "dispute_id": {"a": 1}, "ruling": "dismiss", "reason": "x"},
        {"type": "claim_dispute", "dispute_id": ["d-1"]},
        {"type": "file_dispute", "target_stream": "\ud800", "target_version": 1, "text": "x"},
        {"type": "file_dispute", "target_stream": "MATCH", "target_version": 2**62, "text": "x"},
        {"type": "extend_deadline", "step": "nominate", "seconds": 1e308, "reason": "x"},
    ],
)
def test_known_killer_commands_are_a_4xx(as_user, command):
    olga = organizer("olga")
    record, match = _show_with_a_match()
    before = _written(record.stream)
    command = {k: (match.stream if v == "MATCH" else v) for k, v in command.items()}
    body = json.dumps({"command": command})
    for who in (olga, User.objects.create_user("nobody")):  # before the role check too
        resp = as_user(who).post(
            f"/api/shows/{record.pk}/commands", body, content_type="application/json"
        )
        assert 400 <= resp.status_code < 500, resp.content
        assert resp.json()["message"]
    assert _written(record.stream) == before


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=UNLIMITED)
@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize(
    "field", ["entrants", "first_to", "rounds", "format", "show", "game", "holders"]
)
def test_a_bracket_field_out_of_bounds_is_a_4xx(as_user, field, value):
    olga = organizer("olga", "add_bracketrecord")
    body = {
        "name": "Cup",
        "game": "love-me-not",
        "format": "swiss",
        "entrants": ["a", "b", "c"],
        "options": {},
    }
    if field == "entrants":
        body["entrants"] = [f"e{i}" for i in range(65)] if value == 2**70 else [value, "b"]
    elif field == "rounds":
        body["options"] = {"rounds": value}
    elif field == "holders":
        body["holders"] = {"a": value}
    else:
        body[field] = value
    resp = as_user(olga).post("/api/brackets/", json.dumps(body), content_type="application/json")
    if field == "entrants" and value not in (2**70, "\ud800"):
        assert resp.status_code < 500, resp.content  # a number is a name like another
    else:
        assert 400 <= resp.status_code < 500, resp.content


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=UNLIMITED)
@pytest.mark.parametrize("value", HUGE)
@pytest.mark.parametrize(
    "option",
    [
        "spectator_delay_s",
        "step_deadline_s",
        "final_first_to",
        "death_match_first_to",
        "candidates_per_round",
        "check_in_s",
        "ready_check_s",
        "cap",
    ],
)
def test_a_show_option_out_of_bounds_is_a_4xx(as_user, option, value):
    olga = organizer("olga", "add_showrecord")
    body = {"name": "Night", "entrants": ["a", "b", "c"], "options": {option: value}}
    resp = as_user(olga).post("/api/shows/", json.dumps(body), content_type="application/json")
    assert 400 <= resp.status_code < 500, resp.content
    assert not ShowRecord.objects.exists()
