"""Clocks happen by themselves: armed Celery tasks, the beat sweep, the
embedded thread, and a move racing its own timeout."""

import os
import random
import signal
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from django.core.management.base import CommandError
from django.db import connection

from clocks.enforce import enforce_match, sweep
from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, RuleError

ROOT = Path(__file__).resolve().parents[2]
FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}


def dll_match(now=None, options=FAST_DLL, seed=1):
    return services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options=options,
        setup={"first": "ana"},
        rng=random.Random(seed),
        now=now,
    )


def types(match):
    return [r.type for r in read(match.stream)]


# ---- deterministic: the sweep with an explicit clock ------------------------
@pytest.mark.django_db
def test_sweep_enforces_reserve_exhaustion_at_the_deadline_once():
    t0 = 1_000_000.0
    match = dll_match(now=t0)
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 3)  # 1 s + 2 s reserve
    assert sweep(now=t0 + 2.9) == 0
    n = sweep(now=t0 + 3.5)
    assert n >= 1
    timed = [r for r in read(match.stream) if r.type == "timed_out"]
    assert len(timed) == 1 and timed[0].data["at"] == pytest.approx(t0 + 3)
    match.refresh_from_db()
    assert match.status == "finished" and match.winners == ["ben"]
    # enforcing again writes nothing
    assert sweep(now=t0 + 10) == 0
    assert enforce_match(match.pk, now=t0 + 10) == 0
    assert len([r for r in read(match.stream) if r.type == "timed_out"]) == 1


@pytest.mark.django_db
def test_reserve_is_spent_in_steps_by_a_late_move():
    t0 = 2_000_000.0
    match = dll_match(now=t0, options={**FAST_DLL, "reserve_s": 4})
    view = services.view_for(match, MODERATOR_VIEW)
    hand = view["bout"]
    # ana plays 1.5 s after being asked: 0.5 s over => one 1 s step of reserve
    card = _playable(match, "ana")
    services.submit(
        match,
        "ana",
        {"type": "play", "card": card, "claim": card, "target": "opponent"},
        now=t0 + 1.5,
    )
    rows = read(match.stream)
    played = [r for r in rows if r.type in ("card_played", "played")]
    assert played, [r.type for r in rows]
    assert played[-1].data.get("reserve_spent") == 1, played[-1].data
    # the moderator saw each hand as dealt: ana's card and her draw, ben's card
    dealt = {r.data["seat"]: r.data["card"] for r in rows if r.type == "card_dealt"}
    drew = next(r.data["card"] for r in rows if r.type == "turn_started")
    assert sorted(hand["hands"]["ana"]) == sorted([dealt["ana"], drew])
    assert hand["hands"]["ben"] == [dealt["ben"]]


def _playable(match, seat):
    from games.core.protocol import Viewer

    view = services.view_for(match, Viewer.of_seat(seat))
    hand = view["bout"].get("hand") or view["bout"].get("your_hand") or []
    legal = [c for c in hand if str(c) != "8"]
    if 7 in hand or "7" in hand:
        legal = ["7"]
    return str(legal[0])


@pytest.mark.django_db
def test_a_move_after_its_deadline_is_refused_and_the_timeout_wins():
    t0 = 3_000_000.0
    match = dll_match(now=t0)
    card = _playable(match, "ana")
    with pytest.raises(RuleError):
        services.submit(match, "ana", {"type": "play", "card": card, "claim": card}, now=t0 + 3)
    assert "timed_out" not in types(match)  # a rejected command writes nothing
    sweep(now=t0 + 3)
    assert types(match).count("timed_out") == 1


# ---- real time: the embedded thread and a real Celery worker -----------------
@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_embedded_clock_thread_times_out_a_match_left_alone(settings, wait_for):
    from clocks import embedded

    settings.CELERY_BROKER_URL = "memory://"
    stop = embedded.start()
    try:
        match = dll_match()
        deadline = match.next_deadline.timestamp()
        assert wait_for(lambda: "timed_out" in types(match), timeout=15)
        row = [r for r in read(match.stream) if r.type == "timed_out"][0]
        assert row.recorded_at.timestamp() >= deadline - 0.05  # never early
    finally:
        stop.set()
        embedded.wake()
        # its last step (an append and the reactors' pass after it) ends before
        # the database is emptied for the next test
        embedded._background._thread.join(30)


