"""Brackets through the API: organizers (a permission, not the staff flag) create them; everyone reads
the drawn tree and the standings."""

import time

import pytest
from django.contrib.auth.models import Permission, User

from games import services as match_services
from games.models import Match
from tournaments.models import BracketRecord

FOUR = ["ana", "ben", "cal", "dee"]
BODY = {
    "name": "Side cup",
    "game": "higher-lower",
    "format": "single",
    "entrants": FOUR,
    "first_to": 1,
    "holders": {e: "bot:random" for e in FOUR},
}


def organizer(name, *perms):
    """A user with the organizer's permissions named (no staff flag needed)."""
    user = User.objects.create_user(name)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return User.objects.get(pk=user.pk)  # a fresh instance: no stale permission cache


@pytest.fixture
def people(db, ana):
    return {
        "anonymous": None,
        "other": User.objects.create_user("olaf"),
        "player": ana,
        "staff": User.objects.create_user("stan", is_staff=True),
        "organizer": organizer("olga", "add_bracketrecord"),
    }


@pytest.mark.django_db
@pytest.mark.parametrize(
    "caller,code",
    [("anonymous", 401), ("other", 403), ("player", 403), ("staff", 403), ("organizer", 201)],
)
def test_create_is_for_organizers(people, as_user, post, caller, code):
    resp = post(as_user(people[caller]), "/api/brackets/", BODY)
    assert resp.status_code == code, resp.content
    if code != 201:
        assert not BracketRecord.objects.exists()
        return
    out = resp.json()
    assert out["name"] == "Side cup" and out["status"] == "running"
    first = [s for s in out["tree"]["series"] if s["round"] == "R1"]
    assert len(first) == 2 and all(s["match_stream"] for s in first)  # opened at once
    assert Match.objects.filter(show_stream=out["stream"]).count() == 2


@pytest.mark.django_db
@pytest.mark.parametrize(
    "change,code,words",
    [
        ({"format": "ladder"}, 422, "unknown format"),
        ({"game": "chess"}, 422, "chess"),
        ({"entrants": ["ana", "ana"]}, 422, "ana"),
        ({"name": " "}, 400, "name"),
        ({"first_to": 0}, 400, "first_to"),
        ({"first_to": {"R1": "two"}}, 400, "first_to"),
        ({"holders": {"ana": 10**30}}, 400, "holders"),
    ],
)
def test_bad_brackets_are_refused_in_words(people, as_user, post, change, code, words):
    resp = post(as_user(people["organizer"]), "/api/brackets/", {**BODY, **change})
    assert resp.status_code == code, resp.content
    assert words in resp.json()["message"]
    assert not BracketRecord.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("caller", ["anonymous", "other", "player", "staff", "organizer"])
def test_everyone_reads_the_tree_and_standings_to_the_champion(people, as_user, post, caller):
    created = post(as_user(people["organizer"]), "/api/brackets/", BODY).json()
    for _ in range(10):  # the bots play every series
        live = Match.objects.filter(show_stream=created["stream"], status="live")
        if not live:
            break
        for m in live:
            match_services.run_bots(m, start=time.time())
    client = as_user(people[caller])
    listed = client.get("/api/brackets/").json()
    assert [b["id"] for b in listed] == [created["id"]]
    assert listed[0]["status"] == "finished" and listed[0]["champion"] in FOUR
    out = client.get(f"/api/brackets/{created['id']}/").json()
    final = next(s for s in out["tree"]["series"] if s["round"] == "R2")
    assert final["winner"] == listed[0]["champion"] == out["tree"]["standings"][0]
    assert sorted(out["tree"]["standings"]) == sorted(FOUR)


@pytest.mark.django_db
def test_unknown_and_huge_bracket_ids_are_404(client):
    for pk in (1, 2**63, 10**30):
        resp = client.get(f"/api/brackets/{pk}/")
        assert resp.status_code == 404 and resp.json()["code"] == "not_found"


@pytest.mark.django_db
def test_a_bracket_with_check_in_is_drawn_through_the_api(people, token_client, post):
    """Created with ``check_in``: no series before the draw; a person holding
    an entrant checks in (once), the organizer alone draws; the absent are
    dropped. Nothing is written by a refused call."""
    from eventlog.models import StoredEvent

    ana, olaf = people["player"], people["other"]
    body = BODY | {"holders": {**BODY["holders"], "ana": ana.pk, "ben": olaf.pk}, "check_in": True}
    org = token_client(people["organizer"])
    made = post(org, "/api/brackets/", body)
    assert made.status_code == 201, made.content
    pk, stream = made.json()["id"], made.json()["stream"]
    assert made.json()["status"] == "checking in"
    assert not Match.objects.filter(show_stream=stream).exists()
    written = StoredEvent.objects.filter(stream=stream).count
    before = written()
    assert (
        post(token_client(people["staff"]), f"/api/brackets/{pk}/check-in/", {}).status_code == 403
    )
    assert post(org, f"/api/brackets/{pk}/check-in/", {}).status_code == 403
    assert post(token_client(ana), f"/api/brackets/{pk}/draw/", {}).status_code == 403
    assert post(token_client(ana), "/api/brackets/999999/check-in/", {}).status_code == 404
    assert written() == before
    done = post(token_client(ana), f"/api/brackets/{pk}/check-in/", {})
    assert done.status_code == 200 and done.json() == {"checked_in": ["ana"]}
    assert post(token_client(ana), f"/api/brackets/{pk}/check-in/", {}).status_code == 422
    drawn = post(org, f"/api/brackets/{pk}/draw/", {})
    assert drawn.status_code == 200, drawn.content
    assert drawn.json()["dropped"] == ["ben"] and drawn.json()["status"] == "running"
    assert Match.objects.filter(show_stream=stream).exists()
    assert post(org, f"/api/brackets/{pk}/draw/", {}).status_code == 422
    bad = post(org, "/api/brackets/", body | {"check_in": "1e308", "name": "Other"})
    assert bad.status_code == 400
