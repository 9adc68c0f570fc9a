"""Whole matches played through the services and the event store, then
rebuilt from the log; commands, rejections and redaction end to end."""

import json
import pickle
import random
import time

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command

from eventlog.models import StoredEvent
from eventlog.store import NewEvent, append, read
from games import clock_index, services, states
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
    # rebuild equals snapshot: the state kept by version (games/states.py),
    # as this process holds it and as it goes through the shared cache
    kept = states.local_entry(match.stream)
    assert kept.tag == states.tip(match.stream)
    assert kept.state == services.fold_rows(game, read(match.stream))
    assert pickle.loads(pickle.dumps(kept)).state == services.fold_rows(game, read(match.stream))
    before = read_models()
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert read_models() == before


@pytest.mark.django_db
def test_a_match_held_by_bots_at_levels_plays_to_its_end():
    """A level is a seat holder like any bot (issue #46): "bot:level:2"."""
    rng = random.Random(6)
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"first_to": 1},
        holders={"ana": "bot:level:2", "ben": "bot:level:0"},
        rng=rng,
        now=1_000_000.0,
    )
    services.run_bots(match, start=1_000_000.0, rng=rng)
    match.refresh_from_db()
    assert match.status == "finished"
    actors = {r.metadata.get("actor") for r in read(match.stream)}
    assert {"bot:level:2", "bot:level:0"} <= actors


@pytest.mark.django_db
def test_rejected_command_writes_nothing_and_says_why():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(1))
    n = StoredEvent.objects.count()
    with pytest.raises(RuleError) as err:
        services.submit(match, "ana", {"type": "choose", "keep": "XX", "discard": "YY"})
    assert str(err.value) == "'XX' is not a card: a rank 2, 3, 4, 5 or J and a suit C, D, H or S"
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
    # ana saw exactly the two cards she was dealt, and not ben's
    drawn = {r.data["seat"]: r.data["cards"] for r in read(match.stream) if r.type == "cards_drawn"}
    assert hand["hand"] == drawn["ana"] and len(drawn["ana"]) == 2
    assert hand["hands"]["ben"] is None


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
    # an anonymous visitor may not move
    resp = client.post(url, {"command": {"type": "choose"}}, content_type="application/json")
    assert resp.status_code == 401 and resp.json()["code"] == "not_authenticated"
    client.force_login(user)
    resp = client.post(url, {"nope": 1}, content_type="application/json")
    assert resp.status_code == 400
    resp = client.post(
        url,
        {"command": {"type": "choose", "keep": "2H", "discard": "2H"}},
        content_type="application/json",
    )
    assert resp.status_code == 422 and resp.json()["code"] == "rule"
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
    # moves are the table's controls now, never JSON (tests/games/test_tables.py)
    resp = client.post(f"/games/matches/{match.pk}/command", {"control": "nope"}, follow=True)
    assert b"that action is not open to you now" in resp.content


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
    assert client.post("/api/matches/", body, content_type="application/json").status_code == 401
    staff = User.objects.create_user("olga", password="pw-123456", is_staff=True)
    client.force_login(staff)
    refused = client.post("/api/matches/", body, content_type="application/json")
    assert refused.status_code == 403 and "games.add_match" in refused.json()["message"]
    staff.user_permissions.add(Permission.objects.get(codename="add_match"))
    staff = User.objects.get(pk=staff.pk)  # a fresh permission cache
    client.force_login(staff)
    resp = client.post(
        "/api/matches/", {**body, "options": {"decision_s": -5}}, content_type="application/json"
    )
    assert resp.status_code == 422 and "decision_s" in resp.json()["message"]
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


# ---- rulings that leave a playable match ------------------------------------
T0 = 1_000_000.0
LMN_30 = {"decision_s": 30, "first_to": 1}


