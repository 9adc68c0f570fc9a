"""Playing matches through the event store: one service per write.

A match's stream holds platform events (metadata ``layer: platform``:
creation, voids, abandonment), which no game folds, and the series layer's
events. Every write loads the stream, folds it, decides
and appends with the version it folded, so two writers never both win.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction

from eventlog import rows as db_rows
from eventlog.store import (
    ConcurrencyError,
    NewEvent,
    append,
    client_command_id,
    command_fingerprint,
    read,
    replayed,
    stream_named_by,
    system_command_id,
)
from games.core.adapt import as_game_event, redact
from games.core.playout import BOTS_IN_WORDS, bot_name
from games.core.protocol import (
    MODERATOR_VIEW,  # noqa: F401  (re-exported: callers read views through services)
    SPECTATOR_VIEW,
    Ctx,
    Event,
    RoleRequired,
    RuleError,
    Viewer,
)
from games.core.registry import series_for
from games.core.series import MatchState
from games.holders import is_bot
from runtime.after_answer import after_answer

from . import states, visibility
from .clock_index import (
    clock_index,
    index_written,
    match_row_inline,
    opened_match,
    set_deadline,
    to_datetime,
)
from .limits import MAX_PK
from .models import Match, SeatHolder
from .ready_check import split_ready

log = logging.getLogger(__name__)

PLATFORM = {"layer": "platform"}  # metadata of events the games never fold
MAX_RETRIES = 5


# listeners(match, new_events, state, now) run inside the append's transaction,
# so what a show or bracket records about a match commits with it; each names
# the event types it acts on and the matches (those of a show or of a
# bracket), and a move no listener acts on is appended alone (its statement
# its whole transaction)
@dataclass(frozen=True)
class _MatchListener:
    fn: Callable
    types: frozenset[str] | None  # None: every move
    of: str  # the prefix of the show_stream of the matches it follows ("": all)

    def acts_on(self, match: Match, types: set[str]) -> bool:
        return match.show_stream.startswith(self.of) and (
            self.types is None or not self.types.isdisjoint(types)
        )


_match_listeners: list[_MatchListener] = []


def on_match_events(fn, *, types: Iterable[str] | None, of: str = ""):
    """Call ``fn(match, new_events, state, now)`` in the transaction of each
    move whose new events hold one of ``types`` (None: of every move), on
    matches whose ``show_stream`` starts with ``of`` (a show's: "show-")."""
    if all(listener.fn is not fn for listener in _match_listeners):
        _match_listeners.append(_MatchListener(fn, None if types is None else frozenset(types), of))
    return fn


def _listened(match: Match, new: list) -> list[Callable]:
    """The match listeners that act on this move of ``match``."""
    types = {e.type for e in new}
    return [listener.fn for listener in _match_listeners if listener.acts_on(match, types)]


# listeners(match, rows) run once the transaction that appended a move has
# committed, in the process that made it (live tells the match's sockets at
# once, not after the reactors' pass); a failing one costs the move nothing
_committed_listeners: list = []


def on_move_committed(fn):
    if fn not in _committed_listeners:
        _committed_listeners.append(fn)
    return fn


def _tell_committed(match: Match, rows) -> None:
    for fn in list(_committed_listeners):
        try:
            fn(match, rows)
        except Exception:
            log.exception("after the move on %s committed, %r failed", match.stream, fn)


def secure_rng() -> random.Random:
    """Real deals use the operating system's secure source."""
    return random.SystemRandom()


@dataclass(frozen=True)
class Loaded:
    match: Match
    state: MatchState
    version: int  # the stream's last version, voided events included
    abandoned: bool = False

    @cached_property
    def events(self) -> list:
        """Every stored row of the stream up to ``version`` (read when asked)."""
        return [r for r in rows_kept(self.match.stream) if r.version <= self.version]


def is_platform(row) -> bool:
    return row.metadata.get("layer") == "platform"


def voided_versions(rows) -> set[int]:
    voided: set[int] = set()
    for r in rows:
        if is_platform(r) and r.type == "match_voided":
            voided.update(range(r.data["from_version"], r.data["to_version"] + 1))
    return voided


def game_events(rows) -> list:
    """The rows a fold uses: series events, minus those a ruling voided."""
    voided = voided_versions(rows)
    return [r for r in rows if not is_platform(r) and r.version not in voided]


def _fold_events(rows):
    """What the series folds: the game events, and at each void that still
    stands the re-anchoring of the clocks it carries."""
    voided = voided_versions(rows)
    for r in rows:
        if r.version in voided:
            continue
        if not is_platform(r):
            yield as_game_event(r)
        elif r.type == "match_voided" and "since" in r.data:
            yield Event("clock_reanchored", {"at": r.data["at"], "since": r.data["since"]})


def fold_rows(game: str, rows) -> MatchState:
    return series_for(game).fold(_fold_events(rows))


# ---- what reads share: a stream's rows and folds, kept per process ----------
# The log is append-only, so a stream's rows up to a version never change: a
# read fetches only what was appended since, and a fold of the rows up to a
# version is made once for every viewer, socket and poll of that version.
_KEPT_MAX = 256
# the kept rows: a reactors' process keeps every match it follows from its
# first row (a show creates its matches ahead of play), bounded by rows held
_KEPT_STREAMS_MAX = 4096
_KEPT_ROWS_MAX = 50_000
_kept_rows: OrderedDict[str, list] = OrderedDict()
_kept_row_count = 0  # the rows held in _kept_rows (what it counts when emptied: 0)
_kept_folds: OrderedDict[tuple, MatchState] = OrderedDict()
_kept_lock = threading.Lock()


def _same_row(a, b) -> bool:
    return (a.id, a.version, a.recorded_at) == (b.id, b.version, b.recorded_at)


def _keep_rows(stream: str, rows: list | None) -> None:
    """Under ``_kept_lock``: ``rows`` kept as the stream's (None: dropped),
    the least recently kept streams let go past the bounds."""
    global _kept_row_count
    old = _kept_rows.pop(stream, None)
    _kept_row_count -= len(old) if old else 0
    if rows is not None:
        _kept_rows[stream] = rows
        _kept_row_count += len(rows)
    while _kept_rows and (len(_kept_rows) > _KEPT_STREAMS_MAX or _kept_row_count > _KEPT_ROWS_MAX):
        _kept_row_count -= len(_kept_rows.popitem(last=False)[1])
    if not _kept_rows:
        _kept_row_count = 0


def rows_kept(stream: str) -> list:
    """The stream's rows, as ``read`` gives them, reading only the rows
    after those kept (and the last kept one, to check it is still the log's)."""
    with _kept_lock:
        kept = _kept_rows.get(stream) or []
    newer = read(stream, after=kept[-1].version - 1) if kept else read(stream)
    if kept and not (newer and _same_row(newer[0], kept[-1])):
        newer, kept = read(stream), []  # not this log's rows (a test's rolled back)
    rows = kept + newer[1:] if kept else newer
    with _kept_lock:
        _keep_rows(stream, rows)
    return list(rows)


def keep_read_rows(rows) -> None:
    """Rows of the log in commit order (a reactors' pass read them): added to
    the kept rows of their match streams where they follow on from the last
    one kept, or start a stream at its first row, so that a later read of
    the whole stream (the ratings reactor's, at a match's end) reads only
    what came after them. A stream with a gap is dropped (read whole then),
    and so are kept rows a row read contradicts (another log's: a stream of
    the same name rolled back, as a test's is), from that row on."""
    by_stream: dict[str, list] = {}
    for r in rows:
        if r.stream.startswith("match-"):
            by_stream.setdefault(r.stream, []).append(r)
    with _kept_lock:
        for stream, newer in by_stream.items():
            kept = _kept_rows.get(stream) or []
            if any(r.version <= len(kept) and kept[r.version - 1].id != r.id for r in newer):
                kept = []  # kept rows are a stream's from its first: those are not this log's
            last = kept[-1].version if kept else 0
            newer = [r for r in newer if r.version > last]
            if not newer:
                continue
            follows = [r.version for r in newer] == list(range(last + 1, last + 1 + len(newer)))
            _keep_rows(stream, kept + newer if follows else None)


def fold_kept(game: str, rows) -> MatchState:
    """``fold_rows``, made once per (stream, version) when ``rows`` are the
    stream's first ones (a spectator's cut is); other selections are folded."""
    if not rows or rows[-1].version != len(rows):
        return fold_rows(game, rows)
    last = rows[-1]
    key = (last.stream, last.version, last.id, last.recorded_at)
    with _kept_lock:
        state = _kept_folds.get(key)
    if state is None:
        state = _state_of_rows(game, rows).state
        with _kept_lock:
            _kept_folds[key] = state
            while len(_kept_folds) > _KEPT_MAX * 4:
                _kept_folds.popitem(last=False)
    return state


def _abandons(rows) -> bool:
    return any(is_platform(r) and r.type == "match_abandoned" for r in rows)


def _fold_on(game: str, base: states.Entry, rows) -> states.Entry | None:
    """``base`` folded on with ``rows`` (the stream's rows from ``base``'s own
    version on), or None when it cannot be: its row is not the log's, or a
    ruling in the new rows voids earlier events (a full fold then)."""
    if not rows or states.tag_of(rows[0]) != base.tag:
        return None
    newer = rows[1:]
    if any(is_platform(r) and r.type == "match_voided" for r in newer):
        return None
    series = series_for(game)
    state = base.state
    for r in newer:
        if not is_platform(r):
            state = series.evolve(state, as_game_event(r))
    tag = states.tag_of(newer[-1]) if newer else base.tag
    return states.Entry(tag, state, base.abandoned or _abandons(newer))


def _full(game: str, rows) -> states.Entry:
    return states.Entry(states.tag_of(rows[-1]), fold_rows(game, rows), _abandons(rows))


def _state_of_rows(game: str, rows) -> states.Entry:
    """The state of a stream's first ``rows``: a kept entry at their last
    row, else one folded on from an older entry, else a full fold; kept for
    the next reader when it is the newest this process knows."""
    stream, tag = rows[-1].stream, states.tag_of(rows[-1])
    return states.fold_at(
        stream,
        tag,
        lambda base: _fold_on(game, base, rows[base.version - 1 :]),
        lambda: _full(game, rows),
    )


def _current(match: Match) -> states.Entry | None:
    """The stream's state at its tip, read as little as the kept entries
    allow: the tip's tag, then the kept state, or the rows after it; with
    this process's own state a few versions behind the match row, the rows
    from it on alone (one read: the last is the tip)."""
    near = states.near_entry(match.stream, match.version)
    if near is not None:
        rows = read(match.stream, after=near.version - 1)
        if rows:
            return states.fold_at(
                match.stream,
                states.tag_of(rows[-1]),
                lambda base: (
                    _fold_on(match.game, base, rows[base.version - near.version :])
                    if base.version >= near.version
                    else None
                ),
                lambda: _full(match.game, read(match.stream)),
            )
    tag = states.tip(match.stream)
    if tag is None:
        return None
    return states.fold_at(
        match.stream,
        tag,
        lambda base: _fold_on(match.game, base, read(match.stream, after=base.version - 1)),
        lambda: _full(match.game, read(match.stream)),
    )


def _vouched(match: Match) -> Loaded | None:
    """The kept state at the version the match row says, when the row's time
    is that version's too (each append writes both): no query, but only as
    current as ``match`` was read, so a writer still appends against it."""
    entry = states.kept_at(match.stream, match.version, match.updated_at)
    if entry is None:
        return None
    return Loaded(match, entry.state, entry.version, entry.abandoned)


def load(match: Match) -> Loaded:
    """The match at its stream's tip: its state from the kept states
    (``games/states.py``), folded only from what they lack."""
    entry = _current(match)
    if entry is None:
        return Loaded(match, None, 0)
    return Loaded(match, entry.state, entry.version, entry.abandoned)


def create_match(
    game: str,
    seats: list[str],
    *,
    options: Mapping[str, Any] | None = None,
    items: Mapping[str, list[str]] | None = None,
    holders: Mapping[str, Any] | None = None,
    title: str = "",
    title_words: Mapping[str, Any] | None = None,
    show_stream: str = "",
    kind: str = "",
    actor: str | None = None,
    role: str = "organizer",
    setup: Mapping[str, Any] | None = None,
    now: float | None = None,
    rng: random.Random | None = None,
    command_id: str | None = None,
    chooser: str | None = None,
    moderators: list[int] | None = None,
    spectator_delay_s: float = 0,
    rated: bool = False,
) -> Match:
    """Open a match stream: the creation record, then the series' first
    events (the first deal, or a wait for the advantage holder).

    ``holders`` maps a seat to a user id (int) or a bot ("bot:level:0" to
    "bot:level:4", "bot:random", "bot:heuristic"); unnamed seats are open.
    A match outside any show is moderated by the user ids in ``moderators``
    and shown to spectators ``spectator_delay_s`` late (a show's match
    takes both from its show).
    ``rated``: a match outside any show or bracket counts for the players'
    ratings (a show's or bracket's match: as its show or bracket says)."""
    series = series_for(game)
    now = time.time() if now is None else now
    holders = dict(holders or {})
    _check_match_asked(series, seats, holders, spectator_delay_s, rated)
    game_options, ready = split_ready(
        options, list(seats), holders, show_stream=show_stream, now=now
    )
    game_events_ = series.start(
        Ctx(now=now, rng=rng or secure_rng(), role="system"),
        seats,
        game_options,
        items,
        setup,
        chooser=chooser,
        ready=ready,
    )
    created = NewEvent(
        "match_created",
        {
            "game": game,
            "title": title,
            **({"title_words": dict(title_words)} if title_words else {}),
            "seats": list(seats),
            "holders": holders,
            "show_stream": show_stream,
            "kind": kind,
            "at": now,
            "moderators": sorted({int(u) for u in moderators or ()}),
            "spectator_delay_s": spectator_delay_s,
            "rated": rated,
        },
    )
    stream = f"match-{uuid.uuid4().hex[:16]}"
    key = command_key(command_id)
    fingerprint = None
    if key:
        # the stream is named by (actor, id), so a retry, even one racing
        # the first try, meets the same stream and answers with its match;
        # the same id again is a retry only for the same match asked for
        stream = stream_named_by("match-", actor, key)
        asked = {k: v for k, v in created.data.items() if k != "at"}
        fingerprint = command_fingerprint(actor, {**asked, "options": options, "items": items})
        if replayed(stream, key, fingerprint):
            return Match.objects.get(stream=stream)
    return _open_match(stream, game, created, game_events_, actor, role, key, fingerprint, now=now)


def _check_match_asked(series, seats, holders: dict, spectator_delay_s, rated) -> None:
    """RuleError in words for a match that cannot be made as asked."""
    for seat in holders:
        if seat not in seats:
            raise RuleError("{seat} is not one of the seats", seat=seat)
    for seat, holder in holders.items():
        _check_holder(series, seat, holder)
    if (
        isinstance(spectator_delay_s, bool)
        or not isinstance(spectator_delay_s, (int, float))
        or not 0 <= spectator_delay_s < 10**7
    ):
        raise RuleError("spectator_delay_s must be a number of seconds, 0 or more")
    if not isinstance(rated, bool):
        raise RuleError("rated must be true or false")


def _open_match(
    stream: str,
    game: str,
    created: NewEvent,
    game_events_: list,
    actor: str | None,
    role: str,
    key: str | None,
    fingerprint: str | None,
    *,
    now: float,
) -> Match:
    """The creation record and the series' first events appended to the new
    ``stream`` in one transaction, and the match's row with its clock index
    (a retry that lost the race to the first try: the first try's match)."""
    with transaction.atomic():
        opened = append(
            stream,
            0,
            [created],
            actor=actor,
            role=role,
            command_id=key,
            fingerprint=fingerprint,
            extra={**PLATFORM, "at": now},
        )
        if opened.replay:
            return Match.objects.get(stream=stream)
        started = append(stream, 1, game_events_, actor=actor, role=role, extra={"at": now})
        state = series_for(game).fold(game_events_)
        if started:  # kept, so the first move or timeout reads no log
            states.keep(stream, states.Entry(states.tag_of(started[-1]), state, False))
        return opened_match(stream, game, state)


def _check_holder(series, seat: str, holder: Any) -> None:
    """A seat is held by an existing user (their id) or by a bot the game has."""
    if is_bot(holder):
        if bot_name(holder) is None:
            raise RuleError(
                "{holder!r} is not a bot: a bot is {bots}", holder=holder[:40], bots=BOTS_IN_WORDS
            )
        return
    if isinstance(holder, int) and not isinstance(holder, bool):
        known = 0 < holder < 2**63 and get_user_model().objects.filter(pk=holder).exists()
        if not known:
            raise RuleError(
                "the holder of {seat} is not a known user (no user has id {holder})",
                seat=seat,
                holder=holder,
            )
        return
    raise RuleError(
        "the holder of {seat} must be a user id or a bot ({bots}), not {holder!r}",
        seat=seat,
        bots=BOTS_IN_WORDS,
        holder=holder,
    )


def submit(
    match: Match,
    seat: str | None,
    command: Mapping[str, Any],
    *,
    actor: str | None = None,
    role: str = "player",
    command_id: str | None = None,
    system_id: tuple | None = None,
    now: float | None = None,
    rng: random.Random | None = None,
    account: int | None = None,
) -> list:
    """Submit one command as ``seat`` (None for system and moderators).

    Raises RuleError (the rule's own words; nothing written) or, after
    retries, ConcurrencyError. A repeated ``command_id`` (a client's) or
    ``system_id`` (the parts of an id the system derives, e.g. a timeout's
    deadline) returns the events of its first success, marked ``replay``,
    and writes nothing. A client's id is a retry only from the same sender
    (``account``, the user's id, else the actor) with the same command, else
    CommandIdReused."""
    series = series_for(match.game)
    if not isinstance(command, Mapping):
        raise RuleError("a command must be an object with a type")
    key = system_command_id(*system_id) if system_id else command_key(command_id)
    fingerprint = None
    if key and not system_id:
        sender = f"user:{account}" if account is not None else f"actor:{actor or seat or role}"
        fingerprint = command_fingerprint(sender, {"seat": seat, "role": role, "command": command})
    kept = _vouched(match)
    attempt = 0
    while True:
        # the kept state the match row vouches for saves reading the tip; it
        # may be behind the log, so what it refuses is decided again on the log's
        loaded, checked, kept = kept or load(match), kept is None, None
        t = time.time() if now is None else now
        ctx = Ctx(now=t, rng=rng or secure_rng(), seat=seat, role=role)
        try:
            new = _decided(series, loaded, command, ctx)
        except RuleError:
            if first := _first_result(match, key, fingerprint):
                return first
            if not checked:
                continue
            raise
        if not new:
            if first := _first_result(match, key, fingerprint):
                return first
            if not checked:
                continue
            return []
        try:
            # the same command id may have won a race meanwhile: then the
            # answer is its first result (a replay)
            return _append_move(
                match,
                loaded,
                new,
                t,
                command_id=key,
                fingerprint=fingerprint,
                actor=actor or seat or role,
                role=role,
                extra={"command": _public_command(command, seat), "at": t},
            )
        except ConcurrencyError:
            attempt += 1
            if attempt == MAX_RETRIES:
                raise


def _decided(series, loaded: Loaded, command: Mapping[str, Any], ctx: Ctx) -> list:
    """The events ``command`` makes at ``loaded``'s state (RuleError if none may)."""
    if loaded.abandoned:
        raise RuleError("this match was taken out of play by a ruling")
    return series.decide(loaded.state, dict(command), ctx)


def _first_result(match: Match, key: str | None, fingerprint: str | None) -> list | None:
    """What the same command id wrote earlier, if it did: a retry gets it,
    not a refusal from the state its first try moved on."""
    return replayed(match.stream, key, fingerprint) if key else None


def _append_move(match: Match, loaded: Loaded, new: list, t: float, **how) -> list:
    """A move's events appended at ``loaded``'s version (``how``: the
    append's command id, fingerprint, actor, role and metadata); with them
    the state they lead to is kept, the match row's clock index and notes
    written (in the append's own statement when it can) and the listeners told."""
    series = series_for(match.game)
    state = loaded.state
    for e in new:
        state = series.evolve(state, e)
    index = clock_index(match.game, state)

    def record(rows) -> None:
        states.keep(match.stream, states.Entry(states.tag_of(rows[-1]), state, False))
        if rows.inline:
            index_written(match, rows[-1], index, state)
        else:
            set_deadline(match, state)
        for listener in listeners:
            listener(match, new, state, t)

    listeners = _listened(match, new)  # none: the append is its whole transaction
    inline = match_row_inline(match, state, index)
    rows = append(
        match.stream,
        loaded.version,
        new,
        within=record,
        inline=inline,
        within_writes=bool(listeners),
        **how,
    )
    if rows and not rows.replay and _committed_listeners:
        # after the kept state's copy (its on_commit came first): another
        # process told of the version finds its state
        transaction.on_commit(lambda: after_answer(lambda: _tell_committed(match, rows)))
    return rows


def command_key(command_id: str | None) -> str | None:
    """A client's command id as stored, or RuleError in words."""
    if not command_id:
        return None
    try:
        return client_command_id(command_id)
    except ValueError as exc:
        raise RuleError(str(exc)) from None


def _public_command(command: Mapping[str, Any], seat: str | None) -> dict:
    # the command itself may hold a secret (a pick, a keep); only its type is
    # kept in the metadata, the events carry the rest with their visibility
    return {"type": command.get("type"), "seat": seat}


def record_platform_event(
    match: Match,
    type_: str,
    data: Mapping[str, Any] | Callable[[Loaded], Mapping[str, Any]],
    *,
    actor: str,
    role: str,
    now: float | None = None,
) -> list:
    """Append a platform event (a ruling, a void) at the stream's head.

    ``data`` may be a function of the loaded match, called again on every
    retry, so what the event says is decided on the stream it is appended to
    (it raises RuleError to refuse)."""
    for attempt in range(MAX_RETRIES):
        loaded = load(match)
        t = time.time() if now is None else now
        body = data(loaded) if callable(data) else data
        try:
            with transaction.atomic():
                rows = append(
                    match.stream,
                    loaded.version,
                    [NewEvent(type_, dict(body))],
                    actor=actor,
                    role=role,
                    extra={**PLATFORM, "at": t},
                )
                set_deadline(match, load(match).state)
            return rows
        except ConcurrencyError:
            attempt += 1
            if attempt == MAX_RETRIES:
                raise


def void_to(
    match: Match,
    to_version: int,
    *,
    actor: str,
    reason: str,
    role: str = "moderator",
    now: float | None = None,
    extra: Mapping[str, Any] | None = None,
    rng: random.Random | None = None,
) -> list:
    """A ruling takes the match back to ``to_version``: every later event
    stays in the log, void, and play goes on from the state at that version.

    Only a command boundary (the last event of a command) can be gone back
    to, so someone is left to move. The clocks restart at the ruling's time
    as they stood at that version: the event records the ruling's time
    ``at`` and the version's time ``since``, and the fold skips the span.

    A bout its players have seen whole (its end revealed its deal, or the
    match's end showed them every card) is never played on with that deck:
    the void marks it ``redeal`` and, in the same transaction, the bout is
    replayed from a fresh deal (``replay_bout``); the bouts before it stand."""
    if not isinstance(to_version, int) or isinstance(to_version, bool):
        raise RuleError("void back to a version: a whole number")
    t = time.time() if now is None else now

    def voided(loaded: Loaded) -> dict:
        if loaded.abandoned:
            raise RuleError("this match was taken out of play by a ruling")
        at_version = state_at_boundary(loaded, to_version)
        return {
            "from_version": to_version + 1,
            "to_version": loaded.version,
            "at": t,
            "since": _row_time(loaded.events[to_version - 1]),
            "reason": reason,
            **({"redeal": True} if _deal_seen(at_version, loaded.state) else {}),
            **(extra or {}),
        }

    with transaction.atomic():
        rows = record_platform_event(match, "match_voided", voided, actor=actor, role=role, now=t)
        if rows[-1].data.get("redeal"):
            replay = {"type": "replay_bout", "reason": reason}
            rows = rows + submit(match, None, replay, actor=actor, role=role, now=t, rng=rng)
    return rows


def _deal_seen(at_version: MatchState, head: MatchState) -> bool:
    """Whether the seats have seen the deck of the bout in progress at a
    version the match goes back to: that bout ended since (its deal was
    revealed), or the match did (its players saw every card)."""
    return at_version.bout is not None and (head.finished or head.bout_no > at_version.bout_no)


def state_at_boundary(loaded: Loaded, version: int) -> MatchState:
    """The state at ``version``, if a void may go back to it (RuleError
    in words if not)."""
    rows = loaded.events
    last = loaded.version
    if not isinstance(version, int) or isinstance(version, bool) or not 1 <= version < last:
        raise RuleError(
            "void back to a version from 1 to {n}: the events after it are voided", n=last - 1
        )
    voided = voided_versions(rows)
    if version in voided:
        raise RuleError("version {version} was voided by an earlier ruling", version=version)
    if rows[version].command_seq != 1:
        first, end = version, version
        while rows[first - 1].command_seq != 1:
            first -= 1
        while end < last and rows[end].command_seq != 1:
            end += 1
        choices = " or ".join(str(v) for v in (first - 1, end) if 1 < v < last and v not in voided)
        if choices:
            raise RuleError(
                "version {version} is in the middle of one move (versions {first} to {end}); "
                "a void goes back to the end of a move, e.g. {choices}",
                version=version,
                first=first,
                end=end,
                choices=choices,
            )
        raise RuleError(
            "version {version} is in the middle of one move (versions {first} to {end}); "
            "a void goes back to the end of a move",
            version=version,
            first=first,
            end=end,
        )
    series = series_for(loaded.match.game)
    state = fold_rows(loaded.match.game, rows[:version])
    if state is None:
        raise RuleError(
            "at version {version} the match had not started: void back to later", version=version
        )
    if not state.finished and not series.pending(state):
        raise RuleError(
            "at version {version} nobody was left to move: void back to another", version=version
        )
    return state


def _row_time(row) -> float:
    """When a stored event was written, on the clock its command used."""
    at = row.metadata.get("at")
    return float(at) if isinstance(at, (int, float)) else row.recorded_at.timestamp()


def abandon(match: Match, *, reason: str, actor: str = "platform") -> None:
    """A ruling took this match out of play (its series was reset): it stays
    in the log, refuses further moves, and its clock stops."""
    record_platform_event(match, "match_abandoned", {"reason": reason}, actor=actor, role="system")


# ---- reading: every read goes through the visibility policy ----------------
def _seen_by_sql() -> str:
    return (
        f'SELECT {db_rows.columns(Match, "m.")}, (SELECT h."seat" FROM "{SeatHolder._meta.db_table}" h '
        f'WHERE h."match_id" = m."id" AND h."user_id" = %s ORDER BY h."seat" LIMIT 1) '
        f'FROM "{Match._meta.db_table}" m WHERE m."id" = %s'
    )


_SEEN_BY = _seen_by_sql()


def match_seen_by(pk: int, user) -> Match | None:
    """Match ``pk`` with the seat ``user`` holds in it read in the same query
    (``viewer_for`` then reads no seat); None when there is no such match
    (nor can be: an id over ``MAX_PK`` is not looked up). Every API request
    about a match starts here: one statement made once, not compiled each time."""
    if pk > MAX_PK:
        return None
    uid = user.pk if user is not None and getattr(user, "is_authenticated", False) else None
    row = db_rows.first_row(_SEEN_BY, [uid, pk])
    if row is None:
        return None
    match = db_rows.instance(Match, row)
    if uid is not None:
        match.seat_read_for = (uid, row[-1])
    return match


def viewer_for(match: Match, user, *, cross_site: bool = False) -> Viewer:
    """Who is looking: a seat's holder, a moderator, or a spectator
    (visibility.viewer_of: a moderator of a live show match only once their
    opening is recorded, ``open_every_card``). Nothing is written. A request
    another site made (an <img>, a link, a form: ``cross_site``) gets no
    omniscient view: it is served as a spectator's."""
    viewer = visibility.viewer_of(match, user)
    if cross_site and viewer.kind == MODERATOR_VIEW.kind:
        return SPECTATOR_VIEW
    return viewer


def open_every_card(
    match: Match, user, *, now: float | None = None, command_id: str | None = None
) -> bool:
    """A moderator opens ``match`` with every card shown: a live show match's
    opening is written on the show (its audit log), at most once per moderator
    and match per period. True when written now, False when nothing needed
    writing. RoleRequired for anyone else (a seat holder never moderates)."""
    if visibility.role_of(match, user).kind != MODERATOR_VIEW.kind:
        raise RoleRequired(
            "only the organizer or a moderator of this match may see every card of it, "
            "and never while holding a seat in it"
        )
    return visibility.record_opening(match, user, now=now, command_id=command_id)


def may_open_every_card(match: Match, user, viewer: Viewer) -> bool:
    """Whether a page should offer ``user`` the opening: they moderate this
    live show match but do not see every card of it yet."""
    return (
        viewer.kind == SPECTATOR_VIEW.kind
        and visibility.role_of(match, user).kind == MODERATOR_VIEW.kind
        and visibility.needs_opening(match)
    )


def cross_site(request) -> bool:
    """Whether a browser says another site made this request (Sec-Fetch-Site,
    else an Origin that is not this host). Scripts send neither: same site."""
    fetch_site = request.headers.get("Sec-Fetch-Site")
    if fetch_site is not None:
        return fetch_site == "cross-site"
    origin = request.headers.get("Origin")
    if not origin or origin == "null":
        return origin == "null"
    return origin.split("://", 1)[-1] != request.get_host()


def moderates(match: Match, user) -> bool:
    """The role every moderator's write checks (never is_staff)."""
    return visibility.is_moderator(match, user)


_is_moderator = moderates


def _window(match: Match, viewer: Viewer, now: float | None = None) -> visibility.Window:
    rows = rows_kept(match.stream)
    return visibility.window(
        match, viewer, rows, fold=lambda rs: fold_kept(match.game, rs), now=now
    )


def _replay_open(match: Match, viewer: Viewer, now: float | None = None) -> Viewer:
    """Whose view ``viewer`` gets of the match now (the full replay's, once open)."""
    return _window(match, viewer, now).see_as


def view_for(match: Match, viewer: Viewer, *, now: float | None = None) -> dict:
    """The match as ``viewer`` may see it: live for seats and moderators, as
    of the spectator delay for everyone else (NotVisibleYet before that).
    Those who see it live get it from the kept state ``match``'s row vouches
    for when there is one (after a move: the state it wrote), read nothing."""
    series = series_for(match.game)
    kept = _vouched(match)
    if kept is not None and kept.state is not None:
        finished_now = kept.state.finished and match.status != "void"
        if (see_as := visibility.live_sight(viewer, finished_now)) is not None:
            out = series.view(kept.state, see_as)
            return _framed(out, match, viewer, kept.version, finished_now, None)
    win = _window(match, viewer, now)
    out = series.view(fold_kept(match.game, win.rows), win.see_as)
    delayed = None if win.cut is None else visibility.match_facts(match).spectator_delay_s
    return _framed(out, match, viewer, win.rows[-1].version, win.replay, delayed)


def _framed(out: dict, match: Match, viewer: Viewer, version, replay, delayed_s) -> dict:
    out["version"] = version
    out["game"] = match.game
    out["viewer"] = {"kind": viewer.kind, "seat": viewer.seat}
    out["replay"] = replay
    out["delayed_s"] = delayed_s
    return out


def history_for(
    match: Match, viewer: Viewer, after: int = 0, *, now: float | None = None
) -> list[dict]:
    """The redacted event history (behind the delay for spectators); voided
    events are marked as such."""
    win = _window(match, viewer, now)
    rows = win.rows
    used = {r.version for r in game_events(rows)}
    out = []
    for r in rows:
        if r.version <= after:
            continue
        shown = redact(r, win.see_as)
        if shown is None:
            continue
        if is_platform(r):
            shown["data"] = _platform_public(r)
        elif r.version not in used:
            shown["void"] = True
        out.append(shown)
    return out


def _platform_public(row) -> dict:
    # the creation record names users by id: only what a page shows of it
    if row.type == "match_created":
        keep = ("game", "title", "title_words", "seats", "kind", "at")
        return {k: row.data[k] for k in keep if k in row.data}
    return dict(row.data)


@dataclass(frozen=True)
class Summary:
    """A line of a list of matches, as one viewer may see it."""

    match: Match
    version: int
    scores: dict
    status: str
    winners: list

    def __getattr__(self, name):  # the rest (pk, title, kind, game, ...) from the row
        if name == "match":
            raise AttributeError(name)
        return getattr(self.match, name)

    def __str__(self):
        return str(self.match)


def summaries_for(matches, user, *, now: float | None = None) -> list[Summary]:
    """Lists of matches (pages, the API) as ``user`` may see them: spectators
    get each match as of its delay, and none that is not visible yet."""
    now = visibility.clock() if now is None else now
    out = []
    for m in matches:
        viewer = visibility.role_of(m, user)  # scores only: no opening needed
        if viewer.kind != SPECTATOR_VIEW.kind:
            out.append(Summary(m, m.version, dict(m.scores), m.status, list(m.winners)))
            continue
        facts = visibility.match_facts(m)
        if m.updated_at.timestamp() <= now - facts.spectator_delay_s:
            out.append(Summary(m, m.version, dict(m.scores), m.status, list(m.winners)))
            continue
        try:
            win = _window(m, viewer, now)
        except visibility.NotVisibleYet:
            continue
        state = fold_rows(m.game, win.rows)
        abandoned = any(is_platform(r) and r.type == "match_abandoned" for r in win.rows)
        status = "void" if abandoned else ("finished" if state.finished else "live")
        winners = list(state.winners) if state.finished else []
        out.append(Summary(m, win.rows[-1].version, dict(state.scores), status, winners))
    return out


def play_bots(
    match: Match, *, max_moves: int = 100_000, rng: random.Random | None = None, now=None
) -> int:
    """Let every bot seat whose turn it is move until a human must act or the
    match ends. Returns how many moves were made."""
    from games.core.playout import bot_command

    series = series_for(match.game)
    bots = {h.seat: h.bot for h in match.holders.all() if h.bot}
    rng = rng or secure_rng()
    moves = 0
    while moves < max_moves:
        state = load(match).state
        if state.finished:
            break
        t = time.time() if now is None else now
        nd = series.next_deadline(state)
        if nd is not None and nd <= t:
            # what is overdue happens first, so the bot decides on the present
            submit(match, None, {"type": "timeout"}, role="system", actor="clock", now=t, rng=rng)
            continue
        due = [d.seat for d in series.pending(state) if d.seat in bots]
        # a bot with nothing to do (or choosing to let the clock run) waits
        moving = ((s, bot_command(series, state, s, bots[s], rng)) for s in due)
        seat, command = next(((s, c) for s, c in moving if c is not None), (None, None))
        if command is None:
            break
        submit(match, seat, command, actor=f"bot:{bots[seat]}", role="player", now=now, rng=rng)
        moves += 1
    return moves


def run_bots(
    match: Match,
    *,
    start: float,
    step_s: float = 1.0,
    max_moves: int = 100_000,
    rng: random.Random | None = None,
) -> float:
    """Drive a match on a simulated clock: every ``step_s`` a bot moves, or
    time passes and due deadlines fire (timeouts, the auction close), until
    the match ends or waits for a human. Returns the clock's final time."""
    series = series_for(match.game)
    t = start
    for _ in range(max_moves):
        t += step_s
        if play_bots(match, max_moves=1, rng=rng, now=t):
            continue
        state = load(match).state
        if state.finished:
            break
        nd = series.next_deadline(state)
        if nd is None:
            break  # a human must act
        t = max(t, nd)
        submit(match, None, {"type": "timeout"}, role="system", actor="clock", now=t, rng=rng)
    return t


def bot_pause(match: Match, state, bots: set[str]) -> float:
    """Seconds a bot waits after the match's last event before it moves, as
    a person would: a share of the time its decision allows (its clock),
    jittered (the same for a given match and version, so every look agrees),
    at least ``BOT_PAUSE_MIN_S`` and at most ``BOT_PAUSE_MAX_S``. While a
    person may act (an item's window, a bid, a simultaneous choice), the bot
    waits at least ``BOT_PERSON_WINDOW_S``, so its move never closes that
    window before a person could use it; while a person holds an item
    whose window is open (Insurance before the bout's first play), it waits
    ``BOT_ITEM_WINDOW_S`` for them to declare it, within its own decision's
    time: the bot's speed never decides whether a person's item is used."""
    series = series_for(match.game)
    since = match.updated_at.timestamp()
    clocks = [d.deadline - since for d in series.pending(state) if d.seat in bots and d.deadline]
    clock = min(clocks) if clocks else None
    cap = settings.BOT_PAUSE_MAX_S
    share = cap if clock is None else settings.BOT_PAUSE_SHARE * max(0.0, clock)
    jitter = random.Random(f"{match.stream}:{match.version}").uniform(0.5, 1.5)
    pause = max(settings.BOT_PAUSE_MIN_S, min(cap, share * jitter))
    people = [s for s in state.seats if s not in bots]
    if any(legal_now(series, state, s) for s in people):
        pause = max(pause, settings.BOT_PERSON_WINDOW_S)
    if any(item_window_open(series, state, s) for s in people):
        pause = max(pause, settings.BOT_ITEM_WINDOW_S)
    if clock is not None:  # never into its own timeout
        pause = min(pause, max(0.0, clock - 1.0))
    return pause


def item_window_open(series, state, seat: str) -> bool:
    """Whether ``seat`` may now declare an item while another seat decides
    (a window the other's move closes), as Insurance before the first play."""
    if not legal_now(series, state, seat) or state.bout is None:
        return False
    if any(d.seat == seat for d in series.pending(state)):
        return False  # its own decision: its clock, not a bot's speed
    return any(c.get("type") == "use_item" for c in series.rules.legal_commands(state.bout, seat))


def no_show_seats(match: Match, user) -> list[str]:
    """The seats whose no-show ``user`` may declare now: they moderate the
    match and its ready-check's time is up with those seats absent."""
    if not getattr(user, "is_authenticated", False) or not moderates(match, user):
        return []
    state = load(match).state
    if state is None or state.finished or not state.ready_expired:
        return []
    return list(state.awaiting)


def legal_now(series, state, seat: str) -> bool:
    """Whether ``seat`` could send a move now (its turn or not)."""
    if state.finished or state.paused_since is not None:
        return False
    if state.bout is None:
        return any(d.seat == seat for d in series.pending(state))
    return bool(series.rules.legal_commands(state.bout, seat))


def move_bots_due(now: float | None = None) -> int:
    """Let one bot move in every live match where a bot must decide and its
    pause (``bot_pause``) since the last event is over. Returns the moves
    made. Runs in the clock worker (Celery's clocks.move_bots, or the
    embedded clock thread), never in a request: a bot's search takes time."""
    now = time.time() if now is None else now
    cutoff = to_datetime(now - settings.BOT_PAUSE_MIN_S)
    moves = 0
    candidates = Match.objects.filter(
        status="live", updated_at__lte=cutoff, holders__bot__gt=""
    ).distinct()
    for match in candidates:
        bots = {h.seat for h in match.holders.all() if h.bot}
        if not bots & set(match.waiting_on):
            continue
        state = load(match).state
        if now < match.updated_at.timestamp() + bot_pause(match, state, bots):
            continue
        try:
            moves += play_bots(match, max_moves=1)
        except (RuleError, ConcurrencyError):
            continue  # a person or the clock moved first; next round
    return moves


def legal_for(match: Match, viewer: Viewer) -> tuple[int | None, list[dict]]:
    """The stream's version and the commands ``viewer``'s seat may send now;
    none while the match cannot be played. Anyone not seated gets no
    version either: a spectator may be shown the match behind a delay."""
    if viewer.kind != "seat":
        return None, []
    loaded = _vouched(match) or load(match)
    state = loaded.state
    if viewer.seat not in state.seats:
        return loaded.version, []
    if loaded.abandoned or state.finished or state.paused_since is not None:
        return loaded.version, []
    series = series_for(match.game)
    mine = [d for d in series.pending(state) if d.seat == viewer.seat]
    if mine and mine[0].kind == "ready":
        return loaded.version, [{"type": "ready"}]
    if mine and mine[0].kind == "choose_first":
        return loaded.version, [{"type": "choose_first", "seat": s} for s in state.seats]
    if state.bout is None:
        return loaded.version, []
    return loaded.version, list(series.rules.legal_commands(state.bout, viewer.seat))
