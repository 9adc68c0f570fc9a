"""What the tournament side tells the visibility policy: a show's staff
accounts and spectator rules, whether a match's result stands, and the
audited omniscient views of its moderators."""

import random

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import show_services as ss
from tournaments import shows
from tournaments.bot_steps import held
from tournaments.selectors import ShowFacts, result_settled, show_facts

from .test_show_services import ENTRANTS, MOD1, MOD2, ORG, T0, show, state_of

POOL = ["higher-lower", "love-me-not", "doubting-love-letter"]


def death_match(stream):
    """Round 1 up to its death match (hal against gus, Higher or Lower), live."""
    ranking = [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]]
    with held():  # the test makes hal's (a bot's) nomination itself
        ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, ORG, now=T0)
        ss.command(
            stream, {"type": "nominate", "dmo": "gus"}, ss.Acting("hal", shows.PLAYER), now=T0
        )
    ss.command(stream, {"type": "pick_game", "game": "higher-lower"}, ORG, now=T0)
    return Match.objects.get(show_stream=stream, kind="death_match")


def dispute(stream, match, ruling, params):
    """MOD1 files, claims and rules on a dispute against the match's last event."""
    version = read(match.stream)[-1].version
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": match.stream,
            "target_version": version,
            "text": "look again",
        },
        MOD1,
        now=T0,
    )
    did = max(state_of(stream).disputes, key=lambda d: int(d.split("-")[1]))
    assert not result_settled(stream, match.stream)  # open
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, MOD1, now=T0)
    assert not result_settled(stream, match.stream)  # claimed
    rule = {"type": "rule_dispute", "dispute_id": did, "ruling": ruling}
    ss.command(stream, {**rule, "params": params, "reason": "seen again"}, MOD1, now=T0)
    return did


@pytest.mark.django_db
def test_show_facts_name_the_staff_accounts_and_the_spectator_rules():
    stream = show(options={"spectator_delay_s": 90, "spectator_policy": "everything"})
    olga, mia, max_ = (User.objects.get(username=n) for n in ("olga", "mia", "max"))
    assert show_facts(stream) == ShowFacts(
        organizer_ids=frozenset({olga.pk}),
        moderator_ids=frozenset({mia.pk, max_.pk}),
        spectator_delay_s=90.0,
        spectator_policy="everything",
    )
    ss.command(stream, {"type": "remove_moderator", "username": "max", "reason": "x"}, ORG)
    assert show_facts(stream).moderator_ids == frozenset({mia.pk})
    assert show_facts(show(options={})).spectator_policy == "public"
    assert show_facts("show-none") is None


@pytest.mark.django_db
def test_a_result_is_settled_only_when_no_dispute_or_ruling_holds_it_open():
    stream = show(options={"game_pool": POOL})
    dm = death_match(stream)
    assert not result_settled(stream, dm.stream)  # still being played
    match_services.run_bots(dm, start=T0, rng=random.Random(4))
    dm.refresh_from_db()
    assert dm.status == "finished" and result_settled(stream, dm.stream)
    # dismissed: the result stands again
    dispute(stream, dm, "dismiss", {})
    assert result_settled(stream, dm.stream)
    # an overturn waits for a second moderator: not settled until approved
    loser = next(s for s in dm.seats if s not in dm.winners)
    did = dispute(stream, dm, "overturn_series", {"winner": loser})
    assert state_of(stream).disputes[did].status == shows.AWAITING
    assert not result_settled(stream, dm.stream)
    ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD2, now=T0)
    dm.refresh_from_db()
    assert dm.winners == [loser] and result_settled(stream, dm.stream)
    # a ruling that voids back into the series reopens it: not settled
    did = dispute(stream, dm, "void_to", {"version": 3})
    ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD2, now=T0)
    dm.refresh_from_db()
    assert dm.status == "live" and not result_settled(stream, dm.stream)


@pytest.mark.django_db
def test_omniscient_views_are_for_staff_and_audited():
    hal = User.objects.create_user("hal")
    holders = {e: "bot:heuristic" for e in ENTRANTS} | {"hal": hal.pk}
    stream = show(options={"game_pool": POOL}, holders=holders)
    dm = death_match(stream)
    mia = User.objects.get(username="mia")
    assert ss.acting_for(stream, hal) == ss.Acting("hal", shows.PLAYER)
    version = len(read(stream))
    ss.record_omniscient_view(stream, mia, dm.stream, now=T0 + 5)
    event = read(stream)[-1]
    assert event.type == "match_viewed_omnisciently"
    assert event.data["user_id"] == mia.pk and event.data["username"] == "mia"
    assert event.data["match_stream"] == dm.stream and event.data["at"] == T0 + 5
    # refused to anyone else, and to matches of other shows; nothing is written
    stranger = User.objects.create_user("sam")
    for user in (stranger, hal):
        with pytest.raises(RuleError, match="only the organizer or a moderator"):
            ss.record_omniscient_view(stream, user, dm.stream)
    with pytest.raises(RuleError, match="not a match of this show"):
        ss.record_omniscient_view(stream, mia, "match-elsewhere")
    assert len(read(stream)) == version + 1
    # the audit log lists every organizer and moderator action, this one too
    audit = shows.audit_log(state_of(stream))
    assert [(a["kind"], a["actor"]) for a in audit[:3]] == [
        ("show_created", "olga"),
        ("moderator_appointed", "olga"),
        ("moderator_appointed", "olga"),
    ]
    last = audit[-1]
    assert last["kind"] == "match_viewed_omnisciently" and last["actor"] == "mia"
    assert last["role"] == shows.MODERATOR and last["at"] == T0 + 5
    assert dm.stream in last["text"]
    assert all(a["role"] in (shows.ORGANIZER, shows.MODERATOR) for a in audit)
    assert "pick_game" not in {a["kind"] for a in audit}  # kinds are event types
    assert "game_picked" in {a["kind"] for a in audit}
    # spectators never see the record
    assert all(e["type"] != "match_viewed_omnisciently" for e in shows.public_log(state_of(stream)))
