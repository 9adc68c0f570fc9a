"""Whole matches played through the services and the event store, then
rebuilt from the log; commands, rejections and redaction end to end."""

import json
import random

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command

from eventlog.models import StoredEvent
from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, RuleError, Viewer
from games.core.registry import series_for
from games.models import Match, SeatHolder

FULL_GAMES = [
    ("doubting-love-letter", ["ana", "ben"], {"first_to": 5}),  # best of nine
    ("love-letter", ["ana", "ben", "cal"], {}),
    ("love-me-not", ["ana", "ben"], {}),
    ("higher-lower", ["ana", "ben"], {}),
    ("bleven", ["ana", "ben"], {}),
    ("bleven", ["ana", "ben", "cal", "dee"], {}),
]


def read_models():
    return (
        list(
            Match.objects.values(
                "stream", "game", "seats", "scores", "status", "winners", "version", "next_deadline"
            ).order_by("stream")
        ),
        list(
            SeatHolder.objects.values("match__stream", "seat", "user_id", "bot").order_by(
                "match__stream", "seat"
            )
        ),
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    "game,seats,options", FULL_GAMES, ids=[f"{g}-{len(s)}" for g, s, _ in FULL_GAMES]
)
def test_full_bot_match_through_services_then_rebuilt(game, seats, options):
    rng = random.Random(5)
    match = services.create_match(
        game,
        seats,
        options=options,
        holders={s: "bot:heuristic" for s in seats},
        rng=rng,
        now=1_000_000.0,
    )
    services.run_bots(match, start=1_000_000.0, rng=rng)
    match.refresh_from_db()
    assert match.status == "finished", services.view_for(match, MODERATOR_VIEW)["pending"]
    state = services.load(match).state
    assert state.finished and state.winners
    assert max(state.scores.values()) >= state.target
    if game == "doubting-love-letter":
        assert state.target == 5 and len(state.history) >= 5
    # versions gapless, and the fold of the stored log equals the live state
    versions = [r.version for r in read(match.stream)]
    assert versions == list(range(1, len(versions) + 1))
    assert services.fold_rows(game, read(match.stream)) == state
    before = read_models()
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert read_models() == before


@pytest.mark.django_db
def test_rejected_command_writes_nothing_and_says_why():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(1))
    n = StoredEvent.objects.count()
    with pytest.raises(RuleError) as err:
        services.submit(match, "ana", {"type": "choose", "keep": "XX", "discard": "YY"})
    assert str(err.value)
    with pytest.raises(RuleError, match="not seated"):
        services.submit(match, "zed", {"type": "choose"})
    assert StoredEvent.objects.count() == n


@pytest.mark.django_db
def test_retried_command_id_is_applied_once():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(1))
    hand = services.view_for(match, Viewer.of_seat("ana"))["bout"]
    legal = series_for("love-me-not").rules.legal_commands(services.load(match).state.bout, "ana")
    cmd = legal[0]
    first = services.submit(match, "ana", cmd, command_id="c-1")
    again = services.submit(match, "ana", cmd, command_id="c-1")
    assert [r.id for r in again] == [r.id for r in first]
    assert len(read(match.stream)) == first[-1].version
    assert hand is not None


@pytest.mark.django_db
def test_history_and_views_are_redacted_per_viewer():
    rng = random.Random(2)
    match = services.create_match("love-me-not", ["ana", "ben"], rng=rng)
    rules = series_for("love-me-not").rules
    cmd = rules.legal_commands(services.load(match).state.bout, "ana")[0]
    services.submit(match, "ana", cmd)
    ben_hist = json.dumps(services.history_for(match, Viewer.of_seat("ben")))
    spec_hist = json.dumps(services.history_for(match, SPECTATOR_VIEW))
    ana_hist = json.dumps(services.history_for(match, Viewer.of_seat("ana")))
    for secret in (cmd["keep"], cmd["discard"]):
        assert f'"{secret}"' in ana_hist
    # ana's hand (both cards) is hers alone until the reveal
    assert f'"{cmd["keep"]}"' not in ben_hist and f'"{cmd["keep"]}"' not in spec_hist
    assert f'"{cmd["keep"]}"' not in json.dumps(services.view_for(match, Viewer.of_seat("ben")))


