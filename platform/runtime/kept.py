"""Folds kept by stream version, shared by every process: the one shape of
the match states (``games/states.py``) and of the show and bracket folds
(``tournaments/kept_folds.py``).

The log is append-only, so a stream's fold at a version never changes. Each
stream has one entry: its fold tagged with the row it was folded up to
(``entry.tag``, whose first item is ``entry.version``). A reader uses an
entry only when its tag is the one it asks for; an older entry is folded on
from the rows after it (by the caller's ``fold_on``, which says None when
the entry's own row is not the log's). Nothing else invalidates an entry.

Two tiers: this process's last entries, and a cache every process shares
(Redis in production), which an entry reaches only once the transaction
that wrote its rows commits. A kind of stream may share every version, or
only every ``share_every`` versions (a match's: encoding a state for the
other processes was a sixth of the web's CPU a move): a process then folds
on from its own entry when it is that near, and another process from the
shared one, reading only the rows after it. The shared tier holds text the caller encodes
and decodes (JSON read back into its own classes, never a pickle), sealed
with the site's secret key over its key and text (``runtime.seal``): an
entry this site did not keep under that key is not used, and the stream is
folded again.

This layer knows nothing of the log or of the folds: the caller passes the
key of a stream, the encoding and the folding in."""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, Generic, Protocol, TypeVar

from django.core.cache import caches
from django.db import transaction

from .after_answer import after_answer
from .seal import seal, unseal

CACHE_ALIAS = "states"  # the cache every process shares (Django's CACHES)
TTL_S = 24 * 3600  # a stream nobody reads for a day is folded again
LOCAL_MAX = 256  # streams whose latest entry this process keeps


class _Tagged(Protocol):
    tag: Any

    @property
    def version(self) -> int: ...


E = TypeVar("E", bound=_Tagged)


class KeptByVersion(Generic[E]):
    """The kept entries of one kind of stream.

    ``key(stream)``: the shared tier's key (it carries what makes another
    database's or release's entries unusable); ``encode(entry)`` and
    ``decode(text, stream)``: the entry as text and back (either raises on
    what it cannot hold); ``purpose``: the seal's salt; ``what``: the word
    the warnings use; ``log``: the caller's logger; the shared tier is the
    ``cache_alias`` cache, its entries kept ``ttl_s``, this process's tier
    at most ``local_max`` streams; an entry reaches the shared tier when it is
    the first this process keeps of its stream, or ``share_every`` versions
    or more past the last it shared (1: every one)."""

    def __init__(
        self,
        purpose: str,
        key: Callable[[str], str],
        encode: Callable[[E], str],
        decode: Callable[[str, str], E],
        *,
        what: str,
        log: logging.Logger,
        cache_alias: str = CACHE_ALIAS,
        ttl_s: int = TTL_S,
        local_max: int = LOCAL_MAX,
        share_every: int = 1,
    ):
        self.purpose, self.key, self.encode, self.decode = purpose, key, encode, decode
        self.cache_alias, self.ttl_s, self.local_max = cache_alias, ttl_s, local_max
        self.what, self.log, self.share_every = what, log, share_every
        self.local_tier: OrderedDict[str, E] = OrderedDict()
        self.shared_at: OrderedDict[str, int] = OrderedDict()  # the last version shared
        self._lock = threading.Lock()

    # ---- this process's tier -----------------------------------------------------
    def local(self, stream: str) -> E | None:
        with self._lock:
            return self.local_tier.get(stream)

    def keep_local(self, stream: str, entry: E) -> None:
        with self._lock:
            self.local_tier[stream] = entry
            self.local_tier.move_to_end(stream)
            while len(self.local_tier) > self.local_max:
                self.local_tier.popitem(last=False)

    def forget_local(self) -> None:
        """Empty this process's tier (what another process starts with)."""
        with self._lock:
            self.local_tier.clear()
            self.shared_at.clear()

    def _to_share(self, stream: str, version: int) -> bool:
        """Whether this entry goes to the shared tier (then noted as shared)."""
        with self._lock:
            last = self.shared_at.get(stream)
            if last is not None and last <= version < last + self.share_every:
                return False
            self.shared_at[stream] = version
            self.shared_at.move_to_end(stream)
            while len(self.shared_at) > self.local_max:
                self.shared_at.popitem(last=False)
            return True

    # ---- the shared tier ---------------------------------------------------------
    def shared(self, stream: str) -> E | None:
        """The shared tier's entry, or None when there is none or it cannot be used."""
        try:
            key = self.key(stream)
            data = caches[self.cache_alias].get(key)
            return None if data is None else self.decode(unseal(self.purpose, key, data), stream)
        except Exception:  # not JSON, not sealed here, not a fold's, or the cache is away
            self.log.warning("kept %s of %s unreadable; folding", self.what, stream, exc_info=True)
            return None

    def keep(self, stream: str, entry: E) -> None:
        """Keep ``entry`` here now, and in the shared tier once its rows commit
        (after the move's answer, within ``answer_first``)."""
        self.keep_local(stream, entry)
        if not self._to_share(stream, entry.version):
            return
        key = self.key(stream)

        def publish():
            try:
                sealed = seal(self.purpose, key, self.encode(entry))
                caches[self.cache_alias].set(key, sealed, self.ttl_s)
            except Exception:  # the cache is away (or the fold holds another class): refolded
                self.log.warning("%s of %s not cached", self.what, stream, exc_info=True)

        transaction.on_commit(lambda: after_answer(publish))

    # ---- reading at a tag ----------------------------------------------------------
    def near(self, stream: str, version: int) -> E | None:
        """This process's entry when it is behind ``version`` by less than
        ``share_every``: as near as a shared one could be, so folded on from
        without a trip to the shared tier."""
        local = self.local(stream)
        if local is not None and 0 < version - local.version < self.share_every:
            return local
        return None

    def lookup(self, stream: str, tag) -> tuple[E | None, list[E]]:
        """(the entry at exactly ``tag``, else None; the entries older than
        ``tag`` to fold on from, newest first)."""
        local = self.local(stream)
        if local is not None and local.tag == tag:
            return local, []
        if (near := self.near(stream, tag[0])) is not None:
            return None, [near]
        shared = self.shared(stream)
        if shared is not None and shared.tag == tag:
            self.keep_local(stream, shared)
            return shared, []
        older = [e for e in (local, shared) if e is not None and e.version < tag[0]]
        return None, sorted(older, key=lambda e: -e.version)

    def fold_at(
        self,
        stream: str,
        tag,
        fold_on: Callable[[E], E | None],
        full: Callable[[], E],
        more_bases: Callable[[], Iterable[E | None]] = tuple,
    ) -> E:
        """The entry of ``stream`` at ``tag``: a kept one at it, else one
        ``fold_on`` folds on from a kept older one (newest first; those of
        ``more_bases()`` when neither tier has one), else ``full()``; kept
        for the next reader when it is the newest this process knows."""
        exact, older = self.lookup(stream, tag)
        if exact is not None:
            return exact
        if not older:
            older = [e for e in more_bases() if e is not None and e.version < tag[0]]
        entry = None
        for base in older:
            entry = fold_on(base)
            if entry is not None:
                break
        entry = entry or full()
        newest = self.local(stream)
        if newest is None or newest.version <= entry.version:
            self.keep(stream, entry)
        return entry
