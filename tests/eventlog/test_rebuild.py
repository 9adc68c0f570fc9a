"""`rebuild_read_models` reproduces the live read models, every table the
rebuild writes (matches, seats, notifications, brackets, series, shows,
entrants, items, disputes, ratings, rating points, participations, entries,
seasons), primary keys and URLs included, survives deleted users, and stops
no writer: it rebuilds one stream at a time under that stream's lock, so
appends to other streams commit while it works and an append to the stream
it holds is projected after it, never lost."""

import io
import random
import re
import threading
import time
from contextlib import contextmanager

import pytest
from django.contrib.auth.models import Permission, User
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from chat import services as chat
from chat.models import ChatBlock, ChatMessage, ChatReport, ChatRoomState, ChatTimeout
from chat.rooms import SHOW, show_room
from eventlog import readmodels as eventlog_readmodels
from eventlog import store
from eventlog.models import StoredEvent
from eventlog.readmodels import _ReadModel
from eventlog.store import read, stream_version
from games import services
from games.models import Match, Notification, SeatHolder
from ratings import seasons
from ratings.models import Entry, Participation, PlayedMatch, Rating, RatingPoint, Season
from tests.ratings.helpers import play_out, rated_match
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

# every read-model table, compared row by row with its primary key; the kept
# fold snapshot is a cache of the log, not a read of it
READ_MODELS = {
    Match: (),
    SeatHolder: (),
    Notification: (),
    BracketRecord: ("folded",),
    BracketSeriesRecord: (),
    ShowRecord: ("folded",),
    ShowEntrantRecord: (),
    ItemRecord: (),
    DisputeRecord: (),
    PlayedMatch: (),
    Participation: (),
    Rating: (),
    RatingPoint: (),
    Entry: (),
    Season: (),
    ChatMessage: (),
    ChatReport: (),
    ChatRoomState: (),
    ChatTimeout: ("id",),  # a timeout and a block are known by their unique key
    ChatBlock: ("id",),
}


def rebuild():
    call_command("rebuild_read_models", stdout=io.StringIO())


def everything():
    out = {
        model._meta.db_table: [
            {k: v for k, v in r.items() if k not in drop}
            for r in model.objects.order_by("pk").values()
        ]
        for model, drop in READ_MODELS.items()
    }
    out["urls"] = sorted(
        [reverse("games:match", args=[pk]) for pk in Match.objects.values_list("pk", flat=True)]
        + [
            reverse("tournaments:bracket", args=[pk])
            for pk in BracketRecord.objects.values_list("pk", flat=True)
        ]
        + [
            reverse("tournaments:show", args=[pk])
            for pk in ShowRecord.objects.values_list("pk", flat=True)
        ]
    )
    return out


def assert_rebuild_changes_nothing() -> None:
    live = everything()
    rebuild()
    assert everything() == live


def tables_written(queries) -> set[str]:
    written = re.compile(r'^(?:INSERT INTO|UPDATE|DELETE FROM) "(\w+)"')
    return {m.group(1) for q in queries if (m := written.match(q["sql"]))}


