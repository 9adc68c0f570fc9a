"""The chat overlay (issue #44): the show room as a stream shows it, behind
the show's delay, its text as text (never markup), never a hidden message
(one hidden after it was shown is gone at the overlay's next poll), never
the staff room; framable, nothing inline; the organizer's preview and
settings as the other overlays'."""

import time

from django.contrib.auth.models import User

from chat import services as chat
from chat.rooms import SHOW, STAFF, show_room
from tests.broadcast.test_overlays import make_link

XSS = '<script>alert(1)</script><img src=x onerror="alert(2)"> ggwp7'


def test_the_chat_overlay_shows_the_show_room_at_the_delay_and_never_a_hidden_message(
    client, make_live_show, at
):
    record, _match, olga, _t0 = make_live_show(delay=60, moves=0)
    client.force_login(olga)
    token = make_link(client, record)
    sam = User.objects.create_user("sam", password="pw-123456")
    chat.post(show_room(record, SHOW), sam, XSS)
    spam = chat.post(show_room(record, SHOW), sam, "buy cheap chips")
    chat.post(show_room(record, STAFF), olga, "the staff's own words")
    viewer = type(client)()  # the streaming tool: anonymous
    url = f"/overlay/{token}/chat/"
    now = time.time()
    at(now)
    page = viewer.get(url)
    assert page.status_code == 200 and "frame-ancestors" not in page["Content-Security-Policy"]
    assert "ggwp7" not in page.content.decode()  # behind the delay
    at(now + 61)
    page = viewer.get(url).content.decode()
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "buy cheap chips" in page
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "the staff's own words" not in page
    assert "<script>" not in page.replace("<script src=", "")  # nothing inline
    assert 'onerror="' not in page and ' style="' not in page
    # hidden since: gone at the next poll (htmx asks for the fragment)
    chat.hide(show_room(record, SHOW), olga, spam.id, "spam")
    fragment = viewer.get(url, HTTP_HX_REQUEST="true").content.decode()
    assert "buy cheap chips" not in fragment and "ggwp7" in fragment
    assert 'id="overlay"' in fragment and "every 3s" in fragment
    # the organizer's preview and settings, as the other overlays'
    preview = client.get(f"/shows/{record.pk}/overlays/preview/chat/?position=bottom-right")
    assert preview.status_code == 200 and "pos-bottom-right" in preview.content.decode()
    links = client.get(f"/shows/{record.pk}/overlays/?kind=chat").content.decode()
    assert f'src="/shows/{record.pk}/overlays/preview/chat/"' in links
    assert viewer.get(f"{url}?panel=purple").status_code == 400
