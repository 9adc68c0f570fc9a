"""The players' pages in Chromium: from the leaderboard to a profile with its
rating chart, a head-to-head by the form, the console seeding a bracket by
rating with a click, all in French on a 390 px phone without sideways scroll."""

import random
import time

from tests.ratings.helpers import DAY, play_matches

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def _league(make_user):
    users = {n: make_user(n) for n in ("ana", "ben", "cy")}
    pairs = [("ana", "ben"), ("ana", "cy"), ("ben", "cy"), ("ana", "ben")]
    play_matches("love-me-not", pairs, users, start=time.time() - 6 * DAY, rng=random.Random(8))
    return users


def _fits(page, name):
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"{name} is {width} px wide on a 390 px phone"


def test_a_visitor_goes_from_the_leaderboard_to_a_profile_and_a_head_to_head(
    contexts, make_user, shot
):
    _league(make_user)
    page = contexts(**PHONE)
    page.goto("/")
    page.get_by_role("link", name="Players").click()
    page.get_by_role("link", name="Love Me Not").first.click()
    page.wait_for_url("**/players/leaderboards/love-me-not/")
    _fits(page, "leaderboard")
    shot(page, "leaderboard")
    rows = page.locator("table.board").first.locator("tbody tr")
    assert rows.count() == 3
    rows.first.get_by_role("link").click()
    page.wait_for_url("**/players/*/")
    chart = page.locator("svg.rating-chart")
    assert chart.is_visible() and chart.locator("circle").count() >= 2
    assert page.get_by_role("heading", name="Statistics").is_visible()
    _fits(page, "profile")
    shot(page, "profile")
    page.get_by_role("link", name="Compare with another player").click()
    page.get_by_label("second player").fill("cy")
    page.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/players/head-to-head/?a=*&b=cy")
    assert page.locator("table.board tbody tr").count() == 1
    _fits(page, "head-to-head")


def test_the_pages_speak_french_on_a_phone(contexts, make_user, shot):
    _league(make_user)
    page = contexts(**PHONE)
    page.goto("/players/")
    page.get_by_role("button", name="FR").click()
    page.wait_for_selector("html[lang=fr]")
    assert page.get_by_role("heading", name="Joueurs").is_visible()
    for url, words in (
        ("/players/", "Face-à-face"),
        ("/players/leaderboards/love-me-not/", "classement"),
        ("/players/ana/", "Statistiques"),
        ("/players/seasons/", "Saisons"),
        ("/players/head-to-head/?a=ana&b=ben", "Face-à-face"),
    ):
        page.goto(url)
        assert words in page.content(), url
        _fits(page, url)
    shot(page, "french")


def test_the_organizer_seeds_a_bracket_by_rating_with_a_click(contexts, make_user, make_organizer):
    _league(make_user)
    from ratings.selectors import leaderboard

    best = [x.name for x in leaderboard("love-me-not")]
    page = contexts(make_organizer("olga"), **PHONE)
    page.goto("/console/brackets/new/")
    page.get_by_label("Name").fill("Seeded cup")
    page.get_by_label("Game").select_option("love-me-not")
    page.get_by_label("Entrants").fill("ana = ana\nben = ben\ncy = cy\nrobo = bot:heuristic")
    page.get_by_role("button", name="Seed by rating").click()
    page.get_by_role("status").wait_for()
    assert page.get_by_label("Entrants").input_value().splitlines() == [
        *(f"{n} = {n}" for n in best),
        "robo = bot:heuristic",
    ]
    _fits(page, "seeded form")
    page.get_by_role("button", name="Create and start").click()
    page.wait_for_url("**/shows/brackets/*/")
    assert page.locator(".rated-note[data-rated=yes]").is_visible()
