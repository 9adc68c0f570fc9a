"""Personal API tokens: created and revoked by their owner on a page, only a
hash stored, sent as ``Authorization: Token <secret>`` (or Bearer)."""

import hashlib
import re

import pytest
from django.contrib.auth.forms import SetPasswordForm
from django.test import Client

from api.models import ApiToken


def secret_on(page) -> str:
    found = re.search(rb'<code id="token-secret">([^<]+)</code>', page.content)
    assert found, "the new token's secret is not on the page"
    return found.group(1).decode()


@pytest.mark.django_db
def test_the_tokens_page_needs_a_login(client):
    resp = client.get("/account/tokens/")
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    assert client.post("/account/tokens/", {"name": "bot"}).status_code == 302
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
def test_a_token_is_shown_once_and_only_its_hash_is_stored(as_user, ana):
    client = as_user(ana)
    page = client.post("/account/tokens/", {"name": "my bot"})
    assert page.status_code == 200 and page["Cache-Control"].startswith("max-age=0")
    secret = secret_on(page)
    token = ApiToken.objects.get()
    assert token.user == ana and token.name == "my bot" and token.revoked is None
    assert token.key_hash == hashlib.sha256(secret.encode()).hexdigest()
    stored = [str(v) for v in ApiToken.objects.values().get().values()]
    assert not any(secret in v for v in stored)
    listing = client.get("/account/tokens/")
    assert secret.encode() not in listing.content
    assert b"my bot" in listing.content and token.prefix.encode() in listing.content


@pytest.mark.django_db
def test_a_token_needs_a_name(as_user, ana):
    resp = as_user(ana).post("/account/tokens/", {"name": ""})
    assert resp.status_code == 400 and b"This field is required" in resp.content
    assert not ApiToken.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("keyword", ["Token", "Bearer"])
def test_a_token_acts_as_its_owner(token_client, post, match, ana, keyword):
    client = token_client(ana, keyword=keyword)
    assert client.get(f"/api/matches/{match.pk}/").json()["viewer"] == {
        "kind": "seat",
        "seat": "ana",
    }
    legal = client.get(f"/api/matches/{match.pk}/legal").json()["commands"]
    # no session, no CSRF token: the token alone authorizes the move
    resp = post(client, f"/api/matches/{match.pk}/commands", {"command": legal[0]})
    assert resp.status_code == 201, resp.content
    client.token.refresh_from_db()
    assert client.token.last_used is not None


@pytest.mark.django_db
def test_revoking_asks_first_then_the_token_stops_working(as_user, token_client, match, ana):
    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/legal"
    assert bot.get(url).json()["seat"] == "ana"
    page = as_user(ana)
    confirm = page.get(f"/account/tokens/{bot.token.pk}/revoke")
    assert confirm.status_code == 200 and b"cannot be undone" in confirm.content
    bot.token.refresh_from_db()
    assert bot.token.revoked is None  # a GET changes nothing
    done = page.post(f"/account/tokens/{bot.token.pk}/revoke")
    assert done.status_code == 302
    bot.token.refresh_from_db()
    assert bot.token.revoked is not None
    resp = bot.get(url)
    assert resp.status_code == 401
    assert resp.json()["code"] == "bad_token" and "revoked" in resp.json()["message"]


@pytest.mark.django_db
def test_no_one_revokes_another_users_token(as_user, token_client, ana, other):
    bot = token_client(ana)
    page = as_user(other)
    assert page.get(f"/account/tokens/{bot.token.pk}/revoke").status_code == 404
    assert page.post(f"/account/tokens/{bot.token.pk}/revoke").status_code == 404
    bot.token.refresh_from_db()
    assert bot.token.revoked is None
    assert b"bot" not in page.get("/account/tokens/").content.split(b"<h2>Your tokens")[1]


