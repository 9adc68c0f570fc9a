"""The match list read model, kept in step with the log."""

import functools
import json
from datetime import UTC, datetime

from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import JSONField

from eventlog.readmodels import read_model, stable_id, unlogged
from eventlog.store import Inline, carried_in_append, followed_in_append

from .models import Match, Notification, SeatHolder


def _forget(stream: str) -> None:
    if stream.startswith("match-"):
        Match.objects.filter(stream=stream).delete()  # its seats and notifications too


def _prune() -> None:
    unlogged(Match.objects.all()).delete()


def _settle(stream: str) -> None:
    """The clock index and the "waiting for you" notes, as the append that
    made the match's last move left them."""
    from .services import _set_deadline, load

    match = Match.objects.filter(stream=stream, status="live").first()
    if match is not None:
        _set_deadline(match, load(match).state)


def _existing_users(holders) -> set[int]:
    """The user ids among ``holders`` that still exist: the log keeps a
    deleted user's id, the read model keeps the seat with no user."""
    ids = [h for h in holders if isinstance(h, int) and not isinstance(h, bool)]
    if not ids:
        return set()
    return set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))


WAITING = "Your turn: "


def waiting_saying(pending, bout_no: int = 0) -> dict[str, str]:
    """What each waited-on seat's note says: the bout and the decision."""
    kinds: dict[str, str] = {}
    for d in pending:
        kinds.setdefault(d.seat, d.kind)
    bout = f"bout {bout_no}: " if bout_no else ""
    return {seat: f"{bout}{kind.replace('_', ' ')}" for seat, kind in kinds.items()}


def note_waiting(match: Match, pending, bout_no: int = 0) -> None:
    """The "waiting for you" notification: one per user and match while the
    match waits on a seat of theirs, saying the bout and the decision; gone
    when it no longer waits on them. It is dated by the match's last event,
    so a rebuild (``_settle``) writes the same rows."""
    saying = waiting_saying(pending, bout_no)
    notes = Notification.objects.filter(match=match, text__startswith=WAITING)
    if not saying:
        notes.delete()
    elif connection.vendor == "postgresql":
        # every move writes these: one statement (with the append: match_row_inline)
        sql = (
            "WITH last_row AS (SELECT %(at)s::timestamptz AS recorded_at), "
            f"{_waiting_ctes(lambda i: f'%(p{i})s')} SELECT 1"
        )
        params = {f"p{i}": v for i, v in enumerate(_waiting_params(match, saying), 1)}
        with connection.cursor() as cursor:
            cursor.execute(sql, {"at": match.updated_at, **params})
    else:
        held = SeatHolder.objects.filter(match=match, user__isnull=False, seat__in=list(saying))
        texts: dict[int, str] = {}
        for user_id, seat in held.order_by("seat").values_list("user_id", "seat"):
            texts.setdefault(user_id, f"{WAITING}{match} waits for you")
            texts[user_id] += f" ({seat}: {saying[seat]})"
        notes.exclude(user_id__in=list(texts)).delete()
        for user_id, text in texts.items():
            n = notes.filter(user_id=user_id).update(text=text, created_at=match.updated_at)
            if not n:
                Notification.objects.create(
                    id=stable_id("waiting", match.pk, user_id),
                    user_id=user_id,
                    match=match,
                    text=text,
                    created_at=match.updated_at,
                )


_MATCHES = Match._meta.db_table
_NOTES = Notification._meta.db_table
_HOLDERS = SeatHolder._meta.db_table
_OVER = "('void', 'finished')"


def _waiting_id(match_id: str) -> str:
    """stable_id("waiting", match, user) in SQL: the top 60 of sha256's first 64 bits."""
    return (
        "COALESCE(NULLIF(((('x' || substr(encode(sha256('waiting'::bytea || '\\x00'::bytea || "
        f"convert_to({match_id}::text, 'UTF8') || '\\x00'::bytea || "
        "convert_to(w.user_id::text, 'UTF8')), 'hex'), 1, 16))::bit(64) >> 4)::bigint), 0), 1)"
    )


