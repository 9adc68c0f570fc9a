"""The chat's API: read a room, post with a command id, hide; the same
rights and refusals as the pages, in the API's codes."""

from rest_framework.test import APIClient

from chat.models import ChatMessage
from eventlog.models import StoredEvent


def api(user=None) -> APIClient:
    c = APIClient()
    if user is not None:
        c.force_authenticate(user)
    return c


def test_post_read_and_hide_over_the_api(people, table):
    room = f"/api/chat/rooms/m{table.pk}-players"
    posted = api(people["ana"]).post(
        f"{room}/messages", {"text": "gl hf", "command_id": "c-1"}, format="json"
    )
    assert posted.status_code == 201 and posted.json()["text"] == "gl hf"
    again = api(people["ana"]).post(
        f"{room}/messages", {"text": "gl hf", "command_id": "c-1"}, format="json"
    )
    assert again.status_code == 201 and again.json()["id"] == posted.json()["id"]
    read = api(people["ben"]).get(f"{room}/messages")
    assert [m["text"] for m in read.json()["messages"]] == ["gl hf"]
    # a seat never moderates its own match; the match's moderator does
    body = {"message": posted.json()["id"], "reason": "spoiler"}
    assert api(people["ben"]).post(f"{room}/hide", body, format="json").status_code == 403
    assert api(people["mo"]).post(f"{room}/hide", body, format="json").status_code == 200
    assert api(people["ben"]).get(f"{room}/messages").json()["messages"] == []


def test_the_stands_never_reach_a_seat_over_the_api(people, table):
    stands = f"/api/chat/rooms/m{table.pk}-spectators/messages"
    assert (
        api(people["sam"]).post(stands, {"text": "ana has the 8"}, format="json").status_code == 201
    )
    refused = api(people["ana"]).get(stands)
    assert refused.status_code == 403 and "8" not in refused.content.decode()
    assert api(people["ana"]).post(stands, {"text": "hi"}, format="json").status_code == 403
    assert [m["text"] for m in api(people["sam"]).get(stands).json()["messages"]] == [
        "ana has the 8"
    ]


def test_hostile_bodies_are_refused_and_nothing_written(people, table):
    room = f"/api/chat/rooms/m{table.pk}-players"
    before = StoredEvent.objects.count()
    ana = api(people["ana"])
    assert ana.post(f"{room}/messages", {"text": "x" * 1_000_000}, format="json").status_code in (
        400,
        413,
    )
    assert ana.post(f"{room}/messages", {"text": "x" * 501}, format="json").status_code == 422
    assert ana.post(f"{room}/messages", {"text": 1e308}, format="json").status_code in (400, 422)
    assert ana.get(f"{room}/messages?before=1e308").status_code == 400
    assert ana.get(f"{room}/messages?after=%D9%A3").status_code == 400
    assert ana.get("/api/chat/rooms/m99999999-players/messages").status_code == 404
    assert api().post(f"{room}/messages", {"text": "hi"}, format="json").status_code in (401, 403)
    deep = "[" * 1000 + "]" * 1000
    sent = ana.post(f"{room}/messages", deep, content_type="application/json")
    assert sent.status_code == 400
    assert StoredEvent.objects.count() == before
    assert not ChatMessage.objects.exists()


def test_report_over_the_api_once_with_a_command_id(people, table):
    room = f"/api/chat/rooms/m{table.pk}-players"
    posted = api(people["ana"]).post(f"{room}/messages", {"text": "gg ez"}, format="json")
    body = {"message": posted.json()["id"], "reason": "unkind", "command_id": "r-1"}
    first = api(people["ben"]).post(f"{room}/report", body, format="json")
    assert first.status_code == 200 and first.json() == {"reported": body["message"]}
    retry = api(people["ben"]).post(f"{room}/report", body, format="json")
    assert retry.status_code == 200  # the same command id: written once
    reported = StoredEvent.objects.filter(type="chat_message_reported")
    assert reported.count() == 1
    again = api(people["ben"]).post(f"{room}/report", {**body, "command_id": "r-2"}, format="json")
    assert again.status_code == 422 and "already reported" in again.json()["message"]
    for hostile in ({"message": 1e308}, {"message": "٣"}, {"message": [1]}, {"reason": "x"}):
        assert api(people["ben"]).post(f"{room}/report", hostile, format="json").status_code == 400
    assert api().post(f"{room}/report", body, format="json").status_code in (401, 403)
    stands = f"/api/chat/rooms/m{table.pk}-spectators/report"
    assert api(people["ana"]).post(stands, body, format="json").status_code == 403
    assert reported.count() == 1
