"""Match states kept by stream version, shared by every process.

The log is append-only, so a stream's state at a version never changes. Each
match stream has one entry: its state (the full state, hidden cards and all:
it stays on the server) tagged with the row it was folded up to, ``(version,
global id, time written)``. A reader asks the log for the stream's tip (one
indexed query) and uses an entry only when its tag is the tip's; an entry at
an older version is folded on from the rows after it, once its own row is
found unchanged in the log (``services`` does the folding). Nothing else
invalidates an entry: a newer, foreign or unreadable entry is just not used.

Two tiers: this process's last states (no unpickling), and the ``states``
cache (Redis in production, so every web and worker process shares one fold;
in-process under ``make run`` and the tests). An entry reaches the shared
tier only once the transaction that wrote its rows commits. Its key carries
the database's name and a fingerprint of the games' code, so another
database's or another release's pickles are never read."""

from __future__ import annotations

import hashlib
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from django.core.cache import caches
from django.db import connection, transaction

from eventlog.models import StoredEvent

log = logging.getLogger(__name__)

CACHE_ALIAS = "states"
TTL_S = 24 * 3600  # a match nobody reads for a day is folded again
LOCAL_MAX = 256  # streams whose latest state this process keeps

Tag = tuple[int, int, datetime]  # (version, global id, recorded_at) of a row


@dataclass(frozen=True)
class Entry:
    tag: Tag
    state: Any  # the series' MatchState (None before the series started)
    abandoned: bool

    @property
    def version(self) -> int:
        return self.tag[0]


_local: OrderedDict[str, Entry] = OrderedDict()
_lock = threading.Lock()
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


def _shared(stream: str) -> Entry | None:
    """The shared tier's entry, or None when there is none or it cannot be used."""
    try:
        entry = caches[CACHE_ALIAS].get(_key(stream))
    except Exception:  # unpicklable, or the cache is away: fold instead
        log.warning("state cache entry of %s unreadable; folding", stream, exc_info=True)
        return None
    if not isinstance(entry, Entry) or not isinstance(entry.tag, tuple) or len(entry.tag) != 3:
        return None
    return entry


def lookup(stream: str, tag: Tag) -> tuple[Entry | None, Entry | None]:
    """(the entry at exactly ``tag``, else None; the newest entry older than
    ``tag`` to fold on from, else None)."""
    with _lock:
        local = _local.get(stream)
    if local is not None and local.tag == tag:
        return local, None
    shared = _shared(stream)
    if shared is not None and shared.tag == tag:
        _keep_local(stream, shared)
        return shared, None
    older = [e for e in (local, shared) if e is not None and e.version < tag[0]]
    return None, max(older, key=lambda e: e.version, default=None)


def local_entry(stream: str) -> Entry | None:
    with _lock:
        return _local.get(stream)


def keep(stream: str, entry: Entry) -> None:
    """Keep ``entry`` here now, and in the shared tier once its rows commit."""
    _keep_local(stream, entry)
    key = _key(stream)

    def publish():
        try:
            caches[CACHE_ALIAS].set(key, entry, TTL_S)
        except Exception:  # the cache is away: the next reader folds
            log.warning("state of %s not cached", stream, exc_info=True)

    transaction.on_commit(publish)


def _keep_local(stream: str, entry: Entry) -> None:
    with _lock:
        _local[stream] = entry
        _local.move_to_end(stream)
        while len(_local) > LOCAL_MAX:
            _local.popitem(last=False)


def forget_local() -> None:
    """Empty this process's tier (what another process starts with)."""
    with _lock:
        _local.clear()