def _waiting_ctes(mark) -> str:
    """note_waiting's writes as CTEs reading ``last_row(recorded_at)`` (none:
    nothing is written): the seats' users and texts (seats in code point
    order, as Python sorts them) while the match is live, the notes of users
    no longer waited on deleted and the others written. Parameters
    (``_waiting_params``): the seats, what each waits for, the text's head,
    the match's id and the notes' LIKE pattern."""
    match_id = f"{mark(4)}::bigint"
    return (
        f"pend AS (SELECT * FROM unnest({mark(1)}::text[], {mark(2)}::text[]) AS p(seat, what)), "
        f"wanted AS (SELECT h.user_id, {mark(3)}::text || string_agg(' (' || h.seat || ': ' "
        "|| pend.what || ')', '' ORDER BY h.seat COLLATE \"C\") AS text "
        f"FROM {_HOLDERS} h JOIN pend ON pend.seat = h.seat "
        f"WHERE h.match_id = {match_id} AND h.user_id IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM last_row) "
        f"AND EXISTS (SELECT 1 FROM {_MATCHES} WHERE id = {match_id} AND status NOT IN {_OVER}) "
        "GROUP BY h.user_id), "
        f"gone AS (DELETE FROM {_NOTES} n WHERE n.match_id = {match_id} "
        f"AND n.text LIKE {mark(5)}::text AND EXISTS (SELECT 1 FROM last_row) "
        "AND n.user_id NOT IN (SELECT user_id FROM wanted)), "
        f"noted AS (INSERT INTO {_NOTES} (id, user_id, match_id, text, created_at) "
        f"SELECT {_waiting_id(match_id)}, w.user_id, {match_id}, w.text, l.recorded_at "
        "FROM wanted w, last_row l "
        "ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, created_at = EXCLUDED.created_at)"
    )


def _waiting_params(match: Match, saying: dict[str, str]) -> list:
    seats = sorted(saying)
    return [
        seats,
        [saying[s] for s in seats],
        f"{WAITING}{match} waits for you",
        match.pk,
        WAITING + "%",
    ]


def match_row_inline(match: Match, next_deadline, waiting_on: list[str], saying) -> Inline:
    """What a move writes besides its events, in its append's statement
    (``store.Inline``): the match's version and time from the last row
    appended, its clock index (``services._set_deadline``) and the "waiting
    for you" notes (``note_waiting``)."""

    def ctes(mark) -> str:
        return (
            "last_row AS (SELECT version, recorded_at FROM appended ORDER BY version DESC LIMIT 1), "
            f"match_row AS (UPDATE {_MATCHES} m SET version = l.version, updated_at = l.recorded_at, "
            f"next_deadline = CASE WHEN m.status IN {_OVER} THEN NULL ELSE {mark(1)}::timestamptz END, "
            f"waiting_on = CASE WHEN m.status IN {_OVER} THEN '[]'::jsonb ELSE {mark(2)}::jsonb END "
            f"FROM last_row l WHERE m.id = {mark(3)}::bigint RETURNING m.id), "
            + _waiting_ctes(lambda i: mark(3 + i))
        )

    params = [next_deadline, json.dumps(waiting_on), match.pk, *_waiting_params(match, saying)]
    # no row updated: a rebuild replaced it after the statement's snapshot
    landed = "EXISTS (SELECT 1 FROM match_row)"
    return Inline("match_row", ctes, params, covers=VERSION, landed=landed)


NOTHING = frozenset()
VERSION = frozenset({"version"})
# the events project_match writes more for than the match's version and time
# (the one list both it and _match_writes go by)
_MATCH_CHANGES = frozenset(
    {
        "match_created",
        "series_started",
        "bout_scored",
        "series_ended",
        "series_forfeited",
        "series_overturned",
        "match_voided",
        "match_abandoned",
        "match_holder_changed",
    }
)


def _match_writes(row) -> frozenset[str] | None:
    if not row.stream.startswith("match-"):
        return NOTHING
    if row.type in _MATCH_CHANGES:
        return None
    return NOTHING if followed_in_append(row) else VERSION


