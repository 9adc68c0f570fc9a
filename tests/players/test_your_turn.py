"""The player's "your turn": a badge on every page for the matches waiting on
one of their seats, and one "waiting for you" notification per match."""

import random

import pytest
from django.contrib.auth.models import User

from games import services
from games.core.protocol import Viewer
from games.models import Match, Notification
from tournaments import show_services as ss
from tournaments.models import ShowRecord

WAITING = "Your turn: "


def _players():
    return [User.objects.create_user(n, password="pw-123456") for n in ("ana", "ben", "cy")]


@pytest.fixture
def clockless_match(seated_match):
    """A match with no clock (decision_s 0): nothing times out while a test reads it."""
    return lambda ana, ben: seated_match(ana, ben, decision_s=0)


def _pages():
    stream = ss.create_show(
        name="Night",
        organizer="olga",
        entrants=["e1", "e2", "e3"],
        holders={e: "bot:heuristic" for e in ("e1", "e2", "e3")},
        rng=random.Random(1),
    )
    show = ShowRecord.objects.get(stream=stream)
    return ["/", "/games/rules/love-me-not/", show.get_absolute_url()]


def _waiting_notes(match):
    return Notification.objects.filter(match=match, text__startswith=WAITING)


@pytest.mark.django_db
def test_the_badge_is_on_every_page_for_the_player_the_match_waits_on(client, clockless_match):
    ana, ben, cy = _players()
    match = clockless_match(ana, ben)
    url = f"/games/matches/{match.pk}/"
    pages = _pages()
    # love-me-not: both decide at first; once ana has decided only ben is waited on
    assert match.waiting_on == ["ana", "ben"]
    _, legal = services.legal_for(match, Viewer.of_seat("ana"))
    services.submit(match, "ana", legal[0], rng=random.Random(1))
    match.refresh_from_db()
    assert match.waiting_on == ["ben"]
    for page in pages:
        client.force_login(ben)
        body = client.get(page).content.decode()
        assert "Your turn (1)" in body and f'href="{url}"' in body, page
        for user in (ana, cy):
            client.force_login(user)
            assert "Your turn" not in client.get(page).content.decode(), (page, user)
        client.logout()
        assert "Your turn" not in client.get(page).content.decode(), page


@pytest.mark.django_db
def test_the_badge_is_one_query_and_counts_only_live_matches_waiting_on_the_user(
    client, django_assert_num_queries, clockless_match
):
    ana, ben, _ = _players()
    first, second = clockless_match(ana, ben), clockless_match(ana, ben)
    expected = sum("ana" in m.waiting_on for m in (first, second))
    Match.objects.filter(pk=first.pk).update(status="finished")  # no longer anyone's turn
    expected -= "ana" in first.waiting_on
    client.force_login(ana)
    from django.test import RequestFactory

    from games.context_processors import your_turn

    request = RequestFactory().get("/")
    request.user = ana
    with django_assert_num_queries(1):
        shown = list(your_turn(request)["your_turn"])
        again = list(your_turn(request)["your_turn"])  # cached for the request
    assert len(shown) == expected and shown == again
    assert all(m["pk"] == second.pk for m in shown)
    body = client.get("/").content.decode()
    assert (f"Your turn ({expected})" in body) == bool(expected)


@pytest.mark.django_db
def test_the_waiting_notification_is_made_once_per_match_and_follows_the_turn(
    client, clockless_match
):
    ana, ben, _ = _players()
    users = {"ana": ana, "ben": ben}
    match = clockless_match(ana, ben)
    moves, kept, before = 0, 0, {}
    while match.status == "live" and moves < 60:
        notes = list(_waiting_notes(match))
        # exactly the users the match waits on have one note each
        assert sorted(n.user_id for n in notes) == sorted(users[s].pk for s in match.waiting_on)
        bout = services.load(match).state.bout_no + 1
        for n in notes:
            assert f"bout {bout}: " in n.text and "waits for you" in n.text
            if n.user_id in before and before[n.user_id].text == n.text:
                # still waiting on the same decision: the same note, not a new one
                assert before[n.user_id].pk == n.pk
                kept += 1
        before = {n.user_id: n for n in notes}
        seat = match.waiting_on[0]
        _, legal = services.legal_for(match, Viewer.of_seat(seat))
        services.submit(match, seat, legal[0], rng=random.Random(moves))
        match.refresh_from_db()
        moves += 1
    assert moves > 2 and kept > 0
    assert match.status == "finished"
    assert not _waiting_notes(match).exists()  # nothing waits on anyone now
    # the opening notes are untouched
    assert Notification.objects.filter(match=match, text__contains="has opened").count() == 2


