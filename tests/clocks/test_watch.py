"""The enforcer's loop (clocks/watch.py): one wake-up that keeps watching the
deadline index, and the wake-ups it spares arming."""

import random
import time
from datetime import UTC, datetime
from unittest import mock

import pytest
from django.core.cache import cache

from clocks import arming, enforce, enforce_due, watch
from eventlog.store import read
from games import services

FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}


@pytest.fixture
def no_loop(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # arming sends a task
    arming._armed.clear()
    watch._seen = (0.0, 0.0)
    cache.delete(watch._key())
    # a loop behind its deadlines asks for a helper: never sent from a test
    with mock.patch.object(watch.current_app, "send_task") as helper_asked:
        yield helper_asked
    cache.delete(watch._key())
    watch._seen = (0.0, 0.0)


def _at(ts):
    return datetime.fromtimestamp(ts, tz=UTC)


def _due_at(deadline, seed):
    """A match nobody plays whose first deadline is ``deadline``."""
    return services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options=FAST_DLL,
        setup={"first": "ana"},
        rng=random.Random(seed),
        now=deadline - 3,  # its deadline: 1 s decision + 2 s reserve
    )


def _timeouts(match):
    return [r for r in read(match.stream) if r.type == "timed_out"]


@pytest.mark.django_db
def test_a_deadline_a_running_loop_watches_costs_no_wake_up(no_loop):
    now = time.time()
    cache.set(watch._key(), now + 5, timeout=watch.KEEP_S)  # a loop watches the next 5 s
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        arming.wake_at(_at(now + 2.0031), now)  # watched: no wake-up of its own
        arming.wake_at(_at(now + 0.0131), now)  # too close for the loop's next look
        arming.wake_at(_at(now + 6.0031), now)  # past the loop's promise
    etas = [c.kwargs["eta"] for c in send.call_args_list]
    assert etas == [arming.window_end(_at(now + 0.0131)), arming.window_end(_at(now + 6.0031))]


@pytest.mark.django_db
def test_a_dead_loops_promise_runs_out_and_wake_ups_are_sent_again(no_loop):
    now = time.time()
    cache.set(watch._key(), now + 5, timeout=watch.KEEP_S)
    cache.delete(watch._key())  # what the key's short life does when no loop writes it
    watch._seen = (0.0, 0.0)  # read more than KEEP_S / 2 ago
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        arming.wake_at(_at(now + 2.0031), now)
    assert send.call_count == 1


@pytest.mark.django_db
def test_the_loop_fires_each_deadline_that_falls_due_while_it_runs(no_loop, settings):
    settings.CLOCKS_ARM_AHEAD_S = 1.5  # the loop's first promise
    _due_at(time.time() - 10, seed=8)  # made once before: the next ones are made quickly
    base = time.time()
    matches = [_due_at(base + 0.4 + 0.15 * i, seed=i) for i in range(4)]
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        started = time.time()
        written = watch.run_loop()
        took = time.time() - started
    assert send.call_count == 0  # no wake-up but the one that started it
    assert written >= len(matches)
    for m in matches:
        (timed,) = _timeouts(m)
        assert timed.data["at"] == pytest.approx(m.next_deadline.timestamp())
        assert timed.recorded_at >= m.next_deadline  # never early
    assert took < 10  # it ended once nothing fell due within its promise
    assert cache.get(watch._key()) is None  # and gave its promise back


@pytest.mark.django_db
def test_a_wake_up_while_a_loop_runs_enforces_what_is_due_once(no_loop):
    due = _due_at(time.time(), seed=9)
    time.sleep(max(0.0, due.next_deadline.timestamp() - time.time()) + 0.01)
    until = time.time() + 5
    cache.set(watch._key(), until, timeout=watch.KEEP_S)  # another worker's loop
    started = time.time()
    assert watch.run_loop() >= 1
    assert time.time() - started < 1  # it did not loop
    assert len(_timeouts(due)) == 1
    assert cache.get(watch._key()) == until  # the other loop's promise stands


