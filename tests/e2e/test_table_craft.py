"""Table craft in the browser: one bout of each game played with the
keyboard only (keys 1-9 pick a card, Tab and Enter do the rest, and after
every move the focus is still on the table; Higher or Lower's 24 turns of the
same control are keyed for three, KEYED_UNTIL), and one bout of Love Letter
played by clicking the cards themselves. A bot holds the other seat (the
test moves it, as the clock process would); the page's own poll brings its
moves in, so the focus is never reset by a reload."""

import random
import re

import pytest
from playwright.sync_api import expect

from games import services

from .bids import too_late_to_bid

GAMES = [
    ("love-letter", {"decision_s": 0, "first_to": 1}),
    ("doubting-love-letter", {"decision_s": 0}),
    ("love-me-not", {"decision_s": 0, "first_to": 1}),
    ("higher-lower", {"decision_s": 0, "auction_close_s": 1}),
    ("bleven", {"decision_s": 0, "first_to": 30}),
]
FOCUS_IN_TABLE = "document.getElementById('table').contains(document.activeElement)"
IN_A_CONTROL = "!!(document.activeElement && document.activeElement.closest('form.control'))"


def _seated(game, options, user):
    return services.create_match(
        game,
        ["ana", "ben"],
        options=options,
        holders={"ana": user.pk, "ben": "bot:random"},
        rng=random.Random(3),
    )


AT_VERSION = "v => parseInt(document.getElementById('table').dataset.version, 10) >= v"


def _open_table(page, match):
    """The match's page on a clock the test can move (Playwright's: it runs as
    the real one until moved), so that _shown need not wait out the poll."""
    page.clock.install()
    page.goto(f"/games/matches/{match.pk}/")


def _shown(page, version):
    """Wait until the page's table is at ``version``: its own poll fetches
    it, its 2 s brought forward on the page's clock when it is behind."""
    if not page.evaluate(AT_VERSION, version):
        page.clock.fast_forward(2000)
    page.wait_for_function(AT_VERSION, arg=version)


def _move_with_keys(page, rng):
    """One move with the keyboard: a card's key when a card can be played,
    otherwise Tab to the first control; then Enter."""
    keys = page.locator("#table button.card.pick").evaluate_all(
        "cards => cards.map(c => c.dataset.key)"
    )
    if keys:
        page.keyboard.press(rng.choice(keys))
        if not page.evaluate(IN_A_CONTROL):
            return  # the card was the whole move
    else:
        for _tab in range(40):
            if page.evaluate(IN_A_CONTROL):
                break
            page.keyboard.press("Tab")
        assert page.evaluate(IN_A_CONTROL), "Tab reaches the controls"
    page.keyboard.press("Enter")


def _play_a_bout(page, match, rng, move, keyed_until=None, bot_moves=None):
    """ana's moves made with ``move`` until the bout ends, or until
    ``keyed_until(state)`` holds: her moves are then a random bot's, made by
    the service (``bot_moves``)."""
    moves = 0
    for _ in range(200):
        services.play_bots(match, rng=rng)
        loaded = services.load(match)
        if loaded.state.finished or loaded.state.bout_no > 1:
            return moves
        if keyed_until is not None and keyed_until(loaded.state):
            bot_moves(match, rng)
            continue
        _shown(page, loaded.version)
        if page.locator("form.control").count():
            with page.expect_response(lambda r: r.url.endswith("/command")) as answer:
                move(page, rng)
            if too_late_to_bid(match, answer.value):
                continue
            assert answer.value.status == 200, (
                answer.value.request.post_data,
                answer.value.text(),
                page.url,
            )
            moves += 1
            _shown(page, services.load(match).version)
            assert page.evaluate(FOCUS_IN_TABLE), "after a move the focus stays on the table"
        else:  # nothing for ana to do: the auction's silence runs out
            page.wait_for_timeout(300)
    raise AssertionError("the bout did not end")


# Higher or Lower's bout is 24 turns of the same control, a pick or a guess
# (a minute at the page's pace): its keys and the focus after each poll are
# proven on its auction, its shown card and three turns; the service plays
# the other 21
KEYED_UNTIL = {
    "higher-lower": lambda match: match.bout is not None and len(match.bout.history) >= 3
}


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_a_bout_with_the_keyboard_only(game, options, contexts, make_user, shot, bot_moves):
    ana = make_user("ana")
    match = _seated(game, options, ana)
    page = contexts(ana)
    _open_table(page, match)
    page.locator("#table").focus()  # where a keyboard player starts: on the table
    rng = random.Random(5)
    moves = _play_a_bout(page, match, rng, _move_with_keys, KEYED_UNTIL.get(game), bot_moves)
    assert moves >= 1, "ana played in the bout too"
    page.reload()
    expect(page.locator(".history")).to_contain_text(re.compile(r"Bout 1 (went to|was drawn)"))
    shot(page, game)


def _move_with_cards(page, rng):
    """One move by clicking a card of the hand, then (when the card asks) a
    target or the confirm button."""
    cards = page.locator("#table button.card.pick")
    if not cards.count():
        page.locator("form.control button").first.click()
        return
    cards.nth(rng.randrange(cards.count())).click()
    chosen = page.locator("form.control.chosen")
    if chosen.count():
        choices = chosen.locator(".choices button")
        (choices.first if choices.count() else chosen.locator("button.go")).click()


def test_a_bout_by_clicking_the_cards(contexts, make_user, shot):
    ana = make_user("ana")
    match = _seated("love-letter", {"decision_s": 0, "first_to": 1}, ana)
    page = contexts(ana)
    _open_table(page, match)
    moves = _play_a_bout(page, match, random.Random(7), _move_with_cards)
    assert moves >= 1
    expect(page.locator(".last-bout, .result")).to_contain_text(re.compile(r"Bout 1|over"))


def test_your_turn_is_in_the_tab_title_and_the_sound_toggle_is_remembered(
    contexts, make_user, doc_shot
):
    ana = make_user("ana")
    match = _seated("love-letter", {"decision_s": 0, "first_to": 1}, ana)
    services.play_bots(match, rng=random.Random(3))
    page = contexts(ana, viewport={"width": 900, "height": 1000})
    page.goto(f"/games/matches/{match.pk}/")
    expect(page).to_have_title(re.compile(r"^● Your turn — "))
    page.locator("#table button.card.pick").first.hover()
    doc_shot(page, "7-table-your-turn")
    toggle = page.get_by_label("Play a sound when it is your turn")
    expect(toggle).not_to_be_checked()  # off by default
    toggle.check()
    page.reload()
    expect(page.get_by_label("Play a sound when it is your turn")).to_be_checked()
    key = page.locator("#table button.card.pick").first.get_attribute("data-key")
    page.keyboard.press(key)  # ana plays: the move is the bot's now
    if page.evaluate(IN_A_CONTROL):
        page.keyboard.press("Enter")
    expect(page).not_to_have_title(re.compile(r"^● "))
