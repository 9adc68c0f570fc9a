"""Brackets and one-off matches from the console's forms."""

import random

from django.urls import reverse

from eventlog.models import StoredEvent
from games import services as match_services
from games.models import Match
from tournaments.bracket_services import bracket_output
from tournaments.models import BracketRecord

EIGHT = "\n".join(f"p{i} = bot:heuristic" for i in range(1, 9))


def test_a_single_elimination_bracket_of_eight_is_created_started_and_advances(org_client):
    resp = org_client.post(
        reverse("console:bracket_new"),
        {
            "name": "Cup",
            "game": "higher-lower",
            "format": "single",
            "entrants": EIGHT,
            "first_to": 1,
        },
    )
    assert resp.status_code == 302
    record = BracketRecord.objects.get()
    assert resp["Location"] == reverse("tournaments:bracket", args=[record.pk])
    out = bracket_output(record.stream)
    first = [s for s in out["series"] if s["round"] == "R1"]
    # seeded by the form's order: 1 v 8, 2 v 7, ...
    assert sorted((s["a"], s["b"]) for s in first) == [
        ("p1", "p8"),
        ("p2", "p7"),
        ("p3", "p6"),
        ("p4", "p5"),
    ]
    live = Match.objects.filter(show_stream=record.stream, status="live")
    assert live.count() == 4  # started: the first round's series are open
    rng, t = random.Random(3), 0.0
    for match in live:
        t = match_services.run_bots(match, start=t, rng=rng)
    out = bracket_output(record.stream)
    winners = {s["winner"] for s in out["series"] if s["round"] == "R1"}
    second = [s for s in out["series"] if s["round"] == "R2"]
    assert len(second) == 2 and {s["a"] for s in second} | {s["b"] for s in second} == winners
    page = org_client.get(reverse("tournaments:bracket", args=[record.pk]))
    assert page.status_code == 200


def test_a_bracket_refusal_names_the_rule_and_writes_nothing(org_client):
    before = StoredEvent.objects.count()
    resp = org_client.post(
        reverse("console:bracket_new"),
        {"name": "Cup", "game": "higher-lower", "format": "single", "entrants": "p1\np1"},
    )
    assert resp.status_code == 400
    form = resp.context["form"]
    assert form.errors and "p1" in str(form.errors)
    assert StoredEvent.objects.count() == before and not BracketRecord.objects.exists()


def test_a_one_off_match_with_an_account_and_a_bot(org_client, organizer, alice):
    resp = org_client.post(
        reverse("console:match_new"),
        {
            "game": "love-letter",
            "title": "Grudge match",
            "seats": "Alice = alice\nRobo = bot:heuristic",
            "options": '{"first_to": 2}',
            "spectator_delay_s": 30,
        },
    )
    assert resp.status_code == 302
    match = Match.objects.get()
    assert resp["Location"] == reverse("games:match", args=[match.pk])
    assert match.seats == ["Alice", "Robo"] and match.title == "Grudge match"
    assert match.show_stream == ""
    created = StoredEvent.objects.filter(stream=match.stream).order_by("version").first()
    assert created.data["holders"] == {"Alice": alice.pk, "Robo": "bot:heuristic"}


def test_one_off_match_errors_show_the_services_words_and_write_nothing(org_client):
    before = StoredEvent.objects.count()
    bad = [
        ({"seats": "A\nB", "options": '{"first_to": 0}'}, "options"),
        ({"seats": "A\nB", "options": "[1]"}, "options"),
        ({"seats": "A = nobody\nB", "options": ""}, "seats"),
    ]
    for over, field in bad:
        data = {"game": "love-letter", "spectator_delay_s": 0, **over}
        resp = org_client.post(reverse("console:match_new"), data)
        assert resp.status_code == 400, over
        assert resp.context["form"].errors.get(field), (over, resp.context["form"].errors)
    assert StoredEvent.objects.count() == before and not Match.objects.exists()
