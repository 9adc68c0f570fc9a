"""Rights by account id, never by name: an account holding any seat in a show
never moderates it (an appointment is refused; one recorded before the rule
grants nothing), checked again at every command: rulings, clock
adjustments, pauses, dispute steps, the omniscient view."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.models import StoredEvent
from eventlog.store import NewEvent, append
from games import services as match_services
from games.core.protocol import RoleRequired, RuleError
from tournaments import show_services as ss
from tournaments import shows
from tournaments.selectors import is_show_moderator, show_facts

ORG = ss.Acting("olga", shows.ORGANIZER)
T0 = 1_000_000.0


@pytest.fixture
def people(db):
    return {n: User.objects.create_user(n) for n in ("olga", "mallory", "mia")}


def make_show(people):
    """olga's show: ana is held by mallory's account (under another name)."""
    entrants = ["ana", "ben", "cal", "dee"]
    return ss.create_show(
        name="Night",
        organizer="olga",
        entrants=entrants,
        options={"step_deadline_s": 0},
        holders={"ana": people["mallory"].pk, "ben": "bot:random", "cal": "bot:random"},
        now=T0,
        rng=random.Random(3),
    )


def client_of(user):
    c = Client()
    c.force_login(user)
    return c


def post(client, url, body):
    return client.post(url, json.dumps(body), content_type="application/json")


def events(stream):
    return StoredEvent.objects.filter(stream=stream).count()


@pytest.mark.django_db
def test_an_account_holding_an_entrant_under_another_name_cannot_be_appointed(people):
    stream = make_show(people)
    before = events(stream)
    with pytest.raises(RuleError, match="holds a seat in this show"):
        ss.command(stream, {"type": "appoint_moderator", "username": "mallory"}, ORG, now=T0)
    assert events(stream) == before
    # the same command for an account with no seat goes through
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, ORG, now=T0)
    assert ss.acting_for(stream, people["mia"]).role == shows.MODERATOR


@pytest.mark.django_db
def test_the_organizer_cannot_hold_an_entrant_of_their_own_show(people):
    with pytest.raises(RuleError, match="organizer cannot also hold"):
        ss.create_show(
            name="Night",
            organizer="olga",
            entrants=["ana", "ben"],
            holders={"ana": people["olga"].pk},
            now=T0,
        )


def appoint_before_the_rule(stream, user):
    """A moderator_appointed event written straight to the log (as one recorded
    before this rule existed): the account it names already holds a seat."""
    version = events(stream)
    append(
        stream,
        version,
        [NewEvent("moderator_appointed", {"username": user.username, "user_id": user.pk})],
        actor="olga",
        role=shows.ORGANIZER,
    )


@pytest.mark.django_db
def test_a_moderator_holding_a_seat_has_no_right_at_the_time_of_any_command(people):
    stream = make_show(people)
    mallory = people["mallory"]
    appoint_before_the_rule(stream, mallory)
    state = ss.load(stream)[0]
    assert state.moderator_ids.get("mallory") == mallory.pk  # appointed in the log...
    # ...but a seat holder: a player, never staff, on every path that asks
    assert ss.acting_for(stream, mallory).role == shows.PLAYER
    assert mallory.pk not in show_facts(stream).moderator_ids
    assert not is_show_moderator(stream, mallory)

    # a match of the show where mallory's entrant sits
    match = match_services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": mallory.pk, "ben": "bot:random"},
        show_stream=stream,
        kind="death_match",
        rng=random.Random(5),
    )
    c = client_of(mallory)
    match_before = events(match.stream)
    for body in (
        {"type": "add_time", "seconds": 86400, "seat": "ana", "reason": "lag"},
        {"type": "pause", "reason": "tea"},
    ):
        resp = post(c, f"/api/matches/{match.pk}/moderate", body)
        assert resp.status_code == 403, resp.content
    assert events(match.stream) == match_before
    assert not match_services.moderates(match, mallory)
    assert match_services.viewer_for(match, mallory).kind == "seat"

    # the show's dispute steps: a dispute filed by mia (a real moderator)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, ORG, now=T0)
    mia = ss.acting_for(stream, people["mia"])
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": match.stream,
            "target_version": 2,
            "text": "lag",
        },
        mia,
        now=T0,
    )
    show_before = events(stream)
    acting = ss.acting_for(stream, mallory)
    for cmd in (
        {"type": "claim_dispute", "dispute_id": "d-1"},
        {"type": "grant_item", "entrant": "ana", "item": "insurance", "scope": "any"},
        {"type": "view_omnisciently", "match_stream": match.stream},
    ):
        with pytest.raises((RoleRequired, RuleError)):
            ss.command(stream, cmd, acting, now=T0)
    # the API: the caller's role comes from the account, whatever the body says
    from tournaments.models import ShowRecord

    pk = ShowRecord.objects.get(stream=stream).pk
    resp = post(
        c,
        f"/api/shows/{pk}/commands",
        {"command": {"type": "claim_dispute", "dispute_id": "d-1", "role": "moderator"}},
    )
    assert resp.status_code in (403, 422), resp.content
    assert events(stream) == show_before


@pytest.mark.django_db
def test_an_appointed_moderator_who_takes_a_seat_loses_the_right(people):
    """mia moderates; an entrant's holder becomes her account (a substitution
    recorded before the rule): from that command on she is a player only."""
    stream = make_show(people)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, ORG, now=T0)
    mia = people["mia"]
    assert ss.acting_for(stream, mia).role == shows.MODERATOR
    ss.command(stream, {"type": "invite", "entrant": "dee"}, ORG, now=T0)
    iid = next(iter(ss.load(stream)[0].invitations))
    accepted = {"invitation_id": iid, "entrant": "dee", "user_id": mia.pk, "username": "mia"}
    append(
        stream,
        events(stream),
        [NewEvent("invitation_accepted", accepted)],
        actor="platform",
        role=shows.SYSTEM,
    )
    assert ss.acting_for(stream, mia).role == shows.PLAYER
    assert mia.pk not in show_facts(stream).moderator_ids
