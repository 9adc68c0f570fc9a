"""Django's admin: ``is_staff`` grants nothing. A staff account, even one
given every view permission, reads no event, match, show record, item,
dispute or webhook delivery through any admin page (index, list, search,
change, history, autocomplete). Superusers do, and each opening of an event
of a live stream writes an audit line."""

import logging

import pytest
from django.contrib.auth.models import Permission, User

from eventlog.models import StoredEvent

from .helpers import bot_match

pytestmark = pytest.mark.django_db

MODELS = [
    "eventlog/storedevent",
    "games/match",
    "tournaments/showrecord",
    "tournaments/itemrecord",
    "tournaments/disputerecord",
    "hooks/webhookdelivery",
]


@pytest.fixture
def live_match():
    match = bot_match(seed=2, moves=3, bot="bot:random")
    assert match.status == "live"
    return match


def _deal(match):
    """The row holding the undealt deck and the salt."""
    return next(r for r in StoredEvent.objects.filter(stream=match.stream) if "salt" in str(r.data))


def test_a_staff_account_with_every_view_permission_reads_no_live_deck(client, live_match):
    stan = User.objects.create_user("stan", password="pw-123456", is_staff=True)
    stan.user_permissions.add(*Permission.objects.filter(codename__startswith="view_"))
    client.force_login(stan)
    deal = _deal(live_match)
    salt = deal.data.get("salt") or str(deal.data)
    pages = [
        "/admin/",
        "/admin/eventlog/",
        f"/admin/eventlog/storedevent/{deal.pk}/change/",
        f"/admin/eventlog/storedevent/{deal.pk}/history/",
        f"/admin/eventlog/storedevent/?q={live_match.stream}",
        f"/admin/autocomplete/?app_label=eventlog&model_name=storedevent&field_name=id&term={live_match.stream}",
        f"/admin/games/match/{live_match.pk}/change/",
    ] + [f"/admin/{m}/" for m in MODELS]
    for page in pages:
        resp = client.get(page)
        body = resp.content.decode()
        assert salt not in body, page
        if page != "/admin/":
            assert resp.status_code in (403, 404), (page, resp.status_code)
    index = client.get("/admin/").content.decode()
    for m in MODELS:
        assert f"/admin/{m}/" not in index


def test_a_superuser_opening_a_live_streams_event_is_audited(client, live_match, caplog):
    root = User.objects.create_superuser("root", password="pw-123456")
    client.force_login(root)
    deal = _deal(live_match)
    with caplog.at_level(logging.INFO, logger="eventlog.audit"):
        assert client.get(f"/admin/eventlog/storedevent/{deal.pk}/change/").status_code == 200
    lines = [r for r in caplog.records if r.name == "eventlog.audit"]
    assert len(lines) == 1
    assert live_match.stream in lines[0].getMessage() and f"user {root.pk}" in lines[0].getMessage()
    assert client.get("/admin/eventlog/storedevent/").status_code == 200
