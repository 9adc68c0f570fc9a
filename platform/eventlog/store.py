"""append / read: the only way events enter or leave the log.

Optimistic concurrency: the caller folds the stream, decides, and appends
with the version it folded; a writer that lost the race gets
``ConcurrencyError`` and nothing is written.

A command id belongs to its stream: unique (stream, command id, seq), so the
same id on two streams is two commands. A client's command also records its
fingerprint (``command_fingerprint``: who sent it and what it says): the same
id again is a replay only with the same fingerprint, else ``CommandIdReused``
(nothing written; the API answers 409). Clients' ids are stored as ``c:<id>``
(``client_command_id``) and the system's as ``s:<...>`` (``system_command_id``),
so no client can send an id the system will use.

The log knows no game: events go in as ``NewEvent`` (or anything with
``type``, ``data``, ``visible_to`` and ``public``) and come out as
``StoredEvent`` rows; games adapt them (games/core/adapt.py).
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, transaction
from django.db.models import Max
from psycopg.pq import TransactionStatus

from . import rows as rows_of
from .models import StoredEvent
from .vendors import Fork

log = logging.getLogger(__name__)


class ConcurrencyError(Exception):
    """The stream moved on since the caller read it."""

    def __init__(self, stream: str, expected: int, actual: int | None = None):
        self.stream, self.expected, self.actual = stream, expected, actual
        super().__init__(
            f"stream {stream} is no longer at version {expected}"
            + (f" (now {actual})" if actual is not None else "")
        )


class CommandIdReused(Exception):
    """A command id already used on this stream by another account or for
    another command: not a retry, so not answered with the first result."""

    def __init__(self, stream: str, command_id: str):
        self.stream, self.command_id = stream, command_id
        super().__init__(
            "this command id was already used here for another command (another "
            "account's, or with other content): send a new id for a new command"
        )


@dataclass(frozen=True)
class NewEvent:
    type: str
    data: Mapping[str, Any]
    visible_to: Sequence[str] | None = None  # None: everyone
    public: Mapping[str, Any] | None = None  # what others see (None: nothing)

    @classmethod
    def of(cls, event: Any) -> NewEvent:
        """Any event-shaped object (a game's Event) as the log's own type."""
        if isinstance(event, NewEvent):
            return event
        return cls(event.type, dict(event.data), event.visible_to, event.public)


class Appended(list):
    """The rows of one append. ``replay``: written earlier by the same
    command id, nothing was written now. ``inline``: the append's ``Inline``
    writes ran in its statement, instead of the projectors."""

    replay = False
    inline = False

    def __init__(self, rows=(), *, replay: bool = False, inline: bool = False):
        super().__init__(rows)
        self.replay, self.inline = replay, inline


@dataclass(frozen=True)
class Inline:
    """Writes that go in an append's own statement, so that the append and
    what it changes are one round trip: data-modifying CTEs (``ctes(mark)``
    gives ``"a AS (...), b AS (...)"``, ``mark(i)`` its i-th parameter of
    ``params``) that may read ``appended(id, version, recorded_at)``, the rows
    inserted (none when the append lost its race, so they write nothing).

    They replace the projectors, so they are used only when every projector
    says what it would write for the rows (``register_projector``'s
    ``writes``) and ``covers`` names all of it; otherwise the append runs as
    without them and the caller writes the same itself (``Appended.inline``
    says which). ``name`` is the statement's shape (prepared once per
    connection and shape).

    ``landed`` is a condition on the CTEs, false when their writes found no
    row to write: the statement's snapshot is taken before the stream's lock
    is granted, so a rebuild that held the lock (and replaced the rows) is
    not seen by it. The append then runs the projectors after all, in its
    transaction's next statements, and ``within`` is told so. An append with
    ``inline`` never runs alone, so there is always a transaction to do it in."""

    name: str
    ctes: Callable[[Callable[[int], str]], str]
    params: Sequence[Any]
    covers: frozenset[str] = frozenset()
    landed: str = "true"


# ---- command ids ------------------------------------------------------------
CLIENT_ID = re.compile(r"[A-Za-z0-9_.:-]{1,64}")
COMMAND_ID_MAX = StoredEvent._meta.get_field("command_id").max_length
CLIENT_ID_RULE = "a command id is 1 to 64 letters, digits or _ . : -"


def client_command_id(raw: str) -> str:
    """A client's command id, checked and namespaced (ValueError if bad)."""
    if not isinstance(raw, str) or not CLIENT_ID.fullmatch(raw):
        raise ValueError(CLIENT_ID_RULE)
    return f"c:{raw}"


