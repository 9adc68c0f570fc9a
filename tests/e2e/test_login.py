"""The login page in a browser: typed and clicked, it logs the person in and
lands them on the home page. (The other browser tests log in by a session
made on the server and handed over as a cookie, tests/e2e/conftest.py.)"""

from playwright.sync_api import expect

from .conftest import PASSWORD


def test_a_person_logs_in_through_the_form_and_lands_home(contexts, make_user, site):
    ana = make_user("ana")
    page = contexts(ana, through_form=True)
    assert page.url == f"{site}/"
    page.get_by_role("button", name="Log out ana").click()
    expect(page.get_by_role("link", name="Log in")).to_be_visible()
    # a wrong password leaves the person on the login page, with words
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill("ana")
    page.get_by_label("Password").fill(PASSWORD + "x")
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log in")).to_be_visible()
    assert "/accounts/login/" in page.url
    expect(page.get_by_role("button", name="Log out ana")).to_have_count(0)
