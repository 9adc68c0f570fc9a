"""Playing matches through the event store: one service per write.

A match's stream holds platform events (metadata ``layer: platform``:
creation, voids, abandonment), which no game folds, and the series layer's
events. Every write loads the stream, folds it, decides
and appends with the version it folded, so two writers never both win.
"""

from __future__ import annotations

import hashlib
import random
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import transaction

from eventlog.store import (
    ConcurrencyError,
    NewEvent,
    append,
    client_command_id,
    read,
    replayed,
    system_command_id,
)
from games.core.adapt import as_game_event, redact
from games.core.protocol import (
    MODERATOR_VIEW,
    SPECTATOR_VIEW,
    Ctx,
    RuleError,
    Viewer,
)
from games.core.registry import series_for
from games.core.series import MatchState

from .models import Match

PLATFORM = {"layer": "platform"}  # metadata of events the games never fold
MAX_RETRIES = 5

# listeners(match, new_events, state, now) run inside the append's transaction,
# so what a show or bracket records about a match commits with it
_match_listeners: list = []


def on_match_events(fn):
    if fn not in _match_listeners:
        _match_listeners.append(fn)
    return fn


def _notify(match: Match, new: list, state: MatchState, now: float) -> None:
    for fn in list(_match_listeners):
        fn(match, new, state, now)


def secure_rng() -> random.Random:
    """Real deals use the operating system's secure source."""
    return random.SystemRandom()


def to_datetime(ts: float | None) -> datetime | None:
    return None if ts is None else datetime.fromtimestamp(ts, tz=UTC)


@dataclass(frozen=True)
class Loaded:
    match: Match
    state: MatchState
    version: int  # the stream's last version, voided events included
    events: list  # every stored row of the stream
    abandoned: bool = False


def is_platform(row) -> bool:
    return row.metadata.get("layer") == "platform"


def game_events(rows) -> list:
    """The rows a fold uses: series events, minus those a ruling voided."""
    voided: set[int] = set()
    for r in rows:
        if is_platform(r) and r.type == "match_voided":
            voided.update(range(r.data["from_version"], r.data["to_version"] + 1))
    return [r for r in rows if not is_platform(r) and r.version not in voided]


def fold_rows(game: str, rows) -> MatchState:
    series = series_for(game)
    return series.fold(as_game_event(r) for r in game_events(rows))


def load(match: Match) -> Loaded:
    rows = read(match.stream)
    version = rows[-1].version if rows else 0
    abandoned = any(is_platform(r) and r.type == "match_abandoned" for r in rows)
    return Loaded(match, fold_rows(match.game, rows), version, rows, abandoned)


def create_match(
    game: str,
    seats: list[str],
    *,
    options: Mapping[str, Any] | None = None,
    items: Mapping[str, list[str]] | None = None,
    holders: Mapping[str, Any] | None = None,
    title: str = "",
    show_stream: str = "",
    kind: str = "",
    actor: str | None = None,
    role: str = "organizer",
    setup: Mapping[str, Any] | None = None,
    now: float | None = None,
    rng: random.Random | None = None,
    command_id: str | None = None,
    chooser: str | None = None,
) -> Match:
    """Open a match stream: the creation record, then the series' first
    events (the first deal, or a wait for the advantage holder).

    ``holders`` maps a seat to a user id (int) or a bot name ("bot:random",
    "bot:heuristic"); unnamed seats are open."""
    series = series_for(game)
    now = time.time() if now is None else now
    rng = rng or secure_rng()
    holders = dict(holders or {})
    for seat in holders:
        if seat not in seats:
            raise RuleError(f"{seat} is not one of the seats")
    for holder in holders.values():
        if isinstance(holder, str) and holder.startswith("bot:"):
            kind_ = holder[4:]
            if kind_ != "random" and kind_ not in series.rules.bots:
                raise RuleError(f"{series.rules.name} has no bot called {kind_}")
    game_events_ = series.start(
        Ctx(now=now, rng=rng, role="system"), seats, options, items, setup, chooser=chooser
    )
    stream = f"match-{uuid.uuid4().hex[:16]}"
    key = _command_key(command_id)
    if key:
        # the stream is named by (actor, id), so a retry, even one racing
        # the first try, meets the same stream and answers with its match
        stream = "match-" + hashlib.sha256(f"{actor}\0{key}".encode()).hexdigest()[:16]
    created = NewEvent(
        "match_created",
        {
            "game": game,
            "title": title,
            "seats": list(seats),
            "holders": holders,
            "show_stream": show_stream,
            "kind": kind,
            "at": now,
        },
    )
    if key and replayed(stream, key):
        return Match.objects.get(stream=stream)
    with transaction.atomic():
        opened = append(
            stream, 0, [created], actor=actor, role=role, command_id=key, extra=PLATFORM
        )
        if opened.replay:
            return Match.objects.get(stream=stream)
        append(stream, 1, game_events_, actor=actor, role=role)
        match = Match.objects.get(stream=stream)
        _set_deadline(match, series.fold(game_events_))
    return match


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
) -> list:
    """Submit one command as ``seat`` (None for system and moderators).

    Raises RuleError (the rule's own words; nothing written) or, after
    retries, ConcurrencyError. A repeated ``command_id`` (a client's) or
    ``system_id`` (the parts of an id the system derives, e.g. a timeout's
    deadline) returns the events of its first success, marked ``replay``,
    and writes nothing."""
    series = series_for(match.game)
    if not isinstance(command, Mapping):
        raise RuleError("a command must be an object with a type")
    key = system_command_id(*system_id) if system_id else _command_key(command_id)
    for attempt in range(MAX_RETRIES):
        if key:
            first = replayed(match.stream, key)
            if first:
                return first  # a retry: the first result, nothing new
        loaded = load(match)
        if loaded.abandoned:
            raise RuleError("this match was taken out of play by a ruling")
        t = time.time() if now is None else now
        ctx = Ctx(now=t, rng=rng or secure_rng(), seat=seat, role=role)
        new = series.decide(loaded.state, dict(command), ctx)
        if not new:
            return []
        try:
            with transaction.atomic():
                rows = append(
                    match.stream,
                    loaded.version,
                    new,
                    command_id=key,
                    actor=actor or seat or role,
                    role=role,
                    extra={"command": _public_command(command, seat)},
                )
                if rows.replay:
                    return rows  # the same command id won a race meanwhile
                state = loaded.state
                for e in new:
                    state = series.evolve(state, e)
                _set_deadline(match, state)
                _notify(match, new, state, t)
            return rows
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def _command_key(command_id: str | None) -> str | None:
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
    match: Match, type_: str, data: Mapping[str, Any], *, actor: str, role: str
) -> list:
    """Append a platform event (a ruling, a void) at the stream's head."""
    for attempt in range(MAX_RETRIES):
        loaded = load(match)
        try:
            with transaction.atomic():
                rows = append(
                    match.stream,
                    loaded.version,
                    [NewEvent(type_, dict(data))],
                    actor=actor,
                    role=role,
                    extra=PLATFORM,
                )
                _set_deadline(match, load(match).state)
            return rows
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def abandon(match: Match, *, reason: str, actor: str = "platform") -> None:
    """A ruling took this match out of play (its series was reset): it stays
    in the log, refuses further moves, and its clock stops."""
    record_platform_event(match, "match_abandoned", {"reason": reason}, actor=actor, role="system")


