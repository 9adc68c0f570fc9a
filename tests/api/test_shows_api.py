"""Shows through the API: each endpoint × each caller (anonymous, a user
with no role, a player, a moderator, the organizer, staff with no role).
The show's rules decide every role; the API maps a refusal for the
caller's role to 403 and any other refusal to 422, and writes nothing."""

import json
import random
import time

import pytest
from django.contrib.auth.models import Permission, User
from django.http import Http404

from eventlog.store import read
from games import services as match_services
from games.models import Match
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay", "gus", "hal"]
CALLERS = ["anonymous", "other", "player", "moderator", "organizer", "staff"]


def organizer(name, *perms):
    """A user with the organizer's permissions named (no staff flag needed)."""
    user = User.objects.create_user(name)
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return User.objects.get(pk=user.pk)  # a fresh instance: no stale permission cache


@pytest.fixture
def people(db):
    return {
        "anonymous": None,
        "other": User.objects.create_user("olaf"),
        "player": User.objects.create_user("ana_user"),
        "moderator": User.objects.create_user("mia"),
        "organizer": organizer("olga", "add_showrecord"),
        "staff": User.objects.create_user("stan", is_staff=True),
    }


@pytest.fixture
def delay():
    return 300  # spectators see the show this many seconds late


@pytest.fixture
def show(people, as_user, post, delay):
    """A show created through the API by olga; ana is held by a person, the rest by bots."""
    holders = {e: "bot:random" for e in ENTRANTS}
    holders["ana"] = people["player"].pk
    resp = post(
        as_user(people["organizer"]),
        "/api/shows/",
        {
            "name": "Friday night",
            "entrants": ENTRANTS,
            "holders": holders,
            "options": {
                "step_deadline_s": 0,
                "death_match_first_to": 1,
                "final_first_to": 1,
                "spectator_delay_s": delay,
            },
        },
    )
    assert resp.status_code == 201, resp.content
    record = ShowRecord.objects.get(pk=resp.json()["id"])
    ss.command(
        record.stream,
        {"type": "appoint_moderator", "username": "mia"},
        ss.Acting("olga", "organizer"),
    )
    return record


def version(record):
    return read(record.stream)[-1].version


def grant(who, item="insurance"):
    return {
        "type": "grant_item",
        "entrant": who,
        "item": item,
        "scope": "any",
        "given_by": "the audience",
        "reason": "prize",
    }


# ---- create --------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize(
    "caller,code",
    [
        ("anonymous", 401),
        ("other", 403),
        ("player", 403),
        ("moderator", 403),
        ("staff", 403),
        ("organizer", 201),
    ],
)
def test_create_is_for_organizers(people, as_user, post, caller, code):
    before = ShowRecord.objects.count()
    client = as_user(people[caller])
    resp = post(client, "/api/shows/", {"name": "S", "entrants": ["a", "b", "c"]})
    assert resp.status_code == code, resp.content
    if code == 201:
        view = client.get(f"/api/shows/{resp.json()['id']}/").json()
        assert view["acting"]["role"] == "organizer"  # the caller organizes it
        assert view["show"]["organizer"] == people[caller].username
    else:
        assert ShowRecord.objects.count() == before
        assert resp.json()["code"] in ("not_authenticated", "permission_denied")


@pytest.mark.django_db
def test_create_takes_the_shows_options_lists_included(people, as_user, post):
    pool = ["love-me-not", "higher-lower"]
    resp = post(
        as_user(people["organizer"]),
        "/api/shows/",
        {"name": "S", "entrants": ["a", "b", "c"], "options": {"game_pool": pool}},
    )
    assert resp.status_code == 201, resp.content
    assert ss.load(resp.json()["stream"])[0].options["game_pool"] == pool
    bad = post(
        as_user(people["organizer"]),
        "/api/shows/",
        {"name": "S", "entrants": ["a", "b", "c"], "options": {"game_pool": ["chess"]}},
    )
    assert bad.status_code == 422 and "chess" in bad.json()["message"]


