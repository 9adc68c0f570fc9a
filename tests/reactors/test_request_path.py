"""With the reactors in their own processes (production), a move is load,
decide, append, answer, and its version told to the match's sockets at once
(no query: the match row is in hand); its webhooks and arming its clock are
left to the reactors, which follow the log (and tell the sockets again)."""

import random
import re

import pytest
from django.contrib.auth.models import User
from django.db import connection
from django.test.utils import CaptureQueriesContext

from clocks import arming
from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from live import publisher
from live.groups import groups_of
from reactors.follow import Follower

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def _move(match) -> list[str]:
    """The queries of one legal move."""
    state = services.load(match).state
    series = series_for(match.game)
    seat = series.pending(state)[0].seat
    command = bot_command(series, state, seat, "random", random.Random(3))
    with CaptureQueriesContext(connection) as seen:
        services.submit(match, seat, command, actor=seat)
    return [q["sql"] for q in seen.captured_queries]


def test_a_move_announces_itself_and_leaves_the_webhooks_and_clock_to_the_reactors(
    settings, monkeypatch, seated_match
):
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    inline = _move(seated_match(ana, ben))
    announced, armed = [], []
    monkeypatch.setattr(publisher, "send", lambda layer, sends: announced.extend(sends))
    monkeypatch.setattr(arming, "wake_at", armed.append)

    settings.REACTORS_INLINE = False
    match = seated_match(ana, ben)
    _move(match)  # a process's first move on a match reads its creation record once
    announced.clear()
    request = _move(match)
    # told at once, by the process that committed it: every group of the match
    told = {group: m["version"] for group, m in announced}
    assert set(told) == set(groups_of(match)) and set(told.values()) == {match.version}
    announced.clear()
    assert len(request) < len(inline), (len(request), len(inline))
    # the match row vouched for the kept state: no tip read; no listener acts
    # on the move, so its append is its whole transaction: one statement in
    # autocommit writes the events, the match row, the clock index and the notes
    assert request == [q for q in request if q not in ("BEGIN", "COMMIT")], request
    assert len(request) == 1, request
    # (its statement prepared in the same round trip the first time a process
    # appends that many events)
    assert re.match(r"(PREPARE .*; )?EXECUTE eventlog_append_\d+_match_row_whole \(", request[0]), (
        request
    )
    row = type(match).objects.get(pk=match.pk)
    assert row.version == services.load(match).version == match.version
    assert row.updated_at == services.read(match.stream)[-1].recorded_at == match.updated_at
    assert row.next_deadline == match.next_deadline and row.waiting_on == match.waiting_on
    assert not [q for q in request if "hooks_" in q]
    assert armed == []  # the request armed nothing

    follower = Follower()
    follower.beat()
    follower.catch_up()
    follower.leave()
    versions = {m["version"] for _group, m in announced}
    assert max(versions) == services.load(match).version
    match.refresh_from_db()
    assert match.next_deadline is not None and match.next_deadline in armed


def test_a_late_reactor_tells_whose_turn_it_was_at_each_append(settings, seated_match):
    import json

    from hooks.models import WebhookDelivery, WebhookEndpoint

    settings.REACTORS_INLINE = False
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    match = seated_match(ana, ben, show_stream="show-late")
    WebhookEndpoint.objects.create(
        show_stream="show-late", url="http://127.0.0.1:9/", kinds=["your_turn"], secret="s" * 64
    )
    series = series_for(match.game)
    turns = {}
    for _ in range(4):
        _move(match)
        loaded = services.load(match)
        turns[loaded.version] = sorted({d.seat for d in series.pending(loaded.state)})
    assert len({tuple(seats) for seats in turns.values()}) > 1  # the turn changed hands

    follower = Follower()  # comes to the four moves only now
    follower.beat()
    follower.catch_up()
    follower.leave()
    told = {
        d.version: json.loads(d.body)["seats"]
        for d in WebhookDelivery.objects.filter(stream=match.stream, kind="your_turn")
    }
    assert {v: told.get(v) for v in turns} == turns


def test_the_reactors_of_a_batch_share_one_read_of_its_match_rows(
    settings, monkeypatch, seated_match
):
    from reminders.models import YOUR_TURN, Reminder, ReminderSettings

    settings.REACTORS_INLINE = False
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    ReminderSettings.objects.create(user=ana, channels={YOUR_TURN: ["email"]})
    ReminderSettings.objects.create(user=ben, channels={YOUR_TURN: ["email"]})
    match = seated_match(ana, ben)
    for _ in range(3):
        _move(match)
    announced = []
    monkeypatch.setattr(publisher, "send", lambda layer, sends: announced.extend(sends))
    follower = Follower()
    follower.beat()
    with CaptureQueriesContext(connection) as seen:
        follower.catch_up()
    follower.leave()
    match_reads = [
        q["sql"]
        for q in seen.captured_queries
        if 'FROM "games_match"' in q["sql"] and '"stream" IN' in q["sql"]
    ]
    # live, clocks and reminders all handled the batch (one partition, one read)
    assert announced and Reminder.objects.filter(kind=YOUR_TURN).exists()
    assert len(match_reads) == 1, match_reads


