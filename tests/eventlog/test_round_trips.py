"""An append on PostgreSQL is one message with its BEGIN (a prepared
statement after the first), then the COMMIT: counted on the wire."""

import re
import uuid

import pytest
from django.db import connection

from eventlog.store import ConcurrencyError, NewEvent, append, read

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def messages(fn, tmp_path) -> list[str]:
    """The queries the client sent while ``fn`` ran (libpq's trace)."""
    connection.ensure_connection()
    path = tmp_path / "trace"
    with open(path, "w") as f:
        connection.connection.pgconn.trace(f.fileno())
        try:
            fn()
        finally:
            connection.connection.pgconn.untrace()
    sent = re.findall(r"\tF\t\d+\t(\w+)\t *(.*)", path.read_text())
    return [f"{kind} {text[:60]}" for kind, text in sent]


def test_an_append_is_one_round_trip_and_its_commit(tmp_path):
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("first", {})])  # the statement is prepared by now
    sent = messages(lambda: append(stream, 1, [NewEvent("second", {"n": 2})]), tmp_path)
    assert len(sent) == 2, sent
    assert sent[0].startswith('Query "BEGIN; EXECUTE eventlog_append_1')
    assert sent[1] == 'Query "COMMIT"'
    assert [r.type for r in read(stream)] == ["first", "second"]


@pytest.mark.parametrize("size", [1, 3, 17])  # 17: over the prepared sizes, sent as text
def test_every_batch_size_checks_the_version_and_keeps_the_order(size):
    stream = f"rt-{uuid.uuid4().hex}"
    for _ in range(2):  # the second time on a connection that prepared it
        v = len(read(stream))
        rows = append(stream, v, [NewEvent("e", {"i": i}) for i in range(size)])
        assert [r.version for r in rows] == list(range(v + 1, v + size + 1))
        assert all(r.id and r.recorded_at for r in rows)
        with pytest.raises(ConcurrencyError):
            append(stream, v, [NewEvent("late", {})])
    assert [r.data["i"] for r in read(stream)] == list(range(size)) * 2


def test_a_new_connection_prepares_again():
    stream = f"rt-{uuid.uuid4().hex}"
    append(stream, 0, [NewEvent("a", {})])
    connection.close()
    append(stream, 1, [NewEvent("b", {})])
    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM pg_prepared_statements WHERE name = 'eventlog_append_1'")
        assert cur.fetchone()[0] == 1
    assert [r.type for r in read(stream)] == ["a", "b"]


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
    assert len(sent) == 2, (sent, shapes)
    assert re.match(r'Query "BEGIN; EXECUTE eventlog_append_\d+_match_row', sent[0]), sent
    assert sent[1] == 'Query "COMMIT"'
    live = _match_tables(match)
    assert live[0]["version"] == match.version == read(match.stream)[-1].version
    assert live[0]["next_deadline"] is not None and live[0]["waiting_on"]
    assert any("Your turn: " in text for _id, _u, text, _at in live[1])
    rebuild_stream(match.stream)  # the projectors' and settle's rows: the same
    assert _match_tables(match) == live


def test_a_whole_match_written_inline_equals_its_rebuild(match, play):
    """Moves that only move the match on go in one statement; those that
    score or end it run the projectors: either way, what a rebuild writes."""
    from eventlog import store
    from eventlog.readmodels import rebuild_stream

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
    assert True in inline and False in inline  # both paths were taken
    live = _match_tables(match)
    assert live[0]["next_deadline"] is None and live[0]["waiting_on"] == []
    assert not [t for _i, _u, t, _a in live[1] if t.startswith("Your turn: ")]
    rebuild_stream(match.stream)
    assert _match_tables(match) == live
    assert store._writes  # every read model said what it writes


def test_a_move_that_loses_its_race_writes_no_match_row_or_note(match, play):
    from games import services
    from games.readmodels import match_row_inline

    play(match, 1)()
    before = _match_tables(match)
    stale = services.load(match)
    inline = match_row_inline(match, None, ["nobody"], {"ana": "changed"})
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