def lmn_match(holders=None, seed=7, now=T0, moderators=()):
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options=LMN_30,
        holders=holders if holders is not None else {s: "bot:heuristic" for s in ("ana", "ben")},
        moderators=moderators,
        rng=random.Random(seed),
        now=now,
    )


def choose(match, seat, now):
    """``seat`` keeps the first of the two cards it holds, at ``now``."""
    bout = services.load(match).state.bout
    cmd = series_for("love-me-not").rules.legal_commands(bout, seat)[0]
    return services.submit(match, seat, cmd, now=now, rng=random.Random(0))


def deadline_of(match):
    match.refresh_from_db()
    return match.next_deadline.timestamp() if match.next_deadline else None


@pytest.mark.django_db
def test_void_restarts_the_clocks_at_the_ruling_and_the_match_plays_on_to_its_end():
    from clocks.enforce import sweep

    match = lmn_match()
    choose(match, "ana", T0 + 5)
    choose(match, "ben", T0 + 10)  # turn 2 starts at T0 + 10: 30 s each
    v = choose(match, "ana", T0 + 20)[-1].version  # ben has 20 s left
    at_v = services.fold_rows("love-me-not", read(match.stream)[:v])
    assert deadline_of(match) == pytest.approx(T0 + 40)
    choose(match, "ben", T0 + 25)  # the move the dispute is about
    later = T0 + 10_000  # the ruling comes long after every old deadline
    services.void_to(match, v, actor="mod", reason="misread move", now=later)

    state = services.load(match).state
    assert state.bout == at_v.bout and state.scores == at_v.scores
    # ben gets back the 20 s he had at version v, counted from the ruling
    assert deadline_of(match) == pytest.approx(later + 20)
    assert match.waiting_on == ["ben"] and match.status == "live"
    n = len(read(match.stream))
    assert sweep(now=later + 19.9) == 0 and len(read(match.stream)) == n
    # and play goes on to the end, bots moving, no timeout among the events used
    services.run_bots(match, start=later, rng=random.Random(3))
    match.refresh_from_db()
    assert match.status == "finished" and match.winners
    used = services.game_events(read(match.stream))
    assert not [r for r in used if r.data.get("timeout")]
    before = read_models()
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert read_models() == before


@pytest.mark.django_db
def test_void_into_the_middle_of_a_move_is_refused_and_changes_nothing():
    match = lmn_match()
    choose(match, "ana", T0 + 5)
    rows = choose(match, "ben", T0 + 10)  # card_chosen, turn_resolved, turn_started, ...
    resolved = next(r.version for r in rows if r.type == "turn_resolved")
    n = len(read(match.stream))
    with pytest.raises(RuleError) as err:
        services.void_to(match, resolved, actor="mod", reason="x", now=T0 + 60)
    first, last = rows[0].version, rows[-1].version
    assert str(err.value) == (
        f"version {resolved} is in the middle of one move (versions {first} to {last}); "
        f"a void goes back to the end of a move, e.g. {first - 1}"
    )
    assert len(read(match.stream)) == n
    # neither the creation record, nor the head, nor a bool are a version to go back to
    for bad, words in (
        (1, "the match had not started"),
        (n, f"from 1 to {n - 1}"),
        (0, f"from 1 to {n - 1}"),
        (True, "a whole number"),
        ("3", "a whole number"),
    ):
        with pytest.raises(RuleError, match=words):
            services.void_to(match, bad, actor="mod", reason="x", now=T0 + 60)
    assert len(read(match.stream)) == n


@pytest.mark.django_db
def test_a_version_an_earlier_ruling_voided_cannot_be_gone_back_to():
    match = lmn_match()
    v1 = choose(match, "ana", T0 + 5)[-1].version
    v2 = choose(match, "ben", T0 + 10)[-1].version
    choose(match, "ana", T0 + 12)
    services.void_to(match, v1, actor="mod", reason="first ruling", now=T0 + 100)
    with pytest.raises(RuleError, match=f"version {v2} was voided by an earlier ruling"):
        services.void_to(match, v2, actor="mod", reason="second", now=T0 + 200)
    # the first ruling's own version is a boundary: its state, its clocks
    head = read(match.stream)[-1].version
    choose(match, "ben", T0 + 110)
    services.void_to(match, head, actor="mod", reason="second", now=T0 + 300)
    assert deadline_of(match) == pytest.approx(T0 + 300 + 25)  # ben had 25 s at T0 + 100
    assert services.load(match).state.bout.choices[1] is None


