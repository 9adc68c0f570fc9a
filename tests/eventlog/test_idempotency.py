"""A command id is a retry only from the same account with the same command:
the first answer again, nothing written. The same id from another account,
or with another command, is a 409 in words and writes nothing; the sender's
move is never silently dropped as a "replay" of someone else's."""

import random

import pytest
from django.contrib.auth.models import User

from eventlog.models import StoredEvent
from eventlog.store import CommandIdReused, NewEvent, append, command_fingerprint, read
from games import services
from games.core.registry import series_for
from games.presenters.table import table_for


def legal(match, seat):
    state = services.load(match).state
    return series_for(match.game).rules.legal_commands(state.bout, seat)


def up_to(match):
    return series_for(match.game).pending(services.load(match).state)[0].seat


def move(client, match, command, command_id):
    return client.post(
        f"/api/matches/{match.pk}/commands",
        {"command": command, "command_id": command_id},
        content_type="application/json",
    )


@pytest.fixture
def duel(db):
    ana = User.objects.create_user("ana_user", password="pw-123456")
    ben = User.objects.create_user("ben_user", password="pw-123456")
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        rng=random.Random(4),
    )
    return match, {"ana": ana, "ben": ben}


def _play_until_both_moved(client, match, users, command_id):
    """The seat up first moves with ``command_id``; then the other seat is up.
    Returns (first seat, other seat)."""
    first = up_to(match)
    client.force_login(users[first])
    resp = move(client, match, legal(match, first)[0], command_id)
    assert resp.status_code == 201, resp.content
    other = up_to(match)
    assert other != first, "love-me-not alternates seats"
    return first, other


def test_another_seats_command_with_my_id_is_409_and_not_a_replay(client, duel):
    match, users = duel
    first, other = _play_until_both_moved(client, match, users, "move-1")
    before = StoredEvent.objects.count()
    client.force_login(users[other])
    resp = move(client, match, legal(match, other)[0], "move-1")
    assert resp.status_code == 409, resp.content
    body = resp.json()
    assert body["code"] == "command_id_reused" and "command id" in body["message"]
    assert StoredEvent.objects.count() == before
    # the same move under an id of its own is written
    resp = move(client, match, legal(match, other)[0], "move-2")
    assert resp.status_code == 201, resp.content
    assert StoredEvent.objects.count() > before


def test_my_id_again_with_another_command_is_409(client, duel):
    match, users = duel
    seat = up_to(match)
    client.force_login(users[seat])
    options = legal(match, seat)
    resp = move(client, match, options[0], "mine")
    assert resp.status_code == 201, resp.content
    before = StoredEvent.objects.count()
    other = {**options[0], "extra_field": "changed"}
    resp = move(client, match, other, "mine")
    assert resp.status_code == 409, resp.content
    assert StoredEvent.objects.count() == before


def test_my_retry_is_answered_with_the_first_result(client, duel):
    match, users = duel
    seat = up_to(match)
    client.force_login(users[seat])
    command = legal(match, seat)[0]
    first = move(client, match, command, "retry-me")
    assert first.status_code == 201, first.content
    before = StoredEvent.objects.count()
    again = move(client, match, command, "retry-me")
    assert again.status_code == 200, again.content
    assert again.json()["appended"] == first.json()["appended"]
    assert StoredEvent.objects.count() == before


def test_the_html_move_form_refuses_another_seats_id(client, duel):
    match, users = duel
    first, other = _play_until_both_moved(client, match, users, "form-1")
    client.force_login(users[other])
    table = table_for(match, services.viewer_for(match, users[other]))
    control = table.controls[0]
    form = {"control": control.key, "command_id": "form-1"}
    form.update({f.name: f.choices[0].value for f in control.fields})
    before = StoredEvent.objects.count()
    resp = client.post(f"/games/matches/{match.pk}/command", form, HTTP_HX_REQUEST="true")
    assert resp.status_code == 409, resp.content
    assert b"already used" in resp.content
    assert StoredEvent.objects.count() == before


def test_the_html_move_form_carries_a_fresh_command_id(client, duel):
    match, users = duel
    seat = up_to(match)
    client.force_login(users[seat])
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert 'name="command_id"' in page


@pytest.mark.django_db
def test_the_store_refuses_another_fingerprint_under_the_same_id():
    ana = command_fingerprint("user:1", {"n": 1})
    append("s-f", 0, [NewEvent("thing_happened", {"n": 1})], command_id="c:x", fingerprint=ana)
    again = append(
        "s-f", 1, [NewEvent("thing_happened", {"n": 1})], command_id="c:x", fingerprint=ana
    )
    assert again.replay and len(read("s-f")) == 1
    ben = command_fingerprint("user:2", {"n": 1})
    with pytest.raises(CommandIdReused):
        append("s-f", 1, [NewEvent("thing_happened", {"n": 1})], command_id="c:x", fingerprint=ben)
    assert len(read("s-f")) == 1
