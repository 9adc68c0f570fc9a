"""The table's seats (issue #43, point 5): who sits in each seat in words (a
person's name, "Bot, level 2" with a bot mark, never a bot's stored name),
their rating in the game when they have one, whose turn it is, and the
viewer's own seat."""

import re
from datetime import UTC, datetime

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from games import services
from games.core.protocol import SPECTATOR_VIEW, Viewer
from games.presenters.table import table_for
from ratings.models import Rating
from tests.helpers.tables import person_against_bot


def _match(game="doubting-love-letter", bot="bot:level:2"):
    ana = User.objects.create_user("ana_plays", password="pw-123456")
    return person_against_bot(ana, bot=bot, game=game, dealt=False, seed=3), ana


def _rate(player: str, game: str, mu: float, games: int) -> None:
    at = datetime.now(UTC)  # rated just now: no idle time widens the sigma
    Rating.objects.create(
        player=player, game=game, mu=mu, sigma=2.0, games=games, last_at=at, public_at=at
    )


def _seat_html(page: str, seat: str) -> str:
    """One seat's article of a page (the seat's name in its alias or name)."""
    for article in re.findall(r'<article class="seat[^"]*">.*?</article>', page, re.S):
        if f">{seat}<" in article or f"as {seat}<" in article:
            return article
    raise AssertionError(f"no seat {seat} on the page")


@pytest.mark.django_db
def test_seats_name_the_person_and_the_bot_in_words_with_their_ratings():
    match, ana = _match()
    _rate(f"u:{ana.pk}", match.game, 30.0, 12)  # ordinal 30 - 3 x 2 = 24.0
    _rate("bot:level:2", match.game, 20.0, 2)  # provisional: fewer than five games
    _rate("bot:level:2", "bleven", 40.0, 12)  # another game's rating is not this one
    client = Client()
    client.force_login(ana)
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    mine, bot = _seat_html(page, "ana"), _seat_html(page, "bot-L2")
    assert 'class="seat you' in mine and ">you<" in mine
    assert "ana_plays" in mine and "rating 24.0" in mine and "provisional" not in mine
    assert "Bot, level 2" in bot and 'class="bot-mark"' in bot and 'aria-label="bot"' in bot
    assert "rating 14.0" in bot and "provisional" in bot
    assert "bot-mark" not in mine and ">you<" not in bot
    # the stored names never reach the page
    assert "bot:level" not in page and "level:2" not in page and "u:" + str(ana.pk) not in page


@pytest.mark.django_db
def test_an_unrated_seat_shows_no_rating_and_a_seat_nobody_holds_its_own_name():
    ana = User.objects.create_user("ana_plays", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "cal"], options={"decision_s": 0}, holders={"ana": ana.pk}
    )
    table = table_for(match, SPECTATOR_VIEW)
    seats = {s.seat: s for s in table.seats}
    assert seats["ana"].who == "ana_plays" and seats["ana"].rating is None
    assert seats["cal"].who == "cal"
    assert not seats["ana"].bot and not seats["cal"].bot
    page = Client().get(f"/games/matches/{match.pk}/").content.decode()
    assert "rating" not in _seat_html(page, "ana")


@pytest.mark.django_db
def test_whose_turn_is_marked_on_the_seat_that_decides():
    match, ana = _match()
    table = table_for(match, Viewer.of_seat("ana"))
    deciding = {s.seat for s in table.seats if s.deciding}
    assert deciding, "someone decides at the start"
    client = Client()
    client.force_login(ana)
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    for s in table.seats:
        html = _seat_html(page, s.seat)
        marked = "turn-badge" in html
        assert marked == (s.seat in deciding), s.seat
        if marked:
            assert ("your turn" if s.seat == "ana" else "their turn") in html


@pytest.mark.django_db
def test_a_bot_reads_in_french_too():
    match, _ana = _match(bot="bot:level:3")
    with translation.override("fr"):
        seats = {s.seat: s for s in table_for(match, SPECTATOR_VIEW).seats}
        assert seats["bot-L2"].who == "Bot, niveau 3" and seats["bot-L2"].bot


@pytest.mark.django_db
def test_the_table_and_tv_key_a_seats_rating_by_the_same_holder_key():
    """One ``holder_keys``: the table's sitters and TV's seat ratings read a
    person as "u:<id>" and a bot as "bot:<kind>"; an open seat has none."""
    from games.player_ratings import holder_keys
    from games.presenters.table import sitters
    from games.seat_ratings import ratings_for

    ana = User.objects.create_user("ana_plays", password="pw-123456")
    match = services.create_match(
        "love-letter",
        ["ana", "bot-L2", "cal"],
        options={"decision_s": 0},
        holders={"ana": ana.pk, "bot-L2": "bot:level:2"},
    )
    assert holder_keys(match) == {"ana": f"u:{ana.pk}", "bot-L2": "bot:level:2"}
    assert {s: x.key for s, x in sitters(match).items() if x.key} == holder_keys(match)
    _rate(f"u:{ana.pk}", "love-letter", 30.0, 12)
    _rate("bot:level:2", "love-letter", 20.0, 12)
    assert ratings_for(match) == {"ana": 24.0, "bot-L2": 14.0}