@pytest.fixture
def celery_worker_proc(settings, tmp_path):
    """A real `celery worker -B` on Redis against this test database."""
    from config.celery import app

    queue = f"test-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgresql://{db['USER'] or 'postgres'}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "CELERY_QUEUE": queue,
        "PYTHONPATH": f"{ROOT}:{ROOT / 'platform'}",
    }
    procs = []

    def start(beat=True):
        name = f"{queue}-{len(procs)}@localhost"
        args = [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=solo",
            "-Q",
            queue,
            "--loglevel=WARNING",
            "--without-gossip",
            "--without-mingle",
            "-n",
            name,
            "-s",
            str(tmp_path / f"beat-{queue}"),
        ]
        if beat:
            args.append("-B")
        p = subprocess.Popen(
            args,
            cwd=ROOT,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its own process group: a kill reaches the embedded beat
        )
        procs.append(p)
        for _ in range(60):  # until it answers on the broker (30 s at most), not a fixed wait
            assert p.poll() is None, p.stderr.read().decode()[-2000:]
            if app.control.ping(destination=[name], timeout=0.5):
                return p
        pytest.fail(f"the worker {name} never answered a ping")

    yield start
    for p in procs:
        try:
            os.killpg(p.pid, signal.SIGKILL)  # the worker and the beat it started
        except ProcessLookupError:
            pass
        p.wait(timeout=10)
    app.conf.task_default_queue = "celery"


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_celery_worker_enforces_armed_deadline(celery_worker_proc, wait_for):
    celery_worker_proc(beat=False)  # only the armed task can do it
    match = dll_match()
    deadline = match.next_deadline.timestamp()
    assert wait_for(lambda: "timed_out" in types(match), timeout=20)
    row = [r for r in read(match.stream) if r.type == "timed_out"][0]
    assert row.data["at"] == pytest.approx(deadline, abs=0.01)
    # fired by the armed task (no beat, so no sweep), never before its deadline;
    # how late depends on the machine's load, so it is measured in `make bench`
    assert row.recorded_at.timestamp() >= deadline - 0.05


@pytest.mark.postgres
@pytest.mark.redis
@pytest.mark.django_db(transaction=True)
def test_worker_killed_between_arming_and_firing_the_sweep_enforces(celery_worker_proc, wait_for):
    worker = celery_worker_proc(beat=False)
    match = dll_match(options={**FAST_DLL, "reserve_s": 4})
    worker.send_signal(signal.SIGKILL)  # armed, never fired
    worker.wait(timeout=10)
    time.sleep(max(0.0, match.next_deadline.timestamp() - time.time()) + 0.5)
    assert "timed_out" not in types(match)
    celery_worker_proc(beat=True)  # restart: the beat sweep finds it
    assert wait_for(lambda: "timed_out" in types(match), timeout=20)
    assert types(match).count("timed_out") == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_move_racing_its_own_timeout_has_exactly_one_outcome():
    """Many rounds: a player's move and the timeout hit the same deadline
    from two threads; the log always shows exactly one of them."""
    for i in range(12):
        t0 = 4_000_000.0 + i * 100
        match = dll_match(now=t0, seed=i)
        card = _playable(match, "ana")
        deadline = match.next_deadline.timestamp()
        barrier = threading.Barrier(2)
        results = {}

        def move():
            barrier.wait()
            try:
                services.submit(
                    match,
                    "ana",
                    {"type": "play", "card": card, "claim": card, "target": "opponent"},
                    now=deadline - 0.001,
                )
                results["move"] = "played"
            except RuleError as exc:
                results["move"] = f"refused: {exc}"
            except BaseException as exc:  # anything else fails the test below
                results["move"] = exc
            finally:
                connection.close()

        def clock():
            barrier.wait()
            try:
                results["clock"] = enforce_match(match.pk, now=deadline)
            except BaseException as exc:
                results["clock"] = exc
            finally:
                connection.close()

        threads = [threading.Thread(target=move), threading.Thread(target=clock)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert isinstance(results["move"], str), results
        assert isinstance(results["clock"], int), results
        ts = types(match)
        played = ts.count("card_played") + ts.count("played")
        timed = ts.count("timed_out")
        # the move before the deadline may win (then the timeout finds nothing
        # due at that decision), or the timeout wins and the move is refused
        if results["move"] == "played":
            assert (played, timed, results["clock"]) == (1, 0, 0), (ts, results)
        else:
            assert (played, timed) == (0, 1) and results["clock"] >= 1, (ts, results)
            assert "the match is over" in results["move"], results
        versions = [r.version for r in read(match.stream)]
        assert versions == list(range(1, len(versions) + 1))


@pytest.mark.django_db
def test_pause_and_resume_shift_deadlines_by_the_paused_time():
    t0 = 5_000_000.0
    match = dll_match(now=t0)
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 3)
    services.submit(
        match,
        None,
        {"type": "pause", "reason": "stream down"},
        role="moderator",
        actor="mod",
        now=t0 + 1,
    )
    match.refresh_from_db()
    assert match.next_deadline is None
    assert sweep(now=t0 + 100) == 0
    services.submit(
        match,
        None,
        {"type": "resume", "reason": "back"},
        role="moderator",
        actor="mod",
        now=t0 + 11,
    )
    match.refresh_from_db()
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 13)
    services.submit(
        match,
        None,
        {"type": "add_time", "seconds": 5, "reason": "lag"},
        role="moderator",
        actor="mod",
        now=t0 + 12,
    )
    match.refresh_from_db()
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 18)
    with pytest.raises(RuleError, match="only a moderator"):
        services.submit(match, "ana", {"type": "pause"}, now=t0 + 12)
    sweep(now=t0 + 18)
    assert "timed_out" in types(match)


