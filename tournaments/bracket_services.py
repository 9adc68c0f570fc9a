"""Running a bracket on the platform: its stream ``bracket-<id>`` holds the
engine's events (brackets.py) plus links to the matches that play each
series. Winners advance the moment a series ends: the match listener
records the result and opens the next series in the same transaction."""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping
from typing import Any

from django.db import transaction

from eventlog.store import (
    ConcurrencyError,
    NewEvent,
    append,
    command_fingerprint,
    replayed,
    stream_named_by,
)
from games import services as match_services
from games.core.protocol import RuleError
from games.core.registry import rules_for
from games.limits import MAX_FIRST_TO
from games.models import Match

from . import brackets
from .bracket_fold import LINKED, VOIDED
from .models import ShowRecord
from .readmodels import bracket_folded

MAX_RETRIES = 5


def _check_first_to(first_to: int | Mapping[str, int] | None) -> None:
    """Every series length given is a whole number of wins within bounds."""
    lengths = first_to.values() if isinstance(first_to, Mapping) else [first_to]
    for n in lengths:
        if n is not None and (
            not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= MAX_FIRST_TO
        ):
            raise RuleError(
                "a series is played to 1 to {max_first_to} wins", max_first_to=MAX_FIRST_TO
            )


def _check_host_show(host_show: str, organizer_id: int | None) -> None:
    """The show that is to take the bracket's disputes exists and is the
    creating organizer's own."""
    host = ShowRecord.objects.filter(stream=host_show).values_list("organizer_id").first()
    if host is None:
        raise RuleError("no such show to take the bracket's disputes")
    if organizer_id is None or host[0] != organizer_id:
        raise RuleError("only that show's organizer may have it take the bracket's disputes")


def _check_flags(rated, check_in, organizer_id: int | None) -> None:
    if not isinstance(rated, bool):
        raise RuleError("rated must be true or false")
    if not isinstance(check_in, bool):
        raise RuleError("check_in must be true or false")
    if check_in and organizer_id is None:
        raise RuleError("a bracket with a check-in needs its organizer's account")


def create_bracket(
    *,
    name: str,
    game: str,
    format: str,
    entrants: list[str],
    options: Mapping[str, Any] | None = None,
    first_to: int | Mapping[str, int] | None = None,
    holders: Mapping[str, Any] | None = None,
    match_options: Mapping[str, Any] | None = None,
    actor: str = "",
    rng: random.Random | None = None,
    now: float | None = None,
    rated: bool = True,
    host_show: str = "",
    organizer_id: int | None = None,
    command_id: str | None = None,
    account: int | None = None,
    check_in: bool = False,
) -> str:
    """Create a bracket and open its first series; returns the stream.

    ``first_to``: one series length for all, or per round label (``R1``,
    ``GF``...; missing rounds take the game's default). ``holders`` maps an
    entrant to a user id or ``bot:<kind>``; ``rated``: its series count for
    the players' ratings; ``host_show``: the show whose organizer and
    moderators take the disputes about its matches (no other show's do),
    named by that show's organizer (``organizer_id``, the creating account).
    A ``command_id`` sent again by the same account for the same bracket
    returns the bracket it made first. ``check_in``: the draw waits for the
    check-in (bracket_check_in.py): no series opens until the organizer draws."""
    rules_for(game)  # an unknown game is refused here
    if not name.strip():
        raise RuleError("give the bracket a name")
    try:
        created = brackets.created_event(format, entrants, options)
    except brackets.BracketError as exc:
        raise RuleError(str(exc)) from None
    _check_first_to(first_to)
    _check_flags(rated, check_in, organizer_id)
    if host_show:
        _check_host_show(host_show, organizer_id)
    created["data"].update(
        name=name,
        game=game,
        first_to=first_to,
        holders=dict(holders or {}),
        match_options=dict(match_options or {}),
        rated=rated,
        host_show=host_show or "",
        organizer_id=organizer_id,
    )
    if check_in:
        created["data"]["check_in"] = True
    stream = f"bracket-{uuid.uuid4().hex[:16]}"
    key = fingerprint = None
    if command_id:
        key = match_services.command_key(command_id)
        sender = f"user:{account}" if account is not None else f"actor:{actor}"
        fingerprint = command_fingerprint(sender, created)
        stream = stream_named_by("bracket-", sender, key)
        if replayed(stream, key, fingerprint):
            return stream
    with transaction.atomic():
        rows = append(
            stream,
            0,
            [NewEvent(created["type"], created["data"])],
            actor=actor,
            role="organizer",
            command_id=key,
            fingerprint=fingerprint,
        )
        if not rows.replay:
            _open_pending(stream, rng=rng, now=now)
    return stream


def bracket_authority(stream: str) -> tuple[str, frozenset[int]]:
    """(the show that takes the bracket's disputes, or "" for none; the accounts
    holding its seats), from the bracket's own creation record alone."""
    from eventlog.store import first

    created = first(stream) if stream.startswith("bracket-") else None
    data = created.data if created is not None else {}
    holders = data.get("holders") or {}
    seats = frozenset(
        uid for uid in holders.values() if isinstance(uid, int) and not isinstance(uid, bool)
    )
    return data.get("host_show") or "", seats


def _series_first_to(created: Mapping, round_label: str) -> int | None:
    ft = created.get("first_to")
    if isinstance(ft, Mapping):
        return ft.get(round_label)
    return ft