def system_command_id(*parts: Any) -> str:
    """An id the system derives (a timeout, a ruling): never a client's."""
    return _checked("s:" + ":".join(str(p) for p in parts))


def command_fingerprint(account: Any, body: Any) -> str:
    """Who sent a command and what it says, hashed: what makes a repeated
    command id a retry of the same command rather than another one."""
    text = json.dumps(
        {"by": account, "body": body}, sort_keys=True, separators=(",", ":"), default=str
    )
    return hashlib.sha256(text.encode()).hexdigest()


def stream_named_by(prefix: str, sender: Any, command_id: str) -> str:
    """The stream a client's creating command (a new match, show, bracket)
    opens, named by its sender and id: a retry, even one racing the first
    try, meets the same stream and is answered with what the first made."""
    return prefix + hashlib.sha256(f"{sender}\0{command_id}".encode()).hexdigest()[:16]


def _checked(command_id: str | None) -> str | None:
    if command_id is not None and not (0 < len(command_id) <= COMMAND_ID_MAX):
        raise ValueError(f"a command id is 1 to {COMMAND_ID_MAX} characters long")
    return command_id


# projectors update read models inside the append transaction;
# after-commit hooks fan out (live updates, clock arming)
_projectors: list[Callable[[StoredEvent], None]] = []
_after_commit: list[Callable[[list[StoredEvent]], None]] = []


# A row that another row of the same append follows carries
# ``followed_in_append = True`` while it is projected: a projector may leave what
# only the newest row decides (the stream's version, its time) to the last one.
# Rows of a rebuild or a read never carry it.
def followed_in_append(row: StoredEvent) -> bool:
    return getattr(row, "followed_in_append", False)


# The rows of one append share one dict while they are projected: what a
# projector defers from a followed row to the last one (one write per append,
# not one per row). Rows of a rebuild or a read have none.
def carried_in_append(row: StoredEvent) -> dict | None:
    return getattr(row, "carried_in_append", None)


# What a projector would write for a row, said without running it: the
# names of what it writes (empty: nothing), or None (it must run). "version"
# is its stream's version and time on the stream's own read-model row.
_writes: dict[Callable, Callable[[StoredEvent], frozenset[str] | None]] = {}


def register_projector(
    fn: Callable[[StoredEvent], None],
    *,
    writes: Callable[[StoredEvent], frozenset[str] | None] | None = None,
) -> Callable:
    if fn not in _projectors:
        _projectors.append(fn)
    if writes is not None:
        _writes[fn] = writes
    return fn


def _covered(rows: list[StoredEvent], covers: frozenset[str]) -> bool:
    """Whether an ``Inline`` covering ``covers`` writes all the projectors
    would for ``rows`` (each row marked ``followed_in_append`` already)."""
    for row in rows:
        for project in _projectors:
            says = _writes.get(project)
            written = says(row) if says is not None else None
            if written is None or not written <= covers:
                return False
    return True


def projectors() -> list[Callable[[StoredEvent], None]]:
    return list(_projectors)


def on_append(fn: Callable[[list[StoredEvent]], None]) -> Callable:
    """Run ``fn(events)`` after the transaction that appended them commits."""
    if fn not in _after_commit:
        _after_commit.append(fn)
    return fn


def stream_version(stream: str) -> int:
    return StoredEvent.objects.filter(stream=stream).aggregate(v=Max("version"))["v"] or 0


def replayed(stream: str, command_id: str, fingerprint: str | None = None) -> Appended:
    """What ``command_id`` wrote on ``stream`` (empty if nothing yet).
    With a ``fingerprint``, rows another command wrote under that id raise
    ``CommandIdReused``."""
    rows = list(
        StoredEvent.objects.filter(stream=stream, command_id=command_id).order_by("command_seq")
    )
    if rows and fingerprint is not None and rows[0].metadata.get("fingerprint") != fingerprint:
        raise CommandIdReused(stream, command_id)
    return Appended(rows, replay=True)


