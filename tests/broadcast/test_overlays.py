"""Stream overlays: a secret read-only link per show that only its organizer
makes; a new link turns the old one off; the pages are the spectators' view
at the show's delay."""

import re
import time

import pytest
from django.contrib.auth.models import User

from broadcast.models import OverlayKey
from eventlog.models import CommandRecord

pytestmark = pytest.mark.django_db

LINK = re.compile(r'value="http://testserver/overlay/([^/"]+)/(\w+)/"')


def make_link(client, record, key="") -> str:
    resp = client.post(f"/shows/{record.pk}/overlays/", {"command_id": key} if key else {})
    assert resp.status_code == 200
    found = LINK.findall(resp.content.decode())
    assert {kind for _t, kind in found} == {"scoreboard", "bracket", "featured", "hands", "chat"}
    assert len({t for t, _k in found}) == 1
    return found[0][0]


def test_only_the_organizer_makes_the_link(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(moves=0)
    url = f"/shows/{record.pk}/overlays/"
    assert client.post(url).status_code == 302  # to the login page
    client.force_login(User.objects.create_user("sam", password="pw-123456"))
    assert client.get(url).status_code == 403
    assert client.post(url).status_code == 403
    assert not OverlayKey.objects.exists()  # nothing written


def test_a_new_link_turns_the_old_one_off(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(moves=0)
    client.force_login(olga)
    first = make_link(client, record)
    stored = OverlayKey.objects.get(show_stream=record.stream)
    assert first not in stored.token_hash  # only its hash is kept
    viewer = type(client)()  # an anonymous streaming tool
    assert viewer.get(f"/overlay/{first}/scoreboard/").status_code == 200

    second = make_link(client, record)
    assert second != first
    assert viewer.get(f"/overlay/{first}/scoreboard/").status_code == 404
    assert viewer.get(f"/overlay/{second}/scoreboard/").status_code == 200
    assert "not shown again" in client.get(f"/shows/{record.pk}/overlays/").content.decode()


def test_a_repeated_request_makes_no_second_link(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(moves=0)
    client.force_login(olga)
    token = make_link(client, record, key="rotate-1")
    again = client.post(f"/shows/{record.pk}/overlays/", {"command_id": "rotate-1"})
    assert again.status_code == 200 and "already carried out" in again.content.decode()
    assert client.get(f"/overlay/{token}/scoreboard/").status_code == 200
    bad = client.post(f"/shows/{record.pk}/overlays/", {"command_id": "no spaces!"})
    assert bad.status_code == 400 and b"command id" in bad.content
    assert client.get(f"/overlay/{token}/scoreboard/").status_code == 200


def test_a_late_resend_of_an_older_form_makes_no_link(client, make_live_show):
    """One mechanism for every write's id (eventlog.commands.once): a form sent
    again after a newer link was made still writes nothing."""
    record, _match, olga, _t0 = make_live_show(moves=0)
    client.force_login(olga)
    make_link(client, record, key="rotate-1")
    newer = make_link(client, record, key="rotate-2")
    again = client.post(f"/shows/{record.pk}/overlays/", {"command_id": "rotate-1"})
    assert again.status_code == 200 and "already carried out" in again.content.decode()
    assert client.get(f"/overlay/{newer}/scoreboard/").status_code == 200
    assert CommandRecord.objects.filter(scope=f"overlay-link:{record.stream}").count() == 2
    assert all(newer not in str(r.result) for r in CommandRecord.objects.all())


def test_wrong_links_are_404(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(moves=0)
    client.force_login(olga)
    token = make_link(client, record)
    assert client.get("/overlay/not-a-token/scoreboard/").status_code == 404
    assert client.get(f"/overlay/{token}/everything/").status_code == 404
    assert client.get(f"/overlay/{'x' * 300}/scoreboard/").status_code == 404


def test_the_overlays_are_at_the_shows_delay(client, make_live_show, at):
    record, match, olga, _t0 = make_live_show(delay=60)
    client.force_login(olga)  # the organizer's own browser gets the broadcast, not the live show
    token = make_link(client, record)
    now = time.time()
    at(now)
    for kind in ("scoreboard", "bracket", "featured", "hands"):
        page = client.get(f"/overlay/{token}/{kind}/").content.decode()
        assert 'class="overlay overlay-' + kind in page
        assert f'data-match="{match.pk}"' not in page and "fay vs" not in page
    at(now + 61)
    assert f'data-match="{match.pk}"' in client.get(f"/overlay/{token}/hands/").content.decode()
    assert "death match: fay vs" in client.get(f"/overlay/{token}/bracket/").content.decode()
    fragment = client.get(f"/overlay/{token}/featured/", headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.startswith('<div id="overlay"') and "<html" not in body