def _open_pending(
    stream: str, rng: random.Random | None = None, now: float | None = None
) -> list[Match]:
    """Create a match for every pending series that has none yet."""
    opened = []
    (state, created, links), version = bracket_folded(stream)
    if created.get("check_in"):
        return []  # the draw waits for the check-in
    for s in brackets.pending_series(state):
        if s.bye or s.id in links:
            continue
        options = dict(created.get("match_options") or {})
        ft = _series_first_to(created, s.round)
        if ft is not None:
            options["first_to"] = ft
        holders = {
            side: created["holders"][side] for side in (s.a, s.b) if side in created["holders"]
        }
        match = match_services.create_match(
            created["game"],
            [s.a, s.b],
            options=options,
            holders=holders,
            title=f"{created['name']} · {s.round}: {s.a} v {s.b}",
            show_stream=stream,
            kind="bracket",
            actor="bracket",
            role="system",
            chooser=s.a,  # the higher seed chooses who starts
            # its organizer moderates it, as a one-off match's creator does
            # (a no-show after the ready-check, the clocks)
            moderators=[created["organizer_id"]] if created.get("organizer_id") else None,
            rng=rng,
            now=now,
        )
        append(
            stream,
            version,
            [NewEvent(LINKED, {"series": s.id, "round": s.round, "match_stream": match.stream})],
            actor="bracket",
            role="system",
        )
        version += 1
        opened.append(match)
    return opened


def _on_match_events(match: Match, new: list, state, now: float) -> None:
    """A bracket series ended: record its result, open what follows. An
    overturned series resets what depended on the old winner first."""
    if not match.show_stream.startswith("bracket-"):
        return
    if any(e.type == "series_overturned" for e in new):
        correct_series(match.show_stream, match, state, now)
    elif any(e.type in ("series_ended", "series_forfeited") for e in new):
        record_match_result(match.show_stream, match, state, now)


def correct_series(stream: str, match: Match, state, now: float | None = None) -> list[str]:
    """A ruling gave ``match`` a new winner: void the old result and every
    series that depended on it (their matches are abandoned), record the
    new result, and open the series that follow from it."""
    dropped = _take_back(stream, match, "overturned")
    if dropped:
        record_match_result(stream, match, state, now)
    return dropped


def reopen_series(stream: str, match: Match) -> list[str]:
    """A ruling voided the end of ``match``'s series, which plays on: the
    bracket takes its result back and resets every series that depended on
    it (their matches are abandoned); the series keeps its match, whose next
    result the bracket records as usual."""
    return _take_back(stream, match, "reopened")


def _take_back(stream: str, match: Match, how: str) -> list[str]:
    """Void the result of ``match``'s series and its dependents (the series
    keeps its match, the dependents lose theirs); the voided series ids."""
    (bstate, _, links), version = bracket_folded(stream)
    series_id = next((sid for sid, ms in links.items() if ms == match.stream), None)
    if series_id is None or all(r.series != series_id for r in bstate.results):
        return []
    dropped = brackets.dependents(bstate, series_id)
    append(
        stream,
        version,
        [
            NewEvent(
                VOIDED,
                {
                    "series": series_id,
                    "dropped": dropped,
                    "unlinked": dropped[1:],
                    "reason": f"series {how} by a ruling",
                },
            )
        ],
        actor="bracket",
        role="system",
    )
    for sid in dropped[1:]:
        if sid in links:
            old = Match.objects.get(stream=links[sid])
            match_services.abandon(old, reason=f"bracket series {sid} reset: {series_id} was {how}")
    return dropped


def record_match_result(stream: str, match: Match, state, now: float | None = None) -> None:
    (bstate, created, links), version = bracket_folded(stream)
    series_id = next((sid for sid, ms in links.items() if ms == match.stream), None)
    if series_id is None:
        return  # a match of a voided series: its result no longer counts
    a, b = state.seats
    winner = state.winners[0]
    bouts = [int(state.scores.get(a, 0)), int(state.scores.get(b, 0))]
    event = brackets.result_event(bstate, a, b, winner, bouts)
    event["data"]["match_stream"] = match.stream
    append(
        stream,
        version,
        [NewEvent(event["type"], event["data"])],
        actor="bracket",
        role="system",
    )
    _open_pending(stream, now=now)


def void_series(stream: str, series_id: str, *, actor: str, reason: str) -> list[str]:
    """Void a series result and every result that depended on it (a dispute
    overturned it); their series are opened again with new matches."""
    for attempt in range(MAX_RETRIES):
        (bstate, _, _), version = bracket_folded(stream)
        try:
            dropped = brackets.dependents(bstate, series_id)
        except brackets.BracketError as exc:
            raise RuleError(str(exc)) from None
        try:
            with transaction.atomic():
                append(
                    stream,
                    version,
                    [NewEvent(VOIDED, {"series": series_id, "dropped": dropped, "reason": reason})],
                    actor=actor,
                    role="moderator",
                )
                _open_pending(stream)
            return dropped
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
    raise AssertionError("unreachable")


def bracket_output(stream: str) -> dict:
    (state, created, links), _ = bracket_folded(stream)
    out = brackets.output(state)
    for row, s in zip(out["series"], brackets.series_list(state), strict=True):
        row["id"] = s.id
        row["match_stream"] = links.get(s.id)
    return out


match_services.on_match_events(
    _on_match_events,
    types=("series_ended", "series_forfeited", "series_overturned"),
    of="bracket-",
)