class _Conflict(Exception):
    """Inside append: the stream was not at the expected version, or the
    command id was already used on it."""


class _NotWhole(Exception):
    """An append run alone in autocommit did not land whole (a lost race, a
    rebuild): its statement undid itself, and it is made again in a transaction."""


# the SQLSTATE of eventlog_append_not_whole() (migration 0010)
NOT_WHOLE = "EV001"


# Each append holds its stream's PostgreSQL advisory lock (STREAM_LOCK,
# hashtext(stream)) in shared mode; a rebuild of one stream's read models
# holds it exclusively (``lock_stream``): appends to that stream wait for it,
# appends to every other stream go on.
STREAM_LOCK = 0x65766C67  # "evlg"


def _lock_stream_advisory(stream: str) -> None:
    """Inside a transaction: wait for the appends to ``stream`` in flight and
    hold back new ones until it ends."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [STREAM_LOCK, stream])


def _lock_name_advisory(kind: str, name: str) -> None:
    """Inside a transaction: hold the lock named (``kind``, ``name``) until it
    ends, so that writers of one shared read-model row (a game's ratings) take
    turns."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s), hashtext(%s))", [kind, name])


def _held_by_the_write_lock(*_names: str) -> None:
    """SQLite writes one transaction at a time: its write lock holds every name."""


lock_stream = Fork(postgresql=_lock_stream_advisory, portable=_held_by_the_write_lock)
lock_name = Fork(postgresql=_lock_name_advisory, portable=_held_by_the_write_lock)


def append(
    stream: str,
    expected_version: int,
    events: Iterable[Any],
    *,
    command_id: str | None = None,
    actor: str | None = None,
    role: str | None = None,
    causation: int | None = None,
    extra: Mapping[str, Any] | None = None,
    fingerprint: str | None = None,
    within: Callable[[Appended], None] | None = None,
    inline: Inline | None = None,
    within_writes: bool = True,
) -> Appended:
    """Append ``events`` after ``expected_version`` in one transaction.

    ``within(rows)`` runs in that transaction after the projectors (what the
    caller writes with the append): called outside any transaction, the
    append opens it, so its BEGIN costs no round trip of its own and no
    savepoint is needed. ``inline``: writes that may go in the append's own
    statement instead of the projectors (``Inline``); ``within`` is told
    whether they did (``Appended.inline``). ``within_writes=False`` says that
    ``within`` writes nothing to the database: an append with ``inline`` then
    runs as its own transaction (one message, its commit and its NOTIFY
    after it included) when its statement lands whole, and ``within`` runs
    after its commit.

    A command id already recorded on this stream returns the events it wrote
    the first time, marked ``replay``, and writes nothing; with a
    ``fingerprint`` (``command_fingerprint``) only if the first one had the
    same, else ``CommandIdReused``. A projector's error propagates as itself
    and nothing is written."""
    _checked(command_id)
    batch = [NewEvent.of(e) for e in events]
    if not batch:
        return Appended()
    rows = _stored_rows(
        stream, expected_version, batch, command_id, fingerprint, actor, role, causation, extra
    )
    inserts = _inserts.chosen()
    if inline is not None and not (inserts.fits(rows) and _covered(rows, inline.covers)):
        inline = None
    alone = _alone(rows, within, inline, inserts)
    whole = inline is not None and not within_writes and not connection.in_atomic_block
    try:
        if alone:  # notified after its commit, as a whole move (_NOTIFY_AFTER)
            inserts.insert(rows, expected_version, None, fingerprint, whole=True)
        elif not (whole and _landed_whole(rows, expected_version, inline, inserts, fingerprint)):
            whole = False
            inline = _append_in_transaction(
                rows, expected_version, inline, within, inserts, fingerprint
            )
    except _Conflict:
        # a retried command id answers with its first result; anything else
        # lost the race for this version
        if command_id:
            first = replayed(stream, command_id, fingerprint)
            if first:
                return first
        raise ConcurrencyError(stream, expected_version, stream_version(stream)) from None
    if whole and within is not None:
        within(Appended(rows, inline=True))
    if alone or whole:
        _fan_out(rows)
    return Appended(rows, inline=inline is not None)