@pytest.mark.django_db
def test_a_move_that_lands_while_the_void_is_written_is_voided_too(monkeypatch):
    match = lmn_match()
    v = choose(match, "ana", T0 + 5)[-1].version
    at_v = services.fold_rows("love-me-not", read(match.stream)[:v])
    choose(match, "ben", T0 + 6)
    choose(match, "ana", T0 + 7)
    real_check = services.state_at_boundary
    raced = []

    def check_then_race(loaded, version):
        # ben's move lands after the void has read the stream, before it appends
        if not raced:
            raced.append(choose(match, "ben", T0 + 8))
        return real_check(loaded, version)

    monkeypatch.setattr(services, "state_at_boundary", check_then_race)
    rows = services.void_to(match, v, actor="mod", reason="x", now=T0 + 50)
    assert raced and rows[0].data["to_version"] == raced[0][-1].version
    assert services.load(match).state.bout == at_v.bout


@pytest.mark.django_db
def test_a_void_back_to_a_paused_moment_stays_paused_with_the_time_left_then():
    match = lmn_match()
    choose(match, "ana", T0 + 5)
    mod = {"role": "moderator", "actor": "mod"}
    v = services.submit(match, None, {"type": "pause", "reason": "lag"}, now=T0 + 12, **mod)
    choose_at = T0 + 20
    services.submit(match, None, {"type": "resume", "reason": "ok"}, now=choose_at, **mod)
    choose(match, "ben", choose_at + 1)
    services.void_to(match, v[-1].version, actor="mod", reason="x", now=T0 + 500)
    assert deadline_of(match) is None and services.load(match).state.paused_since is not None
    services.submit(match, None, {"type": "resume", "reason": "ok"}, now=T0 + 600, **mod)
    assert deadline_of(match) == pytest.approx(T0 + 600 + 18)  # 18 s left when paused


# ---- bounded moderator and organizer input --------------------------------------
@pytest.mark.django_db
def test_to_datetime_never_raises_on_any_stored_value():
    far = clock_index.to_datetime(1e300)
    match = lmn_match()
    Match.objects.filter(pk=match.pk).update(next_deadline=far)  # and the database takes it
    match.refresh_from_db()
    assert match.next_deadline == far
    assert clock_index.to_datetime(None) is None
    assert clock_index.to_datetime(float("nan")) is None
    assert clock_index.to_datetime(1e12).year == 9999
    assert clock_index.to_datetime(float("inf")).year == 9999
    assert clock_index.to_datetime(10**30).year == 9999
    assert clock_index.to_datetime(-1e300).year == 1
    assert clock_index.to_datetime(T0).timestamp() == T0


@pytest.mark.django_db
def test_add_time_beyond_a_day_is_refused_while_paused_and_resume_still_works():
    match = lmn_match()
    mod = {"role": "moderator", "actor": "mod"}
    services.submit(match, None, {"type": "pause", "reason": "lag"}, now=T0 + 1, **mod)
    n = len(read(match.stream))
    for seconds in (1e12, 86_401, float("inf"), 0, True):
        with pytest.raises(RuleError, match="at most 86400"):
            services.submit(
                match, None, {"type": "add_time", "seconds": seconds}, now=T0 + 2, **mod
            )
    assert len(read(match.stream)) == n
    services.submit(match, None, {"type": "add_time", "seconds": 86_400}, now=T0 + 2, **mod)
    services.submit(match, None, {"type": "resume", "reason": "ok"}, now=T0 + 10, **mod)
    # 30 s from T0, 9 s paused, a day added
    assert deadline_of(match) == pytest.approx(T0 + 30 + 9 + 86_400)


