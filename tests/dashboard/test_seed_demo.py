"""`manage.py seed_demo` (run by `make run`): one login per role, printed,
that works and holds that role; a running bracket; a live match of every
game for `player`; the live show moves on by itself when a match ends; a
finished show whose final replays; broadcast links that open. One seeding
for the module (``seeded_demo``), each test in a savepoint of it."""

import io
import re

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


@pytest.fixture(autouse=True)
def bots_think_as_at_seeding():
    """The tests that play the demo on (the live show's death match, the cup's
    series) test what follows a match's end, not how well its bots play: they
    search as the seeding's do (seed_demo.HISTORY_THINKING), not for seconds."""
    from config.management.commands.seed_demo import HISTORY_THINKING
    from games.core.search import thinking_at_most

    with thinking_at_most(HISTORY_THINKING):
        yield


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
    assert "d-1" in page and "demo: was this cup series played fairly?" in page
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
        # (Higher or Lower's auction closes after a silence: a rule of the game, no
        # timeout; the ready-check of the two people's match ends with nobody losing)
        deadlines = [
            d.get("deadline")
            for d in view.get("pending") or []
            if d.get("deadline") and d.get("kind") not in ("auction", "ready")
        ]
        assert not deadlines, f"{match}: a person's demo match has a decision clock"


def test_the_finished_show_replays_its_final_and_the_live_show_plays(seeded_demo, client):
    finished = ShowRecord.objects.get(name__contains="finished")
    assert finished.status == "finished" and finished.champion
    final = Match.objects.get(show_stream=finished.stream, kind="final")
    # played on a simulated clock but recorded at seeding: with no spectator delay,
    # anyone sees it finished and replays the final at once, every card revealed
    # (with the default 5 minutes it was listed as running for the first five)
    seen = client.get(f"/api/shows/{finished.pk}/").json()["show"]
    assert seen["champion"] == finished.champion, seen
    replay = match_services.history_for(final, match_services.SPECTATOR_VIEW)
    full = match_services.history_for(final, match_services.MODERATOR_VIEW)
    assert replay == full
    live = ShowRecord.objects.get(name__contains="live")
    assert Match.objects.filter(show_stream=live.stream, kind="death_match", status="live").exists()
    with pytest.raises(NotVisibleYet):  # the live show keeps its delay
        dm = Match.objects.get(show_stream=live.stream, kind="death_match", status="live")
        match_services.history_for(dm, match_services.SPECTATOR_VIEW)


def test_the_demo_prints_its_links_on_the_site_it_serves(seeded_demo, settings):
    from django.contrib.auth.models import User

    from config.management.commands.seed_demo import Command

    settings.SITE_URL = "http://127.0.0.1:8123"
    command = Command(stdout=io.StringIO())
    command._broadcast(User.objects.get(username="organizer"))
    line = command.stdout._out.getvalue()
    assert line.count("http://127.0.0.1:8123/") == 3 and ":8000" not in line


def test_the_logins_come_last_with_where_each_role_starts(seeded_demo):
    lines = seeded_demo.rstrip("\n").splitlines()
    assert all(x.startswith("demo login: ") for x in lines[-6:])
    assert not any(x.startswith("demo login: ") for x in lines[:-6])
    assert "(organizes the demo shows; /console/)" in lines[-6]


def test_the_demo_prints_working_broadcast_links(seeded_demo, client):
    line = next(x for x in seeded_demo.splitlines() if x.startswith("broadcast of "))
    paths = re.findall(r"http://127\.0\.0\.1:8000(/\S+)", line)
    assert [p.split("/")[-2] for p in paths] == ["board", "tv", "scoreboard"]
    for path in paths:
        assert client.get(path).status_code == 200, path
    overlay = paths[-1]
    for kind in ("bracket", "featured", "hands"):
        assert client.get(overlay.replace("/scoreboard/", f"/{kind}/")).status_code == 200


def test_the_seeded_dispute_can_be_overturned_after_the_show_moved_on(seeded_demo):
    """The demo's dispute stays a working example whenever a moderator gets to
    it: once the live show's death match is over and the bracket's bots played
    on, an overturn by moderator1, approved by moderator2, still goes through and
    reopens the cup series that depended on it."""
    from games.core.protocol import RuleError
    from tournaments import bracket_services as bs
    from tournaments import show_services as ss
    from tournaments.models import DisputeRecord

    live = ShowRecord.objects.get(name=LIVE_DEMO)
    cup = BracketRecord.objects.get(name__contains="running bracket")
    dm = Match.objects.get(show_stream=live.stream, kind="death_match", status="live")
    match_services.run_bots(dm, start=dm.created_at.timestamp())
    for m in Match.objects.filter(show_stream=cup.stream, status="live"):
        if not m.holders.filter(user__username="player2").exists():
            match_services.run_bots(m, start=m.created_at.timestamp())

    dispute = DisputeRecord.objects.get(show=live, dispute_id="d-1")
    target = Match.objects.get(stream=dispute.target_stream)
    series = next(
        s for s in bs.bracket_output(cup.stream)["series"] if s["match_stream"] == target.stream
    )
    loser = series["b"] if series["winner"] == series["a"] else series["a"]
    mod1 = acting_for(live.stream, _user("moderator1"))
    mod2 = acting_for(live.stream, _user("moderator2"))
    ss.command(live.stream, {"type": "claim_dispute", "dispute_id": "d-1"}, mod1)
    ss.command(
        live.stream,
        {
            "type": "rule_dispute",
            "dispute_id": "d-1",
            "ruling": "overturn_series",
            "params": {"winner": loser},
            "reason": "a replay showed a misplay by the winner's bot",
        },
        mod1,
    )
    with pytest.raises(RuleError):  # a second moderator approves, never the same one
        ss.command(live.stream, {"type": "approve_ruling", "dispute_id": "d-1"}, mod1)
    ss.command(live.stream, {"type": "approve_ruling", "dispute_id": "d-1"}, mod2)
    target.refresh_from_db()
    assert target.winners == [loser]


def _user(name):
    from django.contrib.auth.models import User

    return User.objects.get(username=name)
