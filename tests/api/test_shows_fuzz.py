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