@pytest.mark.django_db
def test_moderate_api_refuses_a_huge_add_time_and_the_match_resumes(client):
    mia = User.objects.create_user("mia", password="pw-123456")
    client.force_login(mia)
    match = lmn_match(now=time.time(), moderators=[mia.pk])  # the API runs on the real clock
    url = f"/api/matches/{match.pk}/moderate"
    resp = client.post(url, {"type": "pause", "reason": "lag"}, content_type="application/json")
    assert resp.status_code == 201, resp.content
    resp = client.post(
        url,
        {"type": "add_time", "reason": "lag", "seconds": 1e12},
        content_type="application/json",
    )
    # the API bounds the field before the service sees it (the service bounds it too, above)
    assert resp.status_code == 400 and resp.json()["code"] == "invalid", resp.content
    assert "86400" in json.dumps(resp.json()["fields"])
    resp = client.post(url, {"type": "resume", "reason": "ok"}, content_type="application/json")
    assert resp.status_code == 201, resp.content
    assert deadline_of(match) is not None and not services.load(match).state.paused_since


BAD_HOLDERS = [
    (987_654, "the holder of ana is not a known user (no user has id 987654)"),
    (2**63, f"no user has id {2**63}"),
    (-1, "no user has id -1"),
    (
        True,
        "must be a user id or a bot (bot:level:0 to bot:level:4 (or bot:random, "
        "bot:heuristic)), not True",
    ),
    (1.0, "must be a user id or a bot"),
    ("alice", "must be a user id or a bot"),
    ("bot:genius", "'bot:genius' is not a bot: a bot is bot:level:0 to bot:level:4"),
    ("bot:level:5", "'bot:level:5' is not a bot"),
    ("bot:level:\u0663", "is not a bot"),
    ("bot:level3", "'bot:level3' is not a bot"),
]


@pytest.mark.django_db
@pytest.mark.parametrize("holder,words", BAD_HOLDERS, ids=[repr(h) for h, _ in BAD_HOLDERS])
def test_create_match_refuses_an_unknown_holder(holder, words):
    User.objects.create_user("someone", password="pw-123456")
    with pytest.raises(RuleError) as err:
        services.create_match("love-me-not", ["ana", "ben"], holders={"ana": holder})
    assert words in str(err.value)
    assert not Match.objects.exists() and not StoredEvent.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("holder,words", BAD_HOLDERS, ids=[repr(h) for h, _ in BAD_HOLDERS])
def test_create_match_api_answers_400_for_an_unknown_holder(client, holder, words):
    staff = User.objects.create_user("olga", password="pw-123456")
    staff.user_permissions.add(Permission.objects.get(codename="add_match"))
    client.force_login(staff)
    body = {"game": "love-me-not", "seats": ["ana", "ben"], "holders": {"ana": holder}}
    resp = client.post("/api/matches/", body, content_type="application/json")
    # the serializer refuses what is not a user id or a bot (400), the service an unknown bot (422)
    assert resp.status_code in (400, 422) and resp.json()["code"] in ("invalid", "rule"), (
        resp.content
    )
    assert not Match.objects.exists()
    resp = client.post(
        "/api/matches/", {**body, "holders": {"ana": staff.pk}}, content_type="application/json"
    )
    assert resp.status_code == 201, resp.content


