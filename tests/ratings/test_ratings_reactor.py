"""A match's result is rated by the ``ratings`` reactor after its append
commits, as production runs it (``run_reactors``): the move that ends the
match writes no rating and takes no ratings lock, the follower rates it,
and a follower that reads the same events again changes nothing."""

import importlib
import random
import time
from types import SimpleNamespace

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import services
from ratings.models import PlayedMatch, Rating, RatingPoint
from reactors.follow import Follower
from reactors.models import ReactorPartition
from reactors.positions import partition_of
from tests.ratings.direct import replay, results_from_log
from tests.ratings.helpers import DAY, accounts, rated_match

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _end(match, rng, now: float, next_bot_move) -> list[str]:
    """Play ``match`` out; the SQL of the append that ended it."""
    t = now
    while match.status == "live":
        seat, command = next_bot_move(match, rng)
        with CaptureQueriesContext(connection) as seen:
            services.submit(match, seat, command, actor=seat, now=t)
        t += 1
        match.refresh_from_db()
    return [q["sql"] for q in seen.captured_queries]


def _ended(seed: int, next_bot_move):
    """A rated love-me-not match of ana and ben three days ago, played out;
    (the match, the accounts, when it started)."""
    users = accounts("ana", "ben")
    now = time.time() - 3 * DAY
    match = rated_match("love-me-not", {"ana": users["ana"].pk, "ben": users["ben"].pk}, now=now)
    _end(match, random.Random(seed), now, next_bot_move)
    return match, users, now


def _assert_the_replayed_logs(users) -> dict:
    """The stored ratings are those of love-me-not's results replayed from
    the log (tests.ratings.direct); the stored ones, by player key."""
    expected = replay(results_from_log("love-me-not"))
    got = {p: (mu, sigma, games) for p, mu, sigma, games in _ratings()["ratings"]}
    for name, (mu, sigma, games) in expected.items():
        mine = got[f"u:{users[name].pk}"]
        assert mine == (pytest.approx(mu, abs=1e-9), pytest.approx(sigma, abs=1e-9), games)
    return got


def _ratings() -> dict:
    return {
        "ratings": sorted(Rating.objects.values_list("player", "mu", "sigma", "games")),
        "points": sorted(RatingPoint.objects.values_list("id", "player", "mu", "sigma")),
    }


def test_a_match_is_rated_after_its_commit_and_once_however_often_it_is_read(
    settings, next_bot_move
):
    settings.REACTORS_INLINE = False  # production: the reactors' own processes
    users = accounts("ana", "ben")
    rng = random.Random(4)
    now = time.time() - 3 * DAY
    first = rated_match("love-me-not", {"ana": users["ana"].pk, "ben": users["ben"].pk}, now=now)
    ending = _end(first, rng, now, next_bot_move)
    assert not [q for q in ending if "ratings_" in q], ending  # no rating, no ratings lock
    assert not [q for q in ending if "pg_advisory_xact_lock(hashtext" in q]
    assert not PlayedMatch.objects.exists() and not Rating.objects.exists()

    follower = Follower()
    follower.beat()
    follower.catch_up()
    assert PlayedMatch.objects.get(stream=first.stream).rated
    got = _assert_the_replayed_logs(users)
    assert {u.pk for u in users.values()} == {int(p.split(":")[1]) for p in got}

    # a second match rated on top of the first, then every event read again
    second = rated_match(
        "love-me-not", {"ben": users["ben"].pk, "ana": users["ana"].pk}, now=now + DAY
    )
    _end(second, rng, now + DAY, next_bot_move)
    follower.catch_up()
    rated = _ratings()
    assert len(rated["points"]) == 4
    ReactorPartition.objects.filter(reactor="ratings").update(after_tx=0, after_id=0)
    with CaptureQueriesContext(connection) as again:
        follower.catch_up()
    follower.leave()
    assert _ratings() == rated
    writes = [q["sql"] for q in again.captured_queries if q["sql"].startswith(("DELETE", "INSERT"))]
    assert not [q for q in writes if "ratings_" in q], writes  # nothing re-rated


def _migration_start_at_the_tip():
    from django.apps import apps

    migration = importlib.import_module("ratings.migrations.0002_ratings_reactor_starts_at_the_tip")
    migration.start_at_the_tip(apps, SimpleNamespace(connection=connection))


