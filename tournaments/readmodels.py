"""Tournament read models, kept in step with the log and rebuildable.

Projectors and services fold a show's or a bracket's stream incrementally:
each record keeps its stream folded (as JSON every ``_EVERY`` events) and a
random ``fold_token`` rewritten with every event, and this process keeps the
latest fold of each stream under its token. A cached fold is used only while
its token is the record's, a stored one only from the version it was taken
at, and the record is written in the append's transaction: a rolled-back
append or another process's write is detected, the events after the fold
are folded on, and nothing stale is ever used. A full fold is the fallback.

A stored fold is JSON read back into the fold's own classes alone (never a
pickle: the app's role may write these rows, and unpickling runs code),
sealed with an HMAC of the site's secret key over its stream, version and
fold: a fold that this site did not store for that version, or a version the
log does not have, is not used (commands are decided from these folds). A
cached fold is used at the version it was folded to, never at the one the
record says. The process's cache is shared by the server's threads, so it is
locked."""

import hashlib
import json
import logging
import threading
import uuid
from collections import OrderedDict
from dataclasses import fields, is_dataclass
from datetime import UTC, datetime

from django.utils.crypto import constant_time_compare, salted_hmac

from eventlog.models import StoredEvent
from eventlog.readmodels import first_event_id, read_model, stable_id, unlogged
from games.core.adapt import as_game_event

from . import brackets
from .bracket_fold import fold_bracket
from .models import (
    BracketRecord,
    BracketSeriesRecord,
    DisputeRecord,
    ItemRecord,
    ShowEntrantRecord,
    ShowRecord,
)

log = logging.getLogger(__name__)

_EVERY = 50  # events between two stored folds in a record
_CACHED = 256  # streams whose latest fold this process keeps
_cache: OrderedDict[str, tuple[str, int, object]] = (
    OrderedDict()
)  # stream -> (token, version, fold)
_cache_lock = threading.Lock()
_shape_key = ""
_classes: dict[str, type] = {}


def _fold_classes() -> dict[str, type]:
    """The classes a fold holds, by name: the only ones a stored fold makes."""
    if not _classes:
        from games.core.protocol import Event

        from .shows import state

        for module in (state, brackets):
            for c in vars(module).values():
                if isinstance(c, type) and is_dataclass(c) and c.__module__ == module.__name__:
                    _classes[c.__name__] = c
        _classes[Event.__name__] = Event
    return _classes


def _shape() -> str:
    """The fields of every class a stored fold holds: a changed class makes
    older folds unusable (the stream is folded again)."""
    global _shape_key
    if not _shape_key:
        names = ";".join(
            f"{n}:{','.join(f.name for f in fields(c))}" for n, c in _fold_classes().items()
        )
        _shape_key = hashlib.sha256(names.encode()).hexdigest()[:16]
    return _shape_key


def _to_json(x):
    """A fold as JSON: tuples, sets, dicts (any keys) and the fold's classes tagged."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if x is brackets.TBD:
        return {"tbd": True}
    if isinstance(x, list):
        return [_to_json(v) for v in x]
    if isinstance(x, tuple):
        return {"tuple": [_to_json(v) for v in x]}
    if isinstance(x, (set, frozenset)):
        kind = "set" if isinstance(x, set) else "frozenset"
        return {kind: [_to_json(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": [[_to_json(k), _to_json(v)] for k, v in x.items()]}
    name = type(x).__name__
    if is_dataclass(x) and _fold_classes().get(name) is type(x):
        return {"class": name, "fields": {f.name: _to_json(getattr(x, f.name)) for f in fields(x)}}
    raise TypeError(f"a fold holds no {type(x).__name__}")


def _from_json(x):
    if not isinstance(x, (list, dict)):
        return x
    if isinstance(x, list):
        return [_from_json(v) for v in x]
    if "tbd" in x:
        return brackets.TBD
    if "tuple" in x:
        return tuple(_from_json(v) for v in x["tuple"])
    if "set" in x:
        return {_from_json(v) for v in x["set"]}
    if "frozenset" in x:
        return frozenset(_from_json(v) for v in x["frozenset"])
    if "dict" in x:
        return {_from_json(k): _from_json(v) for k, v in x["dict"]}
    cls = _fold_classes()[x["class"]]  # KeyError for anything else: not used
    made = object.__new__(cls)
    for f in fields(cls):
        object.__setattr__(made, f.name, _from_json(x["fields"][f.name]))
    return made


_SEAL_SALT = "tournaments.readmodels.fold"


def _mac(stream: str, text: str) -> str:
    return salted_hmac(_SEAL_SALT, f"{stream}\n{text}", algorithm="sha256").hexdigest()


def _freeze(stream: str, version: int, folded) -> bytes:
    """A record's stored fold: its JSON ``[shape, version, fold]`` and its seal."""
    text = json.dumps([_shape(), version, _to_json(folded)], separators=(",", ":"))
    return json.dumps({"fold": text, "mac": _mac(stream, text)}, separators=(",", ":")).encode()


