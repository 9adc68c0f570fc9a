"""A Celery worker with a prefork pool, stopped the rough way (SIGTERM to its
whole process group, so the pool's children die before the main process has
shut them down), still writes nothing but JSON lines: Celery's own loggers and
billiard's pool logger go through the project's LOGGING (config/celery.py)."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _worker_env(tmp_path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "LOG_"))}
    env.pop("REDIS_URL", None)  # the memory broker: the worker needs no service
    env.update(
        PYTHON=sys.executable,
        LOG_FORMAT="json",
        DJANGO_DEBUG="0",
        DJANGO_SECRET_KEY="test-only-" + "k" * 50,
        DATABASE_URL=f"sqlite:///{tmp_path / 'worker.sqlite3'}",
        VAR_DIR=str(tmp_path),
        CELERY_CONCURRENCY="2",
        CELERY_HOSTNAME="logtest@%h",
    )
    return env


def _start_worker(tmp_path, log_path: Path) -> subprocess.Popen:
    log = open(log_path, "ab")
    return subprocess.Popen(
        [str(ROOT / "docker" / "entrypoint.sh"), "worker"],
        env=_worker_env(tmp_path),
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _pool_children(pid: int) -> list[int]:
    out = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True
    ).stdout
    return [int(p) for p in out.split()]


def _wait_for_pool(proc: subprocess.Popen, log_path: Path, size: int, timeout: float = 60) -> None:
    """Until the worker says it is ready and its pool has ``size`` children."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the worker exited before its pool started"
        ready = " ready." in log_path.read_text(errors="replace")
        if ready and len(_pool_children(proc.pid)) >= size:
            return
        time.sleep(0.2)
    pytest.fail("the worker's pool never started")


def _non_json_lines(log_path: Path) -> list[str]:
    bad = []
    for line in log_path.read_text(errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError:
            bad.append(line)
            continue
        if not isinstance(record, dict) or "level" not in record:
            bad.append(line)
    return bad


def _records(log_path: Path) -> list[dict]:
    return [json.loads(line) for line in log_path.read_text().splitlines() if line.strip()]


def test_a_worker_killed_by_group_sigterm_logs_only_json(tmp_path):
    log_path = tmp_path / "worker.log"
    proc = _start_worker(tmp_path, log_path)
    try:
        _wait_for_pool(proc, log_path, size=2)
        # what a careless supervisor does: the whole group at once
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            # a child killed while holding the pool's queue lock can leave the
            # main process waiting for it forever (billiard): killed after a
            # grace, as `docker stop` does; the log must be JSON either way
            pass
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
    assert _non_json_lines(log_path) == []
    records = _records(log_path)
    # the lines that used to bypass logging are there, as JSON records
    assert any("Warm shutdown" in r["message"] for r in records), records
    assert any(r["logger"] == "multiprocessing" and "exited with" in r["message"] for r in records)


def test_a_worker_stopped_as_an_operator_does_exits_cleanly_with_json_logs(tmp_path):
    """SIGTERM to the main process alone (docker stop, prod-check): it shuts its
    own pool down and exits 0."""
    log_path = tmp_path / "worker.log"
    proc = _start_worker(tmp_path, log_path)
    try:
        _wait_for_pool(proc, log_path, size=2)
        os.kill(proc.pid, signal.SIGTERM)
        assert proc.wait(timeout=60) == 0
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)
    assert _non_json_lines(log_path) == []
    assert any("Warm shutdown" in r["message"] for r in _records(log_path))
