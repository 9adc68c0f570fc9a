"""create_show: the initial events of a show."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from games.core.protocol import Ctx, Event, RuleError
from games.limits import MAX_ROUNDS

from .builder import _Builder
from .commands.rounds import _maybe_open_final
from .options import (
    MAX_ENTRANTS,
    _is_int,
    _name_ok,
    default_round_titles,
    one_line,
    resolve_options,
)
from .state import ORGANIZER, ShowState

MAX_AHEAD_S = 366 * 24 * 3600  # how far ahead a show may be scheduled


def check_start(starts_at: Any, now: float) -> None:
    """A scheduled show's start: a Unix time after ``now``, within a year."""
    if (
        not isinstance(starts_at, (int, float))
        or isinstance(starts_at, bool)
        or not math.isfinite(starts_at)
        or starts_at <= now
        or starts_at > now + MAX_AHEAD_S
    ):
        raise RuleError("starts_at must be a time in the future, within a year")


def _checked_people(name: Any, organizer: Any, entrants: Any, scheduled: bool) -> list[str]:
    """The show's name, its organizer and its entrants checked, in that
    order; the entrants as a list."""
    if not _name_ok(name):
        raise RuleError("a show needs a name")
    if not one_line(name):
        raise RuleError("a show needs a name on one line, without control characters")
    if not _name_ok(organizer):
        raise RuleError("a show needs an organizer (a username)")
    if not isinstance(entrants, (list, tuple)) or not all(_name_ok(e) for e in entrants):
        raise RuleError("entrants must be a list of usernames")
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        dup = sorted({e for e in entrants if entrants.count(e) > 1})
        raise RuleError("entrant(s) listed twice: {dup}", dup=", ".join(dup))
    if len(entrants) < 2 and not scheduled:
        raise RuleError("a show needs at least two entrants (or a start time to register for)")
    if len(entrants) > MAX_ENTRANTS:
        raise RuleError("a show has at most {max_entrants} entrants", max_entrants=MAX_ENTRANTS)
    if organizer in entrants:
        raise RuleError("the organizer {organizer} cannot also be an entrant", organizer=organizer)
    return entrants


def _round_titles(
    rounds: Sequence[str | Mapping[str, Any]] | None,
    scheduled: bool,
    n_entrants: int,
    opts: Mapping[str, Any],
) -> list[str]:
    """The titles of the planned rounds: those given (a title or a
    ``{"title": ...}`` each), else enough for one elimination each round;
    none yet for a scheduled show (planned when it starts)."""
    if rounds is None and scheduled:
        return []  # planned at the start, for the entrants there (commands/schedule.py)
    if rounds is None:
        return default_round_titles(n_entrants, opts["candidates_per_round"])
    if not isinstance(rounds, (list, tuple)) or len(rounds) > MAX_ROUNDS:
        raise RuleError(
            "rounds must be a list of at most {max_rounds} round titles", max_rounds=MAX_ROUNDS
        )
    titles = []
    for i, r in enumerate(rounds, 1):
        t = r.get("title") if isinstance(r, Mapping) else r
        if not _name_ok(t):
            raise RuleError("round {i} needs a title", i=i)
        titles.append(t)
    return titles


def create_show(
    ctx: Ctx,
    name: str,
    organizer: str,
    entrants: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rounds: Sequence[str | Mapping[str, Any]] | None = None,
    stream: str | None = None,
    organizer_id: int | None = None,
    starts_at: float | None = None,
) -> list[Event]:
    """The initial events of a show. ``rounds``: titles of the planned rounds
    (default: enough for one elimination each round); ``stream``: the show's
    own stream id, so that disputes can name show events; ``organizer_id``:
    the organizer's account, which holds the organizer's rights;
    ``starts_at``: a scheduled show's start (Unix time, after ``ctx.now``):
    until then people register (any number of entrants listed now, fewer
    than two included) and it starts by itself (commands/schedule.py)."""
    scheduled = starts_at is not None
    if scheduled:
        check_start(starts_at, ctx.now)
    entrants = _checked_people(name, organizer, entrants, scheduled)
    opts = resolve_options(options, len(entrants))
    if scheduled and opts["cap"] is not None and len(entrants) > opts["cap"]:
        raise RuleError(
            "{n_entrants} entrants are more than the cap of {opts}",
            n_entrants=len(entrants),
            opts=opts["cap"],
        )
    titles = _round_titles(rounds, scheduled, len(entrants), opts)
    if organizer_id is not None and not _is_int(organizer_id):
        raise RuleError("organizer_id must be the organizer's account id")
    if stream is not None and not _name_ok(stream):
        raise RuleError("stream must be a stream id")
    b = _Builder(ShowState(), {"actor": organizer, "role": ORGANIZER, "reason": ""}, ctx)
    b.emit(
        "show_created",
        {
            "name": name,
            "organizer": organizer,
            "organizer_id": organizer_id,
            "stream": stream,
            "entrants": entrants,
            "options": opts,
            "rounds": [{"id": f"r{i}", "title": t} for i, t in enumerate(titles, 1)],
            **({"starts_at": float(starts_at)} if scheduled else {}),
        },
    )
    if not scheduled:
        _maybe_open_final(b)
    return b.events
