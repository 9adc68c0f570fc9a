"""An append on PostgreSQL is one message: alone (no transaction open, one
event, nothing else to write with it) its BEGIN, its statement, its COMMIT
and its NOTIFY in a transaction of its own (migration 0011), with nothing
after it; otherwise the message carries its BEGIN and the COMMIT follows. A
prepared statement after the first. Counted on the wire."""

import re
import uuid

import psycopg
import pytest
from django.db import connection

from eventlog.store import ConcurrencyError, NewEvent, append, read, stream_version
from tests.helpers.wire import messages

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_an_append_alone_is_one_message_and_commits_by_itself(tmp_path):
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("first", {})])  # the statement is prepared by now
    sent = messages(lambda: append(stream, 1, [NewEvent("second", {"n": 2})]), tmp_path, None)
    assert len(sent) == 1, sent
    assert sent[0].startswith('Query "BEGIN; EXECUTE eventlog_append_1_whole'), sent
    # its NOTIFY after the commit, prepared with the append's statement
    assert sent[0].endswith('; COMMIT; EXECUTE eventlog_notify_after"'), sent
    assert connection.connection.info.transaction_status.name == "IDLE"
    assert [r.type for r in read(stream)] == ["first", "second"]
    # committed: another session (Django's connection settings) sees it
    with psycopg.connect(**connection.get_connection_params()) as other:
        (n,) = other.execute(
            "SELECT count(*) FROM eventlog_storedevent WHERE stream = %s", [stream]
        ).fetchone()
    assert n == 2


def test_the_notify_after_an_append_alone_leaves_the_session_as_it_was():
    """The NOTIFY's transaction turns synchronous_commit off for itself
    alone: the session's next transaction waits for its flush as before."""
    stream = f"rt-{uuid.uuid4().hex}"
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        (before,) = cursor.fetchone()
        append(stream, 0, [NewEvent("first", {})])
        append(stream, 1, [NewEvent("second", {})])
        cursor.execute("SHOW synchronous_commit")
        (after,) = cursor.fetchone()
        cursor.execute("SELECT current_setting('eventlog.appended', true)")
        (left,) = cursor.fetchone()
    assert after == before == "on"
    assert left == ""  # sent, then cleared


def test_a_batch_is_one_message_with_its_begin_then_the_commit(tmp_path):
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {}), NewEvent("b", {})])
    sent = messages(lambda: append(stream, 2, [NewEvent("c", {}), NewEvent("d", {})]), tmp_path)
    assert len(sent) == 2, sent
    assert sent[0].startswith('Query "BEGIN; EXECUTE eventlog_append_2'), sent
    assert sent[1] == 'Query "COMMIT"'
    assert [r.type for r in read(stream)] == ["a", "b", "c", "d"]


def test_inside_a_transaction_the_append_is_part_of_it(tmp_path):
    from django.db import transaction

    stream = f"rt-{uuid.uuid4().hex}"
    with transaction.atomic():  # the statement a transaction's append runs, prepared
        append(stream, 0, [NewEvent("first", {})])
    seen = []

    def inside():
        with transaction.atomic():
            append(stream, 1, [NewEvent("second", {})])
            seen.append(connection.connection.info.transaction_status.name)
            transaction.set_rollback(True)

    sent = messages(inside, tmp_path)
    assert seen == ["INTRANS"]
    assert sent[0] == 'Query "BEGIN"', sent  # the caller's transaction, then its savepoint
    assert any(q.startswith('Query "EXECUTE eventlog_append_1 (') for q in sent), sent
    assert sent[-1] == 'Query "ROLLBACK"'
    assert [r.type for r in read(stream)] == ["first"]  # rolled back with it


def test_an_append_alone_runs_the_after_commit_hooks_once(monkeypatch):
    from eventlog import store

    stream = f"rt-{uuid.uuid4().hex}"
    heard = []
    monkeypatch.setattr(store, "_after_commit", [*store._after_commit, heard.append])
    rows = append(stream, 0, [NewEvent("first", {})])
    assert heard == [rows] and rows[0].id and rows[0].recorded_at
    with pytest.raises(ConcurrencyError):
        append(stream, 0, [NewEvent("late", {})])
    assert heard == [rows]  # a lost race tells no one


