"""Reminders follow the log (the "reminders" reactor): nothing made in the
request, made once however often the reactor comes to an append, and
nothing lost when a process dies between the append's commit and the
reminder."""

import random

import pytest
from django.contrib.auth.models import User
from django.utils import timezone

from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from reactors import follow
from reactors.follow import Follower, Reactor
from reactors.models import ReactorFollower, ReactorPartition
from reminders.models import EMAIL, YOUR_TURN, Reminder, ReminderSettings

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _a_match_moved_by_players_who_want_turns_by_email():
    users = {}
    for name in ("ana", "ben"):
        users[name] = User.objects.create_user(name, email=f"{name}@example.org")
        ReminderSettings.objects.create(user=users[name], channels={YOUR_TURN: [EMAIL]})
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={n: u.pk for n, u in users.items()},
        options={"decision_s": 30, "first_to": 2},
        rng=random.Random(5),
    )
    series, rng = series_for(match.game), random.Random(3)
    for _ in range(3):
        state = services.load(match).state
        seat = series.pending(state)[0].seat
        services.submit(match, seat, bot_command(series, state, seat, "random", rng), actor=seat)
    return match


def _follow_once():
    follower = Follower()
    follower.beat()
    follower.catch_up()
    follower.leave()


def _made(match) -> list[tuple]:
    return sorted(
        Reminder.objects.filter(key__startswith=f"{match.stream}:turn:").values_list(
            "user__username", "channel", "key"
        )
    )


def test_the_request_makes_no_reminder_and_a_replay_makes_none_twice(settings):
    settings.REACTORS_INLINE = False  # production: the reactors' own processes
    match = _a_match_moved_by_players_who_want_turns_by_email()
    assert _made(match) == []  # nothing in the request
    _follow_once()
    made = _made(match)
    assert made and {m[1] for m in made} == {EMAIL}
    ReactorPartition.objects.filter(reactor="reminders").update(after_tx=0, after_id=0)
    _follow_once()  # the reactor comes to every append again
    assert _made(match) == made
    assert Reminder.objects.filter(status=Reminder.PENDING).count() == len(made)


def test_a_follower_killed_before_its_checkpoint_commits_loses_nothing(settings, monkeypatch):
    settings.REACTORS_INLINE = False
    match = _a_match_moved_by_players_who_want_turns_by_email()
    reminders = follow._reactors["reminders"]

    def made_then_killed(rows, matches=None):
        reminders.handle(rows, matches=matches)
        raise SystemExit("killed")  # between the reminders and the commit of the pass

    dying = Reactor("reminders", made_then_killed, reminders.prefixes, with_matches=True)
    follower = Follower("dies", reactors=[dying])
    follower.beat()
    with pytest.raises(SystemExit):
        follower.catch_up()
    assert _made(match) == []  # rolled back with the checkpoint
    # dead: its heartbeat and leases lapse (else the taker's fair share is half
    # the partitions, and the match's may be the other half)
    ReactorFollower.objects.filter(owner="dies").update(alive_until=timezone.now())
    ReactorPartition.objects.filter(owner="dies").update(owner="", lease_until=None)
    _follow_once()  # the one that takes over
    assert _made(match) and len(_made(match)) == len(set(_made(match)))
