"""The table on a 390 px phone (issue #43, point 5): the seats say who sits
there (a person's name, "Bot, level 2" with its mark) and whose turn it is,
the cards are drawn from the project's own art with their names for a
screen reader, axe finds nothing serious, and the resign button asks before
it ends the match."""

from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from games.models import Match
from tests.e2e.test_accessibility import _grave
from tests.helpers.tables import person_against_bot

PHONE = {"viewport": {"width": 390, "height": 844}}


def test_seats_cards_and_resign_on_a_phone(contexts, make_user, shot):
    ana = make_user("ana")
    match = person_against_bot(ana)
    page = contexts(ana, **PHONE)
    page.goto(f"/games/matches/{match.pk}/")
    bot = page.locator(".seat.bot")
    expect(bot.locator(".seat-name")).to_have_text("Bot, level 2")
    expect(bot.get_by_role("img", name="bot")).to_be_visible()
    expect(page.locator(".seat.you .you-badge")).to_have_text("you")
    expect(page.locator(".seat.you .turn-badge")).to_have_text("your turn")
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
    shot(page, "1-phone-table")

    page.get_by_text("Resign…").click()
    shot(page, "2-resign-asks")
    page.get_by_role("button", name="Yes, resign the match").click()
    expect(page.locator(".result")).to_contain_text("won by bot-L2")
    expect(page.locator(".history")).to_contain_text("You resigned: bot-L2 won the match.")
    assert Match.objects.get(pk=match.pk).winners == ["bot-L2"]
    assert _grave(Axe().run(page)) == []
