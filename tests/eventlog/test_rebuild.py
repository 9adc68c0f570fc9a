"""`rebuild_read_models` reproduces the live read models, primary keys
(child rows' too: seats, notifications, series, entrants, items, disputes) and
URLs included, survives deleted users, and loses nothing to writers running
while it works."""

import io
import random
import threading
import time

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.urls import reverse

from eventlog.models import StoredEvent
from eventlog.store import read, stream_version
from games import services
from games.models import Match, Notification, SeatHolder
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import (
    BracketRecord,
    BracketSeriesRecord,
    DisputeRecord,
    ItemRecord,
    ShowEntrantRecord,
    ShowRecord,
)

BOTS = {n: "bot:heuristic" for n in ("ana", "ben", "cal", "dee")}


def rebuild():
    call_command("rebuild_read_models", stdout=io.StringIO())


def everything():
    def rows(model, order, drop=()):
        return [
            {k: v for k, v in r.items() if k not in drop}
            for r in model.objects.order_by(*order).values()
        ]

    return {
        "matches": rows(Match, ["id"]),
        "holders": rows(SeatHolder, ["match_id", "seat"]),
        "notes": rows(Notification, ["match_id", "user_id", "text"]),
        # the kept fold and its token are a cache of the log, not a read of it
        "brackets": rows(BracketRecord, ["id"], drop=("folded", "fold_token")),
        "series": rows(BracketSeriesRecord, ["bracket_id", "position"]),
        "shows": rows(ShowRecord, ["id"], drop=("folded", "fold_token")),
        "entrants": rows(ShowEntrantRecord, ["show_id", "position"]),
        "items": rows(ItemRecord, ["show_id", "item_id"]),
        "disputes": rows(DisputeRecord, ["show_id", "dispute_id"]),
        "urls": sorted(
            [reverse("games:match", args=[pk]) for pk in Match.objects.values_list("pk", flat=True)]
            + [
                reverse("tournaments:bracket", args=[pk])
                for pk in BracketRecord.objects.values_list("pk", flat=True)
            ]
            + [
                reverse("tournaments:show", args=[pk])
                for pk in ShowRecord.objects.values_list("pk", flat=True)
            ]
        ),
    }


@pytest.mark.django_db
def test_rebuild_equals_live_with_the_same_ids_and_urls(client):
    rng = random.Random(3)
    ana = User.objects.create_user("ana_user", password="pw-123456")
    solo = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk, "ben": "bot:random"}, rng=rng
    )
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben", "cal", "dee"],
        holders=BOTS,
        rng=rng,
    )
    for m in Match.objects.filter(show_stream=stream, status="live"):
        services.run_bots(m, start=1_000_000.0, rng=rng)
    olga = User.objects.create_user("olga")
    User.objects.create_user("mia")
    night = ss.create_show(
        name="Night",
        organizer="olga",
        entrants=["ana", "ben"],
        holders={"ana": "bot:random"},
        rng=rng,
        organizer_id=olga.pk,
    )
    org, mia = ss.Acting("olga", shows.ORGANIZER), ss.Acting("mia", shows.MODERATOR)
    ss.command(night, {"type": "appoint_moderator", "username": "mia"}, org)
    grant = {"type": "grant_item", "entrant": "ben", "item": "insurance", "scope": "any"}
    ss.command(night, {**grant, "given_by": "mia", "reason": "for the test"}, mia)
    filed = {"type": "file_dispute", "target_stream": night, "target_version": 2}
    ss.command(night, {**filed, "text": "was that card legal?"}, mia)
    live = everything()
    for table in ("matches", "holders", "notes", "brackets", "series", "shows", "entrants"):
        assert live[table], table
    assert live["items"] and live["disputes"]
    page = client.get(reverse("games:match", args=[solo.pk]))
    assert page.status_code == 200
    rebuild()
    assert everything() == live
    assert client.get(reverse("games:match", args=[solo.pk])).status_code == 200


@pytest.mark.django_db
def test_rebuild_keeps_a_seat_whose_user_was_deleted():
    gone = User.objects.create_user("gone", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": gone.pk}, rng=random.Random(1)
    )
    gone.delete()
    live = everything()
    rebuild()
    assert everything() == live
    holder = SeatHolder.objects.get(match=match, seat="ana")
    assert holder.user is None and Match.objects.filter(pk=match.pk).exists()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_rebuild_while_bots_play_loses_nothing():
    bots = {"ana": "bot:heuristic", "ben": "bot:heuristic"}
    matches = [
        services.create_match(
            "doubting-love-letter", ["ana", "ben"], options={"first_to": 3}, holders=bots
        )
        for _ in range(3)
    ]
    errors = []

    def play(match, seed):
        from django.db import connection

        try:
            services.run_bots(match, start=1_000_000.0, rng=random.Random(seed))
        except Exception as exc:  # collected and asserted on below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=play, args=(m, i)) for i, m in enumerate(matches)]
    for t in threads:
        t.start()
    overlapped = 0
    for _ in range(3):
        time.sleep(0.2)
        before = StoredEvent.objects.count()
        rebuild()
        overlapped += any(t.is_alive() for t in threads) and StoredEvent.objects.count() > before
    for t in threads:
        t.join()
    assert errors == []
    assert overlapped, "no move was made while a rebuild ran"
    for m in matches:
        row = Match.objects.get(pk=m.pk)
        assert row.version == stream_version(m.stream) == len(read(m.stream))
        assert row.status == "finished"
    live = everything()
    rebuild()
    assert everything() == live


@pytest.mark.django_db
def test_an_append_of_many_events_writes_the_match_row_once_as_a_rebuild_would(next_bot_move):
    """The match row's version and time are the append's last event's: the
    events before it in the same append leave that to it (one UPDATE, not
    one per event), and a rebuild event by event gives the same row."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    rng = random.Random(5)
    match = services.create_match("doubting-love-letter", ["ana", "ben"], rng=rng)
    longest = (0, 0)  # events appended, match-row UPDATEs they cost
    for _ in range(60):
        if match.status == "finished":
            break
        seat, command = next_bot_move(match, rng)
        with CaptureQueriesContext(connection) as queries:
            rows = services.submit(match, seat, command, rng=rng)
        updates = sum(q["sql"].startswith('UPDATE "games_match" SET "version"') for q in queries)
        longest = max(longest, (len(rows), updates))
        match.refresh_from_db()
        assert match.version == rows[-1].version
    appended, updates = longest
    assert appended >= 4  # a bout's end and the next deal: many events in one append
    assert updates < appended
    live = everything()
    rebuild()
    assert everything() == live
