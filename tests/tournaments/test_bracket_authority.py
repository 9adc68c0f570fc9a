"""Authority over a bracket comes from that bracket alone: the show it names
as its host takes the disputes about its matches, and only that show's
organizer and moderators (never one whose account holds a seat in the
bracket) may claim them and rule, whatever the body of the request says.

The role matrix: every role × shows A and B × brackets X (hosted by A) and Y
(hosted by B) × every ruling, through the API as a client would send it."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.models import StoredEvent
from games.models import Match
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments import shows
from tournaments.dispute_filing import DisputePlaces
from tournaments.models import ShowRecord

ROLES = [
    "organizer",  # olga: A's organizer, who made bracket X
    "moderator",  # mia: A's moderator
    "seat_holder",  # pat: A's moderator too, but holds ana's seat in bracket X
    "other_show_moderator",  # max: B's moderator
    "other_bracket_organizer",  # oscar: B's organizer, who made bracket Y
    "anonymous",
    "staff",  # stan: is_staff and superuser, no role in any show
]
ACCOUNT = {
    "organizer": "olga",
    "moderator": "mia",
    "seat_holder": "pat",
    "other_show_moderator": "max",
    "other_bracket_organizer": "oscar",
    "anonymous": None,
    "staff": "stan",
}
# what a body may claim: none of it grants anything
FORGED = {
    "actor": "olga",
    "role": "organizer",
    "seated": True,
    "foreign": False,
    "user_id": 1,
    "changes_series_winner": False,
}


def ruling_params(match):
    a = match.seats[0]
    return {
        "dismiss": {},
        "void_to": {"version": 1},
        "award_bout": {"winner": a},
        "adjust_clock": {"seat": a, "seconds": 30},
        "replay_bout": {},
        "overturn_series": {"winner": a},
        "disqualify": {"entrant": a},
    }


@pytest.fixture
def world(db, settings):
    rates = {"commands_burst": "10000/s", "commands_sustained": "100000/min"}
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    users = {
        n: User.objects.create_user(n, is_staff=n == "stan", is_superuser=n == "stan")
        for n in ("olga", "mia", "pat", "max", "oscar", "stan")
    }

    def show(name, organizer, moderators):
        stream = ss.create_show(
            name=name,
            organizer=organizer,
            entrants=["s1", "s2"],
            options={"step_deadline_s": 0},
            holders={"s1": "bot:random", "s2": "bot:random"},
            rng=random.Random(1),
        )
        for m in moderators:
            ss.command(
                stream,
                {"type": "appoint_moderator", "username": m},
                ss.Acting(organizer, shows.ORGANIZER),
            )
        return ShowRecord.objects.get(stream=stream)

    show_a = show("Show A", "olga", ["mia", "pat"])
    show_b = show("Show B", "oscar", ["max"])

    def bracket(host, organizer, entrants, holders):
        stream = bs.create_bracket(
            name=f"Cup of {host.name}",
            game="love-me-not",
            format="single",
            entrants=entrants,
            holders=holders,
            host_show=host.stream,
            organizer_id=users[organizer].pk,
            rng=random.Random(2),
        )
        return Match.objects.get(show_stream=stream)

    x = bracket(show_a, "olga", ["ana", "ben"], {"ana": users["pat"].pk, "ben": "bot:random"})
    y = bracket(show_b, "oscar", ["cal", "dee"], {"cal": "bot:random", "dee": "bot:random"})
    return {"users": users, "shows": {"A": show_a, "B": show_b}, "brackets": {"X": x, "Y": y}}


def client_for(user):
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def send(client, record, command):
    return client.post(
        f"/api/shows/{record.pk}/commands",
        json.dumps({"command": {**FORGED, **command}}),
        content_type="application/json",
    )


def written(record):
    return StoredEvent.objects.filter(stream=record.stream).count()


def allowed(world, role, show_key, bracket_key):
    hosted = (show_key, bracket_key) in (("A", "X"), ("B", "Y"))
    staff = {"A": {"olga", "mia"}, "B": {"oscar", "max"}}[show_key]  # pat sits in X
    return hosted and ACCOUNT[role] in staff


def test_the_host_show_is_the_only_place_offered_to_file_a_dispute(world):
    x = world["brackets"]["X"]
    places = DisputePlaces().dispute_places
    assert [p.name for p in places(x, world["users"]["olga"])] == ["Show A"]
    assert places(x, world["users"]["max"]) == []  # B's moderator: B is not X's host
    assert places(x, world["users"]["oscar"]) == []


@pytest.mark.parametrize("role", ROLES)
def test_role_matrix_over_shows_brackets_and_every_ruling(world, role):
    user = world["users"].get(ACCOUNT[role]) if ACCOUNT[role] else None
    client = client_for(user)
    for show_key, record in world["shows"].items():
        host_org = world["users"]["olga" if show_key == "A" else "oscar"]
        for bracket_key, match in world["brackets"].items():
            may = allowed(world, role, show_key, bracket_key)
            hosted = (show_key, bracket_key) in (("A", "X"), ("B", "Y"))
            version = StoredEvent.objects.filter(stream=match.stream).count()
            filing = {
                "type": "file_dispute",
                "target_stream": match.stream,
                "target_version": version,
                "text": "a seat misbehaved",
            }
            if not hosted:
                # no show but the host takes a dispute about the bracket's match:
                # neither this role nor the show's own organizer may file one here
                for who in (client, client_for(host_org)):
                    before = written(record)
                    resp = send(who, record, filing)
                    assert resp.status_code in (401, 403), (role, show_key, bracket_key)
                    assert written(record) == before
                continue
            for ruling, params in ruling_params(match).items():
                where = (role, show_key, bracket_key, ruling)
                resp = send(client_for(host_org), record, filing)
                assert resp.status_code == 201, (where, resp.content)
                did = f"d-{ss.load(record.stream)[0].dispute_seq}"
                before = written(record)
                claim = send(client, record, {"type": "claim_dispute", "dispute_id": did})
                rule = send(
                    client,
                    record,
                    {
                        "type": "rule_dispute",
                        "dispute_id": did,
                        "ruling": ruling,
                        "params": params,
                        "reason": "seen on the table",
                    },
                )
                if may:
                    assert claim.status_code == 201, (where, claim.content)
                    # carried out, proposed for a second moderator, or refused
                    # by the ruling's own rules (422): never for the role
                    assert rule.status_code in (201, 422), (where, rule.content)
                else:
                    assert claim.status_code in (401, 403), (where, claim.content)
                    assert rule.status_code in (401, 403), (where, rule.content)
                    assert written(record) == before, where


def test_the_console_names_one_of_the_organizers_own_shows_as_host(world, client):
    from django.contrib.auth.models import Permission

    from tournaments.models import BracketRecord

    olga = world["users"]["olga"]
    olga.user_permissions.add(Permission.objects.get(codename="add_match"))
    client.force_login(User.objects.get(pk=olga.pk))
    body = {
        "name": "Console cup",
        "game": "love-me-not",
        "format": "single",
        "entrants": "a\nb",
        "rated": "on",
    }
    # oscar's show is not olga's to name: refused beside the field, nothing made
    resp = client.post("/console/brackets/new/", {**body, "show": world["shows"]["B"].pk})
    assert resp.status_code == 400 and not BracketRecord.objects.filter(name="Console cup")
    resp = client.post("/console/brackets/new/", {**body, "show": world["shows"]["A"].pk})
    assert resp.status_code == 302, resp.content
    stream = BracketRecord.objects.get(name="Console cup").stream
    assert bs.bracket_authority(stream)[0] == world["shows"]["A"].stream
