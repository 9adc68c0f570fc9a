"""Tournament read models, kept in step with the log and rebuildable."""
from eventlog.models import StoredEvent
from eventlog.readmodels import read_model

from . import brackets
from .models import BracketRecord, BracketSeriesRecord


def _reset_brackets():
    BracketSeriesRecord.objects.all().delete()
    BracketRecord.objects.all().delete()


@read_model(_reset_brackets)
def project_bracket(row):
    if not row.stream.startswith("bracket-"):
        return
    from .bracket_services import fold_bracket

    rows = StoredEvent.objects.filter(stream=row.stream, version__lte=row.version).order_by("version")
    state, created, links = fold_bracket(rows)
    record, _ = BracketRecord.objects.update_or_create(
        stream=row.stream,
        defaults={
            "name": created.get("name", ""),
            "game": created.get("game", ""),
            "format": state.format,
            "entrants": list(state.entrants),
            "standings": list(state.standings),
            "champion": state.champion or "",
            "status": "finished" if state.champion else "running",
            "version": row.version,
        },
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
