"""A bracket's series between two people in the browser (issue 43): it opens
with a ready-check, each table asks "I am here" (English and French) while
the clocks stand still, and the match starts when both pressed it. axe on
the table in that state."""

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from tests.clocks.test_ready_check import bracket_of_two as a_bracket_of_two

from .test_accessibility import _grave


@pytest.fixture
def bracket_of_two(make_user):
    people = make_user("ana"), make_user("ben")
    _, match = a_bracket_of_two(people, now=None, ready_s=600)
    return (*people, match)


def test_both_press_i_am_here_and_the_match_starts(contexts, bracket_of_two):
    ana, ben, match = bracket_of_two
    url = f"/games/matches/{match.pk}/"
    page_ben = contexts(ben)
    page_ben.context.add_cookies([{"name": "django_language", "value": "fr", "url": page_ben.url}])
    page_ben.goto(url)
    expect(page_ben.get_by_role("button", name="Je suis là")).to_be_visible()
    assert _grave(Axe().run(page_ben)) == []
    page_ben.get_by_role("button", name="Je suis là").click()
    expect(page_ben.locator("#table")).to_contain_text("Vous avez dit que vous êtes là.")
    page = contexts(ana)
    page.goto(url)
    expect(page.locator("#table")).to_contain_text("the clocks stand still")
    assert _grave(Axe().run(page)) == []
    page.get_by_role("button", name="I am here").click()
    # the check passed: ana, the higher seed, chooses who plays first
    expect(page.locator("#table")).to_contain_text("Everyone is here: the clocks start.")
    expect(page.locator("#table")).to_contain_text("Choose who plays first")
