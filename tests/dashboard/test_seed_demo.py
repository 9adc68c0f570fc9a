"""`manage.py seed_demo` (run by `make run`): one login per role, printed,
that works and holds that role; a running bracket; a live match of every
game for `player`; the live show moves on by itself when a match ends; a
finished show whose final replays; broadcast links that open. One seeding
for the module (``seeded_demo``), each test in a savepoint of it."""

import io
import re
import time

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from games import services as match_services
from games.core.registry import available
from games.models import Match
from games.visibility import NotVisibleYet
from tournaments import shows
from tournaments.demo import LIVE_DEMO
from tournaments.models import BracketRecord, ShowRecord
from tournaments.show_services import acting_for, load

ROLES = {
    "organizer": shows.ORGANIZER,
    "moderator1": shows.MODERATOR,
    "moderator2": shows.MODERATOR,
    "player": shows.PLAYER,
    "player2": shows.SPECTATOR,
    "spectator": shows.SPECTATOR,
}


pytestmark = pytest.mark.django_db


def logins_in(output):
    return dict(re.findall(r"demo login: (\S+) / (\S+)", output))


def seed():
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO())
    return logins_in(out.getvalue())


def test_seed_demo_prints_one_working_login_per_role_and_the_live_show_moves(seeded_demo, client):
    logins = logins_in(seeded_demo)
    assert list(logins) == list(ROLES)
    live = ShowRecord.objects.get(name=LIVE_DEMO)
    for name, role in ROLES.items():
        user = authenticate(username=name, password=logins[name])
        assert user is not None, name
        assert acting_for(live.stream, user).role == role
    assert (
        acting_for(live.stream, authenticate(username="player", password=logins["player"])).actor
        == "player"
    )
    # the moderators open the dashboard, with a dispute waiting; the others may not
    client.login(username="moderator1", password=logins["moderator1"])
    page = client.get(f"/shows/{live.pk}/dashboard/").content.decode()
    assert "d-1" in page and "demo: was the first player chosen fairly?" in page
    client.login(username="spectator", password=logins["spectator"])
    assert client.get(f"/shows/{live.pk}/dashboard/").status_code == 403
    # player holds a live match of each of the five games, bots on the other seats
    held = Match.objects.filter(holders__user__username="player", status="live", show_stream="")
    assert {m.game for m in held} >= {r.slug for r in available()}
    # a running bracket, drawn; player2 holds a seat in it
    cup = BracketRecord.objects.get(name__contains="running bracket")
    assert cup.status == "running"
    assert Match.objects.filter(show_stream=cup.stream, holders__user__username="player2").exists()
    assert client.get(f"/shows/brackets/{cup.pk}/").status_code == 200
    # rated players with history (ratings/): past the provisional mark, charted
    board = client.get("/api/leaderboards/love-me-not/").json()["people"]
    assert {x["player"] for x in board} >= {"player", "player2"}
    assert all(not x["provisional"] for x in board)
    assert client.get("/players/player/").content.decode().count("<circle") >= 8
    # a second run prints fresh logins that work, and seeds nothing twice
    n = Match.objects.count()
    again = seed()
    assert list(again) == list(ROLES) and again["player"] != logins["player"]
    assert authenticate(username="player", password=again["player"]) is not None
    assert authenticate(username="player", password=logins["player"]) is None
    assert Match.objects.count() == n
    # the live show moves on by itself when its death match ends
    dm = Match.objects.get(show_stream=live.stream, kind="death_match", status="live")
    before = len(load(live.stream)[0].log)
    match_services.run_bots(dm, start=dm.created_at.timestamp())
    dm.refresh_from_db()
    assert dm.status == "finished"
    state = load(live.stream)[0]
    # the result went in and the next round's steps were made by the autopilot:
    # a new death match (or the final) is open and being played, unless the
    # random ranking left a step to the one person (player) in the show
    assert len(state.log) > before + 2
    owed = {d.seat for d in shows.pending(state)}
    assert Match.objects.filter(show_stream=live.stream, status="live").exists() or owed == {
        "player"
    }, owed


def test_seed_demo_has_a_scheduled_show_to_register_for_and_a_weekly_template(seeded_demo, client):
    from django_celery_beat.models import PeriodicTask

    from tournaments.demo import SCHEDULED_DEMO, drives
    from tournaments.models import ShowTemplate

    logins = logins_in(seeded_demo)
    show = ShowRecord.objects.get(name__startswith=SCHEDULED_DEMO, status="scheduled")
    assert drives(show.stream)  # once it starts, the autopilot runs the organizer's steps
    template = ShowTemplate.objects.get(name=SCHEDULED_DEMO)
    assert PeriodicTask.objects.filter(pk=template.periodic_task_id, enabled=True).exists()
    client.login(username="player2", password=logins["player2"])
    page = client.get(show.get_absolute_url()).content.decode()
    assert ">Register<" in page
    assert client.post(f"/shows/{show.pk}/register/").status_code == 302
    state = load(show.stream)[0]
    assert state.status["player2"] == shows.ACTIVE and len(shows.active(state)) == 6


def test_the_newcomers_own_demo_matches_wait_for_their_person(seeded_demo):
    """No decision clock on a match a demo person holds a seat in: it waits for
    them instead of playing itself out by timeouts before they arrive."""
    from django.contrib.auth.models import User

    people = set(
        User.objects.filter(username__in=["player", "player2"]).values_list("pk", flat=True)
    )
    theirs = [
        m
        for m in Match.objects.filter(status="live")
        if any(h.user_id in people for h in m.holders.all())
    ]
    assert theirs, "the demo seats its people"
    for match in theirs:
        view = match_services.view_for(match, match_services.Viewer.of_seat(match.seats[0]))
        # (Higher or Lower's auction closes after a silence: a rule of the game, no timeout)
        deadlines = [
            d.get("deadline")
            for d in view.get("pending") or []
            if d.get("deadline") and d.get("kind") != "auction"
        ]
        assert not deadlines, f"{match}: a person's demo match has a decision clock"


def test_the_finished_show_replays_its_final_and_the_live_show_plays(seeded_demo):
    finished = ShowRecord.objects.get(name__contains="finished")
    assert finished.status == "finished" and finished.champion
    final = Match.objects.get(show_stream=finished.stream, kind="final")
    # the finished final's replay opens to anyone once its end is older than
    # the show's delay (5 minutes), every card revealed; before that, nothing
    with pytest.raises(NotVisibleYet):
        match_services.history_for(final, match_services.SPECTATOR_VIEW)
    later = time.time() + 301
    replay = match_services.history_for(final, match_services.SPECTATOR_VIEW, now=later)
    full = match_services.history_for(final, match_services.MODERATOR_VIEW)
    assert replay == full
    live = ShowRecord.objects.get(name__contains="live")
    assert Match.objects.filter(show_stream=live.stream, kind="death_match", status="live").exists()


def test_the_demo_prints_working_broadcast_links(seeded_demo, client):
    line = next(x for x in seeded_demo.splitlines() if x.startswith("broadcast of "))
    paths = re.findall(r"http://127\.0\.0\.1:8000(/\S+)", line)
    assert [p.split("/")[-2] for p in paths] == ["board", "tv", "scoreboard"]
    for path in paths:
        assert client.get(path).status_code == 200, path
    overlay = paths[-1]
    for kind in ("bracket", "featured", "hands"):
        assert client.get(overlay.replace("/scoreboard/", f"/{kind}/")).status_code == 200