@pytest.mark.django_db
def test_api_commands_and_errors(client):
    user = User.objects.create_user("ana_user", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": user.pk}, rng=random.Random(4)
    )
    url = f"/api/matches/{match.pk}/commands"
    # a spectator may not move
    resp = client.post(url, {"command": {"type": "choose"}}, content_type="application/json")
    assert resp.status_code == 403 and "seated" in resp.json()["error"]
    client.force_login(user)
    resp = client.post(url, {"nope": 1}, content_type="application/json")
    assert resp.status_code == 400
    resp = client.post(
        url,
        {"command": {"type": "choose", "keep": "2H", "discard": "2H"}},
        content_type="application/json",
    )
    assert resp.status_code == 422 and resp.json()["error"]
    legal = series_for("love-me-not").rules.legal_commands(services.load(match).state.bout, "ana")
    resp = client.post(
        url, {"command": legal[0], "command_id": "x1"}, content_type="application/json"
    )
    assert resp.status_code == 201, resp.content
    view = client.get(f"/api/matches/{match.pk}/").json()
    assert view["viewer"] == {"kind": "seat", "seat": "ana"}
    hist = client.get(f"/api/matches/{match.pk}/history?after=abc")
    assert hist.status_code == 400
    assert client.get("/api/schema/").status_code == 200


@pytest.mark.django_db
def test_match_page_renders_for_seat_and_spectator(client):
    user = User.objects.create_user("ana_user", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": user.pk}, rng=random.Random(4)
    )
    resp = client.get(f"/games/matches/{match.pk}/")
    assert resp.status_code == 200 and b"spectator" in resp.content
    client.force_login(user)
    resp = client.get(f"/games/matches/{match.pk}/")
    assert b"Your move" in resp.content
    resp = client.post(f"/games/matches/{match.pk}/command", {"command": "not json"}, follow=True)
    assert b"must be a JSON object" in resp.content


@pytest.mark.django_db
@pytest.mark.parametrize(
    "slug", ["doubting-love-letter", "love-letter", "love-me-not", "higher-lower", "bleven"]
)
def test_rules_pages_render(client, slug):
    resp = client.get(f"/games/rules/{slug}/")
    assert resp.status_code == 200
    assert b"<h1" in resp.content
    assert client.get("/games/rules/chess/").status_code == 404


@pytest.mark.django_db
def test_organizer_creates_a_match_with_its_time_control(client):
    body = {
        "game": "doubting-love-letter",
        "seats": ["ana", "ben"],
        "options": {"decision_s": 30, "reserve_s": 20},
    }
    assert client.post("/api/matches/", body, content_type="application/json").status_code == 403
    staff = User.objects.create_user("olga", password="pw-123456", is_staff=True)
    client.force_login(staff)
    refused = client.post("/api/matches/", body, content_type="application/json")
    assert refused.status_code == 403 and "games.add_match" in refused.json()["error"]
    staff.user_permissions.add(Permission.objects.get(codename="add_match"))
    staff = User.objects.get(pk=staff.pk)  # a fresh permission cache
    client.force_login(staff)
    resp = client.post(
        "/api/matches/", {**body, "options": {"decision_s": -5}}, content_type="application/json"
    )
    assert resp.status_code == 400 and "decision_s" in resp.json()["error"]
    assert not Match.objects.exists()
    resp = client.post("/api/matches/", body, content_type="application/json")
    assert resp.status_code == 201, resp.content
    match = Match.objects.get(pk=resp.json()["id"])
    assert match.options["decision_s"] == 30 and match.options["reserve_s"] == 20
    # the first deadline follows the chosen control: 30 s + 20 s reserve
    page = client.get(f"/games/matches/{match.pk}/")
    assert b"data-deadline" in page.content and b"data-server-now" in page.content
    created = read(match.stream)[0].recorded_at.timestamp()
    assert match.next_deadline.timestamp() - created == pytest.approx(50, abs=2)