@pytest.mark.django_db
def test_the_waiting_notification_is_on_the_players_home_page(client, clockless_match):
    ana, ben, _ = _players()
    match = clockless_match(ana, ben)
    notes = {n.user_id: n.text for n in _waiting_notes(match)}
    assert sorted(notes) == sorted([ana.pk, ben.pk])
    assert "(ana: bout 1: choose)" in notes[ana.pk] and "(ben: bout 1: choose)" in notes[ben.pk]
    client.force_login(ana)
    body = client.get("/").content.decode()
    assert notes[ana.pk] in body and notes[ben.pk] not in body


@pytest.mark.django_db
def test_the_badge_refreshes_itself_from_a_fragment_of_its_own(client, clockless_match):
    ana, ben, _ = _players()
    match = clockless_match(ana, ben)
    url = f"/games/matches/{match.pk}/"
    client.force_login(ben)
    page = client.get("/").content.decode()
    # every page asks the badge again now and then, so it appears without a reload
    assert 'id="your-turn-slot" hx-get="/games/your-turn/" hx-trigger="every 15s"' in page
    assert "Your turn (1)" in client.get("/games/your-turn/").content.decode()

    _, legal = services.legal_for(match, Viewer.of_seat("ben"))
    services.submit(match, "ben", legal[0], rng=random.Random(1))
    fragment = client.get("/games/your-turn/").content.decode()
    assert "Your turn" not in fragment and 'id="your-turn-slot"' in fragment  # it keeps asking
    client.force_login(ana)
    fragment = client.get("/games/your-turn/").content.decode()
    assert "Your turn (1)" in fragment and f'href="{url}"' in fragment

    client.logout()
    assert client.get("/games/your-turn/").content.decode().strip() == ""


@pytest.mark.django_db
def test_the_waiting_notes_are_the_same_whichever_database_writes_them(clockless_match):
    """On PostgreSQL one statement writes them (ids, texts and seat order
    computed in SQL); they must be what the Python rules say: one note per
    user, its seats in code point order, its id the stable one."""
    from types import SimpleNamespace

    from eventlog.readmodels import stable_id
    from games.waiting import note_waiting

    ana, ben, _cy = _players()
    match = services.create_match(
        "love-me-not",
        ["ben", "Zed"],
        holders={"ben": ana.pk, "Zed": ana.pk},  # one user, two seats
        options={"decision_s": 0},
        rng=random.Random(5),
    )
    match.refresh_from_db()
    decide = [SimpleNamespace(seat="ben", kind="play_card"), SimpleNamespace(seat="Zed", kind="x")]
    note_waiting(match, decide, bout_no=3)
    expected = f"{WAITING}{match} waits for you (Zed: bout 3: x) (ben: bout 3: play card)"
    assert list(_waiting_notes(match).values_list("id", "user_id", "text", "created_at")) == [
        (stable_id("waiting", match.pk, ana.pk), ana.pk, expected, match.updated_at)
    ]
    # the turn passes to a seat nobody holds any more: the note goes
    match.holders.filter(seat="Zed").update(user=ben)
    note_waiting(match, [SimpleNamespace(seat="Zed", kind="draw")], bout_no=0)
    assert list(_waiting_notes(match).values_list("id", "user_id", "text")) == [
        (
            stable_id("waiting", match.pk, ben.pk),
            ben.pk,
            f"{WAITING}{match} waits for you (Zed: draw)",
        )
    ]
    note_waiting(match, [])
    assert not _waiting_notes(match).exists()
