"""The peer benchmark's arithmetic and bench/run.py's Node check, without Node:
how phases become moves/s and percentiles, how a py-spy profile is cut into
ms per move, and which pinned Node packages count as missing."""

import json

import pytest

from tests.helpers.bench import BENCH, load_bench


@pytest.fixture(scope="module")
def peer():
    return load_bench("bench_peer")


@pytest.fixture(scope="module")
def run():
    return load_bench("run")


def phase(latency_ms, seconds, **extra):
    return {
        "moves": len(latency_ms),
        "seconds": seconds,
        "latency_ms": latency_ms,
        "error_count": 0,
        "errors": [],
        "matches_finished": 1,
        "pool_ran_dry": False,
        **extra,
    }


def test_phases_merge_over_their_summed_time_and_all_their_moves(peer):
    merged = peer.merge(
        [
            phase([10.0] * 30, 3.0, requests={"GET": 30, "POST": 30}, fetch_ms=[5.0]),
            phase([20.0] * 10, 2.0, requests={"GET": 10, "POST": 10}, fetch_ms=[7.0]),
        ]
    )
    assert merged["moves"] == 40
    assert merged["moves_per_s"] == 8.0  # 40 moves in 5 s, not the mean of 10/s and 5/s
    assert merged["latency_ms"]["p50"] == 10.0
    assert merged["latency_ms"]["max"] == 20.0
    assert merged["requests"] == {"GET": 40, "POST": 40}
    assert merged["requests_per_move"] == 2.0
    assert merged["view_fetch_ms"]["n"] == 2


def test_ratios_are_ours_over_the_peer_and_the_goal_is_judged_on_them(peer):
    ours = peer.merge([phase([30.0] * 10, 1.0)])  # 10 moves/s, p50 30 ms
    theirs = peer.merge([phase([10.0] * 10, 2.0)])  # 5 moves/s, p50 10 ms
    load = {"ours": ours, "peer": theirs, "ratio": peer.ratios(ours, theirs)}
    assert load["ratio"] == {"moves_per_s": 2.0, "p50": 3.0, "p99": 3.0}
    goal = peer.judge(load, load)
    assert goal["moves_per_s_met"] is True  # 2.0 >= 1.5
    assert goal["p50_lower_under_load"] is False  # 30 ms is not lower than 10 ms
    slower = peer.merge([phase([5.0] * 10, 10.0)])  # 1 move/s
    load = {"ours": slower, "peer": theirs, "ratio": peer.ratios(slower, theirs)}
    goal = peer.judge(load, load)
    assert goal["moves_per_s_met"] is False
    assert goal["p50_lower_one_match"] is True


RAW = "\n".join(
    [
        # an idle event loop: not inside a request, not counted
        "_run_once (asyncio/base_events.py:1922);select (selectors.py:468) 500",
        # the POST: submit -> append -> waiting on PostgreSQL
        "inner (django/core/handlers/exception.py:55);post (games/api.py:520);"
        "submit (games/services.py:360);append (platform/eventlog/store.py:170);"
        "execute_sql (django/db/models/sql/compiler.py:1600);"
        "execute (psycopg/cursor.py:97);wait (psycopg/waiting.py:300) 40",
        # the POST: after-commit hooks talking to Redis
        "inner (django/core/handlers/exception.py:55);post (games/api.py:520);"
        "submit (games/services.py:360);run_and_clear_commit_hooks "
        "(django/db/backends/base/base.py:760);send_command (redis/connection.py:500) 20",
        # the ORM building a query (its CPU, not waiting: under get_match)
        "inner (django/core/handlers/exception.py:55);get_match (games/api.py:40);"
        "as_sql (django/db/models/sql/compiler.py:700);compile "
        "(django/db/models/sql/compiler.py:550) 10",
        # the GET: the view, and opening its database connection
        "inner (django/core/handlers/exception.py:55);get (games/api.py:480);"
        "view_for (games/services.py:610);connect (psycopg/connection.py:100) 40",
    ]
)


