"""Show and bracket folds kept by stream version, shared by every process, as
match states are (``games/states.py``).

The log is append-only, so a stream's fold at a version never changes. Each
show or bracket stream has one entry: its fold tagged with the row it was
folded up to, ``(version, global id, time written)``. A reader asks the log
for the stream's tip (one indexed query) and uses an entry only when its tag
is the tip's; an older entry is folded on from the rows after it, once its
own row is found unchanged in the log. Nothing else invalidates an entry.

Three places, tried in turn: this process's last folds; the ``states`` cache
(Redis in production, so every web and worker process shares one fold; an
entry reaches it once the transaction that wrote its rows commits); and the
snapshot its read model's record keeps every ``SNAPSHOT_EVERY`` events (for
when the cache lost it), from which at most that many events are folded on.

A show's fold holds its whole log (``ShowState.log``, what rulings refold
and the history pages read): it is kept without it, as its length alone, and
comes back as a ``KeptLog`` that reads those events from the log only if
something reads them. So what a command reads and decodes does not grow with
the show's length.

What is kept outside the process is JSON read back into the folds' own
classes alone (never a pickle: a stolen credential must not run code here),
sealed with the site's secret key (``runtime.seal``) over its key and text:
a fold this site did not keep under that key is not used. The two tiers and
the reading at a tag are ``runtime.kept``'s, as the match states' are."""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime
from typing import Any

from django.db import connection

from eventlog.models import StoredEvent
from eventlog.store import read
from games.core.adapt import as_game_event
from games.states import Tag, tag_of, tip
from runtime.kept import KeptByVersion
from runtime.seal import seal, unseal

from . import brackets

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 50  # events between two snapshots in a record
_SHARED_PURPOSE = "tournaments.kept_folds.entry"
_SNAPSHOT_PURPOSE = "tournaments.kept_folds.snapshot"
_REVERSED_CHUNK = 64  # rows read at a time when a kept log is read from its end


# ---- a show's log, read only when read -------------------------------------------
class _Head:
    """The first ``n`` events of ``stream``, read from the log once, when first used."""

    def __init__(self, stream: str, n: int):
        self.stream, self.n = stream, n
        self.events: tuple | None = None

    def load(self) -> tuple:
        if self.events is None:
            rows = [r for r in read(self.stream) if r.version <= self.n]
            if len(rows) != self.n:
                raise LookupError(f"the log of {self.stream} has no version {self.n}")
            self.events = tuple(as_game_event(r) for r in rows)
        return self.events

    def from_end(self) -> Iterator:
        """The events last to first, read a chunk at a time (a reader that
        stops early reads only the end of the log)."""
        if self.events is not None:
            yield from reversed(self.events)
            return
        upto = self.n
        while upto > 0:
            low = max(0, upto - _REVERSED_CHUNK)
            rows = StoredEvent.objects.filter(
                stream=self.stream, version__gt=low, version__lte=upto
            ).order_by("-version")
            for r in rows:
                yield as_game_event(r)
            upto = low


class KeptLog(Sequence):
    """A show's log as a tuple of its events (``ShowState.log``): a head read
    from the event log when first used, and the events folded on since.
    ``log + (event,)`` keeps the head unread."""

    __slots__ = ("_head", "_tail")

    def __init__(self, head: _Head, tail: tuple = ()):
        self._head, self._tail = head, tail

    def _all(self) -> tuple:
        return self._head.load() + self._tail

    def __len__(self) -> int:
        return self._head.n + len(self._tail)

    def __getitem__(self, i):
        return self._all()[i]

    def __iter__(self):
        return iter(self._all())

    def __reversed__(self):
        yield from reversed(self._tail)
        yield from self._head.from_end()

    def __add__(self, other):
        if isinstance(other, tuple):
            return KeptLog(self._head, self._tail + other)
        return NotImplemented

    def __eq__(self, other):
        if isinstance(other, (tuple, KeptLog)):
            return len(self) == len(other) and tuple(self) == tuple(other)
        return NotImplemented

    __hash__ = None  # like a list: a state holding it is compared, never hashed

    def __repr__(self) -> str:
        return f"KeptLog({self._head.stream!r}, {len(self)} events)"