@pytest.mark.django_db
def test_a_show_ruling_voids_through_the_service_and_is_refused_mid_move():
    from tournaments import autopilot, shows
    from tournaments import show_services as ss

    rng = random.Random(8)
    User.objects.create_user("olga")
    User.objects.create_user("mia")  # only an account can moderate
    mod = ss.Acting("mia", shows.MODERATOR)
    stream = ss.create_show(
        name="Night",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"death_match_first_to": 1, "step_deadline_s": 0, "game_pool": ["love-me-not"]},
        holders={e: "bot:heuristic" for e in ["ana", "ben", "cal", "dee"]},
        now=T0,
        rng=rng,
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    for _ in range(40):  # up to the first death match
        if not autopilot.step(stream, rng, now=T0):
            break
    dm = Match.objects.get(show_stream=stream, kind="death_match")
    a, b = dm.seats
    v = choose(dm, a, T0 + 5)[-1].version  # b has 115 s of 120 left
    moved = choose(dm, b, T0 + 6)
    mid = moved[1].version  # the turn resolved inside b's move
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": dm.stream,
            "target_version": moved[-1].version,
            "text": "my move was misread",
        },
        mod,
        now=T0 + 50,
    )
    did = next(iter(ss.load(stream)[0].disputes))
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, mod, now=T0 + 50)
    rule = {"type": "rule_dispute", "dispute_id": did, "ruling": "void_to", "reason": "misread"}
    n_show, n_match = len(read(stream)), len(read(dm.stream))
    with pytest.raises(RuleError, match=f"version {mid} is in the middle of one move"):
        ss.command(stream, {**rule, "params": {"version": mid}}, mod, now=T0 + 900)
    assert (len(read(stream)), len(read(dm.stream))) == (n_show, n_match)
    ss.command(stream, {**rule, "params": {"version": v}}, mod, now=T0 + 900)
    voided = read(dm.stream)[-1]
    assert voided.type == "match_voided" and voided.data["dispute_id"] == did
    assert deadline_of(dm) == pytest.approx(T0 + 900 + 115)
    assert dm.waiting_on == [b]


@pytest.mark.django_db
def test_a_huge_time_added_already_in_the_log_does_not_stop_resume():
    match = lmn_match()
    mod = {"role": "moderator", "actor": "mod"}
    services.submit(match, None, {"type": "pause", "reason": "lag"}, now=T0 + 1, **mod)
    # written before add_time was bounded: stored as it was
    head = read(match.stream)[-1].version
    append(match.stream, head, [NewEvent("time_added", {"seconds": 1e12, "at": T0 + 2})])
    services.submit(match, None, {"type": "resume", "reason": "ok"}, now=T0 + 3, **mod)
    match.refresh_from_db()
    assert match.next_deadline.year == 9999 and match.waiting_on == ["ana", "ben"]


@pytest.mark.django_db
def test_a_match_seen_by_a_user_is_the_row_the_orm_reads_with_that_users_seat():
    """``match_seen_by`` reads the row with a statement of its own (no ORM
    query): every field as the ORM converts it (JSON, times), the caller's
    seat, none for an outsider or nobody, and no match for an unknown id."""
    ana, ben = User.objects.create_user("ana_m"), User.objects.create_user("ben_m")
    outsider = User.objects.create_user("olaf_m")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk, "ben": ben.pk}, rng=random.Random(2)
    )
    series = series_for(match.game)
    state = services.load(match).state
    seat = series.pending(state)[0].seat
    from games.core.playout import bot_command

    services.submit(match, seat, bot_command(series, state, seat, "random", random.Random(1)))
    orm = Match.objects.get(pk=match.pk)
    fields = [f.attname for f in Match._meta.concrete_fields]
    for user, seat_of in ((ana, "ana"), (ben, "ben"), (outsider, None)):
        seen = services.match_seen_by(match.pk, user)
        assert {f: getattr(seen, f) for f in fields} == {f: getattr(orm, f) for f in fields}
        assert seen.seat_read_for == (user.pk, seat_of)
        assert seen._state.adding is False and seen._state.db == "default"
    anonymous = services.match_seen_by(match.pk, None)
    assert anonymous.pk == match.pk and not hasattr(anonymous, "seat_read_for")
    assert isinstance(anonymous.waiting_on, list) and anonymous.updated_at.tzinfo is not None
    assert services.match_seen_by(match.pk + 10_000, ana) is None