def test_an_append_alone_notifies_once_after_its_commit_and_a_lost_race_not_at_all():
    """Alone, the append is notified after its commit (the trigger quiet for
    it): its transaction and stream, once. An append that lost its race
    wrote nothing and sends nothing: not the last append's notification
    again, and no stream-less one from the trigger (eventlog 0012: the
    reactors would read every partition for it)."""
    from reactors import positions

    stream = f"rt-{uuid.uuid4().hex}"
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as listening:
        listening.execute("LISTEN eventlog_appended")
        rows = append(stream, 0, [NewEvent("first", {})])
        with pytest.raises(ConcurrencyError):
            append(stream, 0, [NewEvent("late", {})])
        told = [n.payload for n in listening.notifies(timeout=0.5)]
    tx = positions.position_of(rows[0].id)[0]
    assert told == [f"{tx}\n{stream}"]
    assert [r.type for r in read(stream)] == ["first"]


def test_a_replayed_command_id_alone_answers_its_first_result(tmp_path):
    stream = f"rt-{uuid.uuid4().hex}"
    first = append(stream, 0, [NewEvent("a", {})], command_id="c:once")
    again = append(stream, 0, [NewEvent("a", {})], command_id="c:once")
    assert again.replay and [r.id for r in again] == [r.id for r in first]
    assert [r.type for r in read(stream)] == ["a"]


def test_two_writers_racing_alone_write_each_version_once():
    """Two threads (a connection each) append to one stream at the version
    they both just read, round after round: one wins each version, the other
    is told it lost, and nothing is written twice or skipped."""
    import threading

    from django.db import connections

    stream = f"rt-{uuid.uuid4().hex}"
    rounds = 30
    start = threading.Barrier(2)
    outcomes: dict[str, list[str]] = {"a": [], "b": []}

    def writer(who: str) -> None:
        try:
            for _ in range(rounds):
                start.wait(timeout=30)
                version = stream_version(stream)
                start.wait(timeout=30)  # both read the same version
                try:
                    append(stream, version, [NewEvent("raced", {"by": who})])
                    outcomes[who].append("won")
                except ConcurrencyError:
                    outcomes[who].append("lost")
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(w,)) for w in outcomes]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    rows = read(stream)
    assert [r.version for r in rows] == list(range(1, rounds + 1))
    for won_a, won_b in zip(outcomes["a"], outcomes["b"], strict=True):
        assert {won_a, won_b} == {"won", "lost"}
    assert [r.data["by"] for r in rows] == ["a" if won == "won" else "b" for won in outcomes["a"]]


# ---- a move's match row, clock index and notes, in its append's statement --------
@pytest.fixture
def match(seated_match):
    from django.contrib.auth.models import User

    ana, ben = (User.objects.create_user(f"{n}-{uuid.uuid4().hex[:6]}") for n in ("ana", "ben"))
    return seated_match(ana, ben)


@pytest.fixture
def play(next_bot_move):
    """``play(match, seed)``: a random bot's move, as a function that submits it."""
    import random

    from games import services

    def move(match, seed: int):
        seat, command = next_bot_move(match, random.Random(seed))
        return lambda: services.submit(match, seat, command, actor=seat)

    return move


def _match_tables(match):
    from games.models import Match, Notification

    row = Match.objects.filter(pk=match.pk).values().get()
    notes = sorted(
        Notification.objects.filter(match_id=match.pk).values_list(
            "id", "user_id", "text", "created_at"
        )
    )
    return row, notes


def test_a_move_writes_its_match_row_and_notes_in_its_append_message(
    tmp_path, settings, match, play
):
    from eventlog.readmodels import rebuild_stream

    settings.REACTORS_INLINE = False  # production: the reactors follow the log
    shapes = set()
    for seed in range(1, 30):  # until a move's statement is prepared already
        sent = messages(play(match, seed), tmp_path)
        if any("PREPARE" in q for q in sent):
            shapes.add(sent[0])
            continue
        if any("_match_row" in q for q in sent):
            break
    # no listener acts on a plain move: its statement is its whole transaction
    assert len(sent) == 1, (sent, shapes)
    # its own transaction, then its NOTIFY in another (migration 0011): one message
    assert re.match(r'Query "BEGIN; EXECUTE eventlog_append_\d+_match_row_whole', sent[0]), sent
    assert connection.connection.info.transaction_status.name == "IDLE"
    live = _match_tables(match)
    assert live[0]["version"] == match.version == read(match.stream)[-1].version
    assert live[0]["next_deadline"] is not None and live[0]["waiting_on"]
    assert any("Your turn: " in text for _id, _u, text, _at in live[1])
    rebuild_stream(match.stream)  # the projectors' and settle's rows: the same
    assert _match_tables(match) == live