@pytest.mark.django_db
def test_a_loop_that_falls_behind_asks_for_one_helper(no_loop, settings, caplog):
    settings.CLOCKS_ARM_AHEAD_S = 0.3  # the loop ends soon after the backlog
    late = [_due_at(time.time() - 1, seed=20 + i) for i in range(5)]  # a second behind
    with caplog.at_level("INFO", logger="clocks.watch"):
        watch.run_loop()
    assert [c.kwargs for c in no_loop.call_args_list] == [{"kwargs": {"helper": True}}]
    assert no_loop.call_args.args == ("clocks.enforce_due",)
    assert "ms behind: a helper asked for" in caplog.text
    assert all(len(_timeouts(m)) == 1 for m in late)


@pytest.mark.django_db
def test_a_loop_on_time_or_with_a_helper_running_asks_for_none(no_loop, settings, monkeypatch):
    settings.CLOCKS_ARM_AHEAD_S = 0.3
    monkeypatch.setattr(watch, "HELP_LATE_S", 0.5)  # on time, even on a busy machine
    on_time = _due_at(time.time() + 0.1, seed=30)  # falls due while the loop looks
    watch.run_loop()
    assert len(_timeouts(on_time)) == 1
    assert no_loop.call_count == 0
    late = _due_at(time.time() - 1, seed=31)
    cache.set(watch._helper_key(), time.time(), timeout=5)  # a helper runs
    try:
        watch.run_loop()
    finally:
        cache.delete(watch._helper_key())
    assert no_loop.call_count == 0
    assert len(_timeouts(late)) == 1


@pytest.mark.django_db
def test_a_helper_enforces_what_is_due_and_ends_when_nothing_has_been(no_loop, caplog):
    due = [_due_at(time.time() - 0.5, seed=40 + i) for i in range(3)]
    started = time.time()
    with caplog.at_level("INFO", logger="clocks.watch"):
        written = enforce_due.enforce_due_deadlines.run(helper=True)
    took = time.time() - started
    assert written >= len(due)
    assert all(len(_timeouts(m)) == 1 for m in due)
    assert watch.LINGER_S <= took < watch.LINGER_S + 5  # lingered, then ended
    assert cache.get(watch._helper_key()) is None  # and gave its key back
    assert "the clocks' helper started" in caplog.text
    assert f"the clocks' helper ended: {written} event(s) written" in caplog.text


@pytest.mark.django_db
def test_a_second_helper_enforces_what_is_due_once(no_loop):
    due = _due_at(time.time() - 0.5, seed=50)
    running = time.time()
    cache.set(watch._helper_key(), running, timeout=5)  # another helper runs
    try:
        started = time.time()
        assert watch.run_loop(helper=True) >= 1
        assert time.time() - started < watch.LINGER_S  # it did not linger
        assert cache.get(watch._helper_key()) == running  # the other's key stands
    finally:
        cache.delete(watch._helper_key())
    assert len(_timeouts(due)) == 1


@pytest.fixture
def timeouts_fail(monkeypatch):
    """Every timeout raises (a bug in one game); the matches it was tried on,
    in order (``monkeypatch.undo()`` puts the real enforcer back)."""
    tried = []

    def fail(match, now):
        tried.append(match.pk)
        raise RuntimeError("a bug in one game")

    monkeypatch.setattr(enforce, "_enforce", fail)
    return tried


@pytest.mark.django_db
def test_a_timeout_that_keeps_failing_does_not_make_the_loop_spin(no_loop, settings, timeouts_fail):
    settings.CLOCKS_ARM_AHEAD_S = 0.5
    broken = _due_at(time.time() - 1, seed=60)
    watch.run_loop()
    assert _timeouts(broken) == []
    # tried once a look (every LOOK_S), not as fast as the loop can go
    assert 1 <= len(timeouts_fail) <= 0.5 / watch.LOOK_S + 5, len(timeouts_fail)
    assert no_loop.call_count == 0  # stuck, not behind: no helper


@pytest.mark.django_db
def test_the_embedded_clock_waits_after_a_timeout_that_fails(timeouts_fail, monkeypatch):
    """`make run`'s clock thread: a sweep that wrote nothing because a timeout
    fails waits for the next deadline (none here: a sweep's interval), not
    0 s, as it did; the next sweep tries it again."""
    from clocks import embedded

    broken = _due_at(time.time() - 1, seed=70)
    assert embedded._step() == pytest.approx(embedded.SWEEP_S, abs=0.01)
    assert _timeouts(broken) == []
    monkeypatch.undo()  # the game's bug mended
    assert embedded._step() == pytest.approx(embedded.SWEEP_S, abs=0.01)  # written, none due
    assert len(_timeouts(broken)) == 1