def _landed_whole(
    rows: list[StoredEvent],
    expected_version: int,
    inline: Inline,
    inserts: _Inserts,
    fingerprint: str | None,
) -> bool:
    """The append and ``inline``'s writes alone in autocommit, in one
    statement that undoes itself unless every row went in and the writes
    landed; False when it did (nothing written)."""
    try:
        inserts.insert(rows, expected_version, inline, fingerprint, whole=True)
    except _NotWhole:
        return False
    return True


def _stored_rows(
    stream: str,
    expected_version: int,
    batch: list[NewEvent],
    command_id: str | None,
    fingerprint: str | None,
    actor: str | None,
    role: str | None,
    causation: int | None,
    extra: Mapping[str, Any] | None,
) -> list[StoredEvent]:
    """The rows an append writes for ``batch``, each marked while projected:
    ``followed_in_append`` (another row of the append follows it) and the
    ``carried_in_append`` dict they share."""
    rows = [
        StoredEvent(
            stream=stream,
            version=expected_version + i,
            type=e.type,
            data=dict(e.data),
            metadata={
                "actor": actor,
                "role": role,
                "causation": causation,
                "visibility": {
                    "to": list(e.visible_to) if e.visible_to is not None else None,
                    "public": dict(e.public) if e.public is not None else None,
                },
                **(extra or {}),
                **({"fingerprint": fingerprint} if fingerprint and command_id else {}),
            },
            command_id=command_id,
            command_seq=i,
        )
        for i, e in enumerate(batch, 1)
    ]
    carried: dict = {}
    for i, row in enumerate(rows):
        row.followed_in_append = i < len(rows) - 1
        row.carried_in_append = carried
    return rows


def _append_in_transaction(
    rows: list[StoredEvent],
    expected_version: int,
    inline: Inline | None,
    within: Callable[[Appended], None] | None,
    inserts: _Inserts,
    fingerprint: str | None,
) -> Inline | None:
    """The append in a transaction; ``inline`` if its writes landed, else None."""
    with transaction.atomic():
        if not inserts.insert(rows, expected_version, inline, fingerprint):
            inline = None  # a rebuild replaced its rows: the projectors write them
        if inline is None:
            for row in rows:
                for project in _projectors:
                    project(row)
        transaction.on_commit(lambda: _fan_out(rows))
        if within is not None:
            within(Appended(rows, inline=inline is not None))
    return inline


def _insert_row_by_row(
    rows: list[StoredEvent], expected_version: int, inline: Inline | None, fingerprint
) -> bool:
    """SQLite writes one transaction at a time (IMMEDIATE), so the checks and
    the insert cannot be split by another writer; no ``inline`` here."""
    first = rows[0]
    if first.command_id and replayed(first.stream, first.command_id, fingerprint):
        raise _Conflict
    if stream_version(first.stream) != expected_version:
        raise _Conflict
    for row in rows:
        row.save(force_insert=True)
    return False


@dataclass(frozen=True)
class _Inserts:
    """How a database takes an append's rows: ``insert(rows, expected_version,
    inline, fingerprint)``, inside the append's transaction, checks and
    inserts them (``_Conflict`` if the stream moved on or the command id is
    taken) and says whether ``inline``'s writes landed with them (with
    ``whole=True``, outside any transaction: its own transaction, notified
    after its commit; with ``inline``, all of it lands or ``_NotWhole``);
    appends of up to ``one_statement`` rows go in one statement, which may
    carry an ``Inline`` and be its own transaction."""

    insert: Callable[..., bool]
    one_statement: int

    def fits(self, rows: list[StoredEvent]) -> bool:
        return len(rows) <= self.one_statement