def test_a_stale_match_row_and_kept_state_are_read_again_not_obeyed(settings, seated_match):
    """A process that missed the last move holds the match row and the kept
    state of the version before it: the next move is decided again on the
    log (its append at the old version loses), and written after the last."""
    from games import states

    settings.REACTORS_INLINE = False
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    match = seated_match(ana, ben)
    stale = services.load(match)
    stale_row = type(match).objects.get(pk=match.pk)
    stale_entry = states.local_entry(match.stream)
    series = series_for(match.game)
    seat = series.pending(stale.state)[0].seat
    command = bot_command(series, stale.state, seat, "random", random.Random(3))
    services.submit(match, seat, command, actor=seat)
    after = services.load(match)
    other = series.pending(after.state)[0].seat

    states.forget_local()
    states._keep_local(match.stream, stale_entry)  # what the other process kept
    assert services._vouched(stale_row) is not None
    move = bot_command(series, after.state, other, "random", random.Random(4))
    rows = services.submit(stale_row, other, move, actor=other)
    assert rows and rows[0].version == after.version + 1
    loaded = services.load(match)
    assert loaded.version == rows[-1].version
    assert loaded.state == services.fold_rows(match.game, services.read(match.stream))


def test_a_pass_asks_once_whether_hooks_or_reminders_are_wanted(
    settings, monkeypatch, seated_match
):
    """Matches of no show, and no player who chose "your turn" reminders: the
    webhooks reactor reads nothing, the reminders reactor asks once for the
    whole pass, the ratings reactor asks the rows alone (no match ended), and
    none opens a savepoint for appends it has nothing to do for."""
    from hooks.models import WebhookDelivery, WebhookEndpoint
    from reactors.follow import registered

    settings.REACTORS_INLINE = False
    assert {"webhooks", "reminders"} <= {r.name for r in registered()}
    writers = ("webhooks", "reminders", "ratings")
    assert all(not r.writes for r in registered() if r.name not in writers)
    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    plain = [seated_match(ana, ben)]  # one stream: one partition, one pass
    for _ in range(6):
        _move(plain[0])
    monkeypatch.setattr(publisher, "send", lambda layer, sends: None)
    follower = Follower()
    follower.beat()
    with CaptureQueriesContext(connection) as seen:
        follower.catch_up()
    sql = [q["sql"] for q in seen.captured_queries]
    assert not [q for q in sql if "hooks_webhookendpoint" in q]
    assert len([q for q in sql if "reminders_remindersettings" in q]) == 1
    assert not [q for q in sql if "SAVEPOINT" in q]
    assert not [q for q in sql if "ratings_" in q]

    # a show's match with an endpoint: the endpoints read once for the pass,
    # and its deliveries written
    hooked = [seated_match(ana, ben, show_stream="show-hooked")]
    WebhookEndpoint.objects.create(
        show_stream="show-hooked", url="http://127.0.0.1:9/", kinds=["your_turn"], secret="s" * 64
    )
    for _ in range(3):
        _move(hooked[0])
    with CaptureQueriesContext(connection) as seen:
        follower.catch_up()
    follower.leave()
    hook_reads = [q["sql"] for q in seen.captured_queries if "hooks_webhookendpoint" in q["sql"]]
    # one to learn which shows are hooked, then the deliveries' own per append
    assert hook_reads and "DISTINCT" in hook_reads[0]
    assert len([q for q in hook_reads if "DISTINCT" in q]) == 1
    for match in hooked:
        assert WebhookDelivery.objects.filter(stream=match.stream, kind="your_turn").exists()
    assert not WebhookDelivery.objects.filter(stream__in=[m.stream for m in plain]).exists()


def test_a_matchs_creation_facts_are_read_once_per_process(settings, monkeypatch, seated_match):
    from eventlog import store
    from games import visibility

    ana, ben = (User.objects.create_user(n) for n in ("ana", "ben"))
    match = seated_match(ana, ben)
    reads = []
    real_first = store.first
    monkeypatch.setattr(store, "first", lambda stream: reads.append(stream) or real_first(stream))
    row = type(match).objects.get(pk=match.pk)
    facts = visibility.match_facts(row)
    assert visibility.match_facts(type(match).objects.get(pk=match.pk)) == facts
    assert reads.count(match.stream) <= 1
    other = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        spectator_delay_s=45,
        rng=random.Random(6),
    )
    assert visibility.match_facts(other).spectator_delay_s == 45 != facts.spectator_delay_s
