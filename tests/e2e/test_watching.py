"""Watching and reading in the browser: a spectator sees a match only after
its delay, a finished match replays step by step, and a phone-sized screen
never scrolls sideways."""

import random
import re

import pytest
from playwright.sync_api import expect

from games import services
from tournaments import show_services
from tournaments.models import ShowRecord

DELAY_S = 8


def test_a_spectator_sees_the_match_only_after_the_delay(contexts, make_user, shot):
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": "bot:random", "ben": "bot:random"},
        rng=random.Random(2),
        spectator_delay_s=DELAY_S,
    )
    page = contexts()  # nobody logged in: a spectator
    answer = page.goto(f"/games/matches/{match.pk}/")
    assert answer.status == 200  # a page that says when, never a 404
    expect(page.locator("main")).to_contain_text(f"Spectators see this match {DELAY_S} s late.")
    expect(page.locator(".opens-in")).to_contain_text(re.compile(r"opens in \d+ s"))
    expect(page.locator("#table")).to_have_count(0)
    shot(page, "1-too-early")

    # it opens by itself when the time comes
    expect(page.locator("#table")).to_be_visible(timeout=DELAY_S * 1000 + 5000)
    expect(page.locator("main")).to_contain_text("you are watching as spectator")
    before = page.locator(".history li").count()
    assert before > 0

    # a bot moves: the spectator's page shows it only DELAY_S later
    assert services.play_bots(match, max_moves=1, rng=random.Random(2)) == 1
    page.reload()
    expect(page.locator(".history li")).to_have_count(before)
    expect(page.locator("form.control")).to_have_count(0)  # a spectator has no move
    # the table's poll brings the move in once it is old enough
    expect(page.locator(".history li")).not_to_have_count(before, timeout=DELAY_S * 1000 + 5000)
    shot(page, "2-after-the-delay")


def test_a_finished_match_is_replayed_step_by_step(contexts, make_user, shot):
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": "bot:random", "ben": "bot:random"},
        rng=random.Random(4),
    )
    services.play_bots(match, rng=random.Random(4))
    latest = services.load(match).version
    page = contexts()
    page.goto(f"/games/matches/{match.pk}/")
    expect(page.locator(".result")).to_be_visible()
    status = page.locator(".status")

    # the slider: move 3, without leaving the page
    page.get_by_label("move").fill("3")
    expect(status).to_contain_text(f"replay at move 3 of {latest}")
    expect(page.locator(".history li")).to_have_count(3)
    shot(page, "1-move-3")

    page.get_by_role("link", name="forward ▶").click()
    expect(status).to_contain_text(f"replay at move 4 of {latest}")
    expect(page.locator(".history li")).to_have_count(4)
    for at in (3, 2):
        page.get_by_role("link", name="◀ back").click()
        expect(status).to_contain_text(f"replay at move {at} of {latest}")
    expect(page.get_by_role("link", name="◀ back")).to_have_count(0)  # nothing before move 2
    shot(page, "2-move-2")

    page.get_by_role("link", name="end").click()
    expect(status).not_to_contain_text("replay at move")
    expect(page.locator(".result")).to_be_visible()


@pytest.fixture
def phone(contexts):
    def open_(user=None):
        return contexts(
            user, viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True
        )

    return open_


def _no_sideways_scroll(page, shot, name):
    width = page.evaluate("document.documentElement.scrollWidth")
    shot(page, f"phone-{name}")
    assert width <= 360, f"{name} is {width} px wide on a 360 px phone"


def test_a_phone_never_scrolls_sideways(phone, make_user, shot):
    ana, olga = make_user("ana"), make_user("olga")
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana.pk, "ben": "bot:random"},
        rng=random.Random(5),
    )
    services.play_bots(match, rng=random.Random(5))  # ben went first: now ana has a move
    stream = show_services.create_show(
        name="Phone night",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"game_pool": ["doubting-love-letter", "love-me-not", "higher-lower"]},
        holders={e: "bot:heuristic" for e in ["ana", "ben", "cal", "dee"]},
        rng=random.Random(5),
    )
    make_user("mia")
    olga_acts = show_services.acting_for(stream, olga)
    show_services.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga_acts)
    show = ShowRecord.objects.get(stream=stream)

    page = phone(ana)
    for name, url in [
        ("home", "/"),
        ("games", "/games/"),
        ("rules", "/games/rules/doubting-love-letter/"),
        ("table", f"/games/matches/{match.pk}/"),
        ("shows", "/shows/"),
    ]:
        page.goto(url)
        if name == "table":
            expect(page.locator("form.control").first).to_be_visible()
        _no_sideways_scroll(page, shot, name)

    page = phone(olga)  # the organizer sees the show's whole page
    page.goto(f"/shows/{show.pk}/")
    expect(page.locator("h1")).to_contain_text("Phone night")
    _no_sideways_scroll(page, shot, "show")