def _alone(
    rows: list[StoredEvent],
    within: Callable[[Appended], None] | None,
    inline: Inline | None,
    inserts: _Inserts,
) -> bool:
    """Whether the append is its whole transaction, so that its statement,
    its BEGIN and COMMIT and its NOTIFY after the commit (``_NOTIFY_AFTER``:
    many writers at once no longer queue for the NOTIFY's lock) go in one
    message, one round trip. That is when no transaction is open, nothing
    runs within it (no ``within``, no ``inline``, no projector writes
    anything for the rows), and the statement cannot insert a part of the
    rows (one row: a lost race inserts none)."""
    return (
        len(rows) == 1
        and within is None
        and inline is None
        and inserts.fits(rows)
        and not connection.in_atomic_block
        and _covered(rows, frozenset())
    )


_TABLE = StoredEvent._meta.db_table
_ROW_TYPES = ("varchar", "integer", "varchar", "jsonb", "jsonb", "varchar", "smallint")
_PREPARE_MAX = 16  # appends of up to this many events run a prepared statement


def _append_sql(n: int, mark, inline: Inline | None = None, whole: bool = False) -> str:
    """The append of ``n`` rows; ``mark(i)`` is the i-th parameter (from 1):
    the stream lock's class and the stream, 7 per row, then the stream, its
    expected version, the stream again and the command id (a command id the stream already
    holds writes nothing: no row of a batch is skipped alone); then ``inline``'s.
    ``whole`` (the statement is its own transaction): its guard leaves what
    ``_NOTIFY_AFTER`` sends, and with ``inline`` the statement raises
    NOT_WHOLE (so undoes all it wrote) unless all ``n`` rows went in and
    ``inline``'s writes landed."""
    width = len(_ROW_TYPES)
    values = ", ".join(
        "(" + ", ".join(f"{mark(3 + r * width + k)}::{t}" for k, t in enumerate(_ROW_TYPES)) + ")"
        for r in range(n)
    )
    last = 3 + n * width
    guard = f"SELECT pg_advisory_xact_lock_shared({mark(1)}::integer, hashtext({mark(2)}::varchar))"
    if whole:  # notified after its commit (_NOTIFY_AFTER), not by the trigger (migration 0011)
        guard += (
            ", set_config('eventlog.notify_after', 'on', true), set_config('eventlog.appended', "
            f"pg_current_xact_id()::text || E'\\n' || {mark(2)}::varchar, false)"
        )
    insert = (
        f"INSERT INTO {_TABLE} (stream, version, type, data, metadata, command_id, command_seq, recorded_at) "
        "SELECT v.stream, v.version, v.type, v.data, v.metadata, v.command_id, v.command_seq, statement_timestamp() "
        f"FROM (VALUES {values}) "
        "AS v(stream, version, type, data, metadata, command_id, command_seq), guard "
        f"WHERE COALESCE((SELECT MAX(version) FROM {_TABLE} WHERE stream = {mark(last)}::varchar), 0) "
        f"= {mark(last + 1)}::integer "
        f"AND NOT EXISTS (SELECT 1 FROM {_TABLE} WHERE stream = {mark(last + 2)}::varchar "
        f"AND command_id = {mark(last + 3)}::varchar) "
        "ON CONFLICT DO NOTHING "
        "RETURNING id, version, recorded_at"
    )
    if inline is None:
        return f"WITH guard AS ({guard}) {insert}"
    ctes = inline.ctes(lambda i: mark(last + 3 + i))
    if not whole:
        return (
            f"WITH guard AS ({guard}), appended AS ({insert}), {ctes} "
            f"SELECT id, version, recorded_at, ({inline.landed}) FROM appended"
        )
    # the check drives the query, so it runs even when no row went in
    return (
        f"WITH guard AS ({guard}), appended AS ({insert}), {ctes}, "
        f"append_whole AS (SELECT CASE WHEN (SELECT count(*) FROM appended) = {n} "
        f"AND ({inline.landed}) THEN true ELSE eventlog_append_not_whole() END AS landed) "
        "SELECT a.id, a.version, a.recorded_at, w.landed FROM append_whole w "
        "LEFT JOIN appended a ON true"
    )


