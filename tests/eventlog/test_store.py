import os
import random
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from eventlog.models import StoredEvent
from eventlog.store import ConcurrencyError, NewEvent, append, read, stream_version
from games.core.adapt import redact_all
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Viewer

ROOT = Path(__file__).resolve().parents[2]


def ev(n=1, **data):
    return [NewEvent("thing_happened", {"n": i, **data}) for i in range(n)]


@pytest.mark.django_db
def test_append_numbers_versions_from_one_and_reads_back():
    rows = append("s-1", 0, ev(3))
    assert [r.version for r in rows] == [1, 2, 3]
    rows2 = append("s-1", 3, ev(2))
    assert [r.version for r in rows2] == [4, 5]
    assert [r.version for r in read("s-1")] == [1, 2, 3, 4, 5]
    assert [r.version for r in read("s-1", after=3)] == [4, 5]
    assert stream_version("s-1") == 5
    assert stream_version("nothing-here") == 0


@pytest.mark.django_db
def test_a_stream_read_gives_the_rows_the_orm_gives():
    """read, read_upto and first run one statement made once; what they give
    is what the ORM gives: every field, decoded JSON, aware times, saved rows."""
    from eventlog.store import first, read_upto

    append("s-read", 0, ev(3, nested={"a": [1, {"b": "é ☃"}], "n": None}), command_id="c-1")
    append("other", 0, ev(2))
    append("s-read", 3, ev(2))
    orm = list(StoredEvent.objects.filter(stream="s-read").order_by("version"))
    names = [f.attname for f in StoredEvent._meta.concrete_fields]

    def fields(rows):
        return [[getattr(r, n) for n in names] for r in rows]

    assert fields(read("s-read")) == fields(orm) and len(orm) == 5
    assert fields(read("s-read", after=3)) == fields(orm[3:])
    assert fields(read_upto(orm[2])) == fields(orm[:3])
    assert fields([first("s-read")]) == fields(orm[:1])
    assert first("nothing-here") is None and read("nothing-here") == []
    got = read("s-read")[0]
    assert got.data["nested"] == {"a": [1, {"b": "é ☃"}], "n": None}
    assert got.recorded_at.tzinfo is not None and got.command_id == "c-1"
    assert got._state.adding is False and got._state.db == "default"


@pytest.mark.django_db
def test_stale_expected_version_raises_and_writes_nothing():
    append("s-2", 0, ev(1))
    with pytest.raises(ConcurrencyError):
        append("s-2", 0, ev(1))
    with pytest.raises(ConcurrencyError):
        append("s-2", 5, ev(1))
    assert StoredEvent.objects.filter(stream="s-2").count() == 1


@pytest.mark.django_db
def test_retried_command_id_returns_first_result_and_writes_nothing():
    first = append("s-3", 0, ev(2), command_id="cmd-abc")
    again = append("s-3", 0, ev(2, other=True), command_id="cmd-abc")
    assert [r.id for r in again] == [r.id for r in first]
    assert StoredEvent.objects.filter(stream="s-3").count() == 2
    # even with a stale version, the replay answers with the first result
    again2 = append("s-3", 7, ev(1), command_id="cmd-abc")
    assert [r.id for r in again2] == [r.id for r in first]


@pytest.mark.django_db
def test_update_and_delete_refused_by_the_database_orm():
    (row,) = append("s-4", 0, ev(1))
    row.type = "forged"
    with pytest.raises((DatabaseError, IntegrityError)), transaction.atomic():
        row.save()
    with pytest.raises((DatabaseError, IntegrityError)), transaction.atomic():
        StoredEvent.objects.filter(pk=row.pk).update(type="forged")
    with pytest.raises((DatabaseError, IntegrityError)), transaction.atomic():
        StoredEvent.objects.filter(pk=row.pk).delete()
    assert StoredEvent.objects.get(pk=row.pk).type == "thing_happened"


@pytest.mark.django_db
def test_update_and_delete_refused_by_the_database_raw_sql():
    (row,) = append("s-5", 0, ev(1))
    table = StoredEvent._meta.db_table
    for sql in (
        f"UPDATE {table} SET type = 'forged' WHERE id = %s",
        f"DELETE FROM {table} WHERE id = %s",
    ):
        with pytest.raises(DatabaseError), transaction.atomic(), connection.cursor() as cur:
            cur.execute(sql, [row.pk])
    assert StoredEvent.objects.filter(pk=row.pk, type="thing_happened").exists()


