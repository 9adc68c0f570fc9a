"""The organizer takes over from the demo's autopilot and hands back: one
show command each (organizer only, in the log), a button on the console's
show page with a confirmation, and the demo loop that then leaves the
organizer's steps to the person while the bots still make theirs."""

import random

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import autopilot, show_services, shows
from tournaments.demo import LIVE_DEMO
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee"]
OPTIONS = {
    "game_pool": ["love-me-not"],
    "death_match_first_to": 1,
    "final_game": "love-me-not",
    "final_first_to": 1,
    "step_deadline_s": 0,
}
ORG = show_services.Acting("olga", shows.ORGANIZER)


def make_show(organizer, name=LIVE_DEMO, holders=None):
    stream = show_services.create_show(
        name=name,
        organizer="olga",
        organizer_id=organizer.pk,
        entrants=ENTRANTS,
        options=OPTIONS,
        holders=holders or {e: "bot:heuristic" for e in ENTRANTS},
        rng=random.Random(4),
    )
    return ShowRecord.objects.get(stream=stream)


def owed(record):
    return [(d.seat, d.kind) for d in shows.pending(show_services.load(record.stream)[0])]


def released(record):
    return show_services.load(record.stream)[0].autopilot_released


def ranking():
    return {"type": "enter_ranking", "ranking": [[e] for e in ENTRANTS]}


@pytest.mark.django_db
def test_only_the_organizer_takes_over_and_hands_back_and_the_log_says_so(organizer, alice):
    record = make_show(organizer, name="Not the demo", holders={"ana": alice.pk})
    User.objects.create_user("mia")
    show_services.command(record.stream, {"type": "appoint_moderator", "username": "mia"}, ORG)
    for acting in (
        show_services.Acting("mia", shows.MODERATOR),
        show_services.acting_for(record.stream, alice),
    ):
        with pytest.raises(RuleError, match="only the organizer may take over"):
            show_services.command(record.stream, {"type": "release_autopilot"}, acting)
    with pytest.raises(RuleError, match="take over first"):
        show_services.command(record.stream, {"type": "resume_autopilot"}, ORG)
    show_services.command(record.stream, {"type": "release_autopilot", "reason": "mine"}, ORG)
    assert released(record)
    with pytest.raises(RuleError, match="taken over already"):
        show_services.command(record.stream, {"type": "release_autopilot"}, ORG)
    show_services.command(record.stream, {"type": "resume_autopilot"}, ORG)
    assert not released(record)
    audit = shows.audit_log(show_services.load(record.stream)[0])
    assert [(a["kind"], a["actor"], a["reason"]) for a in audit[-2:]] == [
        ("autopilot_released", "olga", "mine"),
        ("autopilot_resumed", "olga", ""),
    ]
    assert "olga takes over the organizer's steps" in audit[-2]["text"]


@pytest.mark.django_db
def test_the_autopilot_skips_the_organizers_steps_of_a_show_taken_over(organizer):
    record = make_show(organizer, name="Not the demo")
    rng = random.Random(5)
    show_services.command(record.stream, {"type": "release_autopilot"}, ORG)
    assert owed(record) == [("olga", "enter_ranking")]
    assert autopilot.step(record.stream, rng) is False  # the ranking is the person's
    show_services.command(record.stream, ranking(), ORG)
    while autopilot.step(record.stream, rng):  # the bots' steps: token, candidate, nomination
        pass
    assert owed(record) == [("olga", "pick_game")]
    assert not Match.objects.filter(show_stream=record.stream).exists()
    show_services.command(record.stream, {"type": "resume_autopilot"}, ORG)
    assert autopilot.step(record.stream, rng) is True  # the pick, by the autopilot again
    assert Match.objects.filter(show_stream=record.stream, kind="death_match").exists()


@pytest.mark.django_db
def test_the_demo_loop_leaves_a_taken_over_organizers_steps_and_plays_the_bots(organizer):
    record = make_show(organizer)
    show_services.command(record.stream, {"type": "release_autopilot"}, ORG)
    assert owed(record) == [("olga", "enter_ranking")]  # nobody made it for the person
    # the person's ranking: the demo makes the bots' steps after it, and waits for the pick
    show_services.command(record.stream, ranking(), ORG)
    assert owed(record) == [("olga", "pick_game")]
    # handing back: the autopilot picks at once and the death match opens
    show_services.command(record.stream, {"type": "resume_autopilot"}, ORG)
    dm = Match.objects.get(show_stream=record.stream, kind="death_match")
    # taken over again: when the death match ends, the next ranking waits for the person
    show_services.command(record.stream, {"type": "release_autopilot"}, ORG)
    match_services.run_bots(dm, start=dm.created_at.timestamp(), rng=random.Random(6))
    dm.refresh_from_db()
    assert dm.status == "finished"
    state = show_services.load(record.stream)[0]
    assert len(shows.active(state)) == 3 and owed(record) == [("olga", "enter_ranking")]


@pytest.mark.django_db
def test_the_console_button_takes_over_and_hands_back_with_a_confirmation(
    org_client, organizer, client
):
    record = make_show(organizer)
    url = reverse("console:show", args=[record.pk])
    page = org_client.get(url).content.decode()
    assert "Take over from the autopilot" in page and 'value="take_over"' in page
    switch = reverse("console:autopilot", args=[record.pk])
    resp = org_client.post(switch, {"switch": "take_over"})
    assert resp.status_code == 400 and "tick the box to confirm" in resp.content.decode()
    assert not released(record)
    resp = org_client.post(switch, {"switch": "take_over", "confirm": "on"})
    assert resp.status_code == 302 and released(record)
    page = org_client.get(url).content.decode()
    assert "Hand back to the autopilot" in page and 'value="hand_back"' in page
    # a stale page's second take-over is refused in the service's words
    resp = org_client.post(switch, {"switch": "take_over", "confirm": "on"})
    assert resp.status_code == 400 and "taken over already" in resp.content.decode()
    assert 'value="hand_back"' in resp.content.decode()  # the page now offers the way back
    resp = org_client.post(switch, {"switch": "hand_back", "confirm": "on"})
    assert resp.status_code == 302 and not released(record)
    assert owed(record) == [] and Match.objects.filter(show_stream=record.stream).exists()
    # a player may not switch it; a show the autopilot does not drive has no button
    client.force_login(User.objects.create_user("pat"))
    assert client.post(switch, {"switch": "take_over", "confirm": "on"}).status_code == 403
    assert not released(record)
    other = make_show(organizer, name="Not the demo")
    assert (
        "autopilot" not in org_client.get(reverse("console:show", args=[other.pk])).content.decode()
    )
    resp = org_client.post(
        reverse("console:autopilot", args=[other.pk]), {"switch": "take_over", "confirm": "on"}
    )
    assert resp.status_code == 403 and not released(other)
