"""Command ids belong to their stream: the same id on two streams is two
commands, a client can never send an id the system uses, a bad id is a clear
error, and listeners hear only what was written."""

import random
import threading

import pytest
from django.contrib.auth.models import User

from eventlog.models import StoredEvent
from eventlog.store import NewEvent, append, read
from games import services
from games.core.playout import bot_command
from games.core.protocol import RuleError
from games.core.registry import series_for
from games.models import Match


def ev(n=1, **data):
    return [NewEvent("thing_happened", {"n": i, **data}) for i in range(n)]


def legal(match, seat):
    state = services.load(match).state
    return series_for(match.game).rules.legal_commands(state.bout, seat)


@pytest.mark.django_db
def test_the_same_command_id_on_two_streams_is_two_commands():
    a = append("s-a", 0, ev(1), command_id="c:same")
    b = append("s-b", 0, ev(1), command_id="c:same")
    assert [r.stream for r in b] == ["s-b"] and b[0].id != a[0].id
    assert not b.replay and not a.replay
    assert [r.stream for r in read("s-b")] == ["s-b"]
    again = append("s-b", 1, ev(1), command_id="c:same")
    assert again.replay and [r.id for r in again] == [b[0].id]


@pytest.mark.django_db
def test_a_reused_command_id_on_another_match_is_written_through_the_api(client):
    ana = User.objects.create_user("ana_user", password="pw-123456")
    ben = User.objects.create_user("ben_user", password="pw-123456")
    m1 = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk}, rng=random.Random(4)
    )
    m2 = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ben.pk}, rng=random.Random(5)
    )
    client.force_login(ana)
    resp = client.post(
        f"/api/matches/{m1.pk}/commands",
        {"command": legal(m1, "ana")[0], "command_id": "move-1"},
        content_type="application/json",
    )
    assert resp.status_code == 201, resp.content
    before = len(read(m2.stream))
    client.force_login(ben)
    resp = client.post(
        f"/api/matches/{m2.pk}/commands",
        {"command": legal(m2, "ana")[0], "command_id": "move-1"},
        content_type="application/json",
    )
    assert resp.status_code == 201, resp.content
    written = read(m2.stream)[before:]
    assert written and resp.json()["appended"] == [r.version for r in written]
    assert all(r.stream == m2.stream for r in written)


@pytest.mark.django_db
def test_bad_command_ids_are_refused_with_words(client):
    ana = User.objects.create_user("ana_user", password="pw-123456")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk}, rng=random.Random(4)
    )
    n = StoredEvent.objects.count()
    client.force_login(ana)
    for bad in ("x" * 150, "x" * 65, "has space", "semi;colon", "ünïcode"):
        resp = client.post(
            f"/api/matches/{match.pk}/commands",
            {"command": legal(match, "ana")[0], "command_id": bad},
            content_type="application/json",
        )
        assert resp.status_code == 400, (bad, resp.content)
        assert "command_id" in resp.json()["fields"]
        with pytest.raises(RuleError, match="command id"):
            services.submit(match, "ana", legal(match, "ana")[0], command_id=bad)
    # the table's form: a control the page offers, with a bad id
    from games.presenters.table import table_for

    control = table_for(match, services.viewer_for(match, ana)).controls[0]
    form = {"control": control.key, "command_id": "x" * 150}
    form.update({f.name: f.choices[0].value for f in control.fields})
    resp = client.post(f"/games/matches/{match.pk}/command", form, follow=True)
    assert resp.status_code == 200 and b"command id" in resp.content
    with pytest.raises(ValueError, match="command id"):
        append("s-long", 0, ev(1), command_id="c:" + "x" * 150)
    assert StoredEvent.objects.count() == n


@pytest.mark.django_db
def test_create_match_with_a_command_id_is_idempotent():
    kw = {"holders": {"ana": "bot:random"}, "command_id": "open-1", "actor": "olga"}
    first = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(1), **kw)
    again = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(2), **kw)
    assert again.pk == first.pk and Match.objects.count() == 1
    # another organizer's id of the same spelling is another command
    other = services.create_match(
        "love-me-not", ["ana", "ben"], rng=random.Random(3), **{**kw, "actor": "oscar"}
    )
    assert other.pk != first.pk and Match.objects.count() == 2


def _in_threads(n, fn):
    errors, barrier = [], threading.Barrier(n)

    def run(i):
        from django.db import connection

        try:
            barrier.wait()
            fn(i)
        except Exception as exc:  # collected and asserted on below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_create_match_with_a_command_id_races_to_one_match():
    for round_ in range(5):
        made = []

        def create(i, round_=round_, made=made):
            match = services.create_match(
                "love-me-not",
                ["ana", "ben"],
                rng=random.Random(i),
                command_id=f"race-{round_}",
                actor="olga",
            )
            made.append(match.pk)

        assert _in_threads(4, create) == []
        assert len(made) == 4 and len(set(made)) == 1
    assert Match.objects.count() == 5
    assert StoredEvent.objects.filter(type="match_created").count() == 5


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_losing_a_same_command_id_race_notifies_nothing():
    heard, appended = [], []

    def listener(match, new, state, now):
        heard.append((match.stream, [e.type for e in new]))

    def hook(rows):
        appended.extend(r.id for r in rows)

    from eventlog import store

    services.on_match_events(listener, types=None)
    store.on_append(hook)
    try:
        match = services.create_match(
            "love-me-not", ["ana", "ben"], holders={"ana": "bot:random", "ben": "bot:random"}
        )
        series = series_for(match.game)
        rng = random.Random(9)
        for k in range(15):
            state = services.load(match).state
            if state.finished:
                break
            seat = series.pending(state)[0].seat
            command = bot_command(series, state, seat, "random", rng)
            heard.clear()

            def move(i, seat=seat, command=command, k=k):
                services.submit(match, seat, command, command_id=f"m{k}")

            assert _in_threads(3, move) == []
            assert len(heard) == 1, heard
            written = [r.type for r in read(match.stream) if r.command_id == f"c:m{k}"]
            assert heard[0][1] == written
        assert set(appended) <= set(StoredEvent.objects.values_list("id", flat=True))
    finally:
        services._match_listeners[:] = [
            x for x in services._match_listeners if x.fn is not listener
        ]
        store._after_commit.remove(hook)
