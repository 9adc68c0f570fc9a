"""Tournament read models, kept in step with the log and rebuildable.

Each event of a show's or a bracket's stream is projected from the fold
just before it, kept per version by ``kept_folds`` (here, in the cache
every process shares, or folded on from the record's snapshot): the record's
fields and its changed entrant, item and dispute rows are written in the
append's transaction, and the fold at the new event is kept for the next
command, which reads it at the stream's tip (``show_folded``,
``bracket_folded``)."""

from datetime import UTC, datetime

from eventlog.readmodels import first_event_id, read_model, stable_id, unlogged
from eventlog.store import carried_in_append
from games.core.adapt import as_game_event
from games.states import tag_of

from . import brackets, kept_folds
from .bracket_fold import fold_bracket
from .models import (
    BracketRecord,
    BracketSeriesRecord,
    DisputeRecord,
    ItemRecord,
    ShowEntrantRecord,
    ShowRecord,
)

_CARRIED = "tournaments.kept_fold_tag"  # the tag of the row projected last in an append


def _record_blob(model, stream: str):
    return lambda: model.objects.filter(stream=stream).values_list("folded", flat=True).first()


def _latest(model, stream: str, fold_rows):
    """(fold, version) of ``stream`` at its tip; (None, 0) when there is none."""
    entry = kept_folds.latest(stream, fold_rows, _record_blob(model, stream))
    return (None, 0) if entry is None else (entry.fold, entry.version)


def _before(model, row, fold_rows):
    """The fold of ``row``'s stream just before it (None before its first event)."""
    if row.version == 1:
        return None
    carried = carried_in_append(row)
    tag = carried.get(_CARRIED) if carried is not None else None
    if tag is None or tag[0] != row.version - 1:
        tag = kept_folds.tag_at(row.stream, row.version - 1)
    return kept_folds.fold_at(row.stream, tag, fold_rows, _record_blob(model, row.stream)).fold


def _keep(row, folded) -> dict:
    """Keep the fold at ``row``; the record fields that go with it (its
    snapshot, at the versions that keep one)."""
    entry = kept_folds.Entry(tag_of(row), folded)
    kept_folds.keep(row.stream, entry)
    carried = carried_in_append(row)
    if carried is not None:
        carried[_CARRIED] = entry.tag
    blob = kept_folds.snapshot(row.stream, entry)
    return {} if blob is None else {"folded": blob}


def _fold_show_rows(start, rows):
    from . import shows

    state = start if start is not None else shows.ShowState()
    for r in rows:
        state = shows.evolve(state, as_game_event(r))
    return state


def _fold_bracket_rows(start, rows):
    return fold_bracket(rows, start)


def show_folded(stream: str):
    """(ShowState, version) of a show at its latest event; (None, 0) when
    there is no such show."""
    return _latest(ShowRecord, stream, _fold_show_rows)


def bracket_folded(stream: str):
    """((state, created, links), version) of a bracket at its latest event."""
    folded, version = _latest(BracketRecord, stream, _fold_bracket_rows)
    return (folded if version else (None, {}, {})), version


def _forget_bracket(stream: str) -> None:
    if stream.startswith("bracket-"):
        BracketRecord.objects.filter(stream=stream).delete()  # its series too


def _prune_brackets() -> None:
    unlogged(BracketRecord.objects.all()).delete()


def _bracket_writes(row) -> frozenset[str] | None:
    return None if row.stream.startswith("bracket-") else frozenset()


@read_model(_forget_bracket, prune=_prune_brackets, writes=_bracket_writes)
def project_bracket(row):
    if not row.stream.startswith("bracket-"):
        return
    folded = _fold_bracket_rows(_before(BracketRecord, row, _fold_bracket_rows), [row])
    state, created, links = folded
    fields = {
        **_keep(row, folded),
        "name": created.get("name", ""),
        "game": created.get("game", ""),
        "format": state.format,
        "entrants": list(state.entrants),
        "standings": list(state.standings),
        "champion": state.champion or "",
        # "checking in": created with its check-in open, not drawn yet
        "status": "finished"
        if state.champion
        else ("checking in" if created.get("check_in") else "running"),
        "version": row.version,
    }
    record, _ = BracketRecord.objects.defer("folded").update_or_create(
        stream=row.stream,
        defaults=fields,
        # create_defaults replaces defaults on create: the fields, and a stable id
        create_defaults={**fields, "id": first_event_id(row)},
    )
    record.series.all().delete()
    BracketSeriesRecord.objects.bulk_create(
        BracketSeriesRecord(
            id=stable_id("series", record.pk, s.id),
            bracket=record,
            series_id=s.id,
            round=s.round,
            position=i,
            a=s.a,
            b=s.b or "",
            winner=s.winner or "",
            match_stream=links.get(s.id, ""),
        )
        for i, s in enumerate(brackets.series_list(state))
    )