def chat_everything(show, ana, ben) -> None:
    """A row in each chat table: a message, reported, hidden, its author timed
    out (of the room, then of the show's rooms), slow mode, the room closed,
    the show's word list, a block."""
    room, mia = show_room(show, SHOW), User.objects.get(username="mia")
    row = chat.post(room, ana, "hello")
    chat.report(room, User.objects.get(username="olga"), row.id, "rude")  # reads it live
    chat.hide(room, mia, row.id, "rude")
    chat.time_out(room, mia, ana.pk, "5m")
    chat.slow_mode(room, mia, 5)
    chat.close_room(room, mia)
    chat.set_words(show, mia, ["bad"])
    chat.time_out(room, mia, ana.pk, "1h", scope="show")
    chat.block(ben, ana.pk)


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_rebuild_equals_live_in_every_table_with_the_same_ids_and_urls(client):
    rng = random.Random(3)
    ana = User.objects.create_user("ana_user", password="pw-123456")
    ben = User.objects.create_user("ben_user", password="pw-123456")
    solo = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk, "ben": "bot:random"}, rng=rng
    )
    # two rated matches of one game, the second ended first: ratings, points
    now = time.time() - 3 * 86_400
    first = rated_match("love-me-not", {"ana": ana.pk, "ben": ben.pk}, now=now, rng=rng)
    second = rated_match("love-me-not", {"ben": ben.pk, "ana": ana.pk}, now=now, rng=rng)
    play_out(second, rng, now=now)
    play_out(first, rng, now=now + 60)
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben", "cal", "dee"],
        holders={**BOTS, "ana": ana.pk},
        rng=rng,
    )
    for m in Match.objects.filter(show_stream=stream, status="live"):
        services.run_bots(m, start=1_000_000.0, rng=rng)
    olga = User.objects.create_user("olga")
    olga.user_permissions.add(Permission.objects.get(codename="add_match"))
    seasons.name_season(olga, name="Autumn", starts="2030-09-01", ends="2030-11-30")
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
    chat_everything(ShowRecord.objects.get(stream=night), ana, ben)
    live = everything()
    for model in READ_MODELS:
        assert live[model._meta.db_table], model.__name__  # every table has rows to compare
    page = client.get(reverse("games:match", args=[solo.pk]))
    assert page.status_code == 200
    with CaptureQueriesContext(connection) as queries:
        rebuild()
    # the comparison covers every table the rebuild writes, and nothing else
    assert tables_written(queries) == {m._meta.db_table for m in READ_MODELS}
    assert everything() == live
    assert client.get(reverse("games:match", args=[solo.pk])).status_code == 200


@pytest.mark.django_db
def test_a_rebuild_drops_rows_of_streams_the_log_does_not_have():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(2))
    live = everything()
    Match.objects.create(
        pk=10**12,  # read models choose their ids: none is ever this one
        stream="match-nowhere",
        game="love-me-not",
        seats=["a", "b"],
        created_at=match.created_at,
        updated_at=match.updated_at,
    )
    Entry.objects.create(
        pk=10**12,
        player="bot:random",
        stream="show-nowhere",
        entrant="a",
        name="x",
        created_at=match.created_at,
    )
    rebuild()
    assert everything() == live


@pytest.mark.django_db
def test_the_command_shows_its_progress_in_events():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(6))
    total = StoredEvent.objects.count()
    assert total == len(read(match.stream)) > 1
    out = io.StringIO()
    call_command("rebuild_read_models", stdout=out)
    shown = out.getvalue()
    assert f"\r[{'#' * 30}] {total}/{total} events" in shown
    assert f"rebuilt read models from {total} events" in shown


@pytest.mark.django_db
def test_rebuild_keeps_a_seat_whose_user_was_deleted():
    gone = User.objects.create_user("gone", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": gone.pk}, rng=random.Random(1)
    )
    gone.delete()
    assert_rebuild_changes_nothing()
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
    assert_rebuild_changes_nothing()


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
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
    assert_rebuild_changes_nothing()


# ---- writers while a rebuild runs (PostgreSQL: threads, each its own connection) ----


class Gate:
    """A projector that holds the first row ``pick(row)`` chooses (in its
    transaction) until ``go`` is set; ``reached`` says it is there."""

    def __init__(self, pick):
        self.pick, self.used = pick, False
        self.reached, self.go = threading.Event(), threading.Event()

    def __call__(self, row):
        if not self.used and self.pick(row):
            self.used = True
            self.reached.set()
            assert self.go.wait(300), "the test never opened the gate"


def appended(row) -> bool:
    """A row being appended (a rebuild replays rows that carry no append mark)."""
    return hasattr(row, "followed_in_append")


class Worker(threading.Thread):
    """Runs ``fn`` on its own database connection; ``error`` is what it raised."""

    def __init__(self, fn, name: str | None = None):
        super().__init__(daemon=True, name=name)
        self.fn, self.error, self.done = fn, None, threading.Event()
        self.start()

    def run(self):
        try:
            self.fn()
        except BaseException as exc:  # asserted on by the test
            self.error = exc
        finally:
            connection.close()
            self.done.set()


