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


def _open_page(page, path: str, socket: str, event: str = "framereceived") -> None:
    """``page`` at ``path``; returns once its socket (whose address holds
    ``socket``) has a frame of ``event`` (received, or "framesent"), heard
    from the socket's opening: a first frame may come before goto returns."""
    frames = []

    def heard(ws):
        if socket in ws.url:
            # a function of our own: playwright tags the handler it is given
            ws.on(event, lambda frame: frames.append(frame))

    page.on("websocket", heard)
    page.goto(path)
    for _ in range(200):
        if frames:
            break
        page.wait_for_timeout(50)
    assert frames, f"the socket of {path} had no {event}"


def _open_table(page, match) -> None:
    """``page`` at the match's table, once its socket sent a frame."""
    _open_page(page, f"/games/matches/{match.pk}/", f"/ws/matches/{match.pk}/")


def test_two_people_chat_at_a_table(contexts, make_user, shot, doc_shot):
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
        _open_table(page, match)
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
    doc_shot(ana, "15-chat-at-the-table")
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
    _open_table(mo, match)
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


def test_the_stands_never_reach_a_seat_and_reach_the_other_spectators(contexts, make_user):
    ana_user, ben_user = make_user("ana"), make_user("ben")
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana_user.pk, "ben": ben_user.pk},
        spectator_delay_s=0,
    )
    pages = {
        n: contexts(u)
        for n, u in (("ana", ana_user), ("sam", make_user("sam")), ("tom", make_user("tom")))
    }
    _open_table(pages["ana"], match)  # the seat's socket is up
    # a spectator's socket may wait for the match to open to them: their
    # panel asks meanwhile
    for name in ("sam", "tom"):
        with pages[name].expect_websocket(lambda ws: f"/ws/matches/{match.pk}/" in ws.url):
            pages[name].goto(f"/games/matches/{match.pk}/")
    assert pages["ana"].locator(f"#chat-m{match.pk}-spectators").count() == 0  # not even the room
    box = pages["sam"].get_by_label("Your message in the Spectators' room")
    box.fill("ben holds the prince")
    box.press("Enter")
    expect(pages["tom"].locator(f"#chat-m{match.pk}-spectators .chat-list")).to_contain_text(
        "ben holds the prince"
    )
    # the players' room reaches every page: once it is on ana's, the stands' would be too
    seat = pages["ana"].get_by_label("Your message in the Players' room")
    seat.fill("good game")
    seat.press("Enter")
    expect(pages["tom"].locator(".chat-list").first).to_contain_text("good game")
    expect(pages["ana"].locator(".chat-list")).to_contain_text("good game")
    assert "ben holds the prince" not in pages["ana"].content()


def test_a_hidden_message_leaves_every_open_show_page_and_a_timeout_is_told_in_french(
    contexts, make_user, site, doc_shot
):
    from tournaments import show_services as ss
    from tournaments.models import ShowRecord

    olga, sam, cal = make_user("olga"), make_user("sam"), make_user("cal")
    stream = ss.create_show(
        name="Chat night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        options={"spectator_delay_s": 0},
    )
    show = ShowRecord.objects.get(stream=stream)
    room = f"#chat-s{show.pk}-show"
    pages = {"olga": contexts(olga), "sam": contexts(sam), "cal": contexts(cal)}
    pages["sam"].context.add_cookies([{"name": "django_language", "value": "fr", "url": site}])
    for page in pages.values():  # the socket is up: it asked for what it missed
        _open_page(page, f"/shows/{show.pk}/", f"/ws/shows/{show.pk}/", "framesent")
    box = pages["sam"].get_by_label("Votre message (Salon du show)")
    box.fill("buy cheap chips")
    box.press("Enter")
    for who in ("olga", "cal"):  # over the show's socket, not a poll
        expect(pages[who].locator(f"{room} .chat-list")).to_contain_text("buy cheap chips")
    mod = pages["olga"]
    mod.locator(room).get_by_label("Reason for hiding a message").fill("spam")
    mod.locator(room).scroll_into_view_if_needed()
    doc_shot(mod, "16-chat-moderating-the-show-room")
    message = mod.locator(f"{room} li", has_text="buy cheap chips")
    message.get_by_role("button", name="Hide").click()
    for who in ("olga", "cal", "sam"):
        expect(pages[who].locator(f"{room} .chat-list")).not_to_contain_text("buy cheap chips")
    # olga times sam out (a message of his to choose him by): he is told in French
    box.fill("encore")
    box.press("Enter")
    mine = mod.locator(f"{room} li", has_text="encore")
    with mod.expect_response(lambda r: r.url.endswith("/timeout")) as answer:
        mine.get_by_role("button", name="Time out 5 min").click()
    assert answer.value.status == 200
    box.fill("je reviens")
    box.press("Enter")
    expect(pages["sam"].locator(f"{room} .chat-refusal")).to_contain_text(
        "un modérateur vous a exclu de ce salon"
    )