def test_the_ratings_reactor_starts_where_the_log_ended_when_it_was_added(settings, next_bot_move):
    """Its migration puts its checkpoints at the log's end: a match ended
    before (rated inside its append, by the code of then) is not read again;
    one ended after is rated."""
    settings.REACTORS_INLINE = False
    users = accounts("ana", "ben")
    rng = random.Random(9)
    now = time.time() - 3 * DAY
    seats = {"ana": users["ana"].pk, "ben": users["ben"].pk}
    before = rated_match("love-me-not", seats, now=now)
    _end(before, rng, now, next_bot_move)
    ReactorPartition.objects.all().delete()  # a log older than its reactors
    _migration_start_at_the_tip()
    _migration_start_at_the_tip()  # again: the rows it made stay as they are

    follower = Follower()
    follower.beat()
    ratings = {
        p.partition: (p.after_tx, p.after_id)
        for p in ReactorPartition.objects.filter(reactor="ratings", after_id__gt=0)
    }
    assert partition_of(before.stream) in ratings
    follower.catch_up()
    # the match before it: not read again
    assert not PlayedMatch.objects.exists(), (
        before.stream,
        list(PlayedMatch.objects.values_list("stream", "position")),
        ratings,
        list(ReactorPartition.objects.values_list("reactor", "partition", "after_tx", "after_id")),
    )
    for p, position in ratings.items():  # where the others moved to: one read for all
        others = ReactorPartition.objects.filter(partition=p).exclude(reactor="ratings")
        assert {(o.after_tx, o.after_id) for o in others} == {position}

    after = rated_match("love-me-not", seats, now=now + DAY)
    _end(after, rng, now + DAY, next_bot_move)
    follower.catch_up()
    follower.leave()
    assert list(PlayedMatch.objects.values_list("stream", flat=True)) == [after.stream]


def test_a_first_result_is_one_insert_and_a_changed_one_is_rewritten_in_place(
    settings, next_bot_move
):
    """The reactor reads the played row once, under the game's lock: a match's
    first result is one INSERT (no look-up again, no savepoint, no delete of
    participations it cannot have); an overturned result rewrites the same row
    and its participations."""
    settings.REACTORS_INLINE = False
    match, users, now = _ended(5, next_bot_move)
    follower = Follower()
    follower.beat()
    with CaptureQueriesContext(connection) as seen:
        follower.catch_up()
    played_sql = [q["sql"] for q in seen.captured_queries if "ratings_playedmatch" in q["sql"]]
    assert [q.split()[0] for q in played_sql].count("INSERT") == 1, played_sql
    assert not [q for q in played_sql if "FOR UPDATE" in q], played_sql
    assert not [q for q in seen.captured_queries if "DELETE" in q["sql"] and "ratings_" in q["sql"]]
    played = PlayedMatch.objects.get(stream=match.stream)
    winner = next(p.seat for p in played.players.all() if p.won)
    loser = next(s for s in match.seats if s != winner)

    services.submit(
        match,
        None,
        {"type": "overturn", "winner": loser, "reason": "ruled"},
        role="moderator",
        now=now + 3600,
    )
    follower.catch_up()
    follower.leave()
    again = PlayedMatch.objects.get(stream=match.stream)
    assert again.pk == played.pk
    assert next(s for s in again.sides if s["rank"] == 1)["players"] == [f"u:{users[loser].pk}"]
    assert {p.seat: p.won for p in again.players.all()} == {winner: False, loser: True}
    assert again.players.count() == 2


def test_a_result_writes_its_players_ratings_in_one_statement(settings, next_bot_move):
    """Each player's rating, new or already there, is written by one INSERT
    ... ON CONFLICT for the whole result: no savepoint, no SELECT FOR UPDATE,
    no statement per player; the ratings are those of the replayed log."""
    settings.REACTORS_INLINE = False
    users = accounts("ana", "ben", "cy")
    rng = random.Random(6)
    now = time.time() - 3 * DAY
    follower = Follower()
    follower.beat()
    written = []
    for day, (a, b) in enumerate([("ana", "ben"), ("ben", "cy"), ("cy", "ana")]):
        match = rated_match("love-me-not", {a: users[a].pk, b: users[b].pk}, now=now + day * DAY)
        _end(match, rng, now + day * DAY, next_bot_move)
        with CaptureQueriesContext(connection) as seen:
            follower.catch_up()
        written.append([q["sql"] for q in seen.captured_queries if '"ratings_rating"' in q["sql"]])
    follower.leave()
    for sql in written:  # a first rating for both, then one known and one new, then both known
        writes = [q for q in sql if not q.startswith("SELECT")]
        assert len(writes) == 1 and writes[0].startswith("INSERT"), sql
        assert "ON CONFLICT" in writes[0], writes
        assert not [q for q in sql if "FOR UPDATE" in q], sql
    assert len(_assert_the_replayed_logs(users)) == 3


def test_a_match_end_is_rated_from_the_rows_the_reactors_pass_read(settings, next_bot_move):
    """The pass's rows are kept as they are read (games.services.keep_read_rows):
    the ratings reactor reads the stream from its last kept row, not whole."""
    settings.REACTORS_INLINE = False
    match, _users, _now = _ended(6, next_bot_move)
    services._kept_rows.clear()  # a reactors' process: it kept nothing of the match
    follower = Follower()
    follower.beat()
    with CaptureQueriesContext(connection) as seen:
        follower.catch_up()
    follower.leave()
    assert PlayedMatch.objects.get(stream=match.stream).rated
    reads = [q["sql"] for q in seen.captured_queries if f"'{match.stream}'" in q["sql"]]
    assert reads, seen.captured_queries
    assert not [q for q in reads if "version > 0 " in q], reads  # never the whole stream
    kept = services._kept_rows[match.stream]
    assert [r.version for r in kept] == list(range(1, len(kept) + 1))
    assert [r.id for r in kept] == [r.id for r in services.read(match.stream)]
