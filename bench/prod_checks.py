"""The checks `make prod-check` makes after its show (bench/prod_check.py):
the log, the read models, the HTTP answers, the sockets, the app role, the logs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

RECOVERY_S = 10  # the show goes on within this long after a fault
# a socket that has not shown a version this long after it was written has lost it
# (the 2 cores are shared by every process of the run)
SOCKET_LAG_S = 5
SPECTATOR_SLACK_S = 0.01  # timestamps of the same clock, rounded differently

REBUILD_CHECK = r"""
import json
import django
django.setup()
from django.apps import apps
from django.db import models, transaction
from eventlog.readmodels import rebuild_all

def snapshot():
    out = {}
    for label in ("games", "tournaments"):
        for model in apps.get_app_config(label).get_models():
            names = [
                f.attname for f in model._meta.concrete_fields
                if not f.primary_key and not isinstance(f, models.ForeignKey)
                and not getattr(f, "auto_now", False) and not getattr(f, "auto_now_add", False)
                and f.editable  # not the fold snapshots (folded): no read model
            ]
            rows = sorted(json.dumps(r, sort_keys=True, default=str) for r in model.objects.values(*names))
            out[model._meta.label] = rows
    return out

before = snapshot()
with transaction.atomic():
    n = rebuild_all()
    after = snapshot()
    transaction.set_rollback(True)
diff = [k for k in before if before[k] != after.get(k)]
print(json.dumps({"events": n, "equal": not diff, "differ": diff,
                  "rows": {k: len(v) for k, v in before.items()}}))
"""


def check_log(conn) -> list[str]:
    failures = []
    gaps = conn.execute(
        "SELECT stream, count(*), min(version), max(version), count(DISTINCT version) "
        "FROM eventlog_storedevent GROUP BY stream "
        "HAVING min(version) <> 1 OR max(version) <> count(*) OR count(DISTINCT version) <> count(*)"
    ).fetchall()
    for stream, n, lo, hi, distinct in gaps:
        failures.append(
            f"{stream}: versions not gapless ({n} events, {lo}..{hi}, {distinct} distinct)"
        )
    doubled = conn.execute(
        "SELECT command_id, count(DISTINCT stream), count(*), count(DISTINCT command_seq) "
        "FROM eventlog_storedevent WHERE command_id IS NOT NULL GROUP BY command_id "
        "HAVING count(DISTINCT stream) > 1 OR count(*) <> count(DISTINCT command_seq)"
    ).fetchall()
    for cid, streams, n, seqs in doubled:
        failures.append(
            f"command id {cid} written twice ({n} events, {seqs} seqs, {streams} streams)"
        )
    # a timeout's command id is its deadline ("s:timeout:<deadline>"): two writes of one
    # deadline would be two ids only if the deadlines differed, so compare by seat and time too
    twice = conn.execute(
        "SELECT stream, data->>'seat', data->>'at', count(*) FROM eventlog_storedevent "
        "WHERE type = 'timed_out' GROUP BY 1, 2, 3 HAVING count(*) > 1"
    ).fetchall()
    for stream, seat, at, n in twice:
        failures.append(f"{stream}: the timeout of {seat} at {at} written {n} times")
    return failures


CELERY_SHUTDOWN = re.compile(r"^worker: \w+ shutdown \(MainProcess\)$")


def check_logs(workdir: Path, facts: list[str]) -> list[str]:
    """Every line a Django process wrote is one JSON object; the clock's carry the stream."""
    failures = []
    lines = with_stream = 0
    for name in ("web1", "web2", "worker1", "worker2", "beat", "reactors1", "reactors2"):
        path = workdir / f"{name}.log"
        if not path.exists():
            continue
        for raw in path.read_text(errors="replace").splitlines():
            if not raw.strip() or CELERY_SHUTDOWN.match(raw):
                continue  # Celery's last words on shutdown are printed, not logged
            try:
                record = json.loads(raw)
            except ValueError:
                failures.append(f"{name}.log: not JSON: {raw[:200]}")
                continue
            lines += 1
            if record.get("logger", "").startswith("clocks") and record.get("stream"):
                with_stream += 1
    if len(failures) > 10:
        failures = failures[:10] + [f"... and {len(failures) - 10} more lines not JSON"]
    facts.append(f"logs: {lines} JSON lines, {with_stream} clock lines carrying their stream")
    if not with_stream:
        failures.append("no clock log line carried its match's stream")
    return failures