@pytest.mark.django_db
def test_create_refuses_bad_input_with_the_rules_words(people, as_user, post):
    client = as_user(people["organizer"])
    bad = post(client, "/api/shows/", {"name": "S", "entrants": ["a"]})
    assert bad.status_code == 400 and bad.json()["code"] == "invalid"
    stranger = post(
        client,
        "/api/shows/",
        {"name": "S", "entrants": ["a", "b"], "holders": {"zed": "bot:level:1"}},
    )
    assert stranger.status_code == 422
    assert stranger.json() == {"code": "rule", "message": "zed is not an entrant of this show"}
    assert not ShowRecord.objects.exists()


# ---- reads ---------------------------------------------------------------------
@pytest.mark.django_db
@pytest.mark.parametrize("delay", [0, 300])
@pytest.mark.parametrize("caller", CALLERS)
def test_reads_are_the_show_as_the_callers_role_sees_it(people, as_user, show, caller, delay):
    ss.command(show.stream, grant("ben"), ss.Acting("mia", "moderator"))
    ss.command(show.stream, grant("ana"), ss.Acting("mia", "moderator"))
    client = as_user(people[caller])
    role = {
        "anonymous": "spectator",
        "other": "spectator",
        "staff": "spectator",
        "player": "player",
        "moderator": "moderator",
        "organizer": "organizer",
    }[caller]
    assert client.get("/api/shows/").json()[0]["id"] == show.pk
    view = client.get(f"/api/shows/{show.pk}/").json()
    assert view["acting"]["role"] == role
    if role == "spectator" and delay:  # as it stood 300 s ago: its announcement only
        assert view["show"]["entrants"][0] == {"name": "ana", "status": "active"}
        assert view["show"]["item_counts"] == {}
        log = client.get(f"/api/shows/{show.pk}/log").json()["events"]
        assert [e["type"] for e in log] == ["show_created"]
        return
    assert view["show"]["entrants"][0] == {"name": "ana", "status": "active"}
    items = client.get(f"/api/shows/{show.pk}/items").json()
    assert items["item_counts"] == {"ana": 1, "ben": 1}  # everyone sees how many
    seen = set(items["inventories"])
    if role in ("moderator", "organizer"):
        assert seen == {"ana", "ben"}
    elif role == "player":
        assert seen == {"ana"}  # only her own
    else:
        assert seen == set()
    pending = client.get(f"/api/shows/{show.pk}/pending").json()
    assert pending == [{"who": "olga", "step": "enter_ranking", "deadline": None}]
    log = client.get(f"/api/shows/{show.pk}/log").json()["events"]
    assert [e["type"] for e in log][:2] == ["show_created", "moderator_appointed"]
    granted = [e for e in log if e["type"] == "item_granted"]
    # the public log tells that an item was granted, never which
    assert len(granted) == 2 and all("insurance" not in json.dumps(e) for e in granted)


@pytest.mark.django_db
@pytest.mark.parametrize("suffix", ["", "pending", "items", "disputes", "log", "export"])
def test_unknown_and_huge_show_ids_are_404(client, suffix):
    for pk in (1, 2**63, 10**30):
        resp = client.get(f"/api/shows/{pk}/{suffix}")
        assert resp.status_code == 404 and resp.json()["code"] == "not_found"


# ---- commands ------------------------------------------------------------------
ADD_ROUND = {"type": "add_round", "title": "Round 1"}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "caller,code,words",
    [
        ("anonymous", 401, "log in"),
        ("other", 403, "spectators may only watch: add a round is not for them"),
        ("staff", 403, "spectators may only watch: add a round is not for them"),
        ("player", 403, "only the organizer may add a round"),
        ("moderator", 403, "only the organizer may add a round"),
        ("organizer", 201, None),
    ],
)
def test_organizer_steps_are_the_organizers(people, as_user, post, show, caller, code, words):
    before = version(show)
    resp = post(as_user(people[caller]), f"/api/shows/{show.pk}/commands", {"command": ADD_ROUND})
    assert resp.status_code == code, resp.content
    if code == 201:
        assert resp.json()["appended"] == [before + 1]
        assert resp.json()["view"]["rounds"][0]["title"] == "Round 1"
    else:
        assert words in resp.json()["message"]
        assert version(show) == before  # nothing written


