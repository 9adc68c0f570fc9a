"""A scheduled show on the platform with a frozen clock (``now`` passed in):
the clocks' sweep opens its check-in, drops or replaces absentees as its
options say, starts it, and forfeits a no-show at a match's ready-check."""

import pytest
from django.contrib.auth.models import User

from clocks.enforce import sweep
from eventlog.store import read
from games.core.protocol import RoleRequired, RuleError
from games.models import Match
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowEntrantRecord, ShowRecord

T0 = 2_000_000.0
START = T0 + 7200
CHECK_IN_S = 900
POOL = ["doubting-love-letter", "love-me-not", "higher-lower"]


def accounts(*names):
    return {n: User.objects.get_or_create(username=n)[0] for n in names}


def scheduled_show(**options):
    olga = accounts("olga")["olga"]
    return ss.create_show(
        name="Friday night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=[],
        options={
            "registration": "open",
            "cap": 4,
            "check_in_s": CHECK_IN_S,
            "absentees": "waiting_list_then_bot",
            "ready_check_s": 120,
            "game_pool": POOL,
            "step_deadline_s": 0,
            "death_match_first_to": 1,
            "final_first_to": 1,
            **options,
        },
        now=T0,
        starts_at=START,
    )


def types(stream, since=0):
    return [(r.type, r.data.get("entrant") or r.data.get("in")) for r in read(stream, since)]


def as_player(stream, user):
    return ss.acting_for(stream, user)


@pytest.mark.django_db
def test_a_scheduled_show_opens_check_in_replaces_absentees_starts_and_forfeits_a_no_show():
    stream = scheduled_show()
    users = accounts("ana", "ben", "cal", "dee", "eve")
    for name in ("ana", "ben", "cal", "dee", "eve"):
        ss.register(stream, users[name], now=T0 + 60)
    record = ShowRecord.objects.get(stream=stream)
    assert record.status == "scheduled" and record.starts_at.timestamp() == START
    assert record.next_due_at.timestamp() == START - CHECK_IN_S
    assert ShowEntrantRecord.objects.get(show=record, name="eve").status == "waiting"

    # the clock: nothing before the check-in window, then it opens by itself
    assert sweep(now=START - CHECK_IN_S - 1) == 0
    version = len(read(stream))
    assert sweep(now=START - CHECK_IN_S) == 1
    assert types(stream, version) == [("check_in_opened", None)]
    for name in ("ana", "ben", "eve"):  # cal and dee never come; eve stands by
        ss.command(stream, {"type": "check_in"}, as_player(stream, users[name]), now=START - 60)

    version = len(read(stream))
    assert sweep(now=START - 1) == 0
    assert sweep(now=START) > 0
    started = types(stream, version)
    assert started[:5] == [
        ("entrant_dropped", "cal"),
        ("entrant_replaced", "eve"),
        ("entrant_dropped", "dee"),
        ("entrant_replaced", "bot-1"),
        ("show_started", None),
    ]
    state = ss.load(stream)[0]
    assert shows.active(state) == ("ana", "ben", "eve", "bot-1")
    assert ss.load(stream)[2]["bot-1"] == "bot:heuristic"
    record.refresh_from_db()
    assert record.status == "running" and record.next_due_at is None
    started_event = [r for r in read(stream) if r.type == "show_started"][0]
    assert started_event.metadata["actor"] == "clock" and started_event.data["by"] == "schedule"

    # round 1: ana last, she names ben; the death match's ready-check opens
    organizer = ss.acting_for(stream, User.objects.get(username="olga"))
    ranking = [["bot-1", "eve"], ["ben"], ["ana"]]
    ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, organizer, now=START + 10)
    ana = as_player(stream, users["ana"])
    ss.command(stream, {"type": "nominate", "dmo": "ben"}, ana, now=START + 20)
    ss.command(stream, {"type": "pick_game", "game": "love-me-not"}, organizer, now=START + 30)
    assert not Match.objects.filter(show_stream=stream).exists()  # waits for the ready-check
    ss.command(stream, {"type": "ready"}, ana, now=START + 40)

    version = len(read(stream))
    assert sweep(now=START + 30 + 119) == 0
    assert sweep(now=START + 30 + 120) > 0
    forfeit = [r for r in read(stream, version)]
    assert forfeit[0].type == "no_show_forfeited" and forfeit[0].data["loser"] == "ben"
    assert forfeit[0].metadata["actor"] == "clock"
    assert [r.type for r in forfeit[1:3]] == ["death_match_result", "entrant_eliminated"]
    state = ss.load(stream)[0]
    assert state.status["ben"] == shows.ELIMINATED
    assert not Match.objects.filter(show_stream=stream).exists()  # no match was played
    assert shows.pending(state)[0].kind == "enter_ranking"  # the show moved on


@pytest.mark.django_db
def test_a_ready_check_everyone_passes_opens_the_match():
    stream = scheduled_show(check_in_s=0)
    users = accounts("ana", "ben", "cal")
    for name in ("ana", "ben", "cal"):
        ss.register(stream, users[name], now=T0 + 60)
    sweep(now=START)
    organizer = ss.acting_for(stream, User.objects.get(username="olga"))
    ss.command(
        stream,
        {"type": "enter_ranking", "ranking": [["cal"], ["ben"], ["ana"]]},
        organizer,
        now=START + 1,
    )
    ana, ben = as_player(stream, users["ana"]), as_player(stream, users["ben"])
    ss.command(stream, {"type": "nominate", "dmo": "ben"}, ana, now=START + 2)
    ss.command(stream, {"type": "pick_game", "game": "love-me-not"}, organizer, now=START + 3)
    ss.command(stream, {"type": "ready"}, ben, now=START + 4)
    assert not Match.objects.filter(show_stream=stream).exists()
    ss.command(stream, {"type": "ready"}, ana, now=START + 5)
    match = Match.objects.get(show_stream=stream)
    assert sorted(match.seats) == ["ana", "ben"]
    assert match.holders.get(seat="ana").user_id == users["ana"].pk


@pytest.mark.django_db
def test_registration_through_the_service_goes_by_account():
    stream = scheduled_show(cap=2)
    users = accounts("ana", "ben")
    olga = User.objects.get(username="olga")
    with pytest.raises(RuleError, match="runs this show"):
        ss.register(stream, olga, now=T0 + 1)

    class Anonymous:
        is_authenticated = False

    with pytest.raises(RoleRequired):
        ss.register(stream, Anonymous(), now=T0 + 1)
    ss.register(stream, users["ana"], now=T0 + 1)
    assert as_player(stream, users["ana"]) == ss.Acting("ana", shows.PLAYER)
    assert as_player(stream, users["ben"]).role == shows.SPECTATOR
    # ben cannot withdraw ana: rights go by account
    with pytest.raises(RoleRequired):
        ss.command(stream, {"type": "withdraw"}, as_player(stream, users["ben"]), now=T0 + 2)
    ss.command(stream, {"type": "withdraw"}, as_player(stream, users["ana"]), now=T0 + 2)
    assert as_player(stream, users["ana"]).role == shows.SPECTATOR