@pytest.mark.django_db
@pytest.mark.parametrize(
    "header",
    ["Token not-a-real-secret", "Bearer ", "Token two words", "Bearer \u00e9t\u00e9"],
)
def test_a_bad_token_is_401_with_a_code(client, match, header):
    resp = client.get(f"/api/matches/{match.pk}/", HTTP_AUTHORIZATION=header)
    assert resp.status_code == 401
    body = resp.json()
    assert body["code"] == "bad_token" and body["message"]
    assert resp["WWW-Authenticate"] == "Token"


@pytest.mark.django_db
def test_a_disabled_account_is_refused(token_client, match, ana):
    bot = token_client(ana)
    ana.is_active = False
    ana.save()
    resp = bot.get(f"/api/matches/{match.pk}/")
    assert resp.status_code == 401 and resp.json()["code"] == "bad_token"


def _token_queries(client, url) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as seen:
        assert client.get(url).status_code == 200
    return [q["sql"] for q in seen.captured_queries if "api_apitoken" in q["sql"]]


@pytest.mark.django_db
def test_a_token_is_read_from_the_database_once_then_from_the_cache(token_client, match, ana):
    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/"
    first = _token_queries(bot, url)
    assert any(q.lstrip().startswith("SELECT") for q in first)  # looked up, last_used touched
    assert _token_queries(bot, url) == []  # neither looked up nor touched again
    assert bot.get(url).json()["viewer"] == {"kind": "seat", "seat": "ana"}


@pytest.mark.django_db
def test_a_cached_token_gives_its_account_as_the_database_has_it(token_client, ana):
    from django.test import RequestFactory

    from api.authentication import TokenAuthentication

    request = RequestFactory().get("/", HTTP_AUTHORIZATION=f"Token {token_client(ana).secret}")
    for _ in range(2):  # read from the database, then from the cache
        user, token = TokenAuthentication().authenticate(request)
        assert (user.pk, user.username, user.is_active, user.is_staff) == (
            ana.pk,
            "ana_user",
            True,
            False,
        )
        assert user.is_superuser is False and user.email == ana.email
        assert token.user_id == ana.pk and token.user is user


@pytest.mark.django_db
def test_a_cached_token_is_refused_at_once_when_its_account_is_disabled(token_client, match, ana):
    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/"
    assert bot.get(url).status_code == 200  # now in the cache
    ana.is_active = False
    ana.save()
    resp = bot.get(url)
    assert resp.status_code == 401 and "disabled" in resp.json()["message"]
    ana.is_active = True
    ana.save()
    assert bot.get(url).status_code == 200


@pytest.mark.django_db
def test_a_cached_token_is_refused_at_once_when_revoked_or_deleted(token_client, match, ana):
    url = f"/api/matches/{match.pk}/"
    revoked, deleted = token_client(ana, "one"), token_client(ana, "two")
    assert revoked.get(url).status_code == 200 and deleted.get(url).status_code == 200
    revoked.token.revoke()
    deleted.token.delete()
    assert revoked.get(url).json()["code"] == "bad_token"
    assert "revoked" in revoked.get(url).json()["message"]
    assert deleted.get(url).status_code == 401


@pytest.mark.django_db
def test_a_cached_token_never_authenticates_another_account(token_client, match, ana, other):
    url = f"/api/matches/{match.pk}/"
    bots = {"ana": token_client(ana), "olaf": token_client(other)}
    for _ in range(2):  # the second round from the cache
        assert bots["ana"].get(url).json()["viewer"] == {"kind": "seat", "seat": "ana"}
        assert bots["olaf"].get(url).json()["viewer"]["kind"] != "seat"
    legal = f"/api/matches/{match.pk}/legal"
    assert bots["olaf"].get(legal).json()["seat"] is None
    assert bots["ana"].get(legal).json()["seat"] == "ana"