def _set_deadline(match: Match, state: MatchState) -> None:
    """The clock index: when this match next needs a timeout."""
    match.refresh_from_db(fields=["status"])
    series = series_for(match.game)
    live = match.status not in ("void", "finished")
    nd = series.next_deadline(state) if live else None
    waiting = sorted({d.seat for d in series.pending(state)}) if live else []
    Match.objects.filter(pk=match.pk).update(next_deadline=to_datetime(nd), waiting_on=waiting)
    match.refresh_from_db()


# ---- reading --------------------------------------------------------------
def viewer_for(match: Match, user) -> Viewer:
    """Who is looking: a seat's holder, a moderator, or a spectator."""
    if user is not None and getattr(user, "is_authenticated", False):
        holder = match.holders.filter(user=user).first()
        if holder is not None:
            return Viewer.of_seat(holder.seat)
        if user.is_staff or _is_moderator(match, user):
            return MODERATOR_VIEW
    return SPECTATOR_VIEW


def _is_moderator(match: Match, user) -> bool:
    if not match.show_stream:
        return False
    try:
        from tournaments.selectors import is_show_moderator
    except ImportError:
        return False
    return is_show_moderator(match.show_stream, user)


def _replay_open(match: Match, viewer: Viewer) -> Viewer:
    """After a match ends its full replay, everything revealed, is open."""
    return MODERATOR_VIEW if match.status == "finished" else viewer


def view_for(match: Match, viewer: Viewer) -> dict:
    loaded = load(match)
    series = series_for(match.game)
    out = series.view(loaded.state, _replay_open(match, viewer))
    out["version"] = loaded.version
    out["game"] = match.game
    out["viewer"] = {"kind": viewer.kind, "seat": viewer.seat}
    out["replay"] = match.status == "finished"
    return out


def history_for(match: Match, viewer: Viewer, after: int = 0) -> list[dict]:
    """The redacted event history; voided events are marked as such."""
    viewer = _replay_open(match, viewer)
    rows = read(match.stream)
    used = {r.version for r in game_events(rows)}
    out = []
    for r in rows:
        if r.version <= after:
            continue
        shown = redact(r, viewer)
        if shown is None:
            continue
        if not is_platform(r) and r.version not in used:
            shown["void"] = True
        out.append(shown)
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
        due = [d for d in series.pending(state) if d.seat in bots]
        if not due:
            break
        seat = due[0].seat
        command = bot_command(series, state, seat, bots[seat], rng)
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


BOT_DELAY_S = 1.0  # bots wait this long after the last move, so people can follow


def move_bots_due(now: float | None = None, delay_s: float = BOT_DELAY_S) -> int:
    """Let one bot move in every live match where a bot must decide and the
    last event is at least ``delay_s`` old. Returns the moves made."""
    now = time.time() if now is None else now
    cutoff = to_datetime(now - delay_s)
    moves = 0
    candidates = Match.objects.filter(
        status="live", updated_at__lte=cutoff, holders__bot__gt=""
    ).distinct()
    for match in candidates:
        bots = {h.seat for h in match.holders.all() if h.bot}
        if not bots & set(match.waiting_on):
            continue
        try:
            moves += play_bots(match, max_moves=1)
        except (RuleError, ConcurrencyError):
            continue  # a person or the clock moved first; next round
    return moves
