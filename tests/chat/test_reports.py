"""Reporting a message (issue #44): anyone who reads it reports it once,
with an optional reason, as an event of the room's stream; the show's
moderators read the reports on its dashboard with the two messages before
and after (as they may read them) and hide the message from there; refusals
in words, in English and French, nothing written."""

import pytest
from django.test import Client
from django.utils import translation

from chat import services
from chat.models import ChatReport
from chat.rooms import SHOW, show_room
from eventlog.models import StoredEvent
from eventlog.readmodels import rebuild_all
from games import services as games

from .test_show_room import make_show

pytestmark = pytest.mark.django_db


def client(user) -> Client:
    c = Client()
    c.force_login(user)
    return c


def report(user, room, message, reason="", **headers):
    return client(user).post(
        f"/chat/rooms/{room}/report",
        {"message": str(message), "reason": reason},
        HTTP_X_REQUESTED_WITH="fetch",
        **headers,
    )


def test_a_report_reaches_the_dashboard_with_its_context_and_the_message_is_hidden_there(
    settings,
):
    settings.CHAT_BURST = 20  # cal writes six in a row
    people, show, match = make_show()
    games.submit(match, "ana", {"type": "resign"}, actor="ana")  # cal and ben read it all
    room = show_room(show, SHOW)
    texts = ["one", "two", "three", "rude words", "four", "five", "six"]
    ids = [
        services.post(room, people["sam"] if t == "rude words" else people["cal"], t).id
        for t in texts
    ]
    bad = ids[3]
    answer = report(people["ben"], room.name, bad, "insults cal")
    assert answer.status_code == 200 and "moderators" in answer.json()["message"]
    assert report(people["cal"], room.name, bad).status_code == 200  # no reason: fine
    again = report(people["ben"], room.name, bad, "again")
    assert again.status_code == 422 and "already reported" in again.json()["message"]
    assert ChatReport.objects.count() == 2
    assert StoredEvent.objects.filter(stream=room.stream, type="chat_message_reported").count() == 2
    # the dashboard: the message, its context (two before, two after), who and why
    dash = client(people["mia"])
    page = dash.get(f"/shows/{show.pk}/dashboard/").content.decode()
    section = page[page.index('id="reports"') : page.index('id="audit"')]
    for shown in ("two", "three", "rude words", "four", "five", "reported by ben: insults cal"):
        assert shown in section
    assert "one" not in section and "six" not in section
    assert "reported by cal, no reason given" in section
    # the show room's page shows no reporter to anyone
    assert "insults cal" not in client(people["cal"]).get(f"/shows/{show.pk}/").content.decode()
    # hiding it from the dashboard: gone for everyone, the report done
    url = f"/chat/rooms/{room.name}/hide"
    hidden = dash.post(
        url, {"message": bad, "reason": "insults", "next": f"/shows/{show.pk}/dashboard/#reports"}
    )
    assert hidden.status_code == 302 and hidden["Location"].endswith("#reports")
    assert "rude words" not in [m.text for m in services.history(room, people["cal"])]
    page = dash.get(f"/shows/{show.pk}/dashboard/").content.decode()
    section = page[page.index('id="reports"') : page.index('id="audit"')]
    assert "rude words" not in section and "No chat message is reported." in section
    rebuild_all()
    assert ChatReport.objects.count() == 2


def test_reports_refused_in_words_and_nothing_written():
    people, show, match = make_show()
    room = show_room(show, SHOW)
    mine = services.post(room, people["cal"], "hello").id
    spoiler = services.post(room, people["sam"], "ana holds the princess").id
    staff = services.post(show_room(show, "staff"), people["mia"], "staff only").id
    before = StoredEvent.objects.count()
    cases = [
        (people["cal"], room.name, mine, "", 422, "your own message"),
        (people["cal"], room.name, "1e308", "", 422, "no such message"),
        (people["cal"], room.name, "٣", "", 422, "no such message"),
        (people["cal"], room.name, spoiler + 10_000, "", 422, "no such message"),
        (people["cal"], room.name, spoiler, "x" * 201, 422, "at most 200"),
        # ana sits in a live match: the spectator's message is not hers to read, nor to report
        (people["ana"], room.name, spoiler, "", 422, "no such message"),
        (people["cal"], f"s{show.pk}-staff", staff, "", 403, "staff room"),
        (people["cal"], f"s{show.pk + 99}-show", 1, "", 404, "no such chat room"),
    ]
    for user, name, message, reason, status, words in cases:
        answer = report(user, name, message, reason)
        assert answer.status_code == status and words in answer.json()["message"], (name, message)
    assert Client().post(f"/chat/rooms/{room.name}/report", {"message": spoiler}).status_code == 403
    with translation.override("fr"):
        french = report(people["cal"], room.name, mine, HTTP_ACCEPT_LANGUAGE="fr")
        assert french.status_code == 422 and "propre message" in french.json()["message"]
    assert StoredEvent.objects.count() == before
    # a form without fetch: the refusal page in words
    page = client(people["cal"]).post(f"/chat/rooms/{room.name}/report", {"message": mine})
    assert page.status_code == 422 and "your own message" in page.content.decode()


def test_the_report_button_is_on_the_page_for_whoever_is_logged_in():
    people, show, _match = make_show()
    page = client(people["cal"]).get(f"/shows/{show.pk}/").content.decode()
    assert f"/chat/rooms/s{show.pk}-show/report" in page and 'id="chat-report-s' in page


def test_a_report_in_a_match_room_of_the_show_reaches_its_moderators_not_other_shows():
    people, show, match = make_show()
    stands = f"m{match.pk}-spectators"
    bad = client(people["sam"]).post(
        f"/chat/rooms/{stands}/post", {"text": "rude"}, HTTP_X_REQUESTED_WITH="fetch"
    )
    bad_id = bad.json()["message"]["id"]
    assert report(people["cal"], stands, bad_id, "rude to ana").status_code == 200
    page = client(people["olga"]).get(f"/shows/{show.pk}/dashboard/").content.decode()
    section = page[page.index('id="reports"') : page.index('id="audit"')]
    assert "reported by cal: rude to ana" in section and f"/chat/rooms/{stands}/hide" in section
    # the seats of the live match never see it, nor its report, anywhere
    ana = client(people["ana"]).get(f"/shows/{show.pk}/dashboard/")
    assert ana.status_code == 403 and b"rude" not in ana.content
