"""Each endpoint × each caller: allowed or refused with the right status and
code. Who may do what is the services' decision (one role matrix): the API
answers what ``services.viewer_for`` says."""

import pytest

from eventlog.models import StoredEvent
from games import services
from games.core.protocol import MODERATOR, SEAT
from games.models import Match

CALLERS = ["anonymous", "other", "seated", "staff", "organizer"]


@pytest.fixture
def callers(ana, other, staff, organizer):
    return {
        "anonymous": None,
        "other": other,
        "seated": ana,
        "staff": staff,
        "organizer": organizer,
    }


def kind_of(match, user):
    return services.viewer_for(match, user).kind


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("path", ["/api/games/", "/api/matches/"])
def test_lists_are_open_to_everyone(as_user, callers, match, caller, path):
    resp = as_user(callers[caller]).get(path)
    assert resp.status_code == 200 and isinstance(resp.json(), list) and resp.json()


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
def test_match_reads_are_what_the_caller_may_see(as_user, callers, match, caller):
    user = callers[caller]
    client = as_user(user)
    view = client.get(f"/api/matches/{match.pk}/")
    assert view.status_code == 200
    assert view.json()["viewer"]["kind"] == kind_of(match, user)
    if caller == "seated":
        assert view.json()["viewer"] == {"kind": "seat", "seat": "ana"}
    history = client.get(f"/api/matches/{match.pk}/history")
    assert history.status_code == 200 and history.json()["events"]
    legal = client.get(f"/api/matches/{match.pk}/legal")
    assert legal.status_code == 200
    body = legal.json()
    if caller == "seated":
        # love-me-not: both players choose at once, so ana has choices now
        assert body["seat"] == "ana" and body["commands"]
        assert body["version"] == view.json()["version"]
    else:
        assert body == {"version": None, "seat": None, "commands": []}


@pytest.mark.django_db
def test_legal_commands_are_accepted_and_empty_when_not_your_turn(as_user, post, match, ana):
    client = as_user(ana)
    legal = client.get(f"/api/matches/{match.pk}/legal").json()
    resp = post(client, f"/api/matches/{match.pk}/commands", {"command": legal["commands"][0]})
    assert resp.status_code == 201, resp.content
    after = client.get(f"/api/matches/{match.pk}/legal").json()
    # ana has chosen; ben has not: nothing for ana to send until he does
    assert after["commands"] == [] and after["version"] > legal["version"]


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
def test_sending_a_move(as_user, post, callers, match, caller):
    user = callers[caller]
    legal = services.legal_for(match, services.viewer_for(match, callers["seated"]))[1]
    before = StoredEvent.objects.count()
    resp = post(as_user(user), f"/api/matches/{match.pk}/commands", {"command": legal[0]})
    if user is None:
        assert resp.status_code == 401 and resp.json()["code"] == "not_authenticated"
        assert resp["WWW-Authenticate"] == "Token"
    elif kind_of(match, user) == SEAT:
        assert resp.status_code == 201 and resp.json()["appended"]
        return
    else:
        assert resp.status_code == 403
        assert resp.json() == {
            "code": "permission_denied",
            "message": "only a seated player may send moves",
        }
    assert StoredEvent.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
def test_moderating(as_user, post, callers, match, caller):
    user = callers[caller]
    before = StoredEvent.objects.count()
    resp = post(
        as_user(user), f"/api/matches/{match.pk}/moderate", {"type": "pause", "reason": "break"}
    )
    if user is None:
        assert resp.status_code == 401 and resp.json()["code"] == "not_authenticated"
    elif kind_of(match, user) == MODERATOR:
        assert resp.status_code == 201 and resp.json()["appended"]
        return
    else:
        assert resp.status_code == 403
        body = resp.json()
        assert body["code"] == "permission_denied" and "moderator" in body["message"]
    assert StoredEvent.objects.count() == before


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
def test_creating_a_match(as_user, post, callers, match, caller):
    user = callers[caller]
    before = Match.objects.count()
    resp = post(as_user(user), "/api/matches/", {"game": "love-me-not", "seats": ["a", "b"]})
    if user is None:
        assert resp.status_code == 401 and resp.json()["code"] == "not_authenticated"
    elif user.has_perm("games.add_match"):
        assert resp.status_code == 201 and resp.json()["game"] == "love-me-not"
        return
    else:
        assert resp.status_code == 403
        body = resp.json()
        assert body["code"] == "permission_denied" and "organizer" in body["message"]
    assert Match.objects.count() == before


