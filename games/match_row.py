"""The match read model's row updated for an event: its fields set and, when
a bout was scored, its points added to the scores. On PostgreSQL one
statement, made once per set of fields, with no read first (a timeout or
move that ends a bout writes it on its way); elsewhere the ORM reads the
scores and writes the row."""

from __future__ import annotations

import functools
import json

from django.db import connection
from django.db.models import JSONField

from eventlog.vendors import Fork

from .models import Match

_JSON_FIELDS = frozenset(f.name for f in Match._meta.concrete_fields if isinstance(f, JSONField))


def _update_by_orm(stream: str, fields: dict, points: dict | None = None) -> None:
    if points is not None:
        scores = dict(Match.objects.get(stream=stream).scores)
        for seat, p in points.items():
            scores[seat] = scores.get(seat, 0) + p
        fields = {**fields, "scores": scores}
    Match.objects.filter(stream=stream).update(**fields)


def _update_in_one_statement(stream: str, fields: dict, points: dict | None = None) -> None:
    sql = _update_sql(tuple(fields), points is not None)
    params = [json.dumps(v) if name in _JSON_FIELDS else v for name, v in fields.items()]
    if points is not None:
        params.append(json.dumps(points))
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, stream])


@functools.cache
def _update_sql(names: tuple[str, ...], adds_points: bool) -> str:
    table = Match._meta.db_table
    column = {name: Match._meta.get_field(name).column for name in names}
    sets = [
        f'"{column[name]}" = %s::jsonb' if name in _JSON_FIELDS else f'"{column[name]}" = %s'
        for name in names
    ]
    if adds_points:  # each seat's points added to what it has (none: 0)
        sets.append(
            f'"scores" = "{table}"."scores" || (SELECT COALESCE(jsonb_object_agg(p.key, '
            f'COALESCE(("{table}"."scores" ->> p.key)::numeric, 0) + p.value::numeric), '
            "'{}'::jsonb) FROM jsonb_each_text(%s::jsonb) AS p)"
        )
    return f'UPDATE "{table}" SET {", ".join(sets)} WHERE "stream" = %s'


# update_match(stream, fields, points=None): the match row of ``stream``
# updated with ``fields`` and, when given, a bout's ``points`` added to its scores
update_match = Fork(postgresql=_update_in_one_statement, portable=_update_by_orm)
