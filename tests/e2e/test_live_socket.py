"""live.js in a real browser, against the app served over ASGI (HTTP and
websockets, as production serves it): the table follows the other player's
move through the socket alone, and falls back to its poll when the socket
is refused."""

import random

import pytest
from playwright.sync_api import expect

from games import services

DEAL = {"removed": ["3", "5", "7"], "deck": ["1", "4", "2", "6"], "first": "ana"}


@pytest.fixture
def site(asgi_site):
    """The whole ASGI application, websockets too (tests/e2e/conftest.py)."""
    return asgi_site


@pytest.fixture
def match_of_two(make_user):
    users = {"ana": make_user("ana"), "ben": make_user("ben")}
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"first_to": 1, "decision_s": 0},
        holders={s: u.pk for s, u in users.items()},
        setup=DEAL,
        rng=random.Random(1),
    )
    return match, users


def _put_down_guard(page):
    guard = page.locator("form.control").filter(
        has=page.get_by_text("Put down Guard (1)", exact=True)
    )
    guard.get_by_label("Claim").select_option(label="Guard (1)")
    guard.get_by_role("button", name="Put down Guard (1)").click()


def test_the_table_follows_a_move_by_socket_with_its_poll_held_back(contexts, match_of_two, shot):
    match, users = match_of_two
    ana, ben = contexts(users["ana"]), contexts(users["ben"])
    polls = []
    ben.on(
        "request",
        lambda r: polls.append(r.url) if r.method == "GET" and "?v=" in r.url else None,
    )
    with ben.expect_websocket(lambda ws: f"/ws/matches/{match.pk}/" in ws.url) as opened:
        ben.goto(f"/games/matches/{match.pk}/")
    ws = opened.value
    shown = int(ben.locator("#table").get_attribute("data-version"))
    ben.wait_for_timeout(500)  # the socket is up: the 2 s poll is held back from now on
    polls.clear()

    ana.goto(f"/games/matches/{match.pk}/")
    with ws.expect_event("framereceived", predicate=lambda f: '"html"' in f):
        _put_down_guard(ana)

    # ben's table changed without a reload and without a poll: the socket brought it
    expect(ben.locator(".board")).to_contain_text("ana put down a card claiming Guard (1)")
    expect(ben.get_by_role("button", name="Let it pass")).to_be_visible()
    assert int(ben.locator("#table").get_attribute("data-version")) > shown
    assert polls == []
    assert "Guard" not in ben.locator(".seat.you .hand").inner_text()  # ana's card stays hers
    shot(ben, "socket-update")


def test_the_table_polls_while_its_socket_is_refused(contexts, match_of_two, shot):
    match, users = match_of_two
    ana, ben = contexts(users["ana"]), contexts(users["ben"])
    refused = []

    def refuse(ws):
        refused.append(ws.url)
        ws.close(code=1011, reason="refused by the test")

    ben.route_web_socket(f"**/ws/matches/{match.pk}/", refuse)
    ben.goto(f"/games/matches/{match.pk}/")
    for _ in range(50):  # Playwright's callbacks run while the page waits
        if refused:
            break
        ben.wait_for_timeout(100)
    assert refused, "live.js never tried its socket"

    ana.goto(f"/games/matches/{match.pk}/")
    with ben.expect_request(lambda r: r.method == "GET" and "?v=" in r.url, timeout=10_000):
        _put_down_guard(ana)
    expect(ben.locator(".board")).to_contain_text(
        "ana put down a card claiming Guard (1)", timeout=10_000
    )
    shot(ben, "poll-fallback")


# ---- moves over the socket, and by POST when it is down ---------------------------
MOVES = 6


def _turn_page(pages):
    for _ in range(100):
        for page in pages:
            if page.locator("#table[data-your-turn]").count():
                return page
        pages[0].wait_for_timeout(100)
    raise AssertionError("nobody's turn")


def _move(page) -> None:
    """Whoever's turn it is clicks: a card of their hand (then the control it
    chose, if it asks more), else the first control's first button."""
    table = page.locator("#table")
    before = table.get_attribute("data-version")
    cards = page.locator("#table .seat.you button.card.pick")
    if cards.count():
        cards.first.click()
        chosen = page.locator("#table form.control.chosen button[type=submit]")
        for _ in range(50):  # the move went out, or the card chose a control asking more
            if chosen.count() or page.locator("#table").get_attribute("data-version") != before:
                break
            page.wait_for_timeout(100)
        if chosen.count():
            chosen.first.click()
    else:
        page.locator("#table .controls form.control button[type=submit]").first.click()
    expect(table).not_to_have_attribute("data-version", before)


def _play(pages, moves=MOVES) -> int:
    made = 0
    while made < moves:
        if all(p.locator("#table .result").count() for p in pages):
            break  # the match is over
        _move(_turn_page(pages))
        made += 1
    return made


def _watch(page, posts, frames):
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" else None)
    page.on(
        "websocket",
        lambda ws: ws.on("framesent", lambda f: frames.append(f) if '"form"' in str(f) else None),
    )


def test_clicks_go_over_the_table_socket_when_it_is_open(contexts, match_of_two, shot):
    match, users = match_of_two
    pages = [contexts(users["ana"]), contexts(users["ben"])]
    posts, frames = [], []
    for page in pages:
        _watch(page, posts, frames)
        with page.expect_websocket(lambda ws: f"/ws/matches/{match.pk}/" in ws.url):
            page.goto(f"/games/matches/{match.pk}/")
        page.wait_for_timeout(300)  # the socket is open
    before = services.load(match).version
    made = _play(pages)
    assert made >= 3
    assert [u for u in posts if u.endswith("/command")] == []  # none by POST
    assert len(frames) >= made
    assert services.load(match).version > before
    shot(pages[0], "moves-by-socket")


def test_clicks_fall_back_to_the_post_while_the_socket_is_refused(contexts, match_of_two, shot):
    match, users = match_of_two
    pages = [contexts(users["ana"]), contexts(users["ben"])]
    posts, frames = [], []
    for page in pages:
        page.route_web_socket(f"**/ws/matches/{match.pk}/", lambda ws: ws.close(code=1011))
        _watch(page, posts, frames)
        page.goto(f"/games/matches/{match.pk}/")
    before = services.load(match).version
    made = _play(pages)
    assert made >= 3
    assert len([u for u in posts if u.endswith("/command")]) == made  # each by POST
    assert frames == []
    assert services.load(match).version > before
    shot(pages[0], "moves-by-post")
