"""A moderator's links are links (http and https only, rel="nofollow noopener
ugc"), everyone else's are text, and everything else is escaped: the XSS
attempts of an attacker who is a moderator, or who writes what looks like a
link, never become markup. A mention (@name) marks the message for whoever
it names, and a blocked person's mentions never reach whoever blocked them."""

import pytest
from django.test import Client, override_settings

from chat import services as chat
from chat.models import ChatMessage
from chat.present import REL, as_html, as_json
from chat.rooms import PLAYERS, SHOW, match_room, show_room
from tests.chat.test_show_room import make_show

pytestmark = pytest.mark.django_db

ATTEMPTS = (
    'https://ok.example/a?b=1&c=2 and "<script>alert(1)</script>"',
    'https://x.example/"onmouseover="alert(1)',
    "https://x.example/<img src=x onerror=alert(2)>",
    "javascript:alert(3) JAVASCRIPT://x.example%0aalert(4) data:text/html,<b>x</b>",
    "http://[::1 hxxp://x.example http:// https://",
    "see https://y.example/path). and (https://z.example/q?x=1).",
)


def page(user, show) -> str:
    c = Client()
    c.force_login(user)
    return c.get(f"/shows/{show.pk}/").content.decode()


def test_a_moderator_s_links_are_links_and_nothing_else_is_markup():
    people, show, _ = make_show()
    room = show_room(show, SHOW)
    with override_settings(CHAT_BURST=len(ATTEMPTS)):
        for text in ATTEMPTS:
            chat.post(room, people["mia"], text)
    staff = ChatMessage.objects.filter(author="mia").order_by("id")
    assert all(m.staff for m in staff)
    html = [str(as_html(m)) for m in staff]
    assert html[0] == (
        f'<a href="https://ok.example/a?b=1&amp;c=2" rel="{REL}">https://ok.example/a?b=1&amp;c=2</a>'
        " and &quot;&lt;script&gt;alert(1)&lt;/script&gt;&quot;"
    )
    # a quote or an angle bracket ends a link: never an attribute nor a tag
    assert html[1].startswith(f'<a href="https://x.example/" rel="{REL}">')
    assert "&quot;onmouseover=&quot;alert(1)" in html[1]
    assert html[2].startswith('<a href="https://x.example/"') and "&lt;img" in html[2]
    # no other scheme, no link without a host
    assert "<a" not in html[3] and "<a" not in html[4]
    # the sentence's punctuation is not the link's
    assert f'<a href="https://y.example/path" rel="{REL}">' in html[5]
    assert f'<a href="https://z.example/q?x=1" rel="{REL}">' in html[5]
    shown = page(people["sam"], show)
    assert shown.count(f'rel="{REL}"') == 5
    assert "<script>alert" not in shown and "<img src=x" not in shown
    assert 'href="javascript' not in shown.lower() and 'href="data' not in shown


def test_everyone_else_s_links_are_text():
    people, show, match = make_show()
    chat.post(show_room(show, SHOW), people["sam"], "https://evil.example/ <b>bold</b>")
    chat.post(match_room(match, PLAYERS), people["ana"], "https://also.example")
    message = ChatMessage.objects.get(author="sam")
    assert not message.staff
    assert str(as_html(message)) == "https://evil.example/ &lt;b&gt;bold&lt;/b&gt;"
    assert as_json(message)["staff"] is False
    shown = page(people["cal"], show)
    assert 'href="https://evil' not in shown and "&lt;b&gt;bold" in shown


def test_a_mention_marks_the_message_for_whom_it_names_but_never_from_a_blocked_person():
    people, show, _ = make_show()
    room = show_room(show, SHOW)
    chat.post(room, people["sam"], "@CAL good luck, @calvin is not you")
    chat.post(room, people["ana"], "@cal, we meet in round 2")
    chat.post(room, people["cal"], "thanks @cal")  # oneself: no mention
    [sam, ana, own] = chat.history(room, people["cal"])
    assert as_json(sam, people["cal"])["mentions_me"] is True
    assert as_json(ana, people["cal"])["mentions_me"] is True
    assert as_json(own, people["cal"])["mentions_me"] is False
    assert as_json(sam, people["ben"])["mentions_me"] is False
    assert page(people["cal"], show).count("chat-mention-note") == 2
    # cal blocks ana: her mentions of him reach him nowhere, now or later
    chat.block(people["cal"], people["ana"].pk)
    chat.post(room, people["ana"], "@cal are you there?")
    read = chat.history(room, people["cal"])
    assert [m.author for m in read if as_json(m, people["cal"])["mentions_me"]] == ["sam"]
    shown = page(people["cal"], show)
    assert shown.count("chat-mention-note") == 1 and "are you there" not in shown
    c = Client()
    c.force_login(people["cal"])
    api = c.get(f"/api/chat/rooms/{room.name}/messages").json()["messages"]
    assert [m["author"] for m in api if m["mentions_me"]] == ["sam"]
