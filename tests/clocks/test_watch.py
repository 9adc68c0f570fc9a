"""The enforcer's loop (clocks/watch.py): one wake-up that keeps watching the
deadline index, and the wake-ups it spares arming."""

import random
import time
from datetime import UTC, datetime
from unittest import mock

import pytest
from django.core.cache import cache

from clocks import arming, enforce_due, watch
from eventlog.store import read
from games import services

FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}


@pytest.fixture
def no_loop(settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # arming sends a task
    arming._armed.clear()
    watch._seen = (0.0, 0.0)
    cache.delete(watch._key())
    yield
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
    watch._promise(now + 5)  # a loop runs and watches the next 5 s
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        arming.wake_at(_at(now + 2.0031), now)  # watched: no wake-up of its own
        arming.wake_at(_at(now + 0.0131), now)  # too close for the loop's next look
        arming.wake_at(_at(now + 6.0031), now)  # past the loop's promise
    etas = [c.kwargs["eta"] for c in send.call_args_list]
    assert etas == [arming.window_end(_at(now + 0.0131)), arming.window_end(_at(now + 6.0031))]


@pytest.mark.django_db
def test_a_dead_loops_promise_runs_out_and_wake_ups_are_sent_again(no_loop):
    now = time.time()
    watch._promise(now + 5)
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
    watch._promise(until)  # another worker's loop
    started = time.time()
    assert watch.run_loop() >= 1
    assert time.time() - started < 1  # it did not loop
    assert len(_timeouts(due)) == 1
    assert cache.get(watch._key()) == until  # the other loop's promise stands