@pytest.mark.django_db
def test_bots_move_by_themselves_after_a_short_delay(settings):
    settings.BOT_PAUSE_MIN_S = settings.BOT_PAUSE_MAX_S = 1.0  # the pause: games/test_practice.py
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        holders={"ana": "bot:random", "ben": "bot:heuristic"},
        rng=random.Random(3),
    )
    from games.models import Match as M

    match.refresh_from_db()
    assert set(match.waiting_on) == {"ana", "ben"}
    last = match.updated_at.timestamp()
    assert services.move_bots_due(now=last + 0.5) == 0  # too soon: people could not follow
    assert services.move_bots_due(now=last + 1.5) == 1
    for i in range(200):
        m = M.objects.get(pk=match.pk)
        if m.status == "finished":
            break
        services.move_bots_due(now=m.updated_at.timestamp() + 2 + i)
    assert M.objects.get(pk=match.pk).status == "finished"


@pytest.mark.django_db
def test_a_new_match_wakes_the_enforcer_once_at_its_deadline(
    settings, django_capture_on_commit_callbacks
):
    from unittest import mock

    from clocks import arming, enforce_due

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"  # arming sends a task, not a wake-up
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            match = dll_match()
        assert send.call_count == 1  # two appends in one transaction, one wake-up
        (call,) = send.call_args_list
        eta = call.kwargs["eta"]
        assert match.next_deadline <= eta  # never early
        assert (eta - match.next_deadline).total_seconds() < arming.WAKE_WINDOW_S


@pytest.mark.django_db
def test_deadlines_in_one_window_share_a_wake_up(settings):
    from datetime import UTC, datetime, timedelta
    from unittest import mock

    from clocks import arming, enforce_due

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    arming._armed.clear()
    now = time.time()
    # 1 ms into a window two seconds ahead (a fresh window: not armed before)
    start = datetime.fromtimestamp(round(now + 2, 2) + 0.001, tz=UTC)
    same = [start + timedelta(milliseconds=k) for k in (0, 3, 8)]
    later = start + timedelta(milliseconds=12)  # the next window
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        for deadline in [*same, later, same[1]]:
            arming.wake_at(deadline, now)
    etas = [c.kwargs["eta"] for c in send.call_args_list]
    assert etas == [arming.window_end(start), arming.window_end(later)]
    assert etas[0] - start == timedelta(milliseconds=9)
    assert etas[1] - later == timedelta(milliseconds=7)


@pytest.mark.django_db
def test_a_window_is_armed_once_across_processes(settings):
    """Another process (a reactor, a worker running the sweep) that asks for
    a wake-up already asked for publishes nothing: they share the mark."""
    from datetime import UTC, datetime
    from unittest import mock

    from clocks import arming, enforce_due

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    now = time.time()
    deadline = datetime.fromtimestamp(now + 3.0031, tz=UTC)
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        arming._armed.clear()
        arming.wake_at(deadline, now)
        arming._armed.clear()  # what a second process remembers: nothing
        arming.wake_at(deadline, now)
    assert send.call_count == 1