@contextmanager
def held_at(gate, fn, name: str | None = None):
    """``fn`` run in a Worker until it reaches ``gate``; the block runs while
    it is held there, then the gate opens and the worker must end without error."""
    held = Worker(fn, name=name)
    assert gate.reached.wait(120), held.error
    try:
        yield held
    finally:
        gate.go.set()
        held.join()
    assert held.error is None, held.error


def finished(worker: Worker) -> None:
    worker.join()
    assert worker.error is None, worker.error


def waiting_on_a_lock() -> bool:
    with connection.cursor() as cur:
        cur.execute(  # this database's sessions only: the server may be shared
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND pid IN "
            "(SELECT pid FROM pg_stat_activity WHERE datname = current_database())"
        )
        return cur.fetchone()[0] > 0


def wait_for(condition, what: str) -> None:
    for _ in range(1200):
        if condition():
            return
        time.sleep(0.05)
    pytest.fail(f"never happened: {what}")


def move(match, seed: int = 0):
    seat, command = _next_bot_move(match, random.Random(seed))
    return services.submit(match, seat, command, actor=seat)


def _next_bot_move(match, rng):
    from games.core.playout import bot_command
    from games.core.registry import series_for

    series = series_for(match.game)
    state = services.load(match).state
    seat = series.pending(state)[0].seat
    return seat, bot_command(series, state, seat, "random", rng)


def _two_live_matches():
    bots = {"ana": "bot:random", "ben": "bot:random"}
    options = {"first_to": 5}
    return [
        services.create_match(
            "doubting-love-letter",
            ["ana", "ben"],
            holders=bots,
            options=options,
            rng=random.Random(i),
        )
        for i in range(2)
    ]