# ---- the folds as JSON ------------------------------------------------------------
_classes: dict[str, type] = {}
_shape_key = ""


def _fold_classes() -> dict[str, type]:
    """The classes a fold holds, by name: the only ones a kept fold makes."""
    if not _classes:
        from games.core.protocol import Event

        from .shows import state

        for module in (state, brackets):
            for c in vars(module).values():
                if isinstance(c, type) and is_dataclass(c) and c.__module__ == module.__name__:
                    _classes[c.__name__] = c
        _classes[Event.__name__] = Event
    return _classes


def shape() -> str:
    """The fields of every class a fold holds: a changed class makes older
    folds unusable (the stream is folded again)."""
    global _shape_key
    if not _shape_key:
        names = ";".join(
            f"{n}:{','.join(f.name for f in fields(c))}" for n, c in _fold_classes().items()
        )
        _shape_key = hashlib.sha256(names.encode()).hexdigest()[:16]
    return _shape_key


def _is_show_state(x) -> bool:
    return type(x).__name__ == "ShowState" and _fold_classes().get("ShowState") is type(x)


def to_json(x):
    """A fold as JSON: tuples, sets, dicts (any keys) and the fold's classes
    tagged; a show's log left out (it is the stream's first ``version`` events)."""
    if x is None or isinstance(x, (bool, int, float, str)):
        return x
    if x is brackets.TBD:
        return {"tbd": True}
    if isinstance(x, list):
        return [to_json(v) for v in x]
    if isinstance(x, tuple):
        return {"tuple": [to_json(v) for v in x]}
    if isinstance(x, (set, frozenset)):
        kind = "set" if isinstance(x, set) else "frozenset"
        return {kind: [to_json(v) for v in x]}
    if isinstance(x, dict):
        return {"dict": [[to_json(k), to_json(v)] for k, v in x.items()]}
    name = type(x).__name__
    if is_dataclass(x) and _fold_classes().get(name) is type(x):
        skip = "log" if _is_show_state(x) else None
        return {
            "class": name,
            "fields": {f.name: to_json(getattr(x, f.name)) for f in fields(x) if f.name != skip},
        }
    raise TypeError(f"a fold holds no {type(x).__name__}")


def from_json(x, stream: str):
    if not isinstance(x, (list, dict)):
        return x
    if isinstance(x, list):
        return [from_json(v, stream) for v in x]
    if "tbd" in x:
        return brackets.TBD
    if "tuple" in x:
        return tuple(from_json(v, stream) for v in x["tuple"])
    if "set" in x:
        return {from_json(v, stream) for v in x["set"]}
    if "frozenset" in x:
        return frozenset(from_json(v, stream) for v in x["frozenset"])
    if "dict" in x:
        return {from_json(k, stream): from_json(v, stream) for k, v in x["dict"]}
    cls = _fold_classes()[x["class"]]  # KeyError for anything else: not used
    made = object.__new__(cls)
    for f in fields(cls):
        if f.name == "log" and _is_show_state(made):
            continue
        object.__setattr__(made, f.name, from_json(x["fields"][f.name], stream))
    if _is_show_state(made):
        object.__setattr__(made, "log", KeptLog(_Head(stream, made.version)))
    return made


# ---- entries ----------------------------------------------------------------------
@dataclass(frozen=True)
class Entry:
    tag: Tag
    fold: Any

    @property
    def version(self) -> int:
        return self.tag[0]


def _entry_text(entry: Entry) -> str:
    version, row_id, at = entry.tag
    data = {"shape": shape(), "tag": [version, row_id, at.isoformat()], "fold": to_json(entry.fold)}
    return json.dumps(data, separators=(",", ":"))


