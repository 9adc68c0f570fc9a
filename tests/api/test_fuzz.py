"""Arbitrary bodies on every JSON POST endpoint: always a 4xx (or a success),
with a code, never a 500."""

import json

import pytest
from django.conf import settings as django_settings
from django.test import override_settings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

FIELDS = ["command", "type", "card", "claim", "keep", "discard", "command_id", "reason"]
FIELDS += ["seconds", "game", "seats", "options", "holders", "title", "decision_s", "target"]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=80)
    | st.sampled_from(["pause", "resume", "add_time", "choose", "love-me-not", "ana", "bot:x"])
)
values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=5)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=20,
)
bodies = values.map(json.dumps) | st.text(max_size=200) | st.binary(max_size=200)

FUZZ = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# no rate limit: every example reaches the parser and the serializers
UNLIMITED = {
    **django_settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"commands_burst": None, "commands_sustained": None},
}


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=UNLIMITED)
@pytest.mark.parametrize("endpoint", ["commands", "moderate", "create"])
def test_no_body_is_a_server_error(as_user, match, ana, organizer, endpoint):
    client = as_user(ana if endpoint == "commands" else organizer)
    url = "/api/matches/" if endpoint == "create" else f"/api/matches/{match.pk}/{endpoint}"

    @FUZZ
    @given(body=bodies)
    def check(body):
        resp = client.post(url, body, content_type="application/json")
        assert resp.status_code < 500 and resp.status_code != 429
        if resp.status_code >= 400:
            assert resp.json()["code"] and resp.json()["message"]

    check()
