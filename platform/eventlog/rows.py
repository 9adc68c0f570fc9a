"""Model instances from the rows of a statement made once and run often,
converted as the ORM converts them, without the ORM's set-up for each query
(building and compiling it cost more than running it on the hot paths: a
match's row read for a request, a stream read by a reactor)."""

from __future__ import annotations

import datetime
import functools
import hashlib
import re
import time
import weakref

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model
from psycopg import errors, generators
from psycopg.adapt import AdaptersMap, Transformer
from psycopg.pq import ExecStatus, TransactionStatus
from psycopg.types.datetime import TimestamptzLoader

# psycopg connection -> the names of the statements prepared on it
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# connection -> model -> (index, column, converters) of the columns that need converting
_converters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# psycopg connection -> what its rows are loaded with here (``_loading``)
_loading_of: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


@functools.cache
def names(model: type[Model]) -> tuple[str, ...]:
    """The model's concrete fields' attribute names, in field order."""
    return tuple(f.attname for f in model._meta.concrete_fields)


@functools.cache
def columns(model: type[Model], alias: str = "") -> str:
    """The model's concrete columns in field order (what ``values`` reads)."""
    return ", ".join(f'{alias}"{f.column}"' for f in model._meta.concrete_fields)


def values(model: type[Model], row) -> list:
    """A statement's row of the model's columns (``columns`` first, anything
    after them left off), converted as the ORM converts them (made once per
    connection and model)."""
    db = connections[DEFAULT_DB_ALIAS]
    per_model = _converters.get(db)
    if per_model is None:
        per_model = _converters[db] = {}
    found = per_model.get(model)
    if found is None:
        found = per_model[model] = []
        for i, f in enumerate(model._meta.concrete_fields):
            column = f.get_col(model._meta.db_table)
            convert = db.ops.get_db_converters(column) + f.get_db_converters(db)
            if convert:
                found.append((i, column, convert))
    out = list(row[: len(names(model))])
    for i, column, convert in found:
        for c in convert:
            out[i] = c(out[i], column, db)
    return out


def instance(model: type[Model], row) -> Model:
    """The saved model instance a statement's row (``columns`` first) stands for."""
    return model.from_db(DEFAULT_DB_ALIAS, names(model), values(model, row))


def select(model: type[Model], where: str) -> str:
    """A statement reading the model's rows ``where`` (SQL, with %s parameters)."""
    return f'SELECT {columns(model)} FROM "{model._meta.db_table}" WHERE {where}'


def prepared_on(raw) -> set[str]:
    """The names of the statements PREPAREd on connection ``raw`` (psycopg's),
    as the server listed them when this process first used it."""
    names = _prepared.get(raw)
    if names is None:
        with raw.cursor() as cursor:
            cursor.execute("SELECT name FROM pg_prepared_statements")
            names = _prepared[raw] = {name for (name,) in cursor.fetchall()}
    return names


def forget_prepared(raw) -> None:
    """After a PREPARE that may or may not have stood: look again next time."""
    _prepared.pop(raw, None)


def run(sql: str, params: list, *, prepare: bool = True) -> list[tuple]:
    """The rows of ``sql`` (%s parameters). On PostgreSQL a statement
    PREPAREd on the server the first time each connection runs it (its
    PREPARE in the same message), then EXECUTEd: such a statement's planning
    cost more than running it (a match read with its seats: 0.55 ms to plan,
    0.13 ms to run). Never through psycopg's own preparing: that DEALLOCATEs
    ALL at any ROLLBACK, the appends' statements too. ``prepare=False``: a
    statement whose text changes with its parameters (an ``IN`` of as many as
    there are), not kept on the server."""
    db = connections[DEFAULT_DB_ALIAS]
    if not prepare or db.vendor != "postgresql":
        with db.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.fetchall()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    raw = db.connection
    names = prepared_on(raw)
    name = prepared_name(sql)
    marks = f" ({', '.join(['%s'] * len(params))})" if params else ""
    first = name not in names
    started = time.monotonic()
    head = [f"PREPARE {name} AS {_body(sql)}"] if first else []
    try:
        # past Django's wrapper, which would log the EXECUTE, not the
        # statement, and cost as much again
        with db.wrap_database_errors:
            found = message(raw, head, f"EXECUTE {name}{marks}", params)
    except Exception:
        if first:
            forget_prepared(raw)
        raise
    logged(db, sql, params, started)  # the statement run, not its EXECUTE
    names.add(name)
    return found