def show_status(state) -> str:
    """scheduled, running, finished or cancelled (ShowRecord.status)."""
    from . import shows

    if state.champion:
        return "finished"
    return {shows.SCHEDULED: "scheduled", shows.CANCELLED: "cancelled"}.get(state.phase, "running")


def _when(t: float | None) -> datetime | None:
    return None if t is None else datetime.fromtimestamp(t, tz=UTC)


def _forget_show(stream: str) -> None:
    if stream.startswith("show-"):
        ShowRecord.objects.filter(stream=stream).delete()  # its entrants, items, disputes too


def _prune_shows() -> None:
    unlogged(ShowRecord.objects.all()).delete()


def _show_writes(row) -> frozenset[str] | None:
    return None if row.stream.startswith("show-") else frozenset()


@read_model(_forget_show, prune=_prune_shows, writes=_show_writes)
def project_show(row):
    from . import shows

    if not row.stream.startswith("show-"):
        return
    before = _before(ShowRecord, row, _fold_show_rows) or shows.ShowState()
    state = _fold_show_rows(before, [row])
    started = [r for r in state.rounds if r.status != "planned"]
    fields = {
        **_keep(row, state),
        "name": state.name,
        "organizer": state.organizer,
        "organizer_id": state.organizer_id,
        "moderators": list(state.moderators),
        "moderator_ids": [i for i in state.moderator_ids.values() if i is not None],
        "seat_holder_ids": sorted(shows.seat_holder_ids(state)),
        "spectator_delay_s": state.options.get("spectator_delay_s", 0),
        "spectator_policy": state.options.get("spectator_policy", "public"),
        "status": show_status(state),
        "champion": state.champion or "",
        "starts_at": _when(state.starts_at),
        "next_due_at": _when(shows.next_due(state)),
        "round_no": len(started),
        "version": row.version,
    }
    record, _ = ShowRecord.objects.defer("folded").update_or_create(
        stream=row.stream,
        defaults=fields,
        # create_defaults replaces defaults on create: the fields, and a stable id
        create_defaults={**fields, "id": first_event_id(row)},
    )
    if not before.created:  # folded from the start: rewrite every row
        record.entrants.all().delete()
        record.items.all().delete()
        record.disputes.all().delete()
    _project_show_rows(record, before, state)


def _changed(old: dict, new: dict) -> tuple[list, list]:
    """(keys gone or changed, values new or changed) between two mappings."""
    stale = [k for k, v in old.items() if new.get(k) != v]
    fresh = [v for k, v in new.items() if old.get(k) != v]
    return stale, fresh


def _project_show_rows(record, before, state):
    """Rewrite only the entrant, item and dispute rows the event changed."""
    old = {e: (i, e, before.status.get(e, "")) for i, e in enumerate(before.entrants)}
    new = {e: (i, e, state.status.get(e, "")) for i, e in enumerate(state.entrants)}
    stale, fresh = _changed(old, new)
    if stale:
        record.entrants.filter(name__in=stale).delete()
    ShowEntrantRecord.objects.bulk_create(
        ShowEntrantRecord(
            id=stable_id("entrant", record.pk, e), show=record, name=e, status=status, position=i
        )
        for i, e, status in fresh
    )
    stale, fresh = _changed(dict(before.items), dict(state.items))
    if stale:
        record.items.filter(item_id__in=stale).delete()
    ItemRecord.objects.bulk_create(
        ItemRecord(
            id=stable_id("item", record.pk, it.id),
            show=record,
            item_id=it.id,
            item=it.item,
            holder=it.holder,
            scope=it.scope,
            given_by=it.given_by,
            status=it.status,
            used_in=it.used_in or "",
        )
        for it in fresh
    )
    stale, fresh = _changed(dict(before.disputes), dict(state.disputes))
    if stale:
        record.disputes.filter(dispute_id__in=stale).delete()
    DisputeRecord.objects.bulk_create(
        DisputeRecord(
            id=stable_id("dispute", record.pk, d.id),
            show=record,
            dispute_id=d.id,
            target_stream=d.target_stream,
            target_version=d.target_version,
            filed_by=d.filed_by,
            status=d.status,
            claimed_by=d.claimed_by or "",
            ruling=dict(d.ruling) if d.ruling else None,
        )
        for d in fresh
    )
