"""Model instances from the rows of a statement made once and run often,
converted as the ORM converts them, without the ORM's set-up for each query
(building and compiling it cost more than running it on the hot paths: a
match's row read for a request, a stream read by a reactor)."""

from __future__ import annotations

import functools
import weakref

from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.models import Model

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


def fetch(model: type[Model], sql: str, params: list) -> list[Model]:
    """The model instances ``sql`` (a ``select`` of it) finds."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
    return [instance(model, row) for row in found]
