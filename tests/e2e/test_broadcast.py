"""The broadcast in Chromium: the show board and TV update themselves, an
overlay link made on the organizer's page renders on a transparent
background (and stops working once replaced), a replay is watched with
the keyboard, a click on the history, autoplay and a spoiler-free mode, and
a replay opened from a player's results starts spoiler-free (EN and FR)."""

import base64
import re

import pytest
from playwright.sync_api import expect

from games import services
from tests.broadcast.helpers import ENTRANTS, finished_match, live_show


@pytest.fixture
def show_on_air(make_user):
    """A show of bots (no delay, policy "everything") whose first death match is
    being played: (record, match, organizer, rng)."""
    olga = make_user("olga")
    record, match, rng = live_show(olga, delay=0, policy="everything", moves=4)
    return record, match, olga, rng


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


def test_the_board_and_tv_update_themselves(contexts, show_on_air, doc_shot):
    record, match, _olga, rng = show_on_air
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
    expect(page.locator("header.top")).to_have_count(0)  # full screen: no site header
    # the clock bar is run by its script (the CSP allows it to set the bar's width)
    fill = page.locator(".featured .clock-bar .clock-fill").first
    expect(fill).to_have_attribute("style", re.compile(r"transform: scaleX\("))
    expect(page.locator(".featured .clock-bar [role=timer]").first).to_contain_text("left")
    doc_shot(page, "8-tv")
    page.evaluate("window.stayed = true")  # gone if the page reloads
    page.get_by_role("link", name="Top rated").click()
    expect(page.locator("#tv")).to_have_attribute("data-channel", "top")
    expect(page.get_by_role("link", name="Top rated")).to_have_attribute("aria-current", "page")
    assert page.url.endswith("/tv/") and page.evaluate("window.stayed") is True


def test_an_overlay_is_transparent_and_its_link_can_be_replaced(
    contexts, show_on_air, doc_shot, make_user
):
    record, match, olga, _rng = show_on_air
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
    # the chat overlay, as the manual's OBS steps set it: the show room as text
    from chat import services as chat
    from chat.rooms import SHOW, show_room

    sam, cal = make_user("sam"), make_user("cal")
    room = show_room(record, SHOW)
    for who, text in ((sam, "what a bluff!"), (cal, "<b>gg</b> ana"), (sam, "final next?")):
        chat.post(room, who, text)
    tool.set_viewport_size({"width": 500, "height": 600})
    tool.goto(link.replace("/hands/", "/chat/") + "?position=bottom-right&size=s")
    messages = tool.locator(".overlay-chat li")
    expect(messages).to_have_count(3)
    expect(messages.nth(1)).to_contain_text("<b>gg</b> ana")  # as typed: never markup
    assert tool.locator(".overlay-chat b", has_text="gg").count() == 0
    doc_shot(tool, "14-overlay-chat")
    scoreboard = link.replace("/hands/", "/scoreboard/")
    tool.goto(scoreboard)
    expect(tool.locator(".overlay-scores li")).to_have_count(len(ENTRANTS))

    organizer.get_by_role("button", name="Make a new link (the old one stops working)").click()
    fresh = organizer.get_by_label("scoreboard").input_value()
    assert fresh != scoreboard
    assert tool.goto(scoreboard).status == 404
    assert tool.goto(fresh).status == 200


def test_a_replay_is_watched_without_reloading(contexts, doc_shot):
    match, last = finished_match()
    page = contexts()
    page.clock.install()  # runs as the real one; autoplay's steps are brought forward on it
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
    for _ in range(last):  # autoplay's next steps (1.2 s each) brought forward on the clock
        shown = status.inner_text()
        if f"step {last} of {last}" in shown:
            break
        page.clock.fast_forward(1200)
        expect(status).not_to_have_text(shown)
    expect(status).to_contain_text(f"step {last} of {last}")
    expect(page.locator("#replay-step .result")).to_be_visible()
    page.clock.fast_forward(1200)  # the step after the last
    expect(page.get_by_role("button", name="Autoplay")).to_be_visible()  # it stopped itself
    assert "spoilers=off" in page.url and page.evaluate("window.stayed") is True

    shared = page.locator(".step-link").get_attribute("href")
    page.goto(f"/games/matches/{match.pk}/replay/{shared}")
    expect(status).to_contain_text(f"step {last} of {last}")


SPOILERS = {
    "en": {"replay": "replay", "step": "step {} of {}", "next": "next step", "won": "won by"},
    "fr": {
        "replay": "revoir",
        "step": "étape {} sur {}",
        "next": "étape suivante",
        "won": "gagné par",
    },
}


def test_a_replay_opened_from_a_result_hides_the_result(contexts, make_user, site):
    """Issue 43, point 6: from the finished list of a player's home, the replay
    opens at its first step without the result; a step forward shows the next
    line only; ``?spoilers=on`` opens the end with the result."""
    ana = make_user("ana")
    match, last = finished_match(person=ana)
    for language, w in SPOILERS.items():
        page = contexts(ana)
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])
        page.goto("/home/")
        page.locator("ul.home-finished li").first.get_by_role(
            "link", name=w["replay"], exact=True
        ).click()
        page.wait_for_url(f"{site}/games/matches/{match.pk}/replay/")
        status = page.locator("#replay-step .status")
        expect(status).to_contain_text(w["step"].format(2, last))
        assert w["won"] not in page.locator("main").inner_text()
        expect(page.locator("#replay-step .result")).to_have_count(0)
        page.get_by_role("button", name=w["next"]).click()
        expect(status).to_contain_text(w["step"].format(3, last))
        expect(page.locator(".replay-lines li:visible")).to_have_count(3)
        assert w["won"] not in page.locator("main").inner_text()
        page.goto(f"/games/matches/{match.pk}/replay/?spoilers=on")
        expect(status).to_contain_text(w["step"].format(last, last))
        expect(page.locator("#replay-step .result")).to_contain_text(w["won"])
