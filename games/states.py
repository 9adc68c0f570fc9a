"""Match states kept by stream version, shared by every process.

The log is append-only, so a stream's state at a version never changes. Each
match stream has one entry: its state (the full state, hidden cards and all:
it stays on the server) tagged with the row it was folded up to, ``(version,
global id, time written)``. A reader asks the log for the stream's tip (one
indexed query) and uses an entry only when its tag is the tip's; an entry at
an older version is folded on from the rows after it, once its own row is
found unchanged in the log (``services`` does the folding). Nothing else
invalidates an entry: a newer, foreign or unreadable entry is just not used.

Two tiers: this process's last states, and the ``states`` cache (Redis in
production, so every web and worker process shares one fold; in-process
under ``make run`` and the tests). An entry reaches the shared tier only once
the transaction that wrote its rows commits. Its key carries the database's
name and a fingerprint of the games' code, so another database's or another
release's entries are never read.

The shared tier holds JSON, never a pickle (a stolen Redis credential must
not become code execution): an entry is read back into the games' own
dataclasses alone, and the cache's serializer is JSON only
(``config.cache.JSONSerializer``), so a planted pickle is refused unread and
the state is folded again from the log. Each entry is sealed with an HMAC
(``runtime.seal``: the site's secret key, over its key and its JSON): an
entry whose state is not the one this site folded for the version it claims
(written by anyone else with the cache's credential) is refused, and the
state folded again. The tiers, the seal and the reading at a tag are
``runtime.kept``'s (``KEPT``), as the show and bracket folds' are."""

from __future__ import annotations

import hashlib
import json
import logging
import sys
from dataclasses import dataclass, fields, is_dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.db import connection

from eventlog.models import StoredEvent
from runtime.kept import CACHE_ALIAS as CACHE_ALIAS  # the shared tier, as tests read it
from runtime.kept import KeptByVersion

log = logging.getLogger(__name__)


Tag = tuple[int, int, datetime]  # (version, global id, recorded_at) of a row


@dataclass(frozen=True)
class Entry:
    tag: Tag
    state: Any  # the series' MatchState (None before the series started)
    abandoned: bool

    @property
    def version(self) -> int:
        return self.tag[0]


_fingerprint = ""


def tag_of(row) -> Tag:
    return (row.version, row.id, row.recorded_at)


def tip(stream: str) -> Tag | None:
    """The tag of the stream's last row: the (stream, version) index, one row."""
    return (
        StoredEvent.objects.filter(stream=stream)
        .order_by("-version")
        .values_list("version", "id", "recorded_at")
        .first()
    )


def fingerprint() -> str:
    """A hash of the games' code: a changed class never meets an old pickle."""
    global _fingerprint
    if not _fingerprint:
        root = Path(__file__).resolve().parent
        digest = hashlib.sha256()
        for path in sorted(root.rglob("*.py")):
            if "migrations" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
        _fingerprint = digest.hexdigest()[:16]
    return _fingerprint


def _key(stream: str) -> str:
    return f"match-state:{fingerprint()}:{connection.settings_dict['NAME']}:{stream}"


_field_names: dict[type, tuple[str, ...]] = {}
_PLAIN = (bool, int, float, str)


def _class_name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _state_class(name: str) -> type:
    """The games' dataclass called ``name``: an already imported module of the
    ``games`` package, a dataclass defined there; anything else is refused."""
    module_name, _, qualname = name.partition(":")
    module = sys.modules.get(module_name) if module_name.startswith("games.") else None
    cls = getattr(module, qualname, None) if module is not None and "." not in qualname else None
    if not (isinstance(cls, type) and is_dataclass(cls) and cls.__module__ == module_name):
        raise ValueError(f"a match state holds no {name!r}")
    return cls


def _names(cls: type) -> tuple[str, ...]:
    if cls not in _field_names:
        _field_names[cls] = tuple(f.name for f in fields(cls))
    return _field_names[cls]


def to_json(x: Any) -> Any:
    """A state as JSON: tuples, sets, dicts (any keys) and the games'
    dataclasses tagged, so ``from_json`` gives back an equal value of the same
    types. Every move's state is encoded (its shared tier), so the type is
    looked up once per value (``_ENCODERS``) and a class is checked once per
    process (``_encodable``), not once per value."""
    cls = type(x)
    if x is None or cls in _PLAIN:  # exact types: an enum is refused, not flattened
        return x
    encoder = _ENCODERS.get(cls)
    if encoder is not None:
        return encoder(x)
    name, names = _encodable(cls)
    return {"c": name, "v": [to_json(getattr(x, f)) for f in names]}


