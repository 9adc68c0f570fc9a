"""The table's HTML move form counts under the API's rate limits (per
account and per address): past them, a 429 with words and nothing written."""

import random

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client, override_settings

from eventlog.models import StoredEvent
from games import services

TIGHT = {
    **settings.REST_FRAMEWORK,
    "DEFAULT_THROTTLE_RATES": {"commands_burst": "100/s", "commands_sustained": "3/min"},
}


@pytest.mark.django_db
@override_settings(REST_FRAMEWORK=TIGHT)
def test_the_move_form_is_rate_limited_per_account():
    pat = User.objects.create_user("pat")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": pat.pk}, rng=random.Random(4)
    )
    client = Client(HTTP_HX_REQUEST="true")
    client.force_login(pat)
    url = f"/games/matches/{match.pk}/command"
    codes = [client.post(url, {"control": "nonsense"}).status_code for _ in range(3)]
    assert 429 not in codes
    before = StoredEvent.objects.filter(stream=match.stream).count()
    resp = client.post(url, {"control": "nonsense"})
    assert resp.status_code == 429 and "too many moves" in resp.content.decode()
    assert StoredEvent.objects.filter(stream=match.stream).count() == before