@pytest.mark.django_db
def test_a_far_deadline_is_armed_by_the_sweep_once_it_comes_close(
    settings, django_capture_on_commit_callbacks
):
    """A move's 60 s deadline costs no publish when it is set; the beat's
    sweep arms it once it falls within CLOCKS_ARM_AHEAD_S, once, at its
    window's end, and a match that moved on meanwhile is not armed at all."""
    from unittest import mock

    from clocks import arming, enforce_due

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    settings.CLOCKS_ARM_AHEAD_S = 10
    arming._armed.clear()
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            far = dll_match(options={**FAST_DLL, "decision_s": 60}, seed=3)
            near = dll_match(options={**FAST_DLL, "decision_s": 5}, seed=4)
        # only the near one is armed when it is set
        assert [c.kwargs["eta"] for c in send.call_args_list] == [
            arming.window_end(near.next_deadline)
        ]
        send.reset_mock()
        assert arming.arm_ahead() == 1  # the next 10 s: the near one, armed already
        assert send.call_count == 0
        far_at = far.next_deadline.timestamp()
        assert arming.arm_ahead(now=far_at - 9) == 1  # the far one, 9 s ahead
        assert [c.kwargs["eta"] for c in send.call_args_list] == [
            arming.window_end(far.next_deadline)
        ]
        arming._armed.clear()  # the next sweep, in another worker process
        arming.arm_ahead(now=far_at - 7)
        assert send.call_count == 1
    paused = dll_match(options={**FAST_DLL, "decision_s": 90}, seed=5)  # alone in its 10 s
    deadline = paused.next_deadline
    services.submit(paused, None, {"type": "pause", "reason": "x"}, role="moderator", actor="mod")
    arming._armed.clear()
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        assert arming.arm_ahead(now=deadline.timestamp() - 5) == 0
    assert send.call_count == 0


@pytest.mark.django_db
def test_the_beats_sweep_task_arms_what_comes_close(settings, django_capture_on_commit_callbacks):
    from unittest import mock

    from clocks import arming, enforce_due, tasks

    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    arming._armed.clear()
    with mock.patch.object(enforce_due.enforce_due_deadlines, "apply_async") as send:
        with django_capture_on_commit_callbacks(execute=True):
            match = dll_match(options={**FAST_DLL, "decision_s": 40}, seed=6)
        assert send.call_count == 0  # 42 s ahead: not armed when set
        settings.CLOCKS_ARM_AHEAD_S = 50  # as if 40 s had passed, with the 10 s default
        tasks.sweep_overdue()
    assert [c.kwargs["eta"] for c in send.call_args_list] == [
        arming.window_end(match.next_deadline)
    ]


@pytest.mark.django_db
def test_moderator_pauses_and_resumes_through_the_api(client):
    from django.contrib.auth.models import User

    # a clock long enough that a loaded machine cannot time the match out mid-test
    match = dll_match(options={**FAST_DLL, "decision_s": 600})
    url = f"/api/matches/{match.pk}/moderate"
    assert (
        client.post(
            url, {"type": "pause", "reason": "x"}, content_type="application/json"
        ).status_code
        == 401
    )
    # staff alone moderates nothing; the match names its moderators when created
    client.force_login(User.objects.create_user("staff", password="pw-123456", is_staff=True))
    assert (
        client.post(
            url, {"type": "pause", "reason": "x"}, content_type="application/json"
        ).status_code
        == 403
    )
    mod = User.objects.create_user("mod", password="pw-123456")
    match = services.create_match(
        "doubting-love-letter", ["ana", "ben"], moderators=[mod.pk], rng=random.Random(3)
    )
    url = f"/api/matches/{match.pk}/moderate"
    client.force_login(mod)
    assert client.post(url, {"type": "pause"}, content_type="application/json").status_code == 400
    resp = client.post(
        url, {"type": "pause", "reason": "stream down"}, content_type="application/json"
    )
    assert resp.status_code == 201
    row = read(match.stream)[-1]
    assert (
        row.type == "clock_paused"
        and row.data["reason"] == "stream down"
        and row.metadata["actor"] == "mod"
    )
    again = client.post(url, {"type": "pause", "reason": "again"}, content_type="application/json")
    assert again.status_code == 422 and "already paused" in again.json()["message"]
    assert (
        client.post(
            url, {"type": "resume", "reason": "back"}, content_type="application/json"
        ).status_code
        == 201
    )


@pytest.mark.django_db
def test_history_command_shows_timeouts_and_their_lateness():
    import io

    from django.core.management import call_command

    t0 = 7_000_000.0
    match = dll_match(now=t0)
    sweep(now=t0 + 3)
    out = io.StringIO()
    call_command("history", str(match.pk), stdout=out)
    text = out.getvalue()
    assert "timed_out" in text and "ms late" in text
    with pytest.raises(Exception, match="no match"):
        call_command("history", "999999", stdout=io.StringIO())
    for hostile in ("²", "9" * 4300, "1e308", ""):
        with pytest.raises(CommandError, match="no match"):
            call_command("history", hostile, stdout=io.StringIO())
