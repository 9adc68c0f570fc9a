"""A player's home in Chromium, English and French: what waits for them now,
their live, next and finished matches (with replays), their shows and
ratings; the header's links for a player and for staff; and the player
search suggesting a username for head to head. The demo is seeded once for
the file (``demo_site``): each test reads it, and what one writes (a
registration, an account) changes nothing another checks."""

from django.contrib.auth.models import User
from playwright.sync_api import expect

from tournaments import show_services
from tournaments.demo import SCHEDULED_DEMO
from tournaments.models import ShowRecord

from .conftest import PASSWORD

WORDS = {
    "en": {
        "now": "Waiting for me now",
        "turn": "your turn",
        "live": "Live",
        "next": "Next",
        "finished": "Finished",
        "replay": "replay",
        "shows": "My shows",
        "registered": "registered",
        "running": "running",
        "ratings": "My ratings",
        "home": "My home",
        "profile": "My profile",
        "moderate": "Moderate",
        "compare": "Compare",
    },
    "fr": {
        "now": "Ce qui m’attend maintenant",
        "turn": "à vous de jouer",
        "live": "En cours",
        "next": "À venir",
        "finished": "Terminés",
        "replay": "revoir",
        "shows": "Mes émissions",
        "registered": "inscrit",
        "running": "en cours",
        "ratings": "Mes classements",
        "home": "Mon espace",
        "profile": "Mon profil",
        "moderate": "Modérer",
        "compare": "Comparer",
    },
}


def _in(page, site, language):
    page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])


def test_a_players_home_shows_their_matches_shows_and_ratings(demo_site, contexts, site, doc_shot):
    player = User.objects.get(username="player")
    weekly = ShowRecord.objects.get(name__startswith=SCHEDULED_DEMO)
    show_services.register(weekly.stream, player)  # a show to come: next
    for language in WORDS:
        _home_in(contexts, site, language, player, weekly, doc_shot)


def _home_in(contexts, site, language, player, weekly, doc_shot):
    w = WORDS[language]
    page = contexts(player)
    _in(page, site, language)
    page.goto("/")
    page.get_by_role("link", name=w["home"], exact=True).click()
    page.wait_for_url(f"{site}/home/")
    now = page.locator(".home-now")
    expect(now.get_by_role("heading", name=w["now"])).to_be_visible()
    # the live matches that wait for player are there, and only those (which of
    # the demo's matches a bot opens depends on its deal)
    live = page.locator("ul.home-live")
    expect(live.locator("li")).to_have_count(6)
    waiting = [t.split(" · ")[0] for t in live.locator("li").all_inner_texts() if w["turn"] in t]
    assert waiting, "the demo seats player first in some match"
    for title in waiting:
        expect(now.locator("li").filter(has_text=title)).to_have_count(1)
    expect(now.locator("li").filter(has_text="(you are player)")).to_have_count(
        sum("(you are player)" in title for title in waiting)
    )
    expect(live.locator("li").first).to_contain_text(w["turn"])
    upcoming = page.locator("ul.home-next")
    expect(upcoming).to_contain_text(weekly.name)
    finished = page.locator("ul.home-finished li")
    expect(finished.first).to_contain_text("Demo:")
    replay = finished.first.get_by_role("link", name=w["replay"], exact=True)
    pk = _pk(finished.first)
    expect(replay).to_have_attribute("href", f"/games/matches/{pk}/replay/")
    shows = page.locator("ul.home-shows")
    expect(shows.locator("li").filter(has_text=weekly.name)).to_contain_text(w["registered"])
    expect(shows.locator("li").filter(has_text="Demo: season two (live)")).to_contain_text(
        w["running"]
    )
    expect(page.locator("ul.home-ratings li")).to_have_count(2)  # the two leagues' games
    expect(page.locator("ul.home-ratings")).to_contain_text("Love Me Not")
    if language == "en":
        doc_shot(page, "12-player-home")
    replay.click()
    expect(page).to_have_url(f"{site}/games/matches/{pk}/replay/")


def _pk(item) -> str:
    href = item.get_by_role("link").first.get_attribute("href")
    return href.rstrip("/").split("/")[-1]


def test_the_header_links_a_player_to_their_home_and_profile_and_staff_to_moderate(
    demo_site, contexts, site
):
    for language in WORDS:
        _header_in(contexts, site, language)
    logged_out = contexts()
    logged_out.goto("/")
    expect(logged_out.get_by_role("link", name="My home")).to_have_count(0)


def _header_in(contexts, site, language):
    w = WORDS[language]
    for name, staff in (("player", False), ("moderator1", True), ("organizer", True)):
        page = contexts(User.objects.get(username=name))
        _in(page, site, language)
        page.goto("/")
        header = page.locator("header.top")
        expect(header.get_by_role("link", name=w["home"], exact=True)).to_have_attribute(
            "href", "/home/"
        )
        expect(header.get_by_role("link", name=w["profile"], exact=True)).to_have_attribute(
            "href", f"/players/{name}/"
        )
        moderate = header.get_by_role("link", name=w["moderate"], exact=True)
        expect(moderate).to_have_count(1 if staff else 0)
        if staff:
            moderate.click()
            expect(page.locator("main li a").first).to_be_visible()  # a show to moderate


def test_the_search_suggests_a_player_for_head_to_head(demo_site, contexts, site):
    for language in WORDS:
        _search_in(contexts, site, language)
    # an account that did nothing public is never suggested
    User.objects.create_user("playful-lurker", password=PASSWORD)
    page = contexts()
    page.goto("/players/")
    page.get_by_role("combobox").first.press_sequentially("playf")
    page.wait_for_timeout(600)
    expect(page.get_by_role("option")).to_have_count(0)


def _search_in(contexts, site, language):
    w = WORDS[language]
    page = contexts()
    _in(page, site, language)
    page.goto("/players/")
    first, second = page.get_by_role("combobox").nth(0), page.get_by_role("combobox").nth(1)
    first.press_sequentially("playe")
    suggestions = page.get_by_role("listbox").first
    expect(suggestions.get_by_role("option")).to_have_text(["player", "player2"])
    expect(first).to_have_attribute("aria-expanded", "true")
    first.press("ArrowDown")
    option_id = suggestions.get_by_role("option").first.get_attribute("id")
    expect(first).to_have_attribute("aria-activedescendant", option_id)
    first.press("Enter")  # picks "player", sends nothing yet
    expect(first).to_have_value("player")
    expect(first).to_have_attribute("aria-expanded", "false")
    second.press_sequentially("player2")
    page.get_by_role("option", name="player2").click()
    expect(second).to_have_value("player2")
    page.get_by_role("button", name=w["compare"]).click()
    page.wait_for_url("**/players/head-to-head/?a=player&b=player2")
    expect(page.get_by_role("heading", level=2).first).to_contain_text("player – player2")


def test_the_head_to_head_form_works_without_script(demo_site, browser, site):
    context = browser.new_context(base_url=site, java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto("/players/")
        page.get_by_label("first player").fill("player")
        page.get_by_label("second player").fill("player2")
        page.get_by_role("button", name="Compare").click()
        page.wait_for_url("**/players/head-to-head/?a=player&b=player2")
        expect(page.get_by_role("heading", level=2).first).to_contain_text("player – player2")
    finally:
        context.close()