def _insert_checked(
    rows: list[StoredEvent],
    expected_version: int,
    inline: Inline | None = None,
    whole: bool = False,
) -> bool:
    """PostgreSQL, one statement (one round trip with its BEGIN): take the
    stream's lock in shared mode (``lock_stream``), check the version, insert. A row whose
    version or command id is taken (a concurrent writer committed it) is
    skipped, not an error, so the caller's transaction stays usable and a
    projector's own IntegrityError is never mistaken for a lost race; fewer
    rows back than sent means the append lost, and raising undoes any row it
    did insert. Whether ``inline``'s writes landed (``Inline.landed``).
    ``whole`` (outside any transaction): its own transaction, notified after
    its commit; with ``inline``, ``_NotWhole`` unless all of it landed,
    nothing written then."""
    params = [STREAM_LOCK, rows[0].stream]
    for r in rows:
        params += [
            r.stream,
            r.version,
            r.type,
            json.dumps(r.data),
            json.dumps(r.metadata),
            r.command_id,
            r.command_seq,
        ]
    params += [rows[0].stream, expected_version, rows[0].stream, rows[0].command_id]
    try:
        found = _run_append(len(rows), params, inline, whole)
    except DatabaseError as exc:
        if whole and _not_whole(exc):
            raise _NotWhole from None
        raise
    returned = {version: (pk, at) for pk, version, at, *_landed in found}
    if len(returned) != len(rows):
        raise _Conflict
    for row in rows:
        row.id, row.recorded_at = returned[row.version]
        row._state.adding = False
        row._state.db = "default"
    return all(landed for *_row, landed in found) if inline is not None else True


def _not_whole(exc: BaseException) -> bool:
    """Whether ``exc`` is an append's statement undoing itself (``whole``)."""
    return getattr(exc.__cause__, "sqlstate", None) == NOT_WHOLE


def _run_append(
    n: int, params: list, inline: Inline | None = None, whole: bool = False
) -> list[tuple]:
    """The append statement, prepared once per connection and shape (the
    server plans it once, not on every append: planning cost as much as
    running it), its PREPARE sent with its first use; over ``_PREPARE_MAX``
    rows, as text (never with ``inline``)."""
    if n > _PREPARE_MAX:
        return _execute_opening(_append_sql(n, lambda i: "%s"), params)
    if inline is not None:
        params = [*params, *inline.params]
    connection.ensure_connection()
    raw = connection.connection
    names = rows_of.prepared_on(raw)
    name = f"eventlog_append_{n}" + (f"_{inline.name}" if inline is not None else "")
    name += "_whole" if whole else ""
    statements = [name, _NOTIFY_NAME] if whole else [name]
    before = []
    if name not in names:
        before.append(f"PREPARE {name} AS {_append_sql(n, lambda i: f'${i}', inline, whole)}")
    if whole and _NOTIFY_NAME not in names:
        before.append(f"PREPARE {_NOTIFY_NAME} AS {_NOTIFY_SQL}")
    try:
        out = _execute_opening(
            f"EXECUTE {name} ({', '.join(['%s'] * len(params))})",
            params,
            before,
            then_notify=whole,
        )
    except Exception as exc:
        if _not_whole(exc):
            names.update(statements)  # only its EXECUTE undid itself: the PREPAREs stand
        else:
            rows_of.forget_prepared(raw)  # the PREPAREs may or may not have stood
        raise
    names.update(statements)
    return out


# after an append alone commits, in the same message: its NOTIFY in a
# transaction of its own that waits for no flush (migration 0011), the
# implicit one of the message's last statement (prepared with the append's:
# planning it cost as much as sending it). What the append's guard left
# (session-wide, so it outlives the commit) is sent once and cleared; an
# append that lost its race left nothing (its guard did not run), so nothing
# is sent for it. The subquery's set_config is volatile, so it always runs
_NOTIFY_NAME = "eventlog_notify_after"
_NOTIFY_SQL = (
    "SELECT pg_notify('eventlog_appended', a.payload), set_config('eventlog.appended', '', false) "
    "FROM (SELECT current_setting('eventlog.appended', true) AS payload, "
    "set_config('synchronous_commit', 'off', true)) a WHERE a.payload <> ''"
)
_NOTIFY_AFTER = ["COMMIT", f"EXECUTE {_NOTIFY_NAME}"]