@pytest.mark.django_db
@pytest.mark.parametrize(
    "caller,code",
    [
        ("anonymous", 401),
        ("other", 403),
        ("staff", 403),
        ("player", 403),
        ("moderator", 201),
        ("organizer", 201),
    ],
)
def test_items_are_granted_by_moderators(people, as_user, post, show, caller, code):
    before = version(show)
    resp = post(
        as_user(people[caller]), f"/api/shows/{show.pk}/commands", {"command": grant("ana")}
    )
    assert resp.status_code == code, resp.content
    if code == 403:
        assert resp.json()["code"] == "permission_denied"
        assert version(show) == before


@pytest.mark.django_db
def test_items_move_and_rules_refuse_with_their_words(people, as_user, post, show):
    mod, player = as_user(people["moderator"]), as_user(people["player"])
    url = f"/api/shows/{show.pk}/commands"
    wand = post(mod, url, {"command": grant("ana", "magic_wand")})
    assert wand.status_code == 422 and wand.json()["code"] == "rule"
    assert "magic_wand" in wand.json()["message"]
    assert post(mod, url, {"command": grant("ana")}).status_code == 201
    item_id = player.get(f"/api/shows/{show.pk}/items").json()["inventories"]["ana"][0]["id"]
    # the holder gives her own item away; then it is no longer hers to give
    move = {"type": "transfer_item", "from": "ana", "to": "ben", "item_id": item_id}
    assert post(player, url, {"command": {**move, "reason": "gift"}}).status_code == 201
    again = post(player, url, {"command": {**move, "reason": "gift"}})
    assert again.status_code in (403, 422) and again.json()["message"]
    assert player.get(f"/api/shows/{show.pk}/items").json()["inventories"] == {}
    revoke = {"type": "revoke_item", "item_id": item_id, "reason": "breach"}
    assert post(player, url, {"command": revoke}).status_code == 403
    assert post(mod, url, {"command": revoke}).status_code == 201
    assert mod.get(f"/api/shows/{show.pk}/items").json()["item_counts"] == {}


@pytest.mark.django_db
def test_a_body_cannot_choose_its_actor_or_role(people, as_user, post, show):
    before = version(show)
    resp = post(
        as_user(people["other"]),
        f"/api/shows/{show.pk}/commands",
        {"command": {**ADD_ROUND, "actor": "olga", "role": "organizer"}},
    )
    assert resp.status_code == 403 and version(show) == before


@pytest.mark.django_db
@pytest.mark.parametrize(
    "body",
    [
        {},
        {"command": "add_round"},
        {"command": {"title": "no type"}},
        {"command": {"type": "add_round", "title": "x" * 5000}},
        {"command": {"type": "x", "deep": [[[[["too deep"]]]]]}},
        {"command": {"type": "x", "n": 1e300}},
    ],
)
def test_malformed_commands_are_400(people, as_user, post, show, body):
    before = version(show)
    resp = post(as_user(people["organizer"]), f"/api/shows/{show.pk}/commands", body)
    assert resp.status_code == 400 and resp.json()["code"] in ("invalid", "parse_error")
    assert version(show) == before


def _to_first_death_match(show):
    rng = random.Random(8)
    for _ in range(60):
        if Match.objects.filter(show_stream=show.stream).exists():
            break
        assert autopilot.step(show.stream, rng)
    return Match.objects.get(show_stream=show.stream)


