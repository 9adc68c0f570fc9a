"""The broadcast in Chromium: the show board and TV update themselves, an
overlay link made on the organizer's page renders on a transparent
background (and stops working once replaced), and a replay is watched with
the keyboard, a click on the history, autoplay and a spoiler-free mode."""

import base64
import random
import re

import pytest
from playwright.sync_api import expect

from games import services
from games.models import Match
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay"]


@pytest.fixture
def live_show(make_user):
    """A show of bots (no delay) whose first death match is being played."""
    olga = make_user("olga")
    rng = random.Random(7)
    stream = ss.create_show(
        name="Broadcast night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=ENTRANTS,
        options={
            "death_match_first_to": 3,
            "game_pool": ["love-me-not"],
            "spectator_delay_s": 0,
            "spectator_policy": "everything",
        },
        holders={e: "bot:heuristic" for e in ENTRANTS},
        rng=rng,
    )
    ranking = [[e] for e in ENTRANTS]
    ss.command(
        stream, {"type": "enter_ranking", "ranking": ranking}, ss.Acting("olga", "organizer")
    )
    for _ in range(30):
        if Match.objects.filter(show_stream=stream, kind="death_match").exists() or not (
            autopilot.step(stream, rng)
        ):
            break
    match = Match.objects.get(show_stream=stream, kind="death_match")
    services.play_bots(match, max_moves=4, rng=rng)
    return ShowRecord.objects.get(stream=stream), match, olga, rng


def alpha_at_corner(page, png: bytes) -> int:
    """The alpha of the screenshot's top-left pixel, read by the browser's canvas."""
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return page.evaluate(
        """async (url) => {
            const img = new Image();
            img.src = url;
            await img.decode();
            const c = document.createElement("canvas");
            c.width = img.width; c.height = img.height;
            const g = c.getContext("2d");
            g.drawImage(img, 0, 0);
            return g.getImageData(1, 1, 1, 1).data[3];
        }""",
        url,
    )


def test_the_board_and_tv_update_themselves(contexts, live_show, doc_shot):
    record, match, _olga, rng = live_show
    page = contexts()
    page.goto(f"/shows/{record.pk}/board/")
    expect(page.locator(".delay")).to_contain_text("Broadcast live, without a delay.")
    table = page.locator(f'.mini-table[data-match="{match.pk}"]')
    expect(table).to_be_visible()
    before = int(table.get_attribute("data-version"))
    doc_shot(page, "7-show-board")
    services.play_bots(match, max_moves=2, rng=rng)
    expect(table).not_to_have_attribute("data-version", str(before), timeout=10_000)

    page.goto(f"/shows/{record.pk}/tv/")
    expect(page.locator("#tv")).to_have_attribute("data-featured", str(match.pk))
    expect(page.locator(".featured .seat")).to_have_count(2)
    doc_shot(page, "8-tv")


def test_an_overlay_is_transparent_and_its_link_can_be_replaced(contexts, live_show, doc_shot):
    record, match, olga, _rng = live_show
    organizer = contexts(olga)
    organizer.goto(f"/shows/{record.pk}/overlays/")
    organizer.get_by_role("button", name="Make the overlay link").click()
    link = organizer.get_by_label("hands").input_value()
    assert re.search(r"/overlay/[^/]+/hands/$", link)
    doc_shot(organizer, "9-overlay-links")

    tool = contexts()  # the streaming tool's browser source: no login
    tool.set_viewport_size({"width": 800, "height": 400})
    tool.goto(link)
    expect(tool.locator(f'.overlay-featured[data-match="{match.pk}"]')).to_be_visible()
    for element in ("html", "body"):
        color = tool.evaluate(
            f"getComputedStyle(document.querySelector('{element}')).backgroundColor"
        )
        assert color == "rgba(0, 0, 0, 0)", f"{element} is {color}"
    assert alpha_at_corner(tool, tool.screenshot(omit_background=True)) == 0
    doc_shot(tool, "10-overlay-hands")
    scoreboard = link.replace("/hands/", "/scoreboard/")
    tool.goto(scoreboard)
    expect(tool.locator(".overlay-scores li")).to_have_count(len(ENTRANTS))

    organizer.get_by_role("button", name="Make a new link (the old one stops working)").click()
    fresh = organizer.get_by_label("scoreboard").input_value()
    assert fresh != scoreboard
    assert tool.goto(scoreboard).status == 404
    assert tool.goto(fresh).status == 200


def test_a_replay_is_watched_without_reloading(contexts, doc_shot):
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": "bot:random", "ben": "bot:random"},
        rng=random.Random(4),
    )
    services.play_bots(match, rng=random.Random(4))
    last = services.load(match).version
    page = contexts()
    page.goto(f"/games/matches/{match.pk}/replay/?v=3")
    status = page.locator("#replay-step .status")
    expect(status).to_contain_text(f"step 3 of {last}")
    page.evaluate("window.stayed = true")  # gone if the page reloads

    page.keyboard.press("ArrowRight")
    expect(status).to_contain_text(f"step 4 of {last}")
    assert page.url.endswith("?v=4")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(status).to_contain_text(f"step 2 of {last}")
    page.locator('.replay-lines li[data-v="8"]').click()
    expect(status).to_contain_text(f"step 8 of {last}")
    expect(page.locator('.replay-lines li[aria-current="step"]')).to_have_attribute("data-v", "8")
    doc_shot(page, "11-replay")
    page.keyboard.press("End")
    expect(page.locator("#replay-step .result")).to_be_visible()
    page.keyboard.press("Home")
    expect(status).to_contain_text(f"step 2 of {last}")
    expect(page.locator("#replay-step .result")).to_have_count(0)
    assert page.evaluate("window.stayed") is True

    # spoiler-free: the history past the step is hidden, the result shows at the end
    page.get_by_label("spoiler-free (the result stays hidden until the end)").check()
    expect(page.locator(".replay-lines li:visible")).to_have_count(2)  # versions 1 and 2
    page.get_by_role("button", name="Autoplay").click()
    expect(status).to_contain_text(f"step 4 of {last}")
    expect(page.locator(".replay-lines li:visible")).to_have_count(4)
    expect(page.locator("#replay-step .result")).to_have_count(0)
    expect(status).to_contain_text(f"step {last} of {last}", timeout=2_000 * last)
    expect(page.locator("#replay-step .result")).to_be_visible()
    expect(page.get_by_role("button", name="Autoplay")).to_be_visible()  # it stopped itself
    assert "spoilers=off" in page.url and page.evaluate("window.stayed") is True

    shared = page.locator(".step-link").get_attribute("href")
    page.goto(f"/games/matches/{match.pk}/replay/{shared}")
    expect(status).to_contain_text(f"step {last} of {last}")
