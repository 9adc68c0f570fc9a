"""The table on a 390 px phone (issue #43, point 5): the seats say who sits
there (a person's name, "Bot, level 2" with its mark, their ratings) and
whose turn it is, with its clock as a bar,
the cards are drawn from the project's own art with their names for a
screen reader, axe finds nothing serious, and the resign button asks before
it ends the match."""

from datetime import UTC, datetime

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from games.models import Match
from ratings.models import Rating
from tests.e2e.test_accessibility import _grave
from tests.helpers.tables import person_against_bot

PHONE = {"viewport": {"width": 390, "height": 844}}


def _rated(player: str, game: str, mu: float) -> None:
    at = datetime.now(UTC)
    Rating.objects.create(
        player=player, game=game, mu=mu, sigma=2.0, games=12, last_at=at, public_at=at
    )


def test_seats_cards_and_resign_on_a_phone(contexts, make_user, shot, doc_shot):
    ana = make_user("ana")
    match = person_against_bot(ana, options={"decision_s": 300})
    _rated(f"u:{ana.pk}", match.game, 30.0)  # rating 24.0
    _rated("bot:level:2", match.game, 26.0)  # rating 20.0
    page = contexts(ana, **PHONE)
    page.goto(f"/games/matches/{match.pk}/")
    bot = page.locator(".seat.bot")
    expect(bot.locator(".seat-name")).to_have_text("Bot, level 2")
    expect(bot.get_by_role("img", name="bot")).to_be_visible()
    expect(page.locator(".seat.you .you-badge")).to_have_text("you")
    expect(page.locator(".seat.you .turn-badge")).to_have_text("your turn")
    expect(page.locator(".seat.you")).to_contain_text("rating 24.0")
    expect(bot).to_contain_text("rating 20.0")
    expect(page.locator(".seat.you .clock-bar .clock-track")).to_be_visible()
    # her Guard, drawn from the sprite and named for a screen reader; his card a back
    guard = page.locator(".seat.you .hand").get_by_role("button", name="Guard (1)")
    expect(guard.locator("svg.card-art use")).to_have_attribute(
        "href", "/static/cards/cards.svg#ll-1"
    )
    drawn = guard.locator("svg.card-art").bounding_box()
    assert drawn and drawn["width"] > 40 and drawn["height"] > 60
    expect(bot.get_by_role("img", name="hidden")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert _grave(Axe().run(page)) == []
    doc_shot(page, "13-table-seats-on-a-phone")

    page.get_by_text("Resign…").click()
    shot(page, "2-resign-asks")
    page.get_by_role("button", name="Yes, resign the match").click()
    expect(page.locator(".result")).to_contain_text("won by bot-L2")
    expect(page.locator(".history")).to_contain_text("You resigned: bot-L2 won the match.")
    assert Match.objects.get(pk=match.pk).winners == ["bot-L2"]
    assert _grave(Axe().run(page)) == []
