"""One bout of each other game in the browser: a person clicks the table's
own controls, a bot holds the other seat (the test moves it, as the clock
process would), and every click is accepted."""

import random
import re

import pytest
from playwright.sync_api import expect

from games import services

from .bids import too_late_to_bid

GAMES = [
    ("love-letter", {"decision_s": 0, "first_to": 1}),
    ("love-me-not", {"decision_s": 0, "first_to": 1}),
    ("higher-lower", {"decision_s": 0, "auction_close_s": 1}),
    ("bleven", {"decision_s": 0, "first_to": 30}),
]


def click_a_control(page, rng, match):
    """Pick one of the offered actions and click it, as a person would;
    whether the move was made."""
    forms = page.locator("form.control")
    form = forms.nth(rng.randrange(forms.count()))
    for select in form.locator("select").all():
        labels = select.locator("option").all_inner_texts()
        select.select_option(label=rng.choice(labels))
    choices = form.locator(".choices button")
    button = (
        choices.nth(rng.randrange(choices.count()))
        if choices.count()
        else form.locator("button.go")
    )
    with page.expect_response(lambda r: r.url.endswith("/command")) as answer:
        button.click()
    if too_late_to_bid(match, answer.value):
        return False
    text = form.inner_text() if answer.value.status != 200 else ""
    assert answer.value.status == 200, text
    return True


# Higher or Lower's bout is 24 turns of the same control: its clicks are proven
# on the auction, the shown card and three turns; the service plays the rest
CLICKED_UNTIL = {
    "higher-lower": lambda state: state.bout is not None and len(state.bout.history) >= 3
}


@pytest.mark.parametrize("game,options", GAMES, ids=[g for g, _ in GAMES])
def test_a_bout_against_a_bot_with_clicks(game, options, contexts, make_user, shot, bot_moves):
    rng = random.Random(3)
    ana = make_user("ana")
    match = services.create_match(
        game,
        ["ana", "ben"],
        options=options,
        holders={"ana": ana.pk, "ben": "bot:random"},
        rng=random.Random(3),
    )
    page = contexts(ana)
    page.goto(f"/games/matches/{match.pk}/")
    shown, clicks = None, 0
    for _ in range(150):
        services.play_bots(match, rng=rng)
        loaded = services.load(match)
        if loaded.state.finished or loaded.state.bout_no > 1:
            break
        if game in CLICKED_UNTIL and CLICKED_UNTIL[game](loaded.state):
            bot_moves(match, rng)
            continue
        if loaded.version != shown:
            page.reload()  # the bot moved: look again (the poll would, within 2 s)
        if page.locator("form.control").count():
            clicks += click_a_control(page, rng, match)
        else:  # nothing for ana to do: the auction's silence runs out
            page.wait_for_timeout(500)
        shown = services.load(match).version
        # a person sees the answer before the next click: without this wait a
        # second move of ana's in a row (Bleven's draw, then discard) clicked
        # the old table while the answer was being swapped in, and was lost
        page.wait_for_function(
            "v => parseInt(document.getElementById('table').dataset.version, 10) >= v", arg=shown
        )
    else:
        raise AssertionError("the bout did not end")
    assert clicks >= 1, "ana played in the bout too"
    page.reload()
    # the bout's end is told in words on ana's page
    expect(page.locator(".history")).to_contain_text(re.compile(r"Bout 1 (went to|was drawn)"))
    shot(page, game)
