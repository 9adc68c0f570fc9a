"""Each bot level carries its own rating per game (issue #46), and the
practice picker on the games page shows it, so a player knows what "L2" means."""

import random
import re
import time

import pytest

from games import bot_levels
from ratings.models import Rating
from tests.ratings.helpers import DAY, accounts, play_out, rated_match


def _cell(page: str, game: str, level: int) -> str:
    found = re.search(
        rf'value="{game} level:{level}"[^>]*>L{level}<span class="rating">([^<]*)<', page
    )
    assert found, f"no button for {game} L{level}"
    return found.group(1)


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_levels_are_rated_apart_and_the_picker_shows_their_ratings(client):
    users = accounts("ana")
    rng, t = random.Random(5), time.time() - 6 * DAY
    for level in (0, 3, 3):
        holders = {"ana": users["ana"].pk, f"bot{level}": f"bot:level:{level}"}
        t = play_out(rated_match("love-me-not", holders, now=t, rng=rng), rng, now=t) + DAY
    rated = dict(Rating.objects.filter(game="love-me-not").values_list("player", "games"))
    assert rated == {f"u:{users['ana'].pk}": 3, "bot:level:0": 1, "bot:level:3": 2}
    levels = {lv.number: lv.rating for lv in bot_levels.levels("love-me-not")}
    assert levels[0].games == 1 and levels[3].games == 2
    assert levels[1] is None and levels[2] is None and levels[4] is None
    assert bot_levels.levels("bleven")[3].rating is None  # per game

    page = client.get("/games/").content.decode()
    shown = f"{levels[3].ordinal:.1f}?"  # provisional: fewer than five rated games
    assert _cell(page, "love-me-not", 3) == shown
    assert _cell(page, "love-me-not", 2) == "new"
    assert _cell(page, "bleven", 3) == "new"
    # each level has its own profile page, named by level
    profile = client.get("/players/bots/level:3/")
    assert profile.status_code == 200 and "bot:level:3" in profile.content.decode()
