"""Model instances from the rows of a statement made once and run often,
converted as the ORM converts them, without the ORM's set-up for each query
(building and compiling it cost more than running it on the hot paths: a
match's row read for a request, a stream read by a reactor)."""

from __future__ import annotations

import functools
import hashlib
import re
import time
import weakref

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.models import Model

# psycopg connection -> the names of the statements prepared on it
_prepared: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# connection -> model -> (index, column, converters) of the columns that need converting
_converters: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


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
    try:
        # psycopg's cursor (Django's own, bound on the client): Django's wrapper
        # would log the EXECUTE, not the statement, and cost as much again
        with db.wrap_database_errors, raw.cursor() as cursor:
            if first:
                cursor.execute(f"PREPARE {name} AS {_body(sql)}; EXECUTE {name}{marks}", params)
                cursor.nextset()
            else:
                cursor.execute(f"EXECUTE {name}{marks}", params)
            found = cursor.fetchall()
    except Exception:
        if first:
            forget_prepared(raw)
        raise
    logged(db, sql, params, started)  # the statement run, not its EXECUTE
    names.add(name)
    return found


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
