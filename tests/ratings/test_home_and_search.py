"""A player's home and the player search, through the client: the search
names only players a page already shows everyone, an organizer any active
account; it is limited per address; the home is a logged-in page; the
header's Moderate link is for a show's staff alone."""

import random
import time

import pytest
from django.contrib.auth.models import Permission, User
from django.core.cache import cache

from tests.ratings.helpers import DAY, accounts, play_matches
from tournaments import show_services as ss


def _names(client, q):
    response = client.get("/players/search", {"q": q})
    assert response.status_code == 200
    return response.json()["players"]


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_the_search_names_only_players_seen_in_public(client):
    users = accounts("ana", "anabel", "anton")
    play_matches(
        "love-me-not", [("ana", "anabel")], users, start=time.time() - DAY, rng=random.Random(3)
    )
    assert _names(client, "an") == ["ana", "anabel"]  # anton played nothing public
    assert _names(client, "AN") == ["ana", "anabel"]
    assert _names(client, "x" * 151) == [] and _names(client, "") == []
    # an entrant of a show is named on its page: suggested too
    ss.create_show(
        name="Cup", organizer="olga", entrants=["anton", "b"], holders={"anton": users["anton"].pk}
    )
    assert _names(client, "ant") == ["anton"]


@pytest.mark.django_db(transaction=True)
def test_a_match_still_behind_its_delay_names_nobody(client):
    users = accounts("ana", "anabel")
    # ended now, public once the (one day) delay is over: not yet
    play_matches("love-me-not", [("ana", "anabel")], users, start=time.time(), rng=random.Random(3))
    from ratings.models import PlayedMatch

    PlayedMatch.objects.update(public_at=PlayedMatch.objects.first().played_at.replace(year=2100))
    assert _names(client, "ana") == []


@pytest.mark.django_db
def test_an_organizer_is_offered_any_active_account(client):
    olga = User.objects.create_user("olga", password="pw-olga-123")
    olga.user_permissions.add(Permission.objects.get(codename="add_match"))
    User.objects.create_user("mona", password="x-123456789")
    User.objects.create_user("moe", password="x-123456789", is_active=False)
    assert _names(client, "mo") == []
    client.force_login(olga)
    assert _names(client, "mo") == ["mona"]


@pytest.mark.django_db
def test_the_search_is_limited_per_address(client, settings):
    cache.clear()
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {
            **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"],
            "player_search": "3/min",
        },
    }
    from api import throttling

    throttling.api_settings.reload()
    try:
        codes = [client.get("/players/search", {"q": "a"}).status_code for _ in range(4)]
        assert codes == [200, 200, 200, 429]
        refused = client.get("/players/search", {"q": "a"})
        assert "Too many searches" in refused.json()["detail"]
    finally:
        cache.clear()
        throttling.api_settings.reload()


@pytest.mark.django_db
def test_the_home_is_for_a_logged_in_player(client):
    response = client.get("/home/")
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]
    client.force_login(User.objects.create_user("ana", password="pw-123456"))
    page = client.get("/home/").content.decode()
    assert "Nothing waits for you now." in page and "No live match." in page


@pytest.mark.django_db
def test_moderate_is_in_the_header_of_a_shows_staff_only(client):
    ana = User.objects.create_user("ana", password="pw-123456")
    mod = User.objects.create_user("mod", password="pw-123456")
    olga = User.objects.create_user("olga", password="pw-123456")
    stream = ss.create_show(name="Cup", organizer="olga", entrants=["a", "b"], organizer_id=olga.pk)
    ss.command(
        stream,
        {"type": "appoint_moderator", "username": "mod"},
        ss.Acting("olga", "organizer", olga.pk),
    )
    for user, sees in ((ana, False), (mod, True), (olga, True)):
        client.force_login(user)
        page = client.get("/").content.decode()
        assert ('href="/shows/dashboards/"' in page) is sees, user
        assert 'href="/home/"' in page and f'href="/players/{user.username}/"' in page