def _entry_of(text: str, stream: str) -> Entry:
    data = json.loads(text)
    version, row_id, at = data["tag"]
    if data["shape"] != shape():
        raise ValueError("folded by another release")
    if not (type(version) is int and type(row_id) is int and isinstance(at, str)):
        raise ValueError("not a tag")
    return Entry((version, row_id, datetime.fromisoformat(at)), from_json(data["fold"], stream))


def _key(stream: str) -> str:
    return f"fold:{shape()}:{connection.settings_dict['NAME']}:{stream}"


KEPT = KeptByVersion(_SHARED_PURPOSE, _key, _entry_text, _entry_of, what="fold", log=log)
local_entry, keep, forget_local = KEPT.local, KEPT.keep, KEPT.forget_local
_keep_local = KEPT.keep_local


def snapshot(stream: str, entry: Entry) -> bytes | None:
    """What a record keeps of ``entry`` (every ``SNAPSHOT_EVERY`` versions and
    the first ones), sealed under ``stream``; None when not at such a version."""
    if entry.version % SNAPSHOT_EVERY and entry.version >= SNAPSHOT_EVERY:
        return None
    try:
        sealed = seal(_SNAPSHOT_PURPOSE, stream, _entry_text(entry))
    except TypeError:  # a fold holding another class: folded from the log instead
        log.warning("fold of %s not stored", stream, exc_info=True)
        return None
    return json.dumps(sealed, separators=(",", ":")).encode()


def from_snapshot(stream: str, blob) -> Entry | None:
    """The entry a record's snapshot holds, or None when it cannot be used."""
    if not blob:
        return None
    try:
        return _entry_of(unseal(_SNAPSHOT_PURPOSE, stream, json.loads(bytes(blob))), stream)
    except Exception:  # written by other code or an older release: fold again
        return None


# ---- reading a fold at a version --------------------------------------------------
FoldRows = Callable[[Any, list], Any]  # (fold or None for a new stream, rows) -> fold


def _fold_on(base: Entry, stream: str, tag: Tag, fold_rows: FoldRows) -> Entry | None:
    """``base`` folded on to ``tag`` from the rows after it, or None when its
    own row is not the log's."""
    rows = list(
        StoredEvent.objects.filter(
            stream=stream, version__gte=base.version, version__lte=tag[0]
        ).order_by("version")
    )
    if not rows or tag_of(rows[0]) != base.tag or tag_of(rows[-1]) != tag:
        return None
    return Entry(tag, fold_rows(base.fold, rows[1:]))


def _full(stream: str, tag: Tag, fold_rows: FoldRows) -> Entry:
    rows = [r for r in read(stream) if r.version <= tag[0]]
    return Entry(tag_of(rows[-1]), fold_rows(None, rows))


def fold_at(stream: str, tag: Tag, fold_rows: FoldRows, record_blob: Callable[[], Any]) -> Entry:
    """The fold of ``stream`` at the row ``tag``: a kept entry at it, else one
    folded on from the newest older one (here, shared, or the record's
    snapshot that ``record_blob()`` reads), else a full fold; kept for the
    next reader when it is the newest this process knows."""
    return KEPT.fold_at(
        stream,
        tag,
        lambda base: _fold_on(base, stream, tag, fold_rows),
        lambda: _full(stream, tag, fold_rows),
        lambda: (from_snapshot(stream, record_blob()),),
    )


def latest(stream: str, fold_rows: FoldRows, record_blob: Callable[[], Any]) -> Entry | None:
    """The fold of ``stream`` at its tip (None: no such stream)."""
    tag = tip(stream)
    return None if tag is None else fold_at(stream, tag, fold_rows, record_blob)


def tag_at(stream: str, version: int) -> Tag | None:
    """The tag of ``stream``'s row at ``version`` (one row of the index)."""
    return (
        StoredEvent.objects.filter(stream=stream, version=version)
        .values_list("version", "id", "recorded_at")
        .first()
    )
