"""clocks_scale reads from the workers' logs which path wrote each timeout,
how late its task began and how long it took: read here from a line the
enforcer logs, as the JSON a worker writes."""

import json
import logging
import random
from types import SimpleNamespace

import pytest

from clocks.enforce import enforce_due
from games import services
from runtime.logging import JsonFormatter, log_context
from tests.helpers.bench import load_bench


@pytest.fixture(scope="module")
def scale():
    return load_bench("bench_clocks_scale")


@pytest.mark.django_db
def test_the_bench_reads_how_late_each_timeout_began_and_how_long_it_took(scale, caplog, tmp_path):
    t0 = 2_000_000.0
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1},
        setup={"first": "ana"},
        rng=random.Random(1),
        now=t0,
    )
    deadline = match.next_deadline.timestamp()
    with caplog.at_level(logging.INFO, logger="clocks.enforce"):
        with log_context(task_id="clocks.enforce_due[abc]"):
            assert enforce_due(now=deadline + 0.25) >= 1
    written = [r for r in caplog.records if "written" in r.getMessage()]
    assert written, caplog.text
    lines = []
    for record in written:
        with log_context(task_id="clocks.enforce_due[abc]", stream=match.stream):
            lines.append(JsonFormatter().format(record))
    (tmp_path / "worker1.log").write_text("\n".join(lines) + "\n")
    found = scale._writers(SimpleNamespace(workdir=tmp_path))
    path, begun, took = found[match.stream]
    assert path == "armed"
    assert begun == pytest.approx(250.0, abs=0.1)  # its clock said a quarter second late
    assert took is not None and 0 <= took < 60_000
    assert json.loads(lines[0])["stream"] == match.stream


def test_the_latest_timeouts_are_listed_latest_first(scale):
    per_match = [
        {"i": 0, "lateness_ms": 3.0, "path": "armed", "begun_ms": 1.0, "written_in_ms": 2.0},
        {"i": 1, "timed_out": False},
        {"i": 2, "lateness_ms": 90.0, "path": "sweep", "begun_ms": 80.0, "written_in_ms": 9.0},
        {"i": 3, "lateness_ms": 40.0, "path": "armed", "begun_ms": None, "written_in_ms": None},
    ]
    assert scale._latest(per_match, 2) == [
        {"lateness_ms": 90.0, "begun_ms": 80.0, "written_in_ms": 9.0, "path": "sweep"},
        {"lateness_ms": 40.0, "begun_ms": None, "written_in_ms": None, "path": "armed"},
    ]
