"""A bracket's check-in before its draw (issue #43, point 2), as a scheduled
show's before its start: created with its check-in open, no series opens;
people holding entrants check in on the bracket's page (or the API); the
organizer's draw seeds only those present (bots always are) in their seed
order and drops the others, and the page says who was dropped. The series'
own ready-check stays (tests/clocks/test_ready_check.py)."""

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse

from eventlog.models import StoredEvent as Event
from games.models import Match
from tournaments import bracket_services as bs
from tournaments.models import BracketRecord

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return {
        n: User.objects.create_user(n, password="pw-123456") for n in ("olga", "ann", "bo", "x")
    }


def _bracket(people, **over):
    """Six entrants in seed order: ann and bo are people, four bots."""
    args = {
        "name": "Cup",
        "game": "higher-lower",
        "format": "single",
        "entrants": ["ann", "b1", "bo", "b2", "b3", "b4"],
        "holders": {
            "ann": people["ann"].pk,
            "bo": people["bo"].pk,
            **{b: "bot:random" for b in ("b1", "b2", "b3", "b4")},
        },
        "organizer_id": people["olga"].pk,
        "actor": "olga",
        "check_in": True,
    }
    return BracketRecord.objects.get(stream=bs.create_bracket(**(args | over)))


def _client(user, language="en"):
    c = Client()
    if user is not None:
        c.force_login(user)
    c.cookies["django_language"] = language
    return c


def _page(record):
    return reverse("tournaments:bracket", args=[record.pk])


def _events(record):
    return Event.objects.filter(stream=record.stream).count()


def test_no_series_opens_before_the_draw_and_the_page_says_who_checked_in(people):
    record = _bracket(people)
    assert record.status == "checking in"
    assert not Match.objects.filter(show_stream=record.stream).exists()
    page = _client(people["ann"]).get(_page(record)).content.decode()
    assert "Check-in before the draw" in page and "Check in (ann)" in page
    assert "Checked in: b1, b2, b3, b4" in page and "Not checked in yet: ann, bo" in page
    assert "Close the check-in and draw" not in page  # the organizer's alone
    page = _client(people["olga"], "fr").get(_page(record)).content.decode()
    assert "Inscription avant le tirage" in page and "Clore l’inscription et tirer" in page
    listed = _client(None).get("/shows/").content.decode()
    assert "checking in" in listed


def test_a_person_checks_in_once_for_their_own_entrant(people):
    record = _bracket(people)
    url = reverse("tournaments:bracket_check_in", args=[record.pk])
    before = _events(record)
    # nobody holding an entrant, logged out, or the organizer: refused, nothing written
    assert _client(people["x"]).post(url).status_code == 403
    assert _client(people["olga"]).post(url).status_code == 403
    assert _client(None).post(url).status_code == 403
    assert _client(people["ann"]).get(url).status_code == 405
    assert _events(record) == before
    resp = _client(people["ann"]).post(url)
    assert resp.status_code == 302
    assert _events(record) == before + 1
    again = _client(people["ann"]).post(url)
    assert again.status_code == 400 and "ann has checked in already" in again.content.decode()
    assert _events(record) == before + 1
    page = _client(people["ann"]).get(_page(record)).content.decode()
    assert "Checked in: ann, b1" in page and "Check in (ann)" not in page


def test_the_draw_seeds_those_present_in_their_order_and_drops_the_absent(people):
    record = _bracket(people)
    _client(people["ann"]).post(reverse("tournaments:bracket_check_in", args=[record.pk]))
    draw = reverse("tournaments:bracket_draw", args=[record.pk])
    before = _events(record)
    for who in ("ann", "bo", "x"):  # only the organizer draws
        assert _client(people[who]).post(draw).status_code == 403
    assert _events(record) == before
    resp = _client(people["olga"]).post(draw, follow=True)
    page = resp.content.decode()
    assert "dropped (did not check in): bo" in page
    assert "Dropped at the draw (did not check in): bo" in page
    record.refresh_from_db()
    assert record.status == "running" and record.entrants == ["ann", "b1", "b2", "b3", "b4"]
    # five seeded: size 8, ann (seed 1) has a bye, the series open at once
    seats = sorted(tuple(m.seats) for m in Match.objects.filter(show_stream=record.stream))
    assert seats and all("bo" not in s for s in seats)
    assert _client(people["olga"]).post(draw).status_code == 400  # drawn already
    check_in = reverse("tournaments:bracket_check_in", args=[record.pk])
    assert _client(people["bo"]).post(check_in).status_code == 400  # too late


def test_a_draw_with_fewer_than_two_present_is_refused_and_writes_nothing(people):
    record = _bracket(
        people,
        entrants=["ann", "bo"],
        holders={"ann": people["ann"].pk, "bo": people["bo"].pk},
    )
    _client(people["ann"]).post(reverse("tournaments:bracket_check_in", args=[record.pk]))
    before = _events(record)
    resp = _client(people["olga"]).post(reverse("tournaments:bracket_draw", args=[record.pk]))
    assert resp.status_code == 400
    assert "at least two entrants must check in" in resp.content.decode()
    assert _events(record) == before and not Match.objects.filter(show_stream=record.stream)


def test_a_bracket_without_check_in_opens_its_series_at_once(people):
    record = _bracket(people, check_in=False)
    assert record.status == "running"
    assert Match.objects.filter(show_stream=record.stream).exists()
    resp = _client(people["olga"]).post(reverse("tournaments:bracket_draw", args=[record.pk]))
    assert resp.status_code == 400  # nothing to draw: it is drawn


def test_the_console_creates_a_bracket_with_its_check_in(people):
    from django.contrib.auth.models import Permission

    olga = people["olga"]
    olga.user_permissions.add(
        *Permission.objects.filter(codename__in=["add_bracketrecord", "add_match"])
    )
    client = _client(User.objects.get(pk=olga.pk))
    resp = client.post(
        reverse("console:bracket_new"),
        {
            "name": "Late cup",
            "game": "higher-lower",
            "format": "single",
            "entrants": "ann = ann\nb1 = bot:level:1\nb2 = bot:level:1",
            "rated": "on",
            "check_in_first": "on",
        },
    )
    assert resp.status_code == 302, resp.content.decode()[:3000]
    record = BracketRecord.objects.get(name="Late cup")
    assert record.status == "checking in"
    assert not Match.objects.filter(show_stream=record.stream).exists()


def test_a_check_in_or_draw_sent_twice_with_one_command_id_writes_once(people):
    record = _bracket(people)
    ann, olga = _client(people["ann"]), _client(people["olga"])
    check_in = reverse("tournaments:bracket_check_in", args=[record.pk])
    draw = reverse("tournaments:bracket_draw", args=[record.pk])
    before = _events(record)
    for _ in range(2):  # the second is a retry: answered as the first, nothing written
        assert ann.post(check_in, {"command_id": "ann-here-1"}).status_code == 302
    assert _events(record) == before + 1
    # the same id from another account is another command: refused, nothing written
    bo = _client(people["bo"])
    assert bo.post(check_in, {"command_id": "ann-here-1"}).status_code == 400
    assert _events(record) == before + 1
    for _ in range(2):
        assert olga.post(draw, {"command_id": "draw-1"}).status_code == 302
    drawn = _events(record)
    assert Event.objects.filter(stream=record.stream, type="bracket_created").count() == 2
    assert olga.post(draw, {"command_id": "draw-1"}).status_code == 302
    assert _events(record) == drawn
