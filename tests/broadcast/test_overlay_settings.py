"""Overlay settings (position, colours from a fixed palette, size, which
seats) read from the link's query: each drawn by CSS classes, a bad value
refused with a 400 in words (never a 500); the organizer previews them on
the page of links, and only the organizer."""

import time

import pytest
from django.contrib.auth.models import User
from django.http import QueryDict

from broadcast import overlays
from broadcast.overlay_settings import BadSetting, Settings, parse

pytestmark = pytest.mark.django_db

HOSTILE = [
    "position=middle",
    "position=top_left",
    "size=xl",
    "panel=%23ff0000",
    "accent=rebeccapurple",
    "seats=0",
    "seats=9",
    "seats=1,1",
    "seats=%D9%A1",  # an Arabic-Indic one
    "seats=1e308",
    "seats=1,,2",
    "seats=-1",
    "size=s&size=l",
    "position=%3Cscript%3E",
    "panel=" + "d" * 5000,
    "accent=%00",
    "size=%ED%A0%80",  # no UTF-8
]


def test_settings_default_and_say_themselves_as_classes_and_a_query():
    assert parse(QueryDict("")) == Settings()
    s = parse(QueryDict("position=bottom-right&panel=light&accent=red&size=l&seats=2,1&on=5"))
    assert s.classes == "pos-bottom-right panel-light accent-red size-l"
    assert s.seats == (1, 2) and s.pick(["a", "b", "c"]) == ["a", "b"]
    assert s.query() == "position=bottom-right&panel=light&accent=red&size=l&seats=1%2C2"
    assert Settings().query() == "" and Settings().pick(["a", "b"]) == ["a", "b"]
    assert parse(QueryDict("seats=&size=")) == Settings()  # a form's empty fields: defaults
    for raw in HOSTILE:
        with pytest.raises(BadSetting):
            parse(QueryDict(raw))


def test_an_overlay_draws_its_settings_and_refuses_bad_ones_in_words(client, make_live_show, at):
    record, match, olga, _t0 = make_live_show(delay=60)
    token = overlays.rotate(record, olga)
    at(time.time() + 61)
    url = f"/overlay/{token}/featured/"
    page = client.get(
        url + "?position=bottom&panel=blue&accent=green&size=s&seats=2"
    ).content.decode()
    assert 'class="overlay-frame pos-bottom panel-blue accent-green size-s"' in page
    assert (
        f'hx-get="{url}?position=bottom&amp;panel=blue&amp;accent=green&amp;size=s&amp;seats=2&amp;on={match.pk}"'
        in page
    )
    seats = match.seats
    assert f'data-seat="{seats[1]}"' in page and f'data-seat="{seats[0]}"' not in page
    default = client.get(url).content.decode()
    assert 'class="overlay-frame pos-top-left panel-dark accent-gold size-m"' in default
    assert all(f'data-seat="{s}"' in default for s in seats)
    for kind in overlays.KINDS:
        for raw in HOSTILE:
            answer = client.get(f"/overlay/{token}/{kind}/?{raw}")
            assert answer.status_code == 400, (kind, raw)
            assert answer.content.decode().startswith(
                ("The setting", "Give the setting", "“seats”")
            )


def test_the_organizer_previews_the_settings(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(delay=60)
    preview = f"/shows/{record.pk}/overlays/preview/scoreboard/"
    assert client.get(preview).status_code == 302  # to the login page
    client.force_login(User.objects.create_user("sam", password="pw-123456"))
    assert client.get(preview).status_code == 403
    assert client.get(f"/shows/{record.pk}/overlays/?size=l").status_code == 403
    client.force_login(olga)
    answer = client.get(preview + "?size=l&panel=gold")
    assert (
        answer.status_code == 200
        and "pos-top-left panel-gold accent-gold size-l" in answer.content.decode()
    )
    assert "frame-ancestors 'self'" in answer.headers["Content-Security-Policy"]
    assert answer.headers["X-Frame-Options"] == "SAMEORIGIN"
    assert client.get(f"/shows/{record.pk}/overlays/preview/everything/").status_code == 404
    assert client.get(preview + "?size=huge").status_code == 400
    page = client.get(
        f"/shows/{record.pk}/overlays/?kind=hands&position=top-right"
    ).content.decode()
    assert f'src="/shows/{record.pk}/overlays/preview/hands/?position=top-right"' in page
    assert '<option value="top-right" selected>top right</option>' in page
    assert "?position=top-right</code>" in page and "overlay_preview.js" in page
    for raw in ("kind=all", "kind=hands&kind=bracket", "seats=1,1", "position=centre"):
        assert client.get(f"/shows/{record.pk}/overlays/?{raw}").status_code == 400, raw