@pytest.mark.django_db
def test_disputes_filed_claimed_ruled_and_seen_by_role(people, as_user, post, show):
    match = _to_first_death_match(show)
    url = f"/api/shows/{show.pk}/commands"
    mod = as_user(people["moderator"])
    file = {
        "type": "file_dispute",
        "target_stream": match.stream,
        "target_version": 1,
        "text": "the clock ran while paused",
    }
    assert post(as_user(people["other"]), url, {"command": file}).status_code == 403
    assert post(mod, url, {"command": file}).status_code == 201
    did = mod.get(f"/api/shows/{show.pk}/disputes").json()["disputes"][0]["id"]
    claim = {"type": "claim_dispute", "dispute_id": did}
    assert post(as_user(people["player"]), url, {"command": claim}).status_code == 403
    assert post(mod, url, {"command": claim}).status_code == 201
    rule = {
        "type": "rule_dispute",
        "dispute_id": did,
        "ruling": "adjust_clock",
        "params": {"seat": match.seats[0], "seconds": 60},
        "reason": "the clock ran",
    }
    assert post(as_user(people["organizer"]), url, {"command": rule}).status_code in (403, 422)
    ruled = post(mod, url, {"command": rule})
    assert ruled.status_code == 201, ruled.content
    seen = {
        caller: as_user(people[caller]).get(f"/api/shows/{show.pk}/disputes").json()["disputes"]
        for caller in CALLERS
    }
    for caller, disputes in seen.items():
        if caller in ("anonymous", "other", "staff"):  # spectators: 300 s late
            assert disputes == []
            continue
        assert [d["id"] for d in disputes] == [did]
        assert disputes[0]["status"] == "ruled"
        # the dispute's words are for moderators and the filer only
        assert ("text" in disputes[0]) == (caller in ("moderator", "organizer")), caller


# ---- exports -------------------------------------------------------------------
def lines(resp):
    assert resp.status_code == 200 and resp["Content-Type"] == "application/x-ndjson"
    return [json.loads(line) for line in resp.content.decode().splitlines()]


@pytest.mark.django_db
@pytest.mark.parametrize("caller", ["anonymous", "other", "seated", "staff"])
def test_match_export_is_what_the_caller_may_see(as_user, match, ana, other, staff, caller):
    user = {"anonymous": None, "other": other, "seated": ana, "staff": staff}[caller]
    got = lines(as_user(user).get(f"/api/matches/{match.pk}/export"))
    viewer = match_services.viewer_for(match, user)
    expected = json.loads(json.dumps(match_services.history_for(match, viewer), default=str))
    assert got == [{"stream": match.stream, **e} for e in expected]
    if caller in ("anonymous", "other"):  # the deal's private parts are withheld
        seated = lines(as_user(ana).get(f"/api/matches/{match.pk}/export"))
        assert got != seated


@pytest.mark.django_db
def test_match_export_of_no_match_is_404(client):
    assert client.get("/api/matches/999/export").status_code == 404
    assert client.get(f"/api/matches/{2**64}/export").status_code == 404


@pytest.mark.django_db
@pytest.mark.parametrize("caller", CALLERS)
def test_show_export_is_the_log_then_each_match(people, as_user, show, caller):
    match = _to_first_death_match(show)
    user = people[caller]
    got = lines(as_user(user).get(f"/api/shows/{show.pk}/export"))
    show_lines = [x for x in got if x["stream"] == show.stream]
    match_lines = [x for x in got if x["stream"] == match.stream]
    assert len(show_lines) + len(match_lines) == len(got)
    acting = ss.acting_for(show.stream, user)
    if acting.role == "spectator":
        # everything but the announcement is newer than the spectator delay
        assert [x["type"] for x in show_lines] == ["show_created"]
    else:
        assert show_lines[0]["type"] == "show_created" and len(show_lines) > 5
    viewer = match_services.viewer_for(match, user)
    try:
        expected = json.loads(json.dumps(match_services.history_for(match, viewer), default=str))
    except Http404:  # the visibility policy: nothing of the match is old enough yet
        expected = []
    assert match_lines == [{"stream": match.stream, **e} for e in expected]