@pytest.fixture
def gates(monkeypatch):
    """``gates(pick)``: a Gate among the projectors (appends and rebuilds)."""
    made = []

    def add(pick):
        gate = Gate(pick)
        monkeypatch.setattr(store, "_projectors", [*store._projectors, gate])
        made.append(gate)
        return gate

    yield add
    for gate in made:
        gate.go.set()  # a failed test leaves no thread waiting


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_append_to_another_stream_commits_while_a_rebuild_holds_one(gates):
    held, other = _two_live_matches()
    gate = gates(lambda row: not appended(row) and row.stream == held.stream)
    with held_at(gate, rebuild) as rebuilding:
        before = stream_version(other.stream)
        writer = Worker(lambda: move(other))
        writer.done.wait(60)  # a bound for a failing run: the append waits for nothing
        committed = stream_version(other.stream)  # read on another connection: committed
        still_rebuilding = rebuilding.is_alive()
    finished(writer)
    assert still_rebuilding and committed > before, "the append waited for the rebuild"
    assert Match.objects.get(pk=other.pk).version == stream_version(other.stream)
    assert_rebuild_changes_nothing()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_append_to_the_stream_being_rebuilt_waits_and_lands_on_the_rebuilt_rows(gates):
    held, _ = _two_live_matches()
    gate = gates(lambda row: not appended(row) and row.stream == held.stream)
    with held_at(gate, rebuild):
        before = stream_version(held.stream)
        writer = Worker(lambda: move(held, seed=1))
        wait_for(lambda: waiting_on_a_lock() or writer.done.is_set(), "the append waits")
        assert not writer.done.is_set(), "an append to the stream being rebuilt did not wait"
    finished(writer)
    assert stream_version(held.stream) > before
    row = Match.objects.get(pk=held.pk)
    assert row.version == stream_version(held.stream) == len(read(held.stream))
    assert_rebuild_changes_nothing()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_rebuild_waits_for_an_append_in_flight_on_its_stream_and_replays_it(gates):
    held, _ = _two_live_matches()
    gate = gates(lambda row: appended(row) and row.stream == held.stream)
    with held_at(gate, lambda: move(held, seed=2)):
        rebuilding = Worker(rebuild)
        wait_for(lambda: waiting_on_a_lock() or rebuilding.done.is_set(), "the rebuild waits")
    finished(rebuilding)
    row = Match.objects.get(pk=held.pk)
    assert row.version == stream_version(held.stream) == len(read(held.stream))
    assert_rebuild_changes_nothing()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_matches_of_one_game_ending_at_once_are_both_rated(gates):
    """A match's rating is written on the ratings the last one left: two
    ends of one game take turns (before, the second read the ratings the
    first had not committed yet and overwrote them)."""
    ana = User.objects.create_user("ana_user")
    ben = User.objects.create_user("ben_user")
    now = time.time() - 86_400
    one, two = (
        rated_match("love-me-not", {"ana": ana.pk, "ben": ben.pk}, now=now, rng=random.Random(i))
        for i in range(2)
    )

    def forfeit(match):
        command = {"type": "forfeit", "loser": "ben", "reason": "left"}
        return lambda: services.submit(match, None, command, role="moderator", now=now + 5)

    gate = gates(
        lambda row: appended(row) and row.stream == one.stream and row.type.startswith("series_")
    )
    with held_at(gate, forfeit(one)):
        second = Worker(forfeit(two))
        wait_for(lambda: waiting_on_a_lock() or second.done.is_set(), "the second end waits")
    finished(second)
    assert set(Rating.objects.values_list("player", "games")) == {
        (f"u:{ana.pk}", 2),
        (f"u:{ben.pk}", 2),
    }
    assert_rebuild_changes_nothing()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_match_that_ends_while_a_rebuild_re_rates_its_game_is_rated_after_it(gates, monkeypatch):
    from ratings import readmodels as ratings_readmodels

    ana = User.objects.create_user("ana_user")
    ben = User.objects.create_user("ben_user")
    now = time.time() - 86_400
    rng = random.Random(4)
    done = rated_match("love-me-not", {"ana": ana.pk, "ben": ben.pk}, now=now, rng=rng)
    play_out(done, rng, now=now)
    ending = rated_match("love-me-not", {"ana": ana.pk, "ben": ben.pk}, now=now, rng=rng)
    refold = ratings_readmodels.refold
    paused = Gate(lambda game: threading.current_thread().name == "rebuild")

    def held_refold(game):  # the game re-folded, not committed yet
        refold(game)
        paused(game)

    monkeypatch.setattr(ratings_readmodels, "refold", held_refold)
    command = {"type": "forfeit", "loser": "ben", "reason": "left"}
    with held_at(paused, rebuild, name="rebuild"):
        writer = Worker(
            lambda: services.submit(ending, None, command, role="moderator", now=now + 9)
        )
        wait_for(lambda: waiting_on_a_lock() or writer.done.is_set(), "the match end waits")
    finished(writer)
    assert set(Rating.objects.values_list("player", "games")) == {
        (f"u:{ana.pk}", 2),
        (f"u:{ben.pk}", 2),
    }
    assert_rebuild_changes_nothing()


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_move_whose_statement_waited_for_a_rebuild_writes_the_rebuilt_match_row(monkeypatch):
    """The move's one statement (its match row written inline, no projector
    in the way) takes its snapshot before the rebuild commits: its UPDATE
    sees only the row the rebuild deleted (the row would stay behind the log,
    with an old deadline). The statement sees that and undoes itself, and the
    move is made again in a transaction that sees the rebuilt row."""
    held, _ = _two_live_matches()
    gate = Gate(lambda stream: stream == held.stream)
    held_forget = _ReadModel(gate, None, None, None)
    monkeypatch.setattr(eventlog_readmodels, "_models", [*eventlog_readmodels._models, held_forget])
    statements, run_append = [], store._run_append

    def noted_run_append(n, params, inline=None, whole=False):
        statements.append((inline is not None, whole))
        return run_append(n, params, inline, whole)

    monkeypatch.setattr(store, "_run_append", noted_run_append)
    appends = []
    with held_at(gate, rebuild):
        writer = Worker(lambda: appends.append(move(held, seed=3)))
        wait_for(lambda: waiting_on_a_lock() or writer.done.is_set(), "the append waits")
        assert not writer.done.is_set(), "an append to the stream being rebuilt did not wait"
    finished(writer)
    # alone, its statement undid itself; again in a transaction, after the
    # rebuild, its writes found the rebuilt row
    assert statements == [(True, True), (True, False)], statements
    row = Match.objects.get(pk=held.pk)
    assert row.version == stream_version(held.stream) == len(read(held.stream))
    assert row.updated_at == read(held.stream)[-1].recorded_at
    assert appends[0].inline
    assert_rebuild_changes_nothing()
