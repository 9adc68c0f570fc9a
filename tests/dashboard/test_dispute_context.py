"""A dispute points at the move the player sees: the form shows that move in
words with the moves around it, as the filer may see them (another seat's
cards stay hidden); the table's link follows the table's version; the show's
staff are told of a new dispute (a reminder, and the dashboard's socket:
tests/live/test_dashboard_socket.py)."""

import random
import re
import time

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from eventlog.store import read
from games import services as match_services
from games.core.protocol import Viewer
from games.models import Match
from games.presenters.table import table_for
from reminders.dispatch import remind_after_append
from reminders.models import DISPUTE_FILED, Reminder
from tournaments import show_services as ss
from tournaments.models import ShowRecord

pytestmark = pytest.mark.django_db


@pytest.fixture
def final():
    people = {n: User.objects.create_user(n, password="pw-123456") for n in ("olga", "mia", "pat")}
    stream = ss.create_show(
        name="Context night",
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0, "game_pool": ["love-letter"]},
        holders={"ana": people["pat"].pk, "ben": "bot:heuristic"},
        rng=random.Random(2),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    match = Match.objects.get(show_stream=stream, kind="final")
    match_services.run_bots(match, start=time.time(), rng=random.Random(4), max_moves=6)
    match.refresh_from_db()
    return ShowRecord.objects.get(stream=stream), match, people


def _lines(page: str) -> list[tuple[int, str]]:
    block = page.split('class="dispute-moves"', 1)[1].split("</ol>", 1)[0]
    found = re.findall(r'<li value="(\d+)"[^>]*>(.*?)</li>', block, flags=re.S)
    return [(int(v), re.sub(r"<[^>]+>", "", t).strip()) for v, t in found]


def test_the_form_shows_the_move_in_words_with_the_moves_around_it(client, final):
    record, match, people = final
    mine = {x.version: x.text for x in table_for(match, Viewer.of_seat("ana")).history}
    theirs = {x.version: x.text for x in table_for(match, Viewer.of_seat("ben")).history}
    v = sorted(mine)[len(mine) // 2]
    client.force_login(people["pat"])
    with translation.override("en"):
        page = client.get(f"/shows/{record.pk}/disputes/file?match={match.pk}&version={v}")
    body = page.content.decode()
    assert page.status_code == 200
    assert f"Move {v}: {mine[v]}" in body.replace("&#x27;", "'")
    shown = _lines(body)
    assert [n for n, _ in shown] == [n for n in sorted(mine) if abs(n - v) <= 2]
    assert all(text == mine[n].replace("'", "&#x27;") or text == mine[n] for n, text in shown)
    # ben's own lines (his cards) where they differ from what ana may see: never here
    secret = [theirs[n] for n, _ in shown if theirs.get(n) and theirs[n] != mine[n]]
    assert all(s not in body for s in secret)


def test_a_move_the_filer_does_not_see_is_said_so(client, final):
    record, match, people = final
    client.force_login(people["pat"])
    body = client.get(f"/shows/{record.pk}/disputes/file?match={match.pk}&version=999").content
    assert b"You do not see this event of the match" in body


def test_the_tables_dispute_link_follows_the_table(client, final):
    record, match, people = final
    client.force_login(people["pat"])
    body = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert (
        f'class="muted dispute-link"><a href="/shows/disputes/file/{match.pk}?version={match.version}"'
        in body
    )
    assert "js/dispute_link.js" in body


def test_a_new_dispute_reminds_the_shows_staff_but_its_filer(final):
    record, match, people = final
    rows = ss.command(
        record.stream,
        {"type": "file_dispute", "target_stream": match.stream, "target_version": 3, "text": "x"},
        ss.acting_for(record.stream, people["pat"]),
    )
    remind_after_append(rows)
    told = Reminder.objects.filter(kind=DISPUTE_FILED)
    assert sorted(told.values_list("user__username", flat=True)) == ["mia", "olga"]
    assert all(r.url == f"/shows/{record.pk}/dashboard/" for r in told)
    remind_after_append(rows)  # the reactor again: no one told twice
    assert told.count() == 2
    mia_files = ss.command(
        record.stream,
        {"type": "file_dispute", "target_stream": match.stream, "target_version": 4, "text": "y"},
        ss.acting_for(record.stream, people["mia"]),
    )
    remind_after_append(mia_files)
    assert sorted(told.values_list("user__username", flat=True)) == ["mia", "olga", "olga"]
    assert read(record.stream)[-1].type == "dispute_filed"
