"""A dispute's text goes to the show's staff and to the account that filed
it, decided by account id: an attacker whose username is the filer's seat
name (or a player holding a seat named like a moderator who filed) never
reads it, on the show page, the show's API, its disputes, log or export.
An entrant's items go likewise to the account holding the entrant only."""

import json
import random

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games.models import Match
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowRecord

SECRET = "the clock ran while we were paused"


@pytest.fixture
def people(db):
    # pat holds the entrant "ana"; the account named "ana" holds nothing
    names = ("olga", "mia", "pat", "ana", "quinn")
    return {n: User.objects.create_user(n, password="pw-123456") for n in names}


def make_show(people, entrants, holder_of):
    """A two-entrant show (its final opens at once) moderated by mia."""
    stream = ss.create_show(
        name="Same names",
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=entrants,
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={e: people[h].pk if h else "bot:heuristic" for e, h in holder_of.items()},
        rng=random.Random(2),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    record = ShowRecord.objects.get(stream=stream)
    return record, Match.objects.get(show_stream=stream, kind="final")


def file_on_page(client, record, match):
    resp = client.post(
        f"/shows/{record.pk}/disputes/file",
        {"match": match.pk, "version": 1, "text": SECRET},
    )
    assert resp.status_code == 200, resp.content.decode()[:500]


def everything_seen(client, record) -> str:
    """What the account reads of the show: its page, API view, disputes, log, export."""
    seen = []
    for url in (
        f"/shows/{record.pk}/",
        f"/api/shows/{record.pk}/",
        f"/api/shows/{record.pk}/disputes",
        f"/api/shows/{record.pk}/items",
        f"/api/shows/{record.pk}/log",
        f"/api/shows/{record.pk}/export",
    ):
        resp = client.get(url)
        assert resp.status_code == 200, url
        seen.append(f"{url}: {resp.content.decode()}")
    return "\n".join(seen)


def disputes_seen(client, record) -> list[dict]:
    return client.get(f"/api/shows/{record.pk}/disputes").json()["disputes"]


@pytest.mark.django_db
def test_an_account_named_like_the_filers_seat_never_reads_the_text(client, people):
    record, final = make_show(people, ["ana", "ben"], {"ana": "pat", "ben": None})
    client.force_login(people["pat"])
    file_on_page(client, record, final)
    assert [d.get("text") for d in disputes_seen(client, record)] == [SECRET]  # the filer's own
    # the filing account is recorded; spectators' copy of the event does not name it
    filed = next(r for r in read(record.stream) if r.type == "dispute_filed")
    assert filed.data["filed_by"] == "ana" and filed.data["filed_by_id"] == people["pat"].pk

    client.force_login(people["ana"])  # username "ana": the seat's name, not its holder
    assert [d["filed_by"] for d in disputes_seen(client, record)] == ["ana"]
    assert "text" not in disputes_seen(client, record)[0]
    seen = everything_seen(client, record)
    assert SECRET not in seen and "filed_by_id" not in seen
    client.force_login(people["mia"])  # the moderator reads it
    assert disputes_seen(client, record)[0]["text"] == SECRET


@pytest.mark.parametrize(
    "filed_by_id,filed_role,viewer_role,viewer_id,sees",
    [
        (7, "player", "player", 7, True),  # the filing account
        (7, "player", "player", 8, False),  # another account holding a seat of that name
        (7, "player", "spectator", 8, False),  # an account of that username
        (7, "moderator", "player", 8, False),  # a player seated as the moderator's name
        (7, "moderator", "moderator", 9, True),  # staff
        (None, "player", "player", 8, True),  # filed before ids: the seat's holder
        (None, "player", "spectator", 8, False),  # ... never a mere namesake
        (None, "moderator", "player", 8, False),  # ... nor a seat named like a moderator
    ],
)
def test_the_text_goes_by_the_filing_account(filed_by_id, filed_role, viewer_role, viewer_id, sees):
    d = shows.Dispute("d-1", "m-1", 1, SECRET, "mia", filed_role, 0.0, filed_by_id=filed_by_id)
    state = shows.ShowState(created=True, disputes={d.id: d})
    seen = shows.view(state, viewer_role, "mia", viewer_id=viewer_id)["disputes"][0]
    assert ("text" in seen) is sees


@pytest.mark.django_db
def test_a_dispute_filed_before_ids_were_recorded_goes_to_the_seat_holder_only(client, people):
    record, final = make_show(people, ["ana", "ben"], {"ana": "pat", "ben": None})
    # as the engine recorded it before: the seat's name, no account
    cmd = {"type": "file_dispute", "target_stream": final.stream, "target_version": 1}
    ss.command(record.stream, {**cmd, "text": SECRET}, ss.Acting("ana", "player"))
    filed = next(r for r in read(record.stream) if r.type == "dispute_filed")
    assert filed.data["filed_by_id"] is None
    client.force_login(people["ana"])
    assert "text" not in disputes_seen(client, record)[0]
    assert SECRET not in everything_seen(client, record)
    client.force_login(people["pat"])  # holds the seat it was filed from, by account
    assert disputes_seen(client, record)[0]["text"] == SECRET


@pytest.mark.django_db
def test_a_body_cannot_name_the_filing_account(client, people):
    record, final = make_show(people, ["ana", "ben"], {"ana": "pat", "ben": None})
    client.force_login(people["pat"])
    cmd = {
        "type": "file_dispute",
        "target_stream": final.stream,
        "target_version": 1,
        "text": SECRET,
        "filer_id": people["ana"].pk,  # the platform decides who filed it
    }
    resp = client.post(
        f"/api/shows/{record.pk}/commands",
        json.dumps({"command": cmd}),
        content_type="application/json",
    )
    assert resp.status_code == 201, resp.content
    filed = next(r for r in read(record.stream) if r.type == "dispute_filed")
    assert filed.data["filed_by_id"] == people["pat"].pk
    client.force_login(people["ana"])
    assert "text" not in disputes_seen(client, record)[0]


@pytest.mark.django_db
def test_an_entrants_items_are_not_shown_to_an_account_named_like_it(client, people):
    record, _final = make_show(people, ["ana", "ben"], {"ana": "pat", "ben": None})
    grant = {
        "type": "grant_item",
        "entrant": "ana",
        "item": "insurance",
        "scope": "any",
        "given_by": "the audience",
        "reason": "prize",
    }
    ss.command(record.stream, grant, ss.Acting("olga", "organizer", people["olga"].pk))
    client.force_login(people["ana"])
    items = client.get(f"/api/shows/{record.pk}/items").json()
    assert items["inventories"] == {} and items["item_counts"] == {"ana": 1}
    assert client.get(f"/api/shows/{record.pk}/").json()["show"]["inventories"] == {}
    client.force_login(people["pat"])
    assert list(client.get(f"/api/shows/{record.pk}/items").json()["inventories"]) == ["ana"]


@pytest.mark.django_db
def test_a_resent_filing_form_confirms_its_own_dispute_not_the_newest(client, people):
    record, final = make_show(people, ["ana", "ben"], {"ana": "pat", "ben": None})
    form = {"match": final.pk, "version": 1, "text": SECRET, "command_id": "file-1"}
    url = f"/shows/{record.pk}/disputes/file"
    client.force_login(people["pat"])
    assert "Dispute 1 about" in client.post(url, form).content.decode()
    client.force_login(people["mia"])
    assert "Dispute 2 about" in client.post(url, {**form, "command_id": "mia-1"}).content.decode()
    client.force_login(people["pat"])
    again = client.post(url, form).content.decode()  # a double click, after mia's
    assert "Dispute 1 about" in again and "Dispute 2" not in again
    assert [r.type for r in read(record.stream)].count("dispute_filed") == 2
