"""Practice against a bot in the browser (issue #46): a person picks a game
and a level on the games page, one click opens the table, and the bot answers
by itself (the embedded clock thread moves it, as under `make run`; its pause
set small), as the level chosen."""

import random
import re
import threading

import pytest
from django.db import connection
from playwright.sync_api import expect

from eventlog.store import read
from games import services
from games.models import Match

from .test_games import click_a_control


@pytest.fixture
def clock_thread(settings):
    """The embedded clock worker's step (clocks.embedded) in a thread of its
    own, as under `make run`, with the bots' pause a fraction of a second; its
    connection closed at the end, so the test database can be dropped."""
    from clocks import embedded

    settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S = 0.2, 0.4
    settings.BOT_PERSON_WINDOW_S = 0.4
    stop = threading.Event()

    def run():
        try:
            while not stop.is_set():
                stop.wait(min(embedded._step(), 0.2))
        finally:
            connection.close()

    thread = threading.Thread(target=run, name="clock", daemon=True)
    thread.start()
    yield
    stop.set()
    thread.join(timeout=10)


def _bot_moves(match, level):
    return [r for r in read(match.stream) if r.metadata.get("actor") == f"bot:level:{level}"]


@pytest.mark.parametrize("game,name", [("love-letter", "Love Letter"), ("bleven", "Bleven")])
def test_a_player_picks_a_level_and_plays_it(game, name, contexts, make_user, clock_thread, shot):
    rng = random.Random(7)
    ana = make_user("ana")
    page = contexts(ana)
    page.goto("/games/")
    expect(page.get_by_text("searches a tree of moves")).to_be_visible()  # L3 in words
    shot(page, "picker")
    page.get_by_role("button", name=f"Play {name} against L2").click()
    page.wait_for_url(re.compile(r"/games/matches/\d+/$"))
    match = Match.objects.get(kind="practice")
    assert {h.bot for h in match.holders.all()} == {"", "level:2"}
    expect(page.locator("#table")).to_contain_text("bot-L2")
    clicks = 0
    for _ in range(120):
        loaded = services.load(match)
        if loaded.state.finished or clicks >= 6:
            break
        if page.locator("form.control").count():
            clicks += click_a_control(page, rng, match)
            page.wait_for_timeout(200)
        else:  # the bot's turn: it answers from the clock thread, the page follows
            page.wait_for_timeout(400)
            page.reload()
    assert clicks >= 3, "ana played moves"
    # the bot answered by itself, as level 2, in its seat
    for _ in range(20):
        if len(_bot_moves(match, 2)) >= 2:
            break
        page.wait_for_timeout(300)
    moves = _bot_moves(match, 2)
    assert len(moves) >= 2, "the bot answered ana's moves"
    assert all(r.metadata.get("role") == "player" for r in moves)
    assert not [r for r in read(match.stream) if r.metadata.get("actor") in ("bot:heuristic",)]
    shot(page, game)