def test_sqlite_migration_installs_the_triggers(tmp_path):
    """Whatever backend runs the suite, the SQLite path is proven too: migrate
    a fresh SQLite file, then try to change a row through raw SQL."""
    db = tmp_path / "t.sqlite3"
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL",)}
    env.update(SQLITE_PATH=str(db), VAR_DIR=str(tmp_path))
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "eventlog", "--noinput"],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
    )
    con = sqlite3.connect(db)
    con.execute(
        "INSERT INTO eventlog_storedevent (stream, version, type, data, metadata, command_seq, recorded_at)"
        " VALUES ('x', 1, 't', '{}', '{}', 0, '2026-01-01')"
    )
    con.commit()
    for sql in ("UPDATE eventlog_storedevent SET type='f'", "DELETE FROM eventlog_storedevent"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            con.execute(sql)
    assert con.execute("SELECT type FROM eventlog_storedevent").fetchall() == [("t",)]


@pytest.mark.django_db
def test_redact_all_gives_each_viewer_only_what_it_may_see():
    append(
        "s-6",
        0,
        [
            NewEvent(
                "dealt", {"seat": "ana", "card": "7"}, visible_to=["ana"], public={"seat": "ana"}
            ),
            NewEvent("secret", {"card": "8"}, visible_to=["ben"], public=None),
            NewEvent("open", {"card": "3"}),
            NewEvent("mods_only", {"card": "5"}, visible_to=[], public=None),
        ],
    )
    rows = read("s-6")
    ana = redact_all(rows, Viewer.of_seat("ana"))
    ben = redact_all(rows, Viewer.of_seat("ben"))
    spec = redact_all(rows, SPECTATOR_VIEW)
    mod = redact_all(rows, MODERATOR_VIEW)
    assert [e["data"] for e in ana] == [{"seat": "ana", "card": "7"}, {"card": "3"}]
    assert [e["data"] for e in ben] == [{"seat": "ana"}, {"card": "8"}, {"card": "3"}]
    assert [e["data"] for e in spec] == [{"seat": "ana"}, {"card": "3"}]
    assert len(mod) == 4
    for seen in (ana, spec):
        shown = str([e["data"] for e in seen])
        assert "8" not in shown and "5" not in shown


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_sixteen_threads_race_for_each_version():
    stream = "race-1"
    n_threads = 16
    rounds = 60  # 16 x 60 = 960 attempted appends, one winner each round

    def worker(results, barrier, version):
        from django.db import connection as conn

        try:
            barrier.wait()
            try:
                append(stream, version, ev(1, by=threading.get_ident()))
                results.append("ok")
            except ConcurrencyError:
                results.append("conflict")
        finally:
            conn.close()

    for version in range(rounds):
        results: list[str] = []
        barrier = threading.Barrier(n_threads)
        threads = [
            threading.Thread(target=worker, args=(results, barrier, version))
            for _ in range(n_threads)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results.count("ok") == 1, results
        assert results.count("conflict") == n_threads - 1
    versions = list(StoredEvent.objects.filter(stream=stream).values_list("version", flat=True))
    assert versions == list(range(1, rounds + 1))


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_mixed_run_of_800_appends_is_gapless_and_undoubled():
    """Threads append with retry and command ids, some retried twice; the
    log ends gapless with every command applied exactly once."""
    stream = "race-2"
    per_thread = 50
    n_threads = 16

    def worker(k):
        from django.db import connection as conn

        try:
            for i in range(per_thread):
                cid = f"t{k}-{i}"
                for _attempt in range(2 if i % 10 == 0 else 1):  # some retried on purpose
                    while True:
                        try:
                            append(stream, stream_version(stream), ev(1, cid=cid), command_id=cid)
                            break
                        except ConcurrencyError:
                            time.sleep(random.random() * 0.003)  # back off, as a client would
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(n_threads)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    rows = list(StoredEvent.objects.filter(stream=stream).order_by("version"))
    assert [r.version for r in rows] == list(range(1, n_threads * per_thread + 1))
    cids = [r.command_id for r in rows]
    assert len(set(cids)) == len(cids) == n_threads * per_thread


# ---- the append's insert, both ways (store._inserts) -------------------------
def _inserted_by(insert, stream: str) -> list[tuple]:
    from eventlog import store

    rows = store._stored_rows(
        stream,
        0,
        [NewEvent("a", {"n": 1}), NewEvent("b", {})],
        "c:one",
        "fp",
        "ana",
        "player",
        None,
        {"at": 1.5},
    )
    with transaction.atomic():
        insert(rows, 0, None, "fp")
    for row in rows:  # the ids and times the database gave them
        assert row.pk and row.recorded_at
    again = store._stored_rows(
        stream, 0, [NewEvent("late", {})], None, None, "ben", "player", None, None
    )
    with pytest.raises(store._Conflict), transaction.atomic():
        insert(again, 0, None, None)  # the stream moved on
    reused = store._stored_rows(
        stream, 2, [NewEvent("c", {})], "c:one", "fp", "ana", "player", None, None
    )
    with pytest.raises(store._Conflict), transaction.atomic():
        insert(reused, 2, None, "fp")  # the command id is taken
    return [
        (r.version, r.type, r.data, r.metadata, r.command_id, r.command_seq) for r in read(stream)
    ]


@pytest.mark.django_db
def test_the_portable_insert_checks_the_version_and_the_command_id():
    from eventlog import store

    written = _inserted_by(store._inserts.portable.insert, "fork-portable")
    assert [(v, t) for v, t, *_ in written] == [(1, "a"), (2, "b")]


@pytest.mark.postgres
@pytest.mark.django_db
def test_both_inserts_write_the_same_rows_and_refuse_the_same():
    from eventlog import store

    written = {
        name: _inserted_by(getattr(store._inserts, name).insert, f"fork-{name}")
        for name in ("postgresql", "portable")
    }
    assert written["postgresql"] == written["portable"]
    for name in ("postgresql", "portable"):  # the locks: taken or held already
        with transaction.atomic():
            getattr(store.lock_stream, name)("fork-portable")
            getattr(store.lock_name, name)("ratings-game", "love-me-not")