def _thaw(stream: str, blob):
    """(version, fold) stored in ``stream``'s record, or None when it cannot be used."""
    if not blob:
        return None
    try:
        sealed = json.loads(bytes(blob))
        text = sealed["fold"]
        if not constant_time_compare(sealed["mac"], _mac(stream, text)):
            return None
        shape, version, folded = json.loads(text)
        if shape != _shape() or type(version) is not int:
            return None
        return version, _from_json(folded)
    except Exception:  # written by other code or an older release: fold again
        return None


def _folded(model, stream: str, upto: int | None, fold_rows):
    """(fold, version) of ``stream`` up to version ``upto`` (None: the latest),
    from the kept fold on; ``fold_rows(start or None, rows)`` folds on."""
    token = model.objects.filter(stream=stream).values_list("fold_token", flat=True).first()
    start, at = None, 0
    if token is not None:
        kept = _cached(stream, token)
        if kept is None or (upto is not None and kept[0] > upto):
            blob = model.objects.filter(stream=stream).values_list("folded", flat=True).first()
            kept = _thaw(stream, blob)
        if kept is not None and (upto is None or kept[0] <= upto):
            at, start = kept
    # from the fold's own row on: the log must have the version the fold claims
    rows = _rows(stream, max(at, 1), upto)
    if at and not (rows and rows[0].version == at):
        start, at, rows = None, 0, _rows(stream, 1, upto)
    elif at:
        rows = rows[1:]
    return fold_rows(start, rows), rows[-1].version if rows else at


def _rows(stream: str, first: int, upto: int | None) -> list:
    rows = StoredEvent.objects.filter(stream=stream, version__gte=first)
    if upto is not None:
        rows = rows.filter(version__lte=upto)
    return list(rows.order_by("version"))


def _cached(stream: str, token: str):
    """(version, fold) this process folded ``stream`` to, if it is the one
    under ``token``, else None."""
    with _cache_lock:
        hit = _cache.get(stream)
        if hit is None or hit[0] != token:
            return None
        _cache.move_to_end(stream)
        return hit[1], hit[2]


def _keep(stream: str, version: int, folded) -> dict:
    """Cache the fold at ``version``; the record fields that go with it."""
    token = uuid.uuid4().hex
    with _cache_lock:
        _cache[stream] = (token, version, folded)
        _cache.move_to_end(stream)
        while len(_cache) > _CACHED:
            _cache.popitem(last=False)
    out = {"fold_token": token}
    if version % _EVERY == 0 or version < _EVERY:
        try:
            out["folded"] = _freeze(stream, version, folded)
        except TypeError:  # a fold holding another class: folded from the log instead
            log.warning("fold of %s not stored", stream, exc_info=True)
    return out


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
    state, version = _folded(ShowRecord, stream, None, _fold_show_rows)
    return (state, version) if version else (None, 0)


def bracket_folded(stream: str):
    """((state, created, links), version) of a bracket at its latest event."""
    return _folded(BracketRecord, stream, None, _fold_bracket_rows)


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
    folded, _ = _folded(BracketRecord, row.stream, row.version, _fold_bracket_rows)
    state, created, links = folded
    fields = {
        **_keep(row.stream, row.version, folded),
        "name": created.get("name", ""),
        "game": created.get("game", ""),
        "format": state.format,
        "entrants": list(state.entrants),
        "standings": list(state.standings),
        "champion": state.champion or "",
        "status": "finished" if state.champion else "running",
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
    before, _ = _folded(ShowRecord, row.stream, row.version - 1, _fold_show_rows)
    state = _fold_show_rows(before, [row])
    started = [r for r in state.rounds if r.status != "planned"]
    fields = {
        **_keep(row.stream, row.version, state),
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
