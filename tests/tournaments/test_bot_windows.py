"""A window a person may act in is not closed by a bot's speed (issue #43,
point 2), on the show's side. The audit of what bots do by themselves
(tournaments/bot_steps.py and autopilot.py: a bot entrant's token gift,
candidate choice, nomination and ban, the demo organizer's ranking and game
pick; brackets: bots are always checked in, nothing else) found one: the main
match's winners choose the candidates together, and the first to choose
closes it for all. A bot sharing the win chose the moment the ranking was
entered (bot_steps drives the bots after every command), before the person
beside it could open the page. It now leaves a shared step to the person
(autopilot.SHARED_STEPS); if they let it pass, the step's deadline decides
for them as for people. The games' own windows (an item's declaration, a
bid) are the match bots' pause (games.services.bot_pause, tests/games/test_practice.py)."""

import random

import pytest
from django.contrib.auth.models import User

from clocks.enforce import sweep
from eventlog.store import read
from tournaments import autopilot, shows
from tournaments import show_services as ss

from .test_show_services import ORG, T0, show, state_of

pytestmark = pytest.mark.django_db

# ana (a person) and ben (a bot) share the win; the winners choose any
# entrant without immunity: a choice both owe
RANKING = [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]]
STEP_S = 60


def _shared_choice(ana_holder):
    holders = {e: "bot:heuristic" for e in ("ben", "cal", "dee", "eve", "fay", "gus", "hal")}
    holders["ana"] = ana_holder
    stream = show(
        options={"candidate_rule": "winners_choose_any", "step_deadline_s": STEP_S},
        holders=holders,
    )
    # the organizer enters the ranking: bot_steps makes the bots' steps after it
    ss.command(stream, {"type": "enter_ranking", "ranking": RANKING}, ORG, now=T0)
    return stream


def _chosen(stream):
    return [e for e in read(stream) if e.type == "candidates_named"]


def test_a_bot_sharing_a_choice_with_a_person_leaves_it_to_them():
    ana = User.objects.create_user("ana_person")
    stream = _shared_choice(ana.pk)
    state = state_of(stream)
    # before: ben had named the candidates at once; now the choice waits for ana
    assert not _chosen(stream)
    owed = {(d.seat, d.kind) for d in shows.pending(state)}
    assert ("ana", "choose_candidate") in owed
    assert autopilot.step(stream, random.Random(1), organizer=False) is False
    # ana acts in time, and her choice is the one that stands
    _forced, pool, n = shows.candidate_split(state, shows.current_round(state))
    mine = sorted(pool)[-n:]
    ss.command(
        stream,
        {"type": "choose_candidate", "candidates": mine},
        ss.Acting("ana", shows.PLAYER, ana.pk),
        now=T0 + 30,
    )
    named = _chosen(stream)
    assert len(named) == 1 and named[0].metadata.get("actor") != "clock"
    assert sorted(shows.current_round(state_of(stream)).candidates) == sorted(mine)


def test_a_person_who_lets_the_shared_choice_pass_has_it_made_by_the_deadline():
    ana = User.objects.create_user("ana_person")
    stream = _shared_choice(ana.pk)
    assert sweep(now=T0 + STEP_S - 1) == 0 and not _chosen(stream)
    assert sweep(now=T0 + STEP_S + 1) > 0
    assert len(_chosen(stream)) == 1  # the show moves on: nobody waits for ever


def test_bots_alone_make_the_shared_choice_at_once():
    stream = _shared_choice("bot:heuristic")
    assert len(_chosen(stream)) == 1  # no person shares it: nothing to wait for