def _execute_opening(
    sql: str, params: list, before: list[str] = (), then_notify: bool = False
) -> list[tuple]:
    """The rows ``sql`` returns, run on Django's connection after the
    statements ``before`` (no parameters), all in one message. When it is
    the transaction's first statement, psycopg would send its BEGIN alone
    and wait for it: it goes in the same message instead, so an append
    outside any other transaction is one round trip and its COMMIT.
    ``then_notify`` (an append alone, outside any transaction): ``sql`` in a
    transaction of its own, then its NOTIFY in another (``_NOTIFY_AFTER``),
    still one message; on an error nothing after it ran, and its transaction
    is rolled back.

    Bound on the client as every query, past Django's wrapper and psycopg's
    cursor (``rows.message``): the wrapper costs as much client time as
    quoting the parameters, so only what it does that an append needs is
    done here (errors as Django's, the broken-transaction check, the query
    log when DEBUG or a test keeps one)."""
    db = connections[DEFAULT_DB_ALIAS]
    db.ensure_connection()
    db.validate_no_broken_transaction()
    raw = db.connection
    # Django says a transaction is open (its outermost atomic block, which
    # turned autocommit off and will commit and turn it back on) and psycopg
    # has not begun it on the server yet: this statement begins it
    opening = (
        db.in_atomic_block
        and db.commit_on_exit
        and not db.get_autocommit()
        and raw.pgconn.transaction_status == TransactionStatus.IDLE
        and raw.isolation_level is None
        and raw.read_only is None
        and raw.deferrable is None
    )
    head = [*before, "BEGIN"] if opening or then_notify else list(before)
    tail = _NOTIFY_AFTER if then_notify and not opening else []
    try:
        return _run_message(db, raw, head, sql, params, tail, opening)
    except Exception:
        if tail and raw.pgconn.transaction_status == TransactionStatus.INERROR:
            raw.execute("ROLLBACK")  # what failed left its explicit transaction open
        raise


def _run_message(db, raw, head: list, sql: str, params: list, tail: list, opening: bool):
    started = time.monotonic()
    with db.wrap_database_errors:
        if opening:
            # Why psycopg's own autocommit: psycopg sends the BEGIN of a
            # transaction alone and waits for it (in pipeline mode too), and
            # sends none in autocommit; it refuses to change autocommit once a
            # transaction is open, so Django's atomic block cannot be entered
            # after a statement that began it. Only here, in a block Django
            # opened and before anything is sent in it, is psycopg told not to
            # begin: the server's BEGIN keeps the transaction Django opened,
            # and Django puts autocommit back when the block ends, as always.
            # Keeping to Django's state alone costs a move a round trip.
            raw.autocommit = True
        out = rows_of.message(raw, head, sql, params, tail)
    rows_of.logged(db, sql, params, started)
    return out


# the PostgreSQL statement above, or SQLite's checks and row-by-row insert
_inserts = Fork(
    postgresql=_Inserts(
        lambda rows, expected, inline, _fp, whole=False: _insert_checked(
            rows, expected, inline, whole
        ),
        _PREPARE_MAX,
    ),
    portable=_Inserts(_insert_row_by_row, 0),
)


def _fan_out(rows: list[StoredEvent]) -> None:
    for hook in list(_after_commit):
        try:
            hook(rows)
        except Exception:  # a broken subscriber must not undo a committed append
            log.exception("after-append hook %s failed", getattr(hook, "__name__", hook))


_READ = rows_of.select(
    StoredEvent, "stream = %s AND version > %s AND version <= %s ORDER BY version"
)
_LAST_VERSION = 2**31 - 1  # the version column's largest value


def _read(stream: str, after: int, upto: int) -> list[StoredEvent]:
    """The events of ``stream`` after version ``after`` up to ``upto``, in
    order: one statement made once (a reactor reads a stream per append)."""
    return rows_of.fetch(StoredEvent, _READ, [stream, after, upto])


def read(stream: str, after: int = 0) -> list[StoredEvent]:
    return _read(stream, after, _LAST_VERSION)


def first(stream: str) -> StoredEvent | None:
    """A stream's first event (its creation record), without reading the rest."""
    found = _read(stream, 0, 1)
    return found[0] if found else None


def read_upto(row: StoredEvent) -> list[StoredEvent]:
    """The stream of ``row`` up to and including it: what a projector folds
    so that a live update and a rebuild see the same history."""
    return _read(row.stream, 0, row.version)
