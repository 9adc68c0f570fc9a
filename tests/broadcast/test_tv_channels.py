"""TV as a broadcast: a full-screen page without the site's header, its
channels (a show's, a game's, the site's top-rated match), each seat with
its rating and its clock, and a switch of channel that swaps the screen's
fragment; every channel shows what spectators see at the match's delay."""

import random
import re
import time
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User

from games import services
from ratings.models import Rating
from tests.broadcast.test_board import cards, text

pytestmark = pytest.mark.django_db


def rated(user, game, mu):
    when = datetime.fromtimestamp(time.time() - 3600, tz=UTC)
    Rating.objects.create(
        player=f"u:{user.pk}",
        user=user,
        game=game,
        mu=mu,
        sigma=1.0,
        games=20,
        last_at=when,
        public_at=when,
    )


def people_match(a, b, game="love-me-not", seed=1):
    users = [User.objects.get_or_create(username=n)[0] for n in (a, b)]
    match = services.create_match(
        game,
        [a, b],
        options={"first_to": 3},
        holders={a: users[0].pk, b: users[1].pk},
        rng=random.Random(seed),
    )
    return match, users


def featured_pk(resp) -> str:
    return re.search(r'data-featured="(\d*)"', resp.content.decode()).group(1)


def test_the_top_rated_channel_shows_the_best_rated_players(client):
    low, (ana, ben) = people_match("ana", "ben")
    high, (cid, dora) = people_match("cid", "dora", seed=2)
    for user, mu in ((ana, 20), (ben, 22), (cid, 30), (dora, 31)):
        rated(user, "love-me-not", mu)
    page = client.get("/tv/")
    assert page.status_code == 200 and featured_pk(page) == str(high.pk)
    body = text(page)
    assert '<header class="top">' not in body  # the broadcast's layout: no site header
    assert 'aria-current="page">Top rated</a>' in body
    assert 'data-rating="27.0"' in body and 'data-rating="28.0"' in body  # mu - 3 sigma
    assert 'class="featured switched"' in body  # a new channel fades in
    poll = client.get("/tv/", {"on": high.pk}, headers={"HX-Request": "true"})
    assert text(poll).startswith('<div id="tv"') and 'class="featured switched"' not in text(poll)
    # a screen showing the other match keeps it while it is not clearly worse
    rated(User.objects.create_user("eve"), "love-letter", 50)
    for on in ("", "x", "-1", "9" * 40, "١٢", str(low.pk) + "0"):
        resp = client.get("/tv/", {"on": on}, headers={"HX-Request": "true"})
        assert resp.status_code == 200 and featured_pk(resp) == str(high.pk)


def test_a_games_channel_shows_its_own_matches_only(client):
    match, _users = people_match("ana", "ben")
    page = client.get("/tv/games/love-me-not/")
    assert featured_pk(page) == str(match.pk)
    assert 'aria-current="page">Love Me Not</a>' in text(page)
    other = client.get("/tv/games/love-letter/")
    assert featured_pk(other) == "" and "TV waits for the next one" in text(other)
    for bad in ("nope", "love_me_not", "x" * 80):
        assert client.get(f"/tv/games/{bad}/").status_code == 404
    assert client.get("/tv/games/lov%C3%A9/").status_code == 404


def test_switching_channel_swaps_the_fragment_and_keeps_the_address(client, make_live_show):
    record, match, _olga, _t0 = make_live_show(delay=0)
    page = text(client.get(f"/shows/{record.pk}/tv/"))
    for url in ("/tv/", "/tv/games/love-me-not/", f"/shows/{record.pk}/tv/"):
        assert (
            f'href="{url}" hx-get="{url}" hx-target="#tv" hx-swap="outerHTML" hx-push-url="true"'
            in page
        )
    assert 'aria-current="page">Broadcast night</a>' in page
    assert "clock-bar" in page and "js/clock_bar.js" in page
    switched = client.get("/tv/games/love-me-not/", headers={"HX-Request": "true"})
    assert text(switched).startswith('<div id="tv"') and f'data-featured="{match.pk}"' in text(
        switched
    )


def test_site_channels_keep_each_matchs_delay(client, make_live_show, at):
    record, match, olga, _t0 = make_live_show(delay=60)
    now = time.time()
    at(now)
    for url in ("/tv/", "/tv/games/love-me-not/"):
        assert f'data-match="{match.pk}"' not in client.get(url).content.decode(), url
    at(now + 61)
    spectators = client.get(
        f"/games/matches/{match.pk}/", headers={"HX-Request": "true"}
    ).content.decode()
    client.force_login(olga)  # the organizer too gets the broadcast on TV
    for url in ("/tv/", "/tv/games/love-me-not/"):
        page = client.get(url).content.decode()
        assert f'data-match="{match.pk}"' in page and "60 s ago" in page
        assert not cards(page) - cards(spectators)


def test_the_screen_and_the_site_share_one_head(client):
    """TV's full-screen page and a page of the site open with the same head
    (templates/_head.html: charset, icon, style, htmx without inline style, the
    clock bars' script), the screen adding its own style and no site header."""
    import re

    heads = {}
    for path in ("/tv/", "/games/"):
        page = client.get(path).content.decode()
        heads[path] = re.search(r"<head>(.*?)</head>", page, re.S).group(1)
    shared = re.findall(r"<(?:meta|link|script)[^>]*>", heads["/games/"])
    tv = re.findall(r"<(?:meta|link|script)[^>]*>", heads["/tv/"])
    common = [tag for tag in shared if tag in tv]
    assert len(common) == 8, common  # charset, viewport, icon, site.css, htmx, its script, 2 js
    assert any("broadcast.css" in tag for tag in tv)
    assert not any("broadcast.css" in tag for tag in shared)
    assert any("countdown.js" in tag for tag in shared)
    assert heads["/tv/"].count('charset="utf-8"') == 1