@pytest.mark.django_db
def test_the_match_rows_scores_follow_every_bout_without_reading_the_row(next_bot_move):
    """A bout's points reach the match row's scores with the append that
    scores it (on PostgreSQL in the append's own statement, no UPDATE of its
    own, nothing read first); after every bout the row's scores are the
    fold's, seats without points included."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    rng = random.Random(8)
    match = services.create_match(
        "doubting-love-letter", ["ana", "ben"], options={"first_to": 3}, rng=rng, now=1_000_000.0
    )
    t, bouts = 1_000_000.0, 0
    while match.status == "live":
        seat, command = next_bot_move(match, rng)
        with CaptureQueriesContext(connection) as seen:
            rows = services.submit(match, seat, command, actor=seat, now=t)
        t += 1
        match.refresh_from_db()
        if any(r.type == "bout_scored" for r in rows):
            bouts += 1
            assert match.scores == dict(services.load(match).state.scores)
            if connection.vendor == "postgresql":
                reads = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT")]
                assert not [q for q in reads if 'FROM "games_match"' in q], reads
                # the append's statement writes the row, scores and clock index
                writes = [q for q in seen.captured_queries if q["sql"].startswith("UPDATE")]
                assert rows.inline and not writes, [q["sql"][:120] for q in writes]
    state = services.load(match).state
    assert bouts >= 3 and max(state.scores.values()) == 3
    assert match.scores == dict(state.scores) and set(match.scores) == {"ana", "ben"}


@pytest.mark.django_db
def test_a_new_match_is_read_back_from_the_statement_that_writes_its_clock():
    """Creating a match does not look its row up: on PostgreSQL the clock
    index's UPDATE returns it. What create_match returns is the row as
    stored, deadline, waiting seats, seats and options included."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as seen:
        match = services.create_match(
            "doubting-love-letter",
            ["ana", "ben"],
            options={"decision_s": 30, "first_to": 2},
            setup={"first": "ana"},
            rng=random.Random(4),
            now=time.time(),
        )
    stored = Match.objects.get(pk=match.pk)
    for field in Match._meta.concrete_fields:
        assert getattr(match, field.attname) == getattr(stored, field.attname), field.name
    assert match.next_deadline is not None and match.waiting_on == ["ana"]
    assert match.options["first_to"] == 2 and match.version == services.load(match).version
    assert not match._state.adding  # a saved row: saving it again updates
    if connection.vendor == "postgresql":
        reads = [q["sql"] for q in seen.captured_queries if q["sql"].startswith("SELECT")]
        assert not [q for q in reads if 'FROM "games_match"' in q], reads


@pytest.mark.django_db
def test_an_appends_match_row_writes_are_one_update_with_every_rows_points():
    """Rows of one append leave their match-row writes to the last row: the
    points of every scoring row added, the newest version and status kept."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    match = services.create_match(
        "doubting-love-letter", ["ana", "ben"], options={"first_to": 9}, rng=random.Random(2)
    )
    version = services.load(match).version
    events = [
        NewEvent("bout_scored", {"points": {"ana": 1}}),
        NewEvent("bout_scored", {"points": {"ben": 2, "ana": 1}}),
        NewEvent("series_ended", {"winners": ["ben"]}),
        NewEvent("note_written", {}),
    ]
    with CaptureQueriesContext(connection) as seen:
        append(match.stream, version, events, actor="test")
    match.refresh_from_db()
    assert match.scores == {"ana": 2, "ben": 2}
    assert match.status == "finished" and match.winners == ["ben"]
    assert match.version == version + 4
    writes = [q for q in seen.captured_queries if q["sql"].startswith('UPDATE "games_match"')]
    if connection.vendor == "postgresql":
        assert len(writes) == 1, [q["sql"][:120] for q in writes]