@pytest.mark.django_db
def test_last_used_is_written_at_most_once_a_minute(token_client, match, ana):
    from django.core.cache import cache

    from api import authentication
    from api.authentication import TOUCH_EVERY, cache_key

    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/"
    bot.get(url)
    bot.token.refresh_from_db()
    first = bot.token.last_used
    bot.get(url)
    bot.token.refresh_from_db()
    assert first is not None and bot.token.last_used == first
    # a minute and more ago (the cache and this process told so too): written again
    ApiToken.objects.filter(pk=bot.token.pk).update(last_used=first - TOUCH_EVERY * 2)
    cache.delete_many([cache_key(bot.token.key_hash), f"{cache_key(bot.token.key_hash)}:touched"])
    authentication._touch_asked[bot.token.key_hash] = first - TOUCH_EVERY * 2
    bot.get(url)
    bot.token.refresh_from_db()
    assert bot.token.last_used >= first


@pytest.mark.django_db
def test_a_touched_token_asks_the_cache_no_more_within_the_minute(
    token_client, match, ana, monkeypatch
):
    """Its cached entry still says the old last_used: the process remembers it
    asked, so the requests after the touch make no cache round trip for it."""
    from api import authentication

    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/"
    asked = []
    real_add = authentication.cache.add

    def add(key, *args, **kwargs):
        asked.append(key)
        return real_add(key, *args, **kwargs)

    monkeypatch.setattr(authentication.cache, "add", add)
    for _ in range(4):
        assert bot.get(url).status_code == 200
    touched = [k for k in asked if k.endswith(":touched")]
    assert touched == [f"{authentication.cache_key(bot.token.key_hash)}:touched"]
    bot.token.refresh_from_db()
    assert bot.token.last_used is not None


@pytest.mark.django_db
def test_a_request_that_read_a_token_before_its_revocation_cannot_cache_it_again(
    token_client, match, ana, monkeypatch
):
    """The race: a request reads the token's row, the revocation commits and
    drops the entry, then that request caches what it read. The old entry must
    not come back over the drop."""
    from api import authentication

    bot = token_client(ana)
    url = f"/api/matches/{match.pk}/"
    real_entry = authentication._entry

    def entry_then_revoked(token):
        entry = real_entry(token)  # read before the revocation...
        if not entry["revoked"]:
            ApiToken.objects.get(pk=token.pk).revoke()  # ...which commits meanwhile
        return entry

    monkeypatch.setattr(authentication, "_entry", entry_then_revoked)
    assert bot.get(url).status_code == 200  # this request read it in time
    monkeypatch.setattr(authentication, "_entry", real_entry)
    resp = bot.get(url)
    assert resp.status_code == 401 and "revoked" in resp.json()["message"]


@pytest.mark.django_db
@pytest.mark.parametrize("how", ["change form", "reset", "set_password"])
def test_a_password_change_revokes_the_accounts_tokens(token_client, match, ana, other, how):
    """As Django ends the account's sessions; nobody else's tokens are touched."""
    url = f"/api/matches/{match.pk}/"
    bot, others = token_client(ana), token_client(other)
    assert bot.get(url).status_code == 200  # now in the cache
    if how == "change form":
        ana.set_password("the-old-one-123")
        ana.save()
        bot = token_client(ana)  # made after that change, so with the old password
        browser = Client()
        browser.force_login(ana)
        resp = browser.post(
            "/accounts/password_change/",
            {
                "old_password": "the-old-one-123",
                "new_password1": "a-new-one-4567",
                "new_password2": "a-new-one-4567",
            },
        )
        assert resp.status_code == 302, resp.content
    elif how == "reset":
        form = SetPasswordForm(
            ana, {"new_password1": "n3w-one-456", "new_password2": "n3w-one-456"}
        )
        assert form.is_valid()
        form.save()
    else:
        ana.set_password("n3w-one-456")
        ana.save()
    resp = bot.get(url)
    assert resp.status_code == 401 and "revoked" in resp.json()["message"]
    assert others.get(url).status_code == 200
    ana.first_name = "Ana"  # another change keeps a new token working
    ana.save()
    assert token_client(ana, "after").get(url).status_code == 200
