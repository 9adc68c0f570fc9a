"""The batch enforcer: every due deadline in the index, once, whoever runs it."""

import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest
from django.db import connection

from clocks import enforce
from clocks.enforce import CLOCK_LOCK, enforce_due
from eventlog.store import read
from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from games.models import Match
from tests.helpers.wire import messages

FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}


def _matches(n, t0):
    return [
        services.create_match(
            "doubting-love-letter",
            ["ana", "ben"],
            options=FAST_DLL,
            setup={"first": "ana"},
            rng=random.Random(i),
            now=t0 + i * 0.001,
        )
        for i in range(n)
    ]


def _timeouts(match):
    return [r for r in read(match.stream) if r.type == "timed_out"]


@pytest.mark.django_db
def test_a_batch_of_due_matches_gets_one_timeout_each():
    t0 = 2_000_000.0
    matches = _matches(7, t0)
    not_yet = _matches(1, t0 + 100)[0]
    # three at a time: the enforcer reads on after each full batch
    written = enforce_due(now=t0 + 4, limit=3)
    for m in matches:
        timed = _timeouts(m)
        assert len(timed) == 1, m.stream
        assert timed[0].data["at"] == pytest.approx(m.next_deadline.timestamp())
    assert written >= len(matches)
    assert _timeouts(not_yet) == []
    assert enforce_due(now=t0 + 4, limit=3) == 0  # nothing due twice
    assert all(len(_timeouts(m)) == 1 for m in matches)


@pytest.mark.django_db
def test_a_match_that_moved_on_after_the_claim_gets_no_timeout(monkeypatch):
    t0 = 2_100_000.0
    moved, left = _matches(2, t0)
    deadline = moved.next_deadline.timestamp()
    enforce_one = enforce._enforce

    def move_then_enforce(match, now):
        if match.pk == moved.pk:  # the player moves between the enforcer's claim and its timeout
            fresh = Match.objects.get(pk=moved.pk)
            state = services.load(fresh).state
            series = series_for(fresh.game)
            command = bot_command(series, state, "ana", "random", random.Random(2))
            services.submit(fresh, "ana", command, actor="ana", now=deadline - 0.01)
        return enforce_one(match, now)

    monkeypatch.setattr(enforce, "_enforce", move_then_enforce)
    enforce_due(now=deadline + 0.5)
    assert _timeouts(moved) == []
    assert len(_timeouts(left)) == 1
    assert Match.objects.get(pk=moved.pk).next_deadline.timestamp() > deadline