_ENCODERS: dict[type, Any] = {
    list: lambda x: [to_json(v) for v in x],
    tuple: lambda x: {"t": [to_json(v) for v in x]},
    dict: lambda x: {"d": [[to_json(k), to_json(v)] for k, v in x.items()]},
    frozenset: lambda x: {"f": [to_json(v) for v in x]},
    set: lambda x: {"s": [to_json(v) for v in x]},
}
# the games' dataclasses a state may hold: class -> (its tag, its fields)
_DATACLASSES: dict[type, tuple[str, tuple[str, ...]]] = {}


def _encodable(cls: type) -> tuple[str, tuple[str, ...]]:
    """(tag, field names) of a games' dataclass that ``from_json`` reads
    back as itself (``_state_class``), else TypeError."""
    found = _DATACLASSES.get(cls)
    if found is None:
        name = _class_name(cls)
        if not (is_dataclass(cls) and cls.__module__.startswith("games.")):
            raise TypeError(f"a match state holds no {cls.__name__}")
        try:
            same = _state_class(name) is cls
        except ValueError:
            same = False
        if not same:
            raise TypeError(f"a match state holds no {cls.__name__}")
        found = _DATACLASSES[cls] = (name, _names(cls))
    return found


def from_json(x: Any) -> Any:
    if isinstance(x, list):
        return [from_json(v) for v in x]
    if not isinstance(x, dict):
        return x
    if "t" in x:
        return tuple(from_json(v) for v in x["t"])
    if "d" in x:
        return {from_json(k): from_json(v) for k, v in x["d"]}
    if "f" in x:
        return frozenset(from_json(v) for v in x["f"])
    if "s" in x:
        return {from_json(v) for v in x["s"]}
    cls = _state_class(x["c"])
    names, values = _names(cls), x["v"]
    if len(values) != len(names):
        raise ValueError(f"{x['c']} has other fields now")
    made = object.__new__(cls)  # no __init__: the fields are set as they were
    for name, value in zip(names, values, strict=True):
        object.__setattr__(made, name, from_json(value))
    return made


def _entry_json(entry: Entry) -> dict:
    version, row_id, at = entry.tag
    return {
        "tag": [version, row_id, at.isoformat()],
        "state": to_json(entry.state),
        "abandoned": entry.abandoned,
    }


def _entry_from_json(data: Any) -> Entry:
    version, row_id, at = data["tag"]
    if not (type(version) is int and type(row_id) is int and isinstance(at, str)):
        raise ValueError("not a tag")
    return Entry(
        (version, row_id, datetime.fromisoformat(at)),
        from_json(data["state"]),
        data["abandoned"] is True,
    )


_SEAL_PURPOSE = "games.states.entry"


def _encode(entry: Entry) -> str:
    return json.dumps(_entry_json(entry), separators=(",", ":"))


def _decode(text: str, stream: str) -> Entry:
    return _entry_from_json(json.loads(text))


# versions between a match's states shared with the other processes (about
# seven moves): the others fold on from their own entry or the shared one
SHARE_EVERY = 32
KEPT = KeptByVersion(
    _SEAL_PURPOSE, _key, _encode, _decode, what="state", log=log, share_every=SHARE_EVERY
)
local_entry, keep, forget_local, fold_at = KEPT.local, KEPT.keep, KEPT.forget_local, KEPT.fold_at
near_entry = KEPT.near
_keep_local = KEPT.keep_local


def lookup(stream: str, tag: Tag) -> tuple[Entry | None, Entry | None]:
    """(the entry at exactly ``tag``, else None; the newest entry older than
    ``tag`` to fold on from, else None)."""
    exact, older = KEPT.lookup(stream, tag)
    return exact, (older[0] if older else None)


def kept_at(stream: str, version: int, recorded_at: datetime | None) -> Entry | None:
    """The entry whose row is at ``version``, written at ``recorded_at``, if
    one is kept (here, else in the shared tier)."""
    if recorded_at is None or KEPT.near(stream, version) is not None:
        return None  # near: folded on from this process's own, no trip

    def at(entry: Entry | None) -> bool:
        return entry is not None and (entry.tag[0], entry.tag[2]) == (version, recorded_at)

    if at(local := KEPT.local(stream)):
        return local
    if at(shared := KEPT.shared(stream)):
        KEPT.keep_local(stream, shared)
        return shared
    return None
