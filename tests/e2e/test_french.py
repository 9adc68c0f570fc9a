"""French in the browser: one click on the header's switcher turns the site
French, and every kind of page stays French after it (the choice sticks).
The games' pages are checked for the site's chrome and lang="fr" only; their
own French is the games' test's."""

import random
import re

from django.contrib.auth.models import Permission
from playwright.sync_api import expect

from games import services
from tournaments import bracket_services
from tournaments import show_services as ss
from tournaments.models import BracketRecord, ShowRecord


def _world(olga):
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": "bot:random", "ben": "bot:random"},
        rng=random.Random(3),
    )
    show = ShowRecord.objects.get(
        stream=ss.create_show(
            name="Soirée test",
            organizer="olga",
            organizer_id=olga.pk,
            entrants=["ana", "ben", "cal", "dee"],
            options={"step_deadline_s": 0},
            holders={e: "bot:heuristic" for e in ("ana", "ben", "cal", "dee")},
            rng=random.Random(1),
        )
    )
    bracket = BracketRecord.objects.get(
        stream=bracket_services.create_bracket(
            name="Coupe test",
            game="love-letter",
            format="single",
            entrants=["p1", "p2", "p3", "p4"],
            holders={f"p{i}": "bot:heuristic" for i in range(1, 5)},
            actor="olga",
            rng=random.Random(2),
        )
    )
    return match, show, bracket


def test_one_click_turns_every_page_french(contexts, make_user, shot):
    olga = make_user("olga")
    olga.user_permissions.add(Permission.objects.get(codename="add_match"))
    match, show, bracket = _world(olga)
    page = contexts()
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    shot(page, "0-english")

    page.get_by_role("button", name="Français").click()
    page.wait_for_url("**/")
    html = page.locator("html")
    header = page.locator("header.top")
    expect(html).to_have_attribute("lang", "fr")
    expect(page.locator("main")).to_contain_text("Organisez en ligne des jeux télévisés")
    expect(header.get_by_role("link", name="Émissions")).to_be_visible()
    shot(page, "1-home")
    # the live countdowns speak French too (countdown.js takes the page's words)
    page.evaluate(
        """() => { for (const [id, dt] of [["soon", 95], ["gone", -5]]) {
            const el = document.createElement("span");
            el.id = id; el.dataset.deadline = String(Date.now() / 1000 + dt);
            document.querySelector("main").append(el); } }"""
    )
    expect(page.locator("#soon")).to_have_text(re.compile(r"^encore 1:3\d$"))
    expect(page.locator("#gone")).to_have_text("temps écoulé")

    # the login page and the log-in itself, in French
    page.get_by_role("link", name="Connexion").click()
    expect(page.get_by_role("heading", name="Connexion")).to_be_visible()
    shot(page, "2-login")
    page.get_by_label("Nom d’utilisateur").fill("olga")
    page.get_by_label("Mot de passe").fill("pw-browser-123")
    page.get_by_role("button", name="Connexion").click()
    page.wait_for_url("**/")
    expect(header.get_by_role("button", name="Déconnexion (olga)")).to_be_visible()

    site_pages = [
        ("/shows/", "Tableaux", "3-shows"),
        (show.get_absolute_url(), "Journal public", "4-show"),
        (f"/shows/brackets/{bracket.pk}/", "demi-finales", "5-bracket"),
        ("/console/", "Console de l’organisateur", "6-console"),
        (f"/console/shows/{show.pk}/", "Nommer un modérateur", "7-console-show"),
        (f"/shows/{show.pk}/dashboard/", "Journal d’audit", "8-dashboard"),
        ("/account/tokens/", "Jetons d’API", "9-tokens"),
    ]
    for path, words, name in site_pages:
        page.goto(path)
        expect(html).to_have_attribute("lang", "fr")
        expect(page.locator("main")).to_contain_text(words)
        expect(header.get_by_role("link", name="Jeux")).to_be_visible()
        shot(page, name)

    games_pages = [
        ("/games/", "10-games"),
        ("/games/rules/love-letter/", "11-rules"),
        (f"/games/matches/{match.pk}/", "12-table"),
    ]
    for path, name in games_pages:
        page.goto(path)
        expect(html).to_have_attribute("lang", "fr")
        expect(header.get_by_role("link", name="Émissions")).to_be_visible()
        expect(header.get_by_role("button", name="Français")).to_have_attribute(
            "aria-current", "true"
        )
        shot(page, name)

    # and back to English with one click, on the page it was clicked on
    page.get_by_role("button", name="English").click()
    expect(html).to_have_attribute("lang", "en")
    expect(header.get_by_role("link", name="Shows")).to_be_visible()
    assert page.url.endswith(f"/games/matches/{match.pk}/")

    # a phone: the switcher fits the header, French pages never scroll sideways
    phone = contexts(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    phone.goto("/")
    phone.get_by_role("button", name="Français").click()
    expect(phone.locator("html")).to_have_attribute("lang", "fr")
    for path, name in [("/", "13-phone-home"), (show.get_absolute_url(), "14-phone-show")]:
        phone.goto(path)
        expect(phone.locator("html")).to_have_attribute("lang", "fr")
        shot(phone, name)
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360, name