@pytest.mark.django_db
def test_a_match_whose_timeout_fails_does_not_stop_the_others(monkeypatch, caplog):
    t0 = 2_150_000.0
    broken, *others = _matches(3, t0)
    enforce_one = enforce._enforce

    def fail_on_broken(match, now):
        if match.pk == broken.pk:
            raise RuntimeError("a bug in one game")
        return enforce_one(match, now)

    monkeypatch.setattr(enforce, "_enforce", fail_on_broken)
    with caplog.at_level("ERROR", logger="clocks.enforce"):
        enforce_due(now=t0 + 4)
    assert _timeouts(broken) == []
    assert all(len(_timeouts(m)) == 1 for m in others)
    assert f"timeout of {broken.stream} failed" in caplog.text
    monkeypatch.setattr(enforce, "_enforce", enforce_one)
    enforce_due(now=t0 + 4)  # the next wake-up writes it
    assert len(_timeouts(broken)) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_enforcers_at_once_write_each_timeout_once():
    t0 = 2_200_000.0
    matches = _matches(16, t0)
    barrier = threading.Barrier(2)
    results = []

    def enforcer():
        barrier.wait()
        try:
            results.append(enforce_due(now=t0 + 4, limit=5))
        except BaseException as exc:  # fails the test below
            results.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=enforcer) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(isinstance(r, int) for r in results), results
    events = 0
    for m in matches:
        timed = _timeouts(m)
        assert len(timed) == 1, m.stream
        events += len([r for r in read(m.stream) if r.command_id == timed[0].command_id])
    assert sum(results) == events  # each event counted by the one enforcer that wrote it


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_killed_enforcers_claims_are_picked_up():
    t0 = 2_300_000.0
    matches = _matches(4, t0)
    db = connection.settings_dict
    url = (
        f"postgresql://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    # another enforcer claims them all, then dies in the middle of its batch
    script = (
        "import sys, time, psycopg\n"
        "c = psycopg.connect(sys.argv[1])\n"
        "c.execute('SELECT pg_advisory_xact_lock(%s, (id %% 2147483648)::int4) "
        f"FROM {Match._meta.db_table} WHERE id = ANY(%s)', "
        "[int(sys.argv[2]), [int(x) for x in sys.argv[3].split(',')]])\n"
        "print('claimed', flush=True)\n"
        "time.sleep(60)\n"
    )
    ids = ",".join(str(m.pk) for m in matches)
    other = subprocess.Popen(
        [sys.executable, "-c", script, url, str(CLOCK_LOCK), ids], stdout=subprocess.PIPE
    )
    try:
        assert other.stdout.readline().strip() == b"claimed"
        assert enforce_due(now=t0 + 4) == 0  # claimed by the other: skipped, not waited for
        assert all(_timeouts(m) == [] for m in matches)
    finally:
        os.kill(other.pid, signal.SIGKILL)
        other.wait(timeout=10)
    for _ in range(50):  # PostgreSQL ends the dead client's transaction, and its claims
        if enforce_due(now=t0 + 4):
            break
        time.sleep(0.1)
    assert all(len(_timeouts(m)) == 1 for m in matches)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_timeout_is_one_message_with_its_commit_and_writes_what_a_rebuild_does(
    tmp_path, settings
):
    """The batch's read and claim, then for the timeout (it ends the bout and
    the match, which is no show's: no listener acts on it) one message, which
    commits itself: its events, the match row with its scores, result and
    clock index, and the notes; then the claims given back. What it wrote is
    what a rebuild writes."""
    import re

    from eventlog import rows as db_rows
    from eventlog import store
    from eventlog.readmodels import rebuild_stream

    settings.REACTORS_INLINE = False  # production: the reactors follow the log
    t0 = 2_400_000.0
    warm = _matches(1, t0)[0]
    match = _matches(1, t0 + 100)[0]
    enforce_due(now=t0 + 4)  # the statements are prepared by now
    assert len(_timeouts(warm)) == 1
    sent = messages(lambda: enforce_due(now=t0 + 104), tmp_path)
    # after its statement, the timeout is announced to the match's sockets at
    # once (live.publisher.announce_committed), reading the match's creation
    # record (its spectators' delay) the first time this process announces it
    appended = next(i for i, m in enumerate(sent) if "EXECUTE eventlog_append_" in m)
    creation_read = f'Query "EXECUTE {db_rows.prepared_name(store._READ)} '
    creation = [m for m in sent[appended:] if m.startswith(creation_read)]
    assert len(creation) <= 1, sent
    sent = [m for m in sent if m not in creation]
    assert len(sent) == 3, "\n".join(sent)
    claim = f'Query "EXECUTE {db_rows.prepared_name(enforce._CLAIM_DUE)} '
    assert sent[0].startswith(claim) or sent[0].startswith('Query "SELECT'), sent
    assert re.match(r'Query "BEGIN; EXECUTE eventlog_append_\d+_match_row_whole', sent[1]), sent
    assert sent[2].startswith(f'Query "EXECUTE {db_rows.prepared_name(enforce._RELEASE)} '), sent
    row = Match.objects.filter(pk=match.pk).values().get()
    assert row["status"] == "finished" and row["winners"] and sum(row["scores"].values()) > 0
    assert row["next_deadline"] is None and row["waiting_on"] == []
    rebuild_stream(match.stream)
    assert Match.objects.filter(pk=match.pk).values().get() == row


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_an_enforcer_stuck_on_its_claims_leaves_the_backlog_to_another(monkeypatch):
    """Enforcers claim a few due matches at a time: one that writes slowly
    (a busy process) holds only those, and another takes the rest."""
    t0 = 2_250_000.0
    matches = _matches(10, t0)
    enforce_one = enforce._enforce
    slow_begun = threading.Event()
    written_by = {}

    def enforce_and_note(match, now):
        if threading.current_thread().name == "slow":
            slow_begun.set()
            time.sleep(0.3)
        n = enforce_one(match, now)
        if n:
            written_by[match.pk] = threading.current_thread().name
        return n

    monkeypatch.setattr(enforce, "_enforce", enforce_and_note)

    def enforcer():
        try:
            enforce_due(now=t0 + 4)
        finally:
            connection.close()

    slow = threading.Thread(target=enforcer, name="slow")
    slow.start()
    assert slow_begun.wait(10)  # it holds its first claims
    quick = threading.Thread(target=enforcer, name="quick")
    quick.start()
    quick.join()
    slow.join()
    assert all(len(_timeouts(m)) == 1 for m in matches)
    by_slow = [pk for pk, name in written_by.items() if name == "slow"]
    assert len(by_slow) <= 4, written_by  # its first claims, not the backlog