def test_a_profile_counts_only_request_samples_in_ms_per_move(peer):
    table = peer.profile_table(RAW, moves=10, rate=100)
    assert table["request_samples"] == 110
    assert table["request_ms_per_move"] == 110.0  # 110 samples at 100 Hz over 10 moves
    buckets = {b["what"]: b["ms_per_move"] for b in table["buckets"]}
    assert buckets["services.submit: load, decide, append, hooks"] == 60.0
    assert buckets["of which, the event store's append"] == 40.0
    assert buckets["of which, after-commit hooks (publish, webhooks, clocks)"] == 20.0
    assert buckets["the seat's view (services.view_for)"] == 40.0
    orm = "Django ORM, not waiting (building, compiling, making objects)"
    assert buckets[orm] == 10.0  # the ORM's samples waiting on PostgreSQL are not counted
    leaves = {b["what"]: b["ms_per_move"] for b in table["leaves"]}
    assert leaves["waiting on PostgreSQL (psycopg)"] == 40.0
    assert leaves["opening a PostgreSQL connection"] == 40.0  # not also counted as waiting
    assert leaves["Redis (rate limits, Celery publish, channel layer)"] == 20.0
    top = {f["function"]: f["share"] for f in table["top_functions"]}
    assert top["games/services.py:submit"] == round(60 / 110, 3)


def _result(peer):
    ours = peer.merge([phase([30.0] * 10, 1.0, requests={"GET": 9, "POST": 10}, fetch_ms=[4.0])])
    theirs = peer.merge([phase([10.0] * 10, 2.0)])
    load = {"ours": ours, "peer": theirs, "ratio": peer.ratios(ours, theirs)}
    return {
        "title": peer.TITLE,
        "finished_at": "2026-12-01T00:00:00Z",
        "duration_s": 99.0,
        "params": {"target": 5, "rounds": 2, "web_workers": 2, "pg_pool": 10, "matches": 50},
        "environment": {
            "versions": {"Django": "5.2", "python": "3.11"},
            "peer_versions": {
                "boardgame.io": "0.50.2",
                "socket.io": "4.8.1",
                "bgio-postgres": "1.0.16",
                "sequelize": "6.37.8",
            },
            "node": "v20",
            "postgres": "PostgreSQL 15",
            "cpus": 2,
            "load_before": 0.5,
            "load_after": 1.5,
        },
        "latency": load,
        "load": load,
        "goal": peer.judge(load, load),
        "census": {
            "ours": {"moves": 10, "get": {"SELECT": 40}, "post": {"SELECT": 110, "UPDATE": 30}},
            "peer": {"moves": 10, "per_move": {"SELECT": 3.0, "UPDATE": 1.0}},
        },
        "persisted": {
            "ours": {
                "event_rows": 50,
                "card_played_rows": 10,
                "every_move_written": True,
                "moves_acknowledged": 10,
            },
            "peer": {
                "make_move_entries": 10,
                "moves_acknowledged": 12,
                "every_move_written": False,
                "state_bytes_avg": 700,
                "log_bytes_avg": 900,
                "log_entries_max": 80,
            },
        },
        "profile": {"skipped": "off"},
    }


def test_the_readme_table_says_the_ratio_and_what_was_missed(peer):
    md = peer.markdown(_result(peer))
    assert "**2.00 ×** (goal ≥ 1.5 ×: met)" in md
    assert "goal lower: **missed**" in md
    assert "| 50 matches at once | ours | 10 | 10.0 | 30.0 |" in md
    # a move lost by a side is said, not hidden
    assert "in its `log` column: **no** (10 `MAKE_MOVE` entries, 12 acknowledged)" in md
    assert "5.0 event rows a move" in md


def _project(tmp_path, pins, installed):
    (tmp_path / "package.json").write_text(json.dumps({"dependencies": pins}))
    for name, version in installed.items():
        d = tmp_path / "node_modules" / name
        d.mkdir(parents=True)
        (d / "package.json").write_text(json.dumps({"name": name, "version": version}))
    return tmp_path


def test_node_packages_at_another_version_or_absent_are_missing(run, tmp_path):
    project = _project(
        tmp_path,
        {"boardgame.io": "0.50.2", "bgio-postgres": "1.0.16", "@scope/x": "1.0.0"},
        {"boardgame.io": "0.50.1", "@scope/x": "1.0.0"},
    )
    assert run.node_missing(project) == [
        "bgio-postgres@1.0.16 (installed: none)",
        "boardgame.io@0.50.2 (installed: 0.50.1)",
    ]


def test_the_peers_own_pins_are_exact_and_locked():
    project = BENCH / "peers" / "boardgameio"
    pins = json.loads((project / "package.json").read_text())["dependencies"]
    lock = json.loads((project / "package-lock.json").read_text())["packages"]
    assert pins["boardgame.io"].startswith("0.50.")
    for name, version in pins.items():
        assert version[0].isdigit(), f"{name} is pinned to a range: {version}"
        assert lock[f"node_modules/{name}"]["version"] == version


