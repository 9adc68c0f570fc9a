"""The language switcher: a small form in every page's header that POSTs to
set_language; the choice sticks (Django's language cookie) on later pages."""

import re

from django.conf import settings


def lang_of(page) -> str:
    return re.search(rb'<html lang="([a-z-]+)">', page.content).group(1).decode()


def test_the_site_speaks_english_until_french_is_chosen_and_then_french_sticks(client, db):
    home = client.get("/")
    assert home.status_code == 200 and lang_of(home) == "en"
    html = home.content.decode()
    assert 'action="/i18n/setlang/"' in html and 'name="next" value="/"' in html
    assert 'value="fr"' in html and 'aria-label="Français"' in html
    assert ">Shows</a>" in html

    chose = client.post("/i18n/setlang/", {"language": "fr", "next": "/shows/"})
    assert chose.status_code == 302 and chose["Location"] == "/shows/"
    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "fr"

    # later pages, with no further choice, are French
    for path in ("/shows/", "/", "/accounts/login/"):
        page = client.get(path)
        assert lang_of(page) == "fr", path
        assert ">Émissions</a>" in page.content.decode() and ">Shows</a>" not in (
            page.content.decode()
        )
    # the current language is marked in the switcher
    assert 'value="fr" lang="fr" aria-label="Français" title="Français" aria-current="true"' in (
        client.get("/").content.decode()
    )

    back = client.post("/i18n/setlang/", {"language": "en", "next": "/"})
    assert back.status_code == 302
    again = client.get("/")
    assert lang_of(again) == "en" and ">Shows</a>" in again.content.decode()


def test_an_unknown_language_or_a_foreign_next_changes_nothing(client, db):
    resp = client.post("/i18n/setlang/", {"language": "xx", "next": "/shows/"})
    assert resp.status_code == 302
    assert settings.LANGUAGE_COOKIE_NAME not in client.cookies
    assert lang_of(client.get("/")) == "en"
    # an open redirect elsewhere is refused: set_language goes back home instead
    away = client.post("/i18n/setlang/", {"language": "fr", "next": "https://example.com/"})
    assert away.status_code == 302 and away["Location"] == "/"


def test_a_browser_asking_for_french_gets_french(client, db):
    page = client.get("/", HTTP_ACCEPT_LANGUAGE="fr-FR,fr;q=0.9,en;q=0.5")
    assert lang_of(page) == "fr" and "Organisez en ligne des jeux télévisés" in (
        page.content.decode()
    )
