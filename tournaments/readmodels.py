"""Tournament read models, kept in step with the log and rebuildable."""

from eventlog.readmodels import read_model
from eventlog.store import read_upto
from games.core.adapt import as_game_event

from . import brackets
from .models import (
    BracketRecord,
    BracketSeriesRecord,
    DisputeRecord,
    ItemRecord,
    ShowEntrantRecord,
    ShowRecord,
)


def _reset_brackets():
    BracketSeriesRecord.objects.all().delete()
    BracketRecord.objects.all().delete()


@read_model(_reset_brackets)
def project_bracket(row):
    if not row.stream.startswith("bracket-"):
        return
    from .bracket_services import fold_bracket

    rows = read_upto(row)
    state, created, links = fold_bracket(rows)
    fields = {
        "name": created.get("name", ""),
        "game": created.get("game", ""),
        "format": state.format,
        "entrants": list(state.entrants),
        "standings": list(state.standings),
        "champion": state.champion or "",
        "status": "finished" if state.champion else "running",
        "version": row.version,
    }
    record, _ = BracketRecord.objects.update_or_create(
        stream=row.stream,
        defaults=fields,
        create_defaults={**fields, "id": rows[0].id},  # the first event's id: stable URLs
    )
    record.series.all().delete()
    BracketSeriesRecord.objects.bulk_create(
        BracketSeriesRecord(
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


def _reset_shows():
    ShowRecord.objects.all().delete()


@read_model(_reset_shows)
def project_show(row):
    if not row.stream.startswith("show-"):
        return
    from . import shows

    rows = read_upto(row)
    state = shows.fold(as_game_event(r) for r in rows)
    started = [r for r in state.rounds if r.status != "planned"]
    fields = {
        "name": state.name,
        "organizer": state.organizer,
        "moderators": list(state.moderators),
        "status": "finished" if state.champion else "running",
        "champion": state.champion or "",
        "round_no": len(started),
        "version": row.version,
    }
    record, _ = ShowRecord.objects.update_or_create(
        stream=row.stream,
        defaults=fields,
        create_defaults={**fields, "id": rows[0].id},  # the first event's id: stable URLs
    )
    record.entrants.all().delete()
    ShowEntrantRecord.objects.bulk_create(
        ShowEntrantRecord(show=record, name=e, status=state.status.get(e, ""), position=i)
        for i, e in enumerate(state.entrants)
    )
    record.items.all().delete()
    ItemRecord.objects.bulk_create(
        ItemRecord(
            show=record,
            item_id=it.id,
            item=it.item,
            holder=it.holder,
            scope=it.scope,
            given_by=it.given_by,
            status=it.status,
            used_in=it.used_in or "",
        )
        for it in state.items.values()
    )
    record.disputes.all().delete()
    DisputeRecord.objects.bulk_create(
        DisputeRecord(
            show=record,
            dispute_id=d.id,
            target_stream=d.target_stream,
            target_version=d.target_version,
            filed_by=d.filed_by,
            status=d.status,
            claimed_by=d.claimed_by or "",
            ruling=dict(d.ruling) if d.ruling else None,
        )
        for d in state.disputes.values()
    )
