"""The clock index of a match's row (when it next needs a timeout, the seats
it waits on) and its "waiting for you" notes, written after each write to
its stream; on PostgreSQL a move writes them in its append's own statement
(``match_row_inline``), and a match that is over (``models.OVER``) has
nothing due and waits on no one."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from django.db import DEFAULT_DB_ALIAS

from eventlog import rows as db_rows
from eventlog.store import Inline
from eventlog.vendors import Fork
from games.core.registry import series_for
from games.core.series import MatchState

from .models import OVER, OVER_SQL, Match
from .waiting import note_waiting, waiting_ctes, waiting_params, waiting_saying

# the range a stored deadline is clamped to, so that no value ever raises
_EARLIEST = datetime(1, 1, 2, tzinfo=UTC).timestamp()
_LATEST = datetime(9999, 12, 30, tzinfo=UTC).timestamp()


def to_datetime(ts: float | None) -> datetime | None:
    """A timestamp as a datetime, clamped to what a datetime can hold; a
    value that is no time at all (nan) is no deadline."""
    if ts is None or ts != ts:
        return None
    return datetime.fromtimestamp(min(max(ts, _EARLIEST), _LATEST), tz=UTC)


def clock_index(game: str, state: MatchState) -> tuple[datetime | None, list[str], list]:
    """When a match of ``game`` at ``state`` next needs a timeout, the seats it
    waits on and its pending decisions."""
    series = series_for(game)
    pending = series.pending(state)
    return to_datetime(series.next_deadline(state)), sorted({d.seat for d in pending}), pending


def bout_no(state: MatchState) -> int:
    return state.bout_no + 1 if state.bout is not None else 0


def _note_pending(match: Match, pending: list, state: MatchState) -> None:
    """The "waiting for you" notes of a match whose row was just read back."""
    note_waiting(match, pending if match.status not in OVER else [], bout_no(state))


# ---- the index written after the append (the projectors ran) ----------------
_MATCH_NAMES = db_rows.names(Match)


def _set_deadline_sql(by: str) -> str:
    table = Match._meta.db_table
    over = f"status IN {OVER_SQL}"
    return (
        f"UPDATE {table} SET next_deadline = CASE WHEN {over} THEN NULL ELSE %s::timestamptz END, "
        f"waiting_on = CASE WHEN {over} THEN '[]'::jsonb ELSE %s::jsonb END "
        f"WHERE {by} = %s RETURNING {db_rows.columns(Match)}"
    )


# the match row found by its id, or (a new match, not read yet) by its stream
_SET_DEADLINE = {by: _set_deadline_sql(by) for by in ("id", "stream")}


def _write_in_one_statement(by: str, key, game: str, state: MatchState) -> tuple[list, list]:
    """The clock index written to the match row whose ``by`` is ``key``, in
    the statement that reads the row back: its values (``_MATCH_NAMES``) as
    this append's projectors left them, and the pending decisions."""
    nd, waiting_on, pending = clock_index(game, state)
    (row,) = db_rows.run(_SET_DEADLINE[by], [nd, json.dumps(waiting_on), key])
    values = db_rows.values(Match, row)
    return values, pending


def _set_deadline_in_one_statement(match: Match, state: MatchState) -> None:
    values, pending = _write_in_one_statement("id", match.pk, match.game, state)
    for name, value in zip(_MATCH_NAMES, values, strict=True):
        setattr(match, name, value)
    _note_pending(match, pending, state)


def _set_deadline_by_orm(match: Match, state: MatchState) -> None:
    nd, waiting_on, pending = clock_index(match.game, state)
    match.refresh_from_db()
    if match.status in OVER:
        nd, waiting_on = None, []
    Match.objects.filter(pk=match.pk).update(next_deadline=nd, waiting_on=waiting_on)
    match.next_deadline, match.waiting_on = nd, waiting_on
    _note_pending(match, pending, state)


# set_deadline(match, state): ``match`` read back with its clock index and
# notes written (the match over: nothing is due)
set_deadline = Fork(postgresql=_set_deadline_in_one_statement, portable=_set_deadline_by_orm)