def test_a_whole_match_written_inline_equals_its_rebuild(monkeypatch, match, play):
    """Every move goes in one statement, those that score a bout or end the
    match too (their scores, status and winners from the state they lead
    to): what a rebuild writes, mid-match and at the end. The match is no
    show's nor bracket's: no listener acts on its end, and every statement
    is its whole transaction."""
    from eventlog import store
    from eventlog.readmodels import rebuild_stream

    alone, run_append = [], store._run_append

    def noted(n, params, inline=None, whole=False):
        alone.append(whole)
        return run_append(n, params, inline, whole)

    monkeypatch.setattr(store, "_run_append", noted)
    inline, seed = [], 0
    while match.status == "live" and seed < 400:
        seed += 1
        rows = play(match, seed)()
        inline.append(rows.inline)
        if seed % 7 == 0:  # mid-match too, with notes for the seat waited on
            live = _match_tables(match)
            rebuild_stream(match.stream)
            assert _match_tables(match) == live
    assert match.status == "finished"
    assert all(inline), inline
    assert alone and all(alone), alone
    live = _match_tables(match)
    assert live[0]["next_deadline"] is None and live[0]["waiting_on"] == []
    assert not [t for _i, _u, t, _a in live[1] if t.startswith("Your turn: ")]
    rebuild_stream(match.stream)
    assert _match_tables(match) == live
    assert store._writes  # every read model said what it writes


def test_a_move_that_loses_its_race_writes_no_match_row_or_note(match, play):
    from games import services
    from games.clock_index import inline_row

    play(match, 1)()
    before = _match_tables(match)
    stale = services.load(match)
    inline = inline_row(match, None, ["nobody"], {"ana": "changed"})
    with pytest.raises(ConcurrencyError):
        append(match.stream, stale.version - 1, [NewEvent("late", {})], inline=inline)
    assert _match_tables(match) == before
    assert read(match.stream)[-1].version == stale.version


def test_a_projector_that_cannot_say_what_it_writes_runs_and_the_caller_writes(
    monkeypatch, match, play
):
    from eventlog import store

    seen = []
    monkeypatch.setattr(store, "_projectors", [*store._projectors, seen.append])
    rows = play(match, 1)()
    assert not rows.inline and seen[-1].version == rows[-1].version
    live = _match_tables(match)
    assert live[0]["version"] == rows[-1].version and live[0]["updated_at"] == rows[-1].recorded_at
    assert live[0]["next_deadline"] is not None


def test_a_move_a_listener_acts_on_is_one_transaction_with_what_it_writes(
    tmp_path, settings, match, play
):
    """A match listener (a show's, a bracket's) writes in the move's
    transaction: a move whose events it acts on keeps its BEGIN and COMMIT."""
    from games import services

    settings.REACTORS_INLINE = False
    for seed in range(1, 8):
        play(match, seed)()
    seen = frozenset(r.type for r in read(match.stream))  # a move's usual events
    heard = []

    def listener(m, new, state, now):
        heard.append(connection.in_atomic_block)

    services.on_match_events(listener, types=seen)
    shows_only = []  # a listener of shows' matches: this one is none

    def of_shows(*args):
        shows_only.append(args)

    services.on_match_events(of_shows, types=seen, of="show-")
    try:
        for seed in range(8, 60):
            heard.clear()
            sent = messages(play(match, seed), tmp_path)
            if heard and not any("PREPARE" in q for q in sent):
                break
    finally:
        services._match_listeners[:] = [
            x for x in services._match_listeners if x.fn not in (listener, of_shows)
        ]
    assert heard == [True], heard
    assert shows_only == []
    assert re.match(r'Query "BEGIN; EXECUTE eventlog_append_\d+_match_row \(', sent[0]), sent
    assert sent[-1] == 'Query "COMMIT"'


def test_a_move_alone_that_loses_its_race_writes_nothing(tmp_path, match, play):
    from games import services
    from games.clock_index import inline_row

    play(match, 1)()
    before = _match_tables(match)
    stale = services.load(match)
    inline = inline_row(match, None, ["nobody"], {"ana": "changed"})
    told = []

    def late():
        append(
            match.stream,
            stale.version - 1,
            [NewEvent("late", {}), NewEvent("later", {})],
            inline=inline,
            within=told.append,
            within_writes=False,
        )

    with pytest.raises(ConcurrencyError):
        messages(late, tmp_path)
    assert told == []
    assert _match_tables(match) == before
    assert read(match.stream)[-1].version == stale.version


