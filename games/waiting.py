"""The "waiting for you" notes: one per user and match while the match waits
on a seat of theirs, saying the bout and the decision.

Every move writes them, so on PostgreSQL they are one statement (CTEs that
``clock_index.match_row_inline`` also puts in the append's own statement);
elsewhere the ORM writes the same rows. What the notes say and their ids
are made in one place for both."""

from __future__ import annotations

from django.db import connection
from django.utils import translation

from eventlog.readmodels import stable_id, stable_id_sql
from eventlog.vendors import Fork

from .models import OVER_SQL, Match, Notification, SeatHolder

WAITING = "Your turn: "
# decisions a note says in words rather than by their kind ("ready": a ready-check)
STORED_DECISIONS = {"ready": "say you are here"}

_MATCHES = Match._meta.db_table
_NOTES = Notification._meta.db_table
_HOLDERS = SeatHolder._meta.db_table


def waiting_saying(pending, bout_no: int = 0) -> dict[str, str]:
    """What each waited-on seat's note says: the bout and the decision."""
    kinds: dict[str, str] = {}
    for d in pending:
        kinds.setdefault(d.seat, d.kind)
    bout = f"bout {bout_no}: " if bout_no else ""
    return {
        seat: f"{bout}{STORED_DECISIONS.get(kind, kind.replace('_', ' '))}"
        for seat, kind in kinds.items()
    }


def stored_title(match: Match) -> str:
    """The match's title as notes store it: in English, whoever's request
    wrote them (pages put a note in their reader's words: ``note_words``)."""
    with translation.override("en"):
        return str(match)


def head(match: Match) -> str:
    """What a "waiting for you" note opens with (pages: presenters.notes)."""
    return f"{WAITING}{stored_title(match)} waits for you"


def _seat_texts(saying: dict[str, str]) -> tuple[list[str], list[str]]:
    """The seats (in code point order) and what each adds to its holder's note."""
    seats = sorted(saying)
    return seats, [f" ({seat}: {saying[seat]})" for seat in seats]


def note_waiting(match: Match, pending, bout_no: int = 0) -> None:
    """The "waiting for you" notes of ``match`` as it waits on ``pending``;
    gone for those it no longer waits on. They are dated by the match's last
    event, so a rebuild (``readmodels._settle``) writes the same rows."""
    saying = waiting_saying(pending, bout_no)
    if not saying:
        Notification.objects.filter(match=match, text__startswith=WAITING).delete()
    else:
        write_notes(match, saying)


def _notes_by_orm(match: Match, saying: dict[str, str]) -> None:
    notes = Notification.objects.filter(match=match, text__startswith=WAITING)
    seats, adds = _seat_texts(saying)
    held = SeatHolder.objects.filter(match=match, user__isnull=False, seat__in=seats)
    texts: dict[int, str] = {}
    added = dict(zip(seats, adds, strict=True))
    for user_id, seat in held.order_by("seat").values_list("user_id", "seat"):
        texts[user_id] = texts.get(user_id, head(match)) + added[seat]
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


def _notes_in_one_statement(match: Match, saying: dict[str, str]) -> None:
    sql = (
        "WITH last_row AS (SELECT %(at)s::timestamptz AS recorded_at), "
        f"{waiting_ctes(lambda i: f'%(p{i})s')} SELECT 1"
    )
    params = {f"p{i}": v for i, v in enumerate(waiting_params(match, saying), 1)}
    with connection.cursor() as cursor:
        cursor.execute(sql, {"at": match.updated_at, **params})


# the notes of the seats waited on written, the others' deleted
write_notes = Fork(postgresql=_notes_in_one_statement, portable=_notes_by_orm)


def waiting_ctes(mark) -> str:
    """The notes' writes as CTEs reading ``last_row(recorded_at)`` (none:
    nothing is written): the seats' users and texts (seats in code point
    order, as Python sorts them) while the match is not over, the notes of
    users no longer waited on deleted and the others written. Parameters
    (``waiting_params``): the seats, what each adds to the note, the note's
    head, the match's id and the notes' LIKE pattern."""
    match_id = f"{mark(4)}::bigint"
    note_id = stable_id_sql("'waiting'", match_id, "w.user_id")
    return (
        f"pend AS (SELECT * FROM unnest({mark(1)}::text[], {mark(2)}::text[]) AS p(seat, adds)), "
        f"wanted AS (SELECT h.user_id, {mark(3)}::text || string_agg(pend.adds, '' "
        'ORDER BY h.seat COLLATE "C") AS text '
        f"FROM {_HOLDERS} h JOIN pend ON pend.seat = h.seat "
        f"WHERE h.match_id = {match_id} AND h.user_id IS NOT NULL "
        "AND EXISTS (SELECT 1 FROM last_row) "
        f"AND EXISTS (SELECT 1 FROM {_MATCHES} WHERE id = {match_id} AND status NOT IN {OVER_SQL}) "
        "GROUP BY h.user_id), "
        f"gone AS (DELETE FROM {_NOTES} n WHERE n.match_id = {match_id} "
        f"AND n.text LIKE {mark(5)}::text AND EXISTS (SELECT 1 FROM last_row) "
        "AND n.user_id NOT IN (SELECT user_id FROM wanted)), "
        f"noted AS (INSERT INTO {_NOTES} (id, user_id, match_id, text, created_at) "
        f"SELECT {note_id}, w.user_id, {match_id}, "
        "w.text, l.recorded_at FROM wanted w, last_row l "
        "ON CONFLICT (id) DO UPDATE SET text = EXCLUDED.text, created_at = EXCLUDED.created_at)"
    )


def waiting_params(match: Match, saying: dict[str, str]) -> list:
    seats, adds = _seat_texts(saying)
    return [seats, adds, head(match), match.pk, WAITING + "%"]
