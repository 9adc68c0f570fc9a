"""POST /api/matches/<id>/moderate with ``seat``: time for one seat's clock;
a seat that is not in the match is a 400 naming the field, nothing written."""

import pytest

from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW


def added(match):
    return [r.data for r in read(match.stream) if r.type == "time_added"]


@pytest.mark.django_db
def test_add_time_to_one_seat_by_the_api(as_user, post, match, organizer):
    url = f"/api/matches/{match.pk}/moderate"
    client = as_user(organizer)
    before = {d["seat"]: d["deadline"] for d in services.view_for(match, MODERATOR_VIEW)["pending"]}
    resp = post(client, url, {"type": "add_time", "reason": "lag", "seconds": 30, "seat": "ben"})
    assert resp.status_code == 201, resp.content
    assert [(d["seat"], d["seconds"]) for d in added(match)] == [("ben", 30)]
    after = {d["seat"]: d["deadline"] for d in services.view_for(match, MODERATOR_VIEW)["pending"]}
    assert after["ana"] == before["ana"] and after["ben"] == pytest.approx(before["ben"] + 30)


@pytest.mark.django_db
@pytest.mark.parametrize("seat", ["cal", "", "ana ", "x" * 101])
def test_a_seat_not_in_the_match_is_a_400(as_user, post, match, organizer, seat):
    other = services.create_match("love-me-not", ["cal", "dee"])  # cal sits elsewhere
    resp = post(
        as_user(organizer),
        f"/api/matches/{match.pk}/moderate",
        {"type": "add_time", "reason": "lag", "seconds": 5, "seat": seat},
    )
    assert resp.status_code == 400, resp.content
    assert resp.json()["code"] == "invalid" and "seat" in resp.json()["fields"]
    assert added(match) == [] and added(other) == []
