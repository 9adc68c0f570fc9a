"""The embedded mode's background thread: it runs its step, sleeps what the
step says unless woken, survives a failing step, and stops on its flag."""

import threading

from runtime.background import Background


def test_a_woken_thread_steps_again_at_once_and_stops_on_its_flag():
    steps = threading.Semaphore(0)
    runs = []

    def step():
        runs.append(1)
        steps.release()
        return 60.0  # without a wake-up it would sleep a minute

    worker = Background("test-bg", step, retry_s=60.0)
    stop = worker.start()
    assert worker.start() is stop  # started once
    assert steps.acquire(timeout=5)
    worker.wake()
    assert steps.acquire(timeout=5)  # woken: a second step long before a minute
    stop.set()
    worker.wake()
    worker._thread.join(timeout=5)
    assert not worker._thread.is_alive()
    assert len(runs) == 2


def test_a_failing_step_is_logged_and_tried_again(caplog):
    calls = threading.Semaphore(0)
    failures = []

    def step():
        calls.release()
        if not failures:
            failures.append(1)
            raise RuntimeError("the database is away")
        return 60.0

    worker = Background("test-bg-fail", step, retry_s=0.05)
    with caplog.at_level("ERROR"):
        stop = worker.start()
        assert calls.acquire(timeout=5) and calls.acquire(timeout=5)  # retried after 0.05 s
    stop.set()
    worker.wake()
    assert "test-bg-fail loop failed" in caplog.text


def test_starting_again_after_a_stop_runs_a_new_thread():
    ran = threading.Semaphore(0)

    def step():
        ran.release()
        return 60.0

    worker = Background("test-bg-restart", step, retry_s=60.0)
    first = worker.start()
    assert ran.acquire(timeout=5)
    first.set()  # stopping, not yet stopped: the next start waits for it
    second = worker.start()
    assert second is not first and not second.is_set()
    assert ran.acquire(timeout=5)  # the new thread steps
    second.set()
    worker.wake()