def in_fault(start: float, end: float, faults) -> bool:
    """Whether [start, end] overlaps a fault's window (from a second before it)."""
    return any(start <= e and end >= s - 1 for _, s, e in faults)


def check_http(calls, faults, facts: list[str], ports) -> list[str]:
    """No 5xx but a clear 503 during a fault; every request answered."""
    failures = []
    statuses: dict[int, int] = {}
    for call in calls:
        statuses[call.status] = statuses.get(call.status, 0) + 1
        if call.status == 0:
            failures.append(f"no answer: {call.method} {call.path} :{call.port} {call.error}")
        elif call.status >= 500 and not (
            call.status == 503 and call.clear and in_fault(call.at, call.at + call.elapsed, faults)
        ):
            failures.append(f"{call.status}: {call.method} {call.path} :{call.port} {call.error}")
    per_port = {p: sum(1 for c in calls if c.port == p) for p in ports}
    slowest = max((c.elapsed for c in calls), default=0)
    facts.append(
        f"HTTP: {len(calls)} requests {per_port} by port, statuses "
        f"{dict(sorted(statuses.items()))}, slowest {slowest:.2f} s"
    )
    return failures


def _written(conn, sockets) -> dict[str, list[tuple[int, float]]]:
    """stream -> (version, recorded_at) of every event of the sockets' matches."""
    streams = sorted({s.stream for s in sockets})
    written: dict[str, list[tuple[int, float]]] = {s: [] for s in streams}
    for stream, version, at in conn.execute(
        "SELECT stream, version, extract(epoch FROM recorded_at)::float "
        "FROM eventlog_storedevent WHERE stream = ANY(%s) ORDER BY stream, version",
        [streams],
    ):
        written[stream].append((version, at))
    return written


def _version_lags(sock, name: str, shown, rows, wait: float, faults, lags, calm) -> list[str]:
    """Each version's lag from when it was due to when the socket showed it, into
    ``lags`` (and ``calm`` when no fault was near); the first version shown too
    late, or never, as a failure."""
    for v, rec in rows:
        if sock.kind == "spectator" and v == 1:
            continue  # a match is shown to spectators from its first move on
        due = max(rec + wait, sock.opened)
        got = next((at for at, w in shown if w >= v), None)
        # a fault during [due, due + SOCKET_LAG_S], or one that ended less than
        # RECOVERY_S before it (sockets rejoin their groups after a Redis restart
        # every LIVE_REJOIN_S): within RECOVERY_S after that fault ended
        fault_end = max(
            (e for _, s, e in faults if s - 1 <= due + SOCKET_LAG_S and e >= due - RECOVERY_S),
            default=None,
        )
        limit = max(due + SOCKET_LAG_S, (fault_end or 0) + RECOVERY_S)
        if got is None or got > limit:
            return [
                f"{name}: version {v} (written at {rec:.1f}) shown "
                + (f"{got - due:.1f} s after it was due" if got else "never")
            ]  # one per socket says enough
        lags.append(got - due)
        if fault_end is None:
            calm.append((got - due, name, v))
    return []


def _check_socket(sock, rows, faults, delay_s: float, lags, calm) -> tuple[list[str], int]:
    """One socket's failures, and how many versions it showed a spectator too early."""
    failures = []
    name = f"{sock.kind} socket of match {sock.match_id} on :{sock.port}"
    shown = [(at, v) for at, v, html, _ in sock.received if html]
    wait = delay_s if sock.kind == "spectator" else 0.0
    for at, code, why in sock.failures:
        if code >= 500 and not in_fault(at, at, faults):
            failures.append(f"{name}: handshake {why} outside a fault")
    if any(b[1] < a[1] for a, b in zip(shown, shown[1:], strict=False)):
        failures.append(f"{name}: versions went back {[v for _, v in shown][:40]}")
    if not rows:
        return failures, 0
    recorded = dict(rows)
    early = 0
    for at, v in shown:
        if sock.kind == "spectator" and at + SPECTATOR_SLACK_S < recorded[v] + delay_s:
            early += 1
            failures.append(
                f"{name}: version {v} shown {recorded[v] + delay_s - at:.2f} s "
                "before the spectator delay allowed"
            )
    last = rows[-1][0]
    if not shown or shown[-1][1] != last:
        failures.append(
            f"{name}: ended at version {shown[-1][1] if shown else None}, the match at {last}"
            f" ({sock.connects} connects, closes {sock.closes}, {[why for _, _, why in sock.failures[-3:]]})"
        )
    failures += _version_lags(sock, name, shown, rows, wait, faults, lags, calm)
    return failures, early