@read_model(_forget, prune=_prune, settle=_settle, writes=_match_writes)
def project_match(row):
    if not row.stream.startswith("match-"):
        return
    at = row.recorded_at or datetime.now(UTC)
    if row.type == "match_created" and row.metadata.get("layer") == "platform":
        _create_match_rows(row, at)
        return
    fields = {"version": row.version, "updated_at": at}
    points = None
    if row.type == "series_started":
        fields["options"] = row.data["options"]
    elif row.type == "bout_scored":
        points = row.data["points"]
    elif row.type in ("series_ended", "series_forfeited", "series_overturned"):
        fields["status"] = "finished"
        fields["winners"] = row.data["winners"]
    elif row.type == "match_abandoned" and row.metadata.get("layer") == "platform":
        fields["status"] = "void"
    elif row.type == "match_voided" and row.metadata.get("layer") == "platform":
        # a ruling changed history: recompute from the fold up to this event
        from eventlog.store import read_upto

        from .services import fold_rows

        _write_carried(row)
        match = Match.objects.get(stream=row.stream)
        state = fold_rows(match.game, read_upto(row))
        fields["scores"] = dict(state.scores)
        fields["status"] = "finished" if state.finished else "live"
        fields["winners"] = list(state.winners)
    elif row.type == "match_holder_changed":
        d = row.data
        user = d.get("user")
        SeatHolder.objects.filter(match__stream=row.stream, seat=d["seat"]).update(
            user_id=user if user in _existing_users([user]) else None, bot=d.get("bot", "")
        )
    _update_or_carry(row, fields, points)


def _create_match_rows(row, at: datetime) -> None:
    """A match's row, its seats and its opened-match notes, from its creation record."""
    d = row.data
    users = _existing_users(d.get("holders", {}).values())
    match = Match.objects.create(
        pk=row.id,  # the stream's first event: a rebuild keeps every URL
        stream=row.stream,
        game=d["game"],
        title=d.get("title", ""),
        seats=d["seats"],
        show_stream=d.get("show_stream", ""),
        kind=d.get("kind", ""),
        scores={s: 0 for s in d["seats"]},
        version=row.version,
        created_at=at,
        updated_at=at,
    )
    holders = {seat: d.get("holders", {}).get(seat) for seat in d["seats"]}
    SeatHolder.objects.bulk_create(
        SeatHolder(
            id=stable_id("seat", match.pk, seat),
            match=match,
            seat=seat,
            user_id=holder if holder in users else None,  # a deleted user: open
            bot=holder[4:] if isinstance(holder, str) and holder.startswith("bot:") else "",
        )
        for seat, holder in holders.items()
    )
    Notification.objects.bulk_create(
        Notification(
            id=stable_id("opened", match.pk, seat),
            user_id=holder,
            match=match,
            text=f"Your match has opened: {match} (you play {seat})",
            created_at=at,
        )
        for seat, holder in holders.items()
        if holder in users
    )


def _update_or_carry(row, fields: dict, points: dict | None) -> None:
    """The match row's update for ``row``, with what the earlier rows of its
    append carried: written by the append's last row, carried on by the
    others, so an append writes the match row once (a rebuild's rows, which
    carry nothing, each write)."""
    carried = carried_in_append(row)
    if carried is None:
        _update_match(row.stream, fields, points)
        return
    before = carried.pop("match", None)
    if before is not None:
        if "scores" in before[0] and points is not None:  # scores set, then added to
            _update_match(row.stream, *before)
        else:
            fields = {**before[0], **fields}
            points = _added(before[1], points)
    if followed_in_append(row):
        carried["match"] = (fields, points)
    else:
        _update_match(row.stream, fields, points)


def _write_carried(row) -> None:
    """What the earlier rows of ``row``'s append carried, written now (``row``
    reads the match row or writes beside it)."""
    carried = carried_in_append(row)
    before = carried.pop("match", None) if carried is not None else None
    if before is not None:
        _update_match(row.stream, *before)


def _added(a: dict | None, b: dict | None) -> dict | None:
    """Two bouts' points added per seat (None: no points)."""
    if a is None or b is None:
        return a if b is None else b
    return {seat: a.get(seat, 0) + b.get(seat, 0) for seat in {**a, **b}}


_JSON_FIELDS = frozenset(f.name for f in Match._meta.concrete_fields if isinstance(f, JSONField))


def _update_match(stream: str, fields: dict, points: dict | None = None) -> None:
    """The match row of ``stream`` updated with ``fields`` and, when given,
    a bout's ``points`` added to its scores. On PostgreSQL one statement, made
    once per set of fields, with no read first: a timeout or move that ends a
    bout writes these on its way."""
    if connection.vendor != "postgresql":
        if points is not None:
            scores = dict(Match.objects.get(stream=stream).scores)
            for seat, p in points.items():
                scores[seat] = scores.get(seat, 0) + p
            fields = {**fields, "scores": scores}
        Match.objects.filter(stream=stream).update(**fields)
        return
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
