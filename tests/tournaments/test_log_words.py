"""A show's log as people read it, on the show page, the console and the
dashboard: a match by its title and a move by its number, never a stream
or a dispute's or item's id; in French under fr."""

import random
import re

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from eventlog.store import read
from games.models import Match
from tournaments import show_services as ss
from tournaments.log_words import describe
from tournaments.models import ShowRecord

RAW = re.compile(r"match-[0-9a-f]{6,}|\bd-\d+\b|\bi-\d+\b")


@pytest.fixture
def show(db):
    people = {n: User.objects.create_user(n, password="pw-123456") for n in ("olga", "pat", "mia")}
    stream = ss.create_show(
        name="Words night",
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={"ana": people["pat"].pk, "ben": "bot:heuristic"},
        rng=random.Random(2),
    )
    olga = ss.Acting("olga", "organizer")
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, olga)
    final = Match.objects.get(show_stream=stream, kind="final")
    version = read(final.stream)[-1].version
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": final.stream,
            "target_version": version,
            "text": "x",
        },
        ss.acting_for(stream, people["pat"]),
    )
    ss.command(
        stream,
        {"type": "grant_item", "entrant": "ana", "item": "plus_one", "given_by": "mia"},
        ss.Acting("mia", "moderator"),
    )
    return ShowRecord.objects.get(stream=stream), final, version, people


def _log(html):
    m = re.search(r"<h2>[^<]*</h2>\s*<ol>(.*?)</ol>", html.split("Public log", 1)[-1], re.S)
    return m.group(1) if m else html


@pytest.mark.django_db
def test_the_show_page_names_the_match_and_the_move_never_an_id(client, show):
    record, final, version, _people = show
    html = client.get(f"/shows/{record.pk}/").content.decode()
    assert f"dispute no. 1 filed about {final}, move {version}" in html
    assert not RAW.search(html.split("Public log", 1)[1]), RAW.search(
        html.split("Public log", 1)[1]
    )


@pytest.mark.django_db
def test_the_console_and_the_dashboard_read_the_same(client, show):
    record, final, version, people = show
    client.force_login(people["olga"])
    console = client.get(f"/console/shows/{record.pk}/").content.decode()
    assert f"dispute no. 1 filed about {final}, move {version}" in console
    client.force_login(people["mia"])
    dashboard = client.get(f"/shows/{record.pk}/dashboard/").content.decode()
    assert "ana receives Plus One, given by mia" in dashboard


@pytest.mark.django_db
def test_the_show_log_in_french(client, show):
    record, final, version, _people = show
    client.cookies["django_language"] = "fr"
    html = client.get(f"/shows/{record.pk}/", HTTP_ACCEPT_LANGUAGE="fr").content.decode()
    assert f"litige n° 1 déposé sur {final}, coup {version}" in html


def test_every_event_reads_without_raw_ids():
    with translation.override("en"):
        _every_event_reads_without_raw_ids()


def _every_event_reads_without_raw_ids():
    titles = {"match-0123456789abcdef": "Final: ana v ben"}
    d = {"dispute_id": "d-4", "target_stream": "match-0123456789abcdef", "target_version": 7}
    assert (
        describe("dispute_filed", d, titles) == "dispute no. 4 filed about Final: ana v ben, move 7"
    )
    assert (
        describe("item_used", {"entrant": "ana", "item": "plus_one", "item_id": "i-2"}, {})
        == "ana uses Plus One"
    )
    assert describe("show_started", {"entrants": ["a"]}, {}) == "the show starts with 1 entrant"


@pytest.mark.parametrize(
    "language, said",
    [
        ("en", ["round 1: main match won by dan", "round 1 (Heat) planned", "round 2 ends"]),
        ("fr", ["manche 1\u00a0: match principal gagné par dan", "la manche 2 se termine"]),
    ],
)
def test_a_round_is_said_by_its_number_never_its_id(language, said):
    events = [
        ("ranking_entered", {"round": "r1", "winners": ["dan"]}),
        ("round_added", {"round": "r1", "title": "Heat"}),
        ("rounds_reordered", {"order": ["r2", "r1"]}),
        ("round_finished", {"round": "r2"}),
    ]
    with translation.override(language):
        lines = [describe(kind, d, {}) for kind, d in events]
    for words in said:
        assert words in lines, (words, lines)
    assert not any(re.search(r"\br\d+\b", line) for line in lines), lines
    assert lines[2].endswith("2, 1")


@pytest.mark.django_db
def test_the_french_show_page_says_the_round_of_a_main_match_by_its_number(client):
    from tests.i18n.test_made_words import _show_to_a_death_match

    ada = User.objects.create_user("ada_p", password="pw-123456")
    stream, _dm = _show_to_a_death_match(ada)
    record = ShowRecord.objects.get(stream=stream)
    page = client.get(record.get_absolute_url()).content.decode()
    assert "round 1: main match won by" in page
    client.cookies["django_language"] = "fr"
    page = client.get(record.get_absolute_url()).content.decode()
    assert "manche 1\u00a0: match principal gagné par" in page and "manche r1" not in page