def check_sockets(conn, sockets, faults, delay_s: float, facts: list[str]) -> list[str]:
    """Every socket's versions never go back (a version again answers a reconnection's
    `since`, which the client had not yet seen the answer of); each version of its match reached it within
    SOCKET_LAG_S (spectators: after the delay), or within RECOVERY_S after a fault
    it was written in or shortly after; none reached a spectator before the delay allowed; each socket
    ends at its match's last version."""
    failures = []
    written = _written(conn, sockets)
    lags: list[float] = []
    calm: list[tuple[float, str, int]] = []  # the lags of versions no fault was near
    early = reconnects = 0
    for sock in sockets:
        reconnects += max(0, sock.connects - 1)
        found, too_early = _check_socket(
            sock, written.get(sock.stream) or [], faults, delay_s, lags, calm
        )
        failures += found
        early += too_early
    lags.sort()
    calm.sort(reverse=True)

    def q(p):
        return lags[min(len(lags) - 1, int(p * len(lags)))] if lags else 0

    facts.append(
        f"websockets: {len(sockets)} clients ({sum(s.kind == 'spectator' for s in sockets)} "
        f"spectators), {sum(len(s.received) for s in sockets)} messages, {reconnects} "
        f"reconnections; each version shown {q(0.5) * 1000:.0f} ms (p50), {q(0.99) * 1000:.0f} ms "
        f"(p99), {q(1.0):.1f} s (max) after it was due; {early} shown to a spectator too early"
    )
    if calm:
        facts.append(
            f"websockets, versions no fault was near: {len(calm)}, slowest "
            + ", ".join(f"{lag:.1f} s (v{v}, {name})" for lag, name, v in calm[:3])
        )
    return failures


def check_app_role(app_url: str, facts: list[str]) -> list[str]:
    """The app role writes events but can neither change nor remove one (psql, as
    an operator would try it)."""
    psql = shutil.which("psql")
    if psql is None:
        return ["psql is not on PATH: the app role's privileges were not checked"]
    failures = []
    refused = []
    for verb, sql in (
        ("UPDATE", "UPDATE eventlog_storedevent SET type = type WHERE version = 1"),
        ("DELETE", "DELETE FROM eventlog_storedevent WHERE version = 1"),
        ("TRUNCATE", "TRUNCATE eventlog_storedevent"),
    ):
        out = subprocess.run(
            [psql, app_url, "-v", "ON_ERROR_STOP=1", "-qc", sql],
            capture_output=True,
            text=True,
            timeout=30,
        )
        if out.returncode == 0 or "permission denied" not in out.stderr:
            failures.append(f"the app role's {verb} of events was not refused: {out.stderr[:200]}")
        else:
            refused.append(verb)
    facts.append(f"app role: {', '.join(refused) or 'nothing'} of events refused (psql)")
    return failures


def check_hooks(conn, answered: list[str], slow_s: float, facts: list[str]) -> list[str]:
    """The slow receiver's deliveries: every one delivered (none pending or
    failed), each answered at least once (repeats are dropped by their id)."""
    rows = conn.execute("SELECT id, status, attempts FROM hooks_webhookdelivery").fetchall()
    if not rows:
        return ["slow webhook receiver: no delivery was written (the hook did not work)"]
    failures = [
        f"webhook delivery {pk} ended {status} after {attempts} tries"
        for pk, status, attempts in rows
        if status != "delivered"
    ]
    unanswered = {str(pk) for pk, status, _ in rows if status == "delivered"} - set(answered)
    if unanswered:
        failures.append(f"webhook deliveries marked delivered, never received: {unanswered}")
    repeats = len(answered) - len(set(answered))
    facts.append(
        f"slow webhook receiver ({slow_s:.0f} s an answer): {len(rows)} deliveries, "
        f"{sum(r[1] == 'delivered' for r in rows)} delivered, {repeats} repeats "
        "(dropped by X-Showtable-Delivery)"
    )
    return failures