class _Loading:
    """A connection's adapters with psycopg's own timestamptz loader, its C
    one in psycopg's binary build: Django registers one in Python (to give
    each value the connection's zone) that cost a reactor a tenth of its
    CPU, 6 µs a value against 0.5 (2026-12-07). Both give the same
    datetimes, in ``datetime.timezone.utc``, when the session's zone is UTC."""

    def __init__(self, raw):
        self.connection = raw
        self.adapters = AdaptersMap(raw.adapters)
        self.adapters.register_loader("timestamptz", TimestamptzLoader)


def _loading(raw):
    """What ``message`` loads rows of ``raw`` with: ``_Loading`` when its
    session's zone is UTC and Django's is too (as settings have it), else
    the connection's own adapters."""
    found = _loading_of.get(raw)
    if found is None:
        utc = (
            raw.pgconn.parameter_status(b"TimeZone") == b"UTC"
            and connections[DEFAULT_DB_ALIAS].timezone is datetime.UTC
        )
        found = _loading_of[raw] = _Loading(raw) if utc else raw
    return found


def message(raw, head: list[str], sql: str, params: list, tail: list[str] = ()) -> list[tuple]:
    """The rows ``sql`` returns, sent on psycopg's connection ``raw`` in one
    message after the statements ``head`` and before ``tail`` (the whole
    text's %s marks bound on the client, as Django's cursor binds them).
    Past psycopg's cursor when psycopg would send nothing of its own first
    (autocommit, or a transaction begun): the cursor's bookkeeping cost a
    one-event append about 45 µs of CPU and 50 of wall time (2026-12-07),
    a sixth of the append; else through it, which sends its BEGIN. What it
    calls of psycopg (its generators, Transformer.as_literal and load_rows,
    error_from_result) is what its cursor calls: the version is pinned
    (constraints.txt), and tests/eventlog/test_prepared_reads.py binds
    and loads every kind through it."""
    text = "".join(f"{h}; " for h in head) + sql + "".join(f"; {t}" for t in tail)
    if not raw.autocommit and raw.pgconn.transaction_status == TransactionStatus.IDLE:
        with raw.cursor() as cursor:
            cursor.execute(text, params)
            for _ in head:
                cursor.nextset()
            return cursor.fetchall()
    adapt, encoding = Transformer(_loading(raw)), raw.info.encoding
    query = text.encode(encoding) % tuple(
        b"NULL" if p is None else adapt.as_literal(p) for p in params
    )
    with raw.lock:
        raw.pgconn.send_query(query)
        results = raw.wait(generators.execute(raw.pgconn))
    for result in results:
        if result.status == ExecStatus.FATAL_ERROR:
            raise errors.error_from_result(result, encoding=encoding)
        if result.status not in (ExecStatus.COMMAND_OK, ExecStatus.TUPLES_OK):
            raise errors.InternalError(f"unexpected result: {ExecStatus(result.status).name}")
    rows = results[len(head)]
    adapt.set_pgresult(rows)
    return adapt.load_rows(0, rows.ntuples, tuple)


def first_row(sql: str, params: list) -> tuple | None:
    """The first row ``run`` finds, or None."""
    found = run(sql, params)
    return found[0] if found else None


def logged(db, sql: str, params: list, started: float) -> None:
    """``sql`` in Django's query log when one is kept (DEBUG, a test's
    capture), for a statement sent past Django's cursor wrapper."""
    if db.queries_logged:
        took = f"{time.monotonic() - started:.3f}"
        db.queries_log.append({"sql": db.ops.compose_sql(sql, params), "time": took})


@functools.cache
def prepared_name(sql: str) -> str:
    """The name ``run`` prepares ``sql`` under (from its text)."""
    return "rows_" + hashlib.sha1(sql.encode()).hexdigest()[:20]


@functools.cache
def _body(sql: str) -> str:
    """``sql`` for PREPARE: ``$n`` parameters, its ``%%`` kept for the EXECUTE's quoting."""
    count = iter(range(1, sql.count("%s") + 1))
    return re.sub(r"%%|%s", lambda m: m.group() if m.group() == "%%" else f"${next(count)}", sql)


def fetch(model: type[Model], sql: str, params: list, *, prepare: bool = True) -> list[Model]:
    """The model instances ``sql`` (a ``select`` of it) finds (``run``)."""
    return [instance(model, row) for row in run(sql, params, prepare=prepare)]
