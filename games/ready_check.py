"""The ready-check a match between people opens with (issue 43): its clocks
stand still until every seat a person holds said they are there, so nobody
loses on time before arriving. The series engine decides it
(``games.core.series``: ``ready``, ``ready_check_expired``,
``declare_no_show``); this module says which matches get one and for how
long. A show's death matches and final have the show's own ready-check
before they open (``tournaments/shows/commands/ready.py``), so a show's
match never gets a second one."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from games.core.protocol import RuleError

OPTION = "ready_check_s"
MAX_READY_CHECK_S = 7 * 24 * 3600


def person_seats(seats, holders: Mapping[str, Any]) -> list[str]:
    """The seats a person holds (a user id), in seat order."""
    return [
        s for s in seats if isinstance(holders.get(s), int) and not isinstance(holders.get(s), bool)
    ]


def _seconds(raw: Any) -> float:
    if (
        isinstance(raw, bool)
        or not isinstance(raw, (int, float))
        or not 0 <= raw <= MAX_READY_CHECK_S  # also refuses nan and inf
    ):
        raise RuleError(
            "ready_check_s must be a number of seconds from 0 to {most} (a week)",
            most=MAX_READY_CHECK_S,
        )
    return float(raw)


def split_ready(
    options: Mapping[str, Any] | None,
    seats,
    holders: Mapping[str, Any],
    *,
    show_stream: str,
    now: float,
) -> tuple[dict | None, dict | None]:
    """(the game's options without ``ready_check_s``, the ready-check or None).

    ``ready_check_s`` in the options sets it (0: none); without it a match
    two people or more hold outside a show gets ``MATCH_READY_CHECK_S``."""
    rest = dict(options or {}) if options is not None else None
    people = person_seats(seats, holders)
    if rest is not None and OPTION in rest:
        secs = _seconds(rest.pop(OPTION))
    elif len(people) >= 2 and not show_stream.startswith("show-"):
        secs = float(settings.MATCH_READY_CHECK_S)
    else:
        secs = 0.0
    if not secs or not people:
        return rest, None
    return rest, {"seats": people, "by": now + secs}
