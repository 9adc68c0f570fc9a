"""The chat in a real browser, over the table's own socket: two people chat
at a table, the text stays text (markup shown as typed), a report is
told in words, a phone's width
holds the panel, and a refusal is told in words beside the input."""

import pytest
from playwright.sync_api import expect

from games import services


@pytest.fixture
def site(asgi_site):
    return asgi_site


def test_two_people_chat_at_a_table(contexts, make_user, shot):
    ana_user, ben_user = make_user("ana"), make_user("ben")
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana_user.pk, "ben": ben_user.pk},
    )
    ana = contexts(ana_user)
    ben = contexts(ben_user, viewport={"width": 390, "height": 844})
    for page in (ana, ben):
        with page.expect_websocket(lambda ws: f"/ws/matches/{match.pk}/" in ws.url) as ws:
            page.goto(f"/games/matches/{match.pk}/")
        ws.value.wait_for_event("framereceived")  # the socket is up
    box = ana.get_by_label("Your message in the Players' room")
    box.fill("<b>good luck</b>")
    box.press("Enter")
    ben_list = ben.locator(f"#chat-m{match.pk}-players .chat-list")
    expect(ben_list).to_contain_text("<b>good luck</b>")  # as typed: never markup
    assert ben_list.locator("b", has_text="good luck").count() == 0
    expect(ben.locator(".chat-list")).to_have_attribute("aria-live", "polite")
    reply = ben.get_by_label("Your message in the Players' room")
    reply.fill("merci, toi aussi")
    ben.get_by_role("button", name="Send").click()
    expect(ana.locator(".chat-list")).to_contain_text("merci, toi aussi")
    # ana reports ben's message, with a reason: told in words, once
    ana.get_by_label("Reason for a report (optional)").fill("rude")
    ana.get_by_role("button", name="Report").click()
    expect(ana.locator(".chat-status")).to_contain_text("the moderators will read it")
    ana.get_by_role("button", name="Report").click()
    expect(ana.locator(".chat-refusal")).to_contain_text("you already reported this message")
    assert ben.evaluate("document.documentElement.scrollWidth") <= 390
    reply.evaluate("el => el.removeAttribute('maxlength')")
    reply.fill("x" * 501)
    reply.press("Enter")
    expect(ben.locator(".chat-refusal")).to_contain_text("at most 500 characters")
    shot(ben, "chat-at-the-table")


def test_a_moderator_s_link_is_a_link_and_the_long_timeouts_are_buttons(contexts, make_user):
    from chat import services as chat
    from chat.models import ChatTimeout
    from chat.rooms import PLAYERS, match_room

    ana_user, ben_user, mo_user = make_user("ana"), make_user("ben"), make_user("mo")
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana_user.pk, "ben": ben_user.pk},
        moderators=[mo_user.pk],
    )
    chat.post(match_room(match, PLAYERS), ana_user, 'https://ana.example/ "<i>x</i>"')
    mo = contexts(mo_user)
    with mo.expect_websocket(lambda ws: f"/ws/matches/{match.pk}/" in ws.url) as ws:
        mo.goto(f"/games/matches/{match.pk}/")
    ws.value.wait_for_event("framereceived")
    room = mo.locator(f"#chat-m{match.pk}-players")
    assert room.locator("a").count() == 0  # ana's link is text
    box = mo.get_by_label("Your message in the Players' room")
    box.fill("rules: https://rules.example/chat?x=1&y=<b>2</b>.")
    box.press("Enter")
    link = room.locator("a", has_text="https://rules.example/chat?x=1&y=")
    expect(link).to_have_attribute("rel", "nofollow noopener ugc")
    expect(link).to_have_attribute("href", "https://rules.example/chat?x=1&y=")
    assert room.locator("b").filter(has_text="2").count() == 0  # text, never markup
    room.locator("li", has_text="ana.example").get_by_role("button", name="Time out 1 h").click()
    expect(room.locator(".chat-status")).to_contain_text("Timed out: they still read the room")
    held = ChatTimeout.objects.get(user_id=ana_user.pk)
    assert held.until is not None and held.show_id is None