def test_the_kill_check_counts_acknowledged_moves_past_what_each_store_holds(peer):
    class Store:  # boardgame.io's match rows: the state id each stores
        def sql(self, query, params):
            assert params == [["a", "b", "c"]]
            return [("a", 3), ("b", 7)]  # "c" never reached its store

    acked = [["a", 2], ["a", 3], ["a", 4], ["b", 7], ["c", 1]]
    assert peer._peer_missing(Store(), acked) == 2  # a@4 and c@1

    class Ours:  # our log: the command ids found among the events
        def sql(self, query, params):
            assert params == [["c:peer-1-1", "c:peer-1-2", "c:peer-2-3"]]
            return [(2,)]

    assert peer._ours_missing(Ours(), ["peer-1-1", "peer-1-2", "peer-2-3", "peer-1-1"]) == 1
    result = _result(peer)
    result["durability"] = {
        "ours": {"acknowledged": 21, "missing": 0, "killed_after_s": 3.0},
        "peer": {"acknowledged": 99, "missing": 37, "killed_after_s": 3.0},
    }
    md = peer.markdown(result)
    assert "ours **0** of 21 acknowledged moves missing from its log afterwards (goal 0: met)" in md
    assert "boardgame.io 37 of 99 missing" in md
    result["durability"]["ours"]["missing"] = 1
    assert "(goal 0: **missed**)" in peer.markdown(result)


def test_the_moves_per_s_over_fifty_matches_is_judged_apart_from_the_ratio(peer):
    md = peer.markdown(_result(peer))  # ours 10 moves/s, twice the peer's
    assert "ours 10.0 moves/s over 50 live matches (goal ≥ 300: **missed**)" in md


def test_the_cpu_a_move_sums_each_part_over_a_sides_load_phases(peer):
    first = (
        {"web1": 1.0, "postgres": 2.0, "machine": 10.0},
        {"web1": 2.0, "postgres": 2.5, "machine": 12.0},
    )
    second = (
        {"web1": 5.0, "postgres": 3.0, "machine": 20.0},
        {"web1": 6.0, "postgres": 4.0, "machine": 24.0},
    )
    cpu = peer.cpu_per_move([first, second], 100)  # 2 s of web, 1.5 of PostgreSQL, 6 busy
    assert cpu["web1"] == 20.0 and cpu["postgres"] == 15.0
    assert cpu["machine"] == 60.0 and cpu["other"] == 25.0  # busy time no part accounts for
    result = {**_result(peer), "cpu_ms_per_move": {"ours": cpu, "peer": {"machine": 7.5}}}
    md = peer.markdown(result)
    assert "| our web (gunicorn and its uvicorn workers) | 20.00 | – |" in md
    assert "| **the machine, all of it** | 60.00 | 7.50 |" in md


def test_the_cpu_and_the_census_a_move_divide_by_the_phases_own_moves(peer, capsys):
    """Each side's CPU a move is over its load phases' moves, and the peer's
    statements a move over its latency phases' moves: never over the
    driver's running total, which counts every phase before (the warm-up's
    500 moves too) and made both look several times cheaper."""

    class Driver:
        def __init__(self):
            self.total = 0

        def phase(self, spec):
            n = spec["moves"] + spec["warmup"]
            self.total += n
            return {
                "moves": spec["moves"],
                "moves_all": n,
                "moves_total": self.total,
                "seconds": 1.0,
                "latency_ms": [1.0] * spec["moves"],
                "error_count": 0,
            }

    sides = {"ours": Driver(), "peer": Driver()}

    class Peer:  # its store: one UPDATE a move it ever took
        def query_counts(self):
            return {"UPDATE": sides["peer"].total}

    def snapshot():  # CPU seconds so far: our web 2 ms a move of ours
        every = sides["ours"].total + sides["peer"].total
        return {"web1": 0.002 * sides["ours"].total, "machine": 0.005 * every}

    s = {"rounds": 2, "matches": 50, "seconds": 30}
    sizes = {"per": {"latency": 50, "load": 500}, "warm": {"latency": 5, "load": 50}}
    _runs, census, cpu = peer._phases(sides, Peer(), s, sizes, snapshot)
    assert cpu["ours"]["web1"] == pytest.approx(2.0)
    assert cpu["ours"]["machine"] == pytest.approx(5.0)
    assert census["moves"] == 2 * (50 + 5)
    assert peer._census_of_peer(census)["per_move"]["UPDATE"] == 1.0