def _opened_in_one_statement(stream: str, game: str, state: MatchState) -> Match:
    values, pending = _write_in_one_statement("stream", stream, game, state)
    match = Match.from_db(DEFAULT_DB_ALIAS, _MATCH_NAMES, values)
    _note_pending(match, pending, state)
    return match


def _opened_by_orm(stream: str, game: str, state: MatchState) -> Match:
    match = Match.objects.get(stream=stream)
    _set_deadline_by_orm(match, state)
    return match


# opened_match(stream, game, state): a new match's row, its clock index written
# (on PostgreSQL read back from the statement that writes it, not looked up first)
opened_match = Fork(postgresql=_opened_in_one_statement, portable=_opened_by_orm)


# ---- the index written in the append's own statement -------------------------
def index_written(match: Match, last, index, state: MatchState) -> None:
    """``match`` as the append's own statement left its row (``match_row_inline``)."""
    match.version, match.updated_at = last.version, last.recorded_at
    match.next_deadline, match.waiting_on, _pending = index
    match.scores = dict(state.scores)
    if state.finished and match.status not in OVER:
        match.status, match.winners = "finished", list(state.winners)


# what the match read model writes for a row that only moves a match on
# (``readmodels._match_writes``), for one that scores a bout (its points added
# to the scores) and for one that ends the series (status and winners); the
# inline writes cover all three, from the state the move leads to
VERSION = frozenset({"version"})
SCORES = frozenset({"scores"})
RESULT = frozenset({"result"})
MOVED = VERSION | SCORES | RESULT


def inline_row(match: Match, next_deadline, waiting_on: list[str], saying, state=None) -> Inline:
    """What a move writes besides its events, in its append's statement
    (``store.Inline``, PostgreSQL): the match's version and time from the last
    row appended, its scores and result as ``state`` has them (a timeout that
    ends a bout or the match: no projector runs), its clock index and the
    "waiting for you" notes (``saying``: ``waiting_saying``)."""

    def ctes(mark) -> str:
        over = f"m.status IN {OVER_SQL}"
        return (
            "last_row AS (SELECT version, recorded_at FROM appended ORDER BY version DESC LIMIT 1), "
            f"match_row AS (UPDATE {Match._meta.db_table} m SET version = l.version, "
            "updated_at = l.recorded_at, "
            f"scores = COALESCE({mark(4)}::jsonb, m.scores), "
            f"status = CASE WHEN {over} OR {mark(5)}::jsonb IS NULL THEN m.status ELSE 'finished' END, "
            f"winners = CASE WHEN {over} OR {mark(5)}::jsonb IS NULL THEN m.winners ELSE {mark(5)}::jsonb END, "
            f"next_deadline = CASE WHEN {over} THEN NULL ELSE {mark(1)}::timestamptz END, "
            f"waiting_on = CASE WHEN {over} THEN '[]'::jsonb ELSE {mark(2)}::jsonb END "
            f"FROM last_row l WHERE m.id = {mark(3)}::bigint RETURNING m.id), "
            + waiting_ctes(lambda i: mark(5 + i))
        )

    scores = json.dumps(dict(state.scores)) if state is not None else None
    winners = json.dumps(list(state.winners)) if state is not None and state.finished else None
    params = [next_deadline, json.dumps(waiting_on), match.pk, scores, winners]
    params += waiting_params(match, saying)
    # no row updated: a rebuild replaced it after the statement's snapshot
    landed = "EXISTS (SELECT 1 FROM match_row)"
    return Inline("match_row", ctes, params, covers=MOVED, landed=landed)


def _move_inline(match: Match, state: MatchState, index) -> Inline | None:
    """The inline writes of a move to ``state`` (``index``: its ``clock_index``);
    the append uses them only when no projector has more to write for its
    events, and its ``within`` calls ``set_deadline`` otherwise."""
    if match.status in OVER:
        return None
    next_deadline, waiting_on, pending = index
    saying = waiting_saying(pending, bout_no(state))
    return inline_row(match, next_deadline, waiting_on, saying, state)


def _no_inline_row(match: Match, state: MatchState, index) -> None:
    return None  # the projectors and ``set_deadline`` write it


# match_row_inline(match, state, index): the append's inline writes of a move
match_row_inline = Fork(postgresql=_move_inline, portable=_no_inline_row)
