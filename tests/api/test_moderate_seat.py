"""POST /api/matches/<id>/moderate with ``seat``: time for one seat's clock;
a seat that is not in the match is a 400 naming the field, nothing written."""

import pytest

from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW
from games.models import Match


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


@pytest.mark.django_db
@pytest.mark.parametrize(
    "command",
    [
        {"type": "add_time", "reason": "lag", "seconds": 86_400, "seat": "orla"},
        {"type": "add_time", "reason": "lag", "seconds": 60},
        {"type": "pause", "reason": "break"},
    ],
)
def test_an_organizer_seated_in_their_own_match_never_moderates_it(
    as_user, post, organizer, ana, command
):
    """Like a show's or a bracket's: holding a seat takes every moderator's right."""
    created = post(
        as_user(organizer),
        "/api/matches/",
        {"game": "love-me-not", "seats": ["orla", "ana"], "holders": {"orla": organizer.pk}},
    )
    assert created.status_code == 201, created.content
    match = Match.objects.get(pk=created.json()["id"])
    assert services.viewer_for(match, organizer).seat == "orla"
    before = len(read(match.stream))
    resp = post(as_user(organizer), f"/api/matches/{match.pk}/moderate", command)
    assert resp.status_code == 403, resp.content
    assert "moderator" in resp.json()["message"]
    assert len(read(match.stream)) == before