def test_a_move_alone_whose_writes_found_no_row_is_made_again_in_a_transaction(
    tmp_path, settings, monkeypatch, match, play
):
    """The statement of a move run alone undoes itself when its match row's
    writes did not land (as when a rebuild replaced the row): the move is
    made again in a transaction, its events written once, its row by the
    projectors."""
    import dataclasses

    from eventlog import store
    from eventlog.readmodels import rebuild_stream
    from games import services

    settings.REACTORS_INLINE = False
    play(match, 1)()
    before = len(read(match.stream))
    real = services.match_row_inline

    def missing(*args):
        inline = real(*args)
        return dataclasses.replace(inline, name=f"{inline.name}_missed", landed="false")

    monkeypatch.setattr(services, "match_row_inline", missing)
    tries, run_append = [], store._run_append

    def noted(n, params, inline=None, whole=False):
        tries.append((inline.name, whole))
        return run_append(n, params, inline, whole)

    monkeypatch.setattr(store, "_run_append", noted)
    told = []
    sent = messages(lambda: told.append(play(match, 2)()), tmp_path)
    rows = told[0]
    assert rows and not rows.inline  # the projectors wrote the row
    assert tries == [("match_row_missed", True), ("match_row_missed", False)], tries
    whole = next(i for i, q in enumerate(sent) if "_missed_whole AS" in q)
    # the transaction it undid is rolled back; its PREPARE stood: the
    # transaction's first message carries its BEGIN
    assert sent[whole + 1] == 'Query "ROLLBACK"', sent
    assert sent[whole + 2].startswith('Query "PREPARE eventlog_append_'), sent
    assert not any("pg_prepared_statements" in q for q in sent), sent
    assert sent[-1] == 'Query "COMMIT"'
    events = read(match.stream)
    assert [r.version for r in events] == list(range(1, before + len(rows) + 1))
    assert [r.id for r in events[before:]] == [r.id for r in rows]  # written once
    live = _match_tables(match)
    assert live[0]["version"] == rows[-1].version == match.version
    assert live[0]["next_deadline"] is not None
    rebuild_stream(match.stream)
    assert _match_tables(match) == live


def test_a_move_alone_notifies_the_reactors_once_after_its_commit(settings, match, play):
    """The append alone notifies in a transaction of its own after its commit
    (the trigger stays quiet for it): one notification, naming the stream
    and the transaction that wrote the events, as the trigger's would."""
    from reactors import positions

    settings.REACTORS_INLINE = False
    with psycopg.connect(**connection.get_connection_params(), autocommit=True) as listening:
        listening.execute("LISTEN eventlog_appended")
        for seed in range(1, 30):  # a move whose append goes alone
            rows = play(match, seed)()
            if rows.inline:
                break
        told = [n.payload for n in listening.notifies(timeout=0.5)]
    tx = positions.position_of(rows[-1].id)[0]
    assert told[-1] == f"{tx}\n{match.stream}"
    assert told.count(told[-1]) == 1, told  # not by the trigger as well


def test_the_notify_trigger_is_quiet_for_a_transaction_that_notifies_after_it():
    """What an append alone sets for its transaction (``eventlog.notify_after``)
    keeps the trigger from notifying; any other append is notified by it."""
    params = connection.get_connection_params()
    with psycopg.connect(**params, autocommit=True) as listening:
        listening.execute("LISTEN eventlog_appended")
        with psycopg.connect(**params) as writer:
            for quiet, stream in (
                (True, f"nq-{uuid.uuid4().hex}"),
                (False, f"nl-{uuid.uuid4().hex}"),
            ):
                if quiet:
                    writer.execute("SELECT set_config('eventlog.notify_after', 'on', true)")
                writer.execute(
                    "INSERT INTO eventlog_storedevent (stream, version, type, data, metadata, "
                    "command_seq, recorded_at) VALUES (%s, 1, 'thing_done', '{}', '{}', 0, now())",
                    [stream],
                )
                writer.commit()
        told = [n.payload.split("\n")[1] for n in listening.notifies(timeout=0.5)]
    assert told == [stream]  # the second, not the first
