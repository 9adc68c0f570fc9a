"""The clock of a seat as a running bar (``{% clock_bar seat table %}``): the
table, TV, the board and the overlays draw every clock through this one tag
and its template (``_clock_bar.html``); ``static/js/clock_bar.js`` runs the
bar and its words from the deadline and the moment the table's clocks stand
at (now, or the cut of a delayed spectator's table, or a replay's step)."""

from __future__ import annotations

from django import template

from games.core.registry import rules_for

register = template.Library()

FILL_STEPS = 20  # the bar drawn without a script: in steps of 5 %


def decision_span(match, reserve: float | None) -> float | None:
    """The seconds a decision has in all: the game's time per decision
    (the match's option, else the game's default) and the seat's reserve."""
    spec = rules_for(match.game).options.get("decision_s")
    limit = (match.options or {}).get("decision_s", spec.default if spec else None)
    if not isinstance(limit, int | float) or isinstance(limit, bool) or limit <= 0:
        return None
    return float(limit) + float(reserve or 0)


def time_words(left: float) -> str:
    """Seconds left as the script writes them: "45 s", "2:05"."""
    left = max(int(left), 0)
    minutes, seconds = divmod(left, 60)
    return f"{minutes}:{seconds:02d}" if minutes else f"{seconds} s"


@register.inclusion_tag("_clock_bar.html")
def clock_bar(seat, table) -> dict:
    """What the bar of ``seat`` (a ``SeatRow``) shows on ``table``."""
    out = {"seat": seat, "deadline": seat.deadline, "reserve": seat.reserve}
    if not seat.deadline:
        return out
    now = table.server_now
    left = seat.deadline - now
    span = decision_span(table.match, seat.reserve) or max(left, 1.0)
    span = max(span, left)
    share = min(max(left / span, 0.0), 1.0) if span > 0 else 0.0
    reserve = seat.reserve or 0
    out.update(
        now=now,
        span=span,
        left=left,
        fill=round(share * FILL_STEPS),
        still=bool(table.at) or bool(table.paused),
        up=left <= 0,
        on_reserve=0 < left <= reserve,
        time=time_words(left),
        after_reserve=time_words(left - reserve),
        reserve_time=time_words(reserve),
    )
    return out