# ---- a whole show, unattended ------------------------------------------------------
def organizer_command(show_view, step, rng):
    """The organizer's step, decided from the show as the API shows it."""
    if step == "add_round":
        return {"type": "add_round", "title": f"Round {len(show_view['rounds']) + 1}"}
    if step == "enter_ranking":
        live = [e["name"] for e in show_view["entrants"] if e["status"] == "active"]
        rng.shuffle(live)
        return {"type": "enter_ranking", "ranking": [[e] for e in live]}
    if step == "pick_game":
        rnd = next(r for r in show_view["rounds"] if r["status"] == "started")
        duel = next(d for d in rnd["duels"] if d["dmo"] and not d["game"])
        pool = [g for g in show_view["options"]["game_pool"] if g not in duel["bans"].values()]
        return {"type": "pick_game", "candidate": duel["candidate"], "game": rng.choice(pool)}
    raise AssertionError(f"an organizer step this test does not know: {step}")


@pytest.mark.django_db
def test_a_bot_only_show_of_eight_runs_from_creation_to_champion_over_the_api(
    people, as_user, post
):
    rng = random.Random(11)
    organizer = as_user(people["organizer"])
    created = post(
        organizer,
        "/api/shows/",
        {
            "name": "Bots only",
            "entrants": ENTRANTS,
            "holders": {e: "bot:random" for e in ENTRANTS},
            "options": {
                "step_deadline_s": 0,
                "death_match_first_to": 1,
                "final_first_to": 1,
                "spectator_delay_s": 0,
            },
        },
    )
    assert created.status_code == 201, created.content
    pk, stream = created.json()["id"], created.json()["stream"]
    organizer_steps = 0
    for _ in range(400):
        show_view = organizer.get(f"/api/shows/{pk}/").json()["show"]
        if show_view["status"] == "over":
            break
        mine = [p for p in organizer.get(f"/api/shows/{pk}/pending").json() if p["who"] == "olga"]
        if mine:  # the organizer's steps go over HTTP
            command = organizer_command(show_view, mine[0]["step"], rng)
            resp = post(organizer, f"/api/shows/{pk}/commands", {"command": command})
            assert resp.status_code == 201, resp.content
            organizer_steps += 1
            continue
        if autopilot.step(stream, rng, organizer=False):  # the bot entrants' decisions
            continue
        live = Match.objects.filter(show_stream=stream, status="live")
        assert live.exists(), "the show waits for no one"
        for m in live:
            match_services.run_bots(m, start=time.time(), rng=rng)
    final = organizer.get(f"/api/shows/{pk}/").json()["show"]
    assert final["status"] == "over" and final["champion"] in ENTRANTS
    statuses = sorted(e["status"] for e in final["entrants"])
    assert statuses == ["champion"] + ["eliminated"] * 7
    assert organizer_steps >= 6  # a ranking for each of six rounds at least
    # the export holds the show's log, then its seven matches (six death matches, the final)
    exported = lines(organizer.get(f"/api/shows/{pk}/export"))
    assert exported[-1]["stream"] != stream  # matches come after the show's log
    assert any(x["type"] == "champion_crowned" for x in exported if x["stream"] == stream)
    assert len({x["stream"] for x in exported}) == 1 + 7


@pytest.mark.django_db
def test_show_export_leaves_out_a_match_not_yet_visible(people, as_user, show, monkeypatch):
    from django.http import Http404

    match = _to_first_death_match(show)

    def not_yet(m, viewer, after=0):
        raise Http404("nothing of this match is visible yet")

    monkeypatch.setattr(match_services, "history_for", not_yet)
    got = lines(as_user(people["organizer"]).get(f"/api/shows/{show.pk}/export"))
    assert got and {x["stream"] for x in got} == {show.stream}
    assert match.stream not in {x["stream"] for x in got}
