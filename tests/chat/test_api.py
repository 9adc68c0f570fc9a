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


def test_moderation_over_the_api_with_the_pages_checks(db):
    from chat.models import ChatRoomState, ChatTimeout
    from tests.chat.test_show_room import make_show

    people, show, match = make_show()
    room = f"/api/chat/rooms/s{show.pk}-show"
    posted = api(people["sam"]).post(f"{room}/messages", {"text": "hi"}, format="json")
    assert posted.status_code == 201
    before = StoredEvent.objects.count()
    # the wrong role: 403, nothing written
    for who in ("sam", "ana"):
        c = api(people[who])
        assert c.post(f"{room}/slow", {"seconds": 5}, format="json").status_code == 403
        assert c.post(f"{room}/close", {}, format="json").status_code == 403
        body = {"user": people["sam"].pk, "length": "5m"}
        assert c.post(f"{room}/timeout", body, format="json").status_code == 403
        assert c.get(f"/api/chat/shows/{show.pk}/words").status_code == 403
        words = {"words": ["x"]}
        assert c.put(f"/api/chat/shows/{show.pk}/words", words, format="json").status_code == 403
    # hostile bodies: 400, never a 500
    mia = api(people["mia"])
    for hostile in ({"seconds": 1e308}, {"seconds": "٣"}, {"seconds": -1}, {"seconds": [5]}):
        assert mia.post(f"{room}/slow", hostile, format="json").status_code == 400
    for hostile in (
        {"user": people["sam"].pk, "length": "forever"},
        {"user": "٣", "length": "5m"},
        {"user": people["sam"].pk, "length": "5m", "scope": "world"},
        {"user": True, "length": "5m"},
    ):
        assert mia.post(f"{room}/timeout", hostile, format="json").status_code == 400
    too_many = {"words": [f"w{n}" for n in range(201)]}
    assert mia.put(f"/api/chat/shows/{show.pk}/words", too_many, format="json").status_code == 400
    deep = {"words": [[["x"]]]}
    assert mia.put(f"/api/chat/shows/{show.pk}/words", deep, format="json").status_code == 400
    assert mia.get("/api/chat/shows/99999999/words").status_code == 404
    assert api().post(f"{room}/close", {}, format="json").status_code in (401, 403)
    assert StoredEvent.objects.count() == before
    # the moderator's acts
    assert mia.post(f"{room}/slow", {"seconds": 30}, format="json").json() == {"slow_s": 30}
    assert mia.post(f"{room}/close", {"command_id": "c1"}, format="json").json() == {"closed": True}
    assert mia.post(f"{room}/close", {"command_id": "c1"}, format="json").status_code == 200
    assert StoredEvent.objects.filter(type="chat_room_closed").count() == 1  # once
    closed = api(people["sam"]).post(f"{room}/messages", {"text": "?"}, format="json")
    assert closed.status_code == 422 and "closed" in closed.json()["message"]
    assert mia.post(f"{room}/open", {}, format="json").json() == {"closed": False}
    assert not ChatRoomState.objects.get(stream=f"chat-s{show.pk}-show").closed
    body = {"user": people["sam"].pk, "length": "1h", "scope": "show"}
    assert mia.post(f"{room}/timeout", body, format="json").json() == {"timed_out": body["user"]}
    assert ChatTimeout.objects.get(user_id=people["sam"].pk).show_id == show.pk
    put = mia.put(f"/api/chat/shows/{show.pk}/words", {"words": ["Ｂad", "bad"]}, format="json")
    assert put.json() == {"show": show.pk, "words": ["bad"]}
    assert mia.get(f"/api/chat/shows/{show.pk}/words").json()["words"] == ["bad"]


def test_block_and_unblock_over_the_api(people, table):
    room = f"/api/chat/rooms/m{table.pk}-players"
    api(people["ben"]).post(f"{room}/messages", {"text": "@ana hi"}, format="json")
    ana = api(people["ana"])
    blocked = ana.post("/api/chat/block", {"user": people["ben"].pk}, format="json")
    assert blocked.json() == {"user": people["ben"].pk, "blocked": True}
    assert ana.get(f"{room}/messages").json()["messages"] == []
    for hostile in ({"user": people["ana"].pk}, {"user": 99999999}):
        assert ana.post("/api/chat/block", hostile, format="json").status_code == 422
    assert ana.post("/api/chat/block", {"user": "٣"}, format="json").status_code == 400
    assert api().post("/api/chat/block", {"user": 1}, format="json").status_code in (401, 403)
    assert ana.post("/api/chat/unblock", {"user": people["ben"].pk}, format="json").json() == {
        "user": people["ben"].pk,
        "blocked": False,
    }
    [shown] = ana.get(f"{room}/messages").json()["messages"]
    assert shown["mentions_me"] is True and shown["staff"] is False