@pytest.mark.django_db
def test_creating_a_match_refuses_bad_input_with_its_reason(as_user, post, organizer):
    client = as_user(organizer)
    resp = post(client, "/api/matches/", {"game": "love-me-not", "seats": ["solo"]})
    assert resp.status_code == 400
    assert resp.json()["code"] == "invalid" and "seats" in resp.json()["fields"]
    resp = post(client, "/api/matches/", {"game": "chess", "seats": ["a", "b"]})
    assert resp.status_code == 422
    assert resp.json()["code"] == "rule" and "no game called 'chess'" in resp.json()["message"]
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_the_games_registry(client):
    games = {g["slug"]: g for g in client.get("/api/games/").json()}
    assert set(games) == {
        "doubting-love-letter",
        "love-letter",
        "love-me-not",
        "higher-lower",
        "bleven",
    }
    dll = games["doubting-love-letter"]
    assert dll["min_players"] == dll["max_players"] == 2
    assert {"name": "decision_s", "default": 60} in [
        {"name": o["name"], "default": o["default"]} for o in dll["options"]
    ]
    assert "deck_rigging" in dll["items"]
    assert games["love-letter"]["max_players"] == 4
    assert client.get(dll["rules_url"]).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize(
    "extra, field",
    [
        ({"holders": {"ana": 10**30}}, "holders"),
        ({"holders": {"ana": 424242}}, "holders"),
        ({"holders": {"ana": "someone"}}, "holders"),
        ({"holders": {"ana": [1]}}, "holders"),
        ({"holders": {"ana": True}}, "holders"),
        ({"options": {"decision_s": [1]}}, "options"),
        ({"options": {"decision_s": "x" * 500}}, "options"),
        ({"seats": ["a" * 101, "b"]}, "seats"),
        ({"seats": [str(i) for i in range(9)]}, "seats"),
    ],
)
def test_creating_a_match_bounds_its_input(as_user, post, organizer, extra, field):
    body = {"game": "love-me-not", "seats": ["ana", "ben"], **extra}
    resp = post(as_user(organizer), "/api/matches/", body)
    assert resp.status_code == 400, resp.content
    assert resp.json()["code"] == "invalid" and field in resp.json()["fields"]
    assert not Match.objects.exists()


@pytest.mark.django_db
def test_a_match_is_created_with_a_person_and_a_bot(as_user, post, organizer, ana):
    body = {"game": "love-me-not", "seats": ["ana", "ben"]}
    body["holders"] = {"ana": ana.pk, "ben": "bot:random"}
    resp = post(as_user(organizer), "/api/matches/", body)
    assert resp.status_code == 201, resp.content
    match = Match.objects.get(pk=resp.json()["id"])
    assert services.viewer_for(match, ana).seat == "ana"


@pytest.mark.django_db
def test_nothing_is_legal_while_a_moderator_has_paused_the_clocks(as_user, post, match, ana):
    url = f"/api/matches/{match.pk}/legal"
    assert as_user(ana).get(url).json()["commands"]
    services.submit(match, None, {"type": "pause", "reason": "break"}, role=MODERATOR)
    assert as_user(ana).get(url).json()["commands"] == []
    services.submit(match, None, {"type": "resume", "reason": "back"}, role=MODERATOR)
    assert as_user(ana).get(url).json()["commands"]
