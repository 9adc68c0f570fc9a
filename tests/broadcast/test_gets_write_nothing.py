"""A read never writes: the GETs spectators, streams and a show's staff poll
(the board, TV, the overlays, the moderators' dashboard and its live part)
append no event and write no row, however often."""

import re

from django.contrib.auth.models import User
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from broadcast import overlays
from eventlog.models import StoredEvent
from tournaments import show_services as ss

WRITE = re.compile(r"^\s*(?:WITH\b.*\b)?(?:INSERT|UPDATE|DELETE)\b", re.IGNORECASE | re.DOTALL)


def as_(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_pages_a_show_polls_write_nothing(make_live_show):
    record, match, olga, _t0 = make_live_show(delay=0)
    mia = User.objects.create_user("mia")
    ss.command(
        record.stream,
        {"type": "appoint_moderator", "username": "mia"},
        ss.Acting("olga", "organizer"),
    )
    token = overlays.rotate(record, olga)
    pages = [
        (Client(), f"/shows/{record.pk}/board/"),
        (Client(), f"/shows/{record.pk}/tv/"),
        (Client(), "/tv/"),
        (Client(), "/tv/games/love-me-not/"),
        (as_(olga), f"/shows/{record.pk}/overlays/?kind=hands&size=l"),
        (as_(olga), f"/shows/{record.pk}/overlays/preview/featured/?seats=1"),
        *((Client(), f"/overlay/{token}/{kind}/") for kind in overlays.KINDS),
        (as_(mia), f"/shows/{record.pk}/dashboard/"),
        (as_(mia), f"/shows/{record.pk}/dashboard/live"),
        (as_(olga), f"/shows/{record.pk}/dashboard/"),
    ]
    events = StoredEvent.objects.count()
    for htmx in (False, True, True):
        for client, url in pages:
            headers = {"HX-Request": "true"} if htmx else {}
            with CaptureQueriesContext(connection) as queries:
                answer = client.get(url, headers=headers)
            assert answer.status_code == 200, url
            written = [q["sql"] for q in queries if WRITE.match(q["sql"])]
            assert written == [], url
    assert StoredEvent.objects.count() == events
