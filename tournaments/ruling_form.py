"""The ruling form: only the fields the chosen ruling needs, each offering only
the values that ruling may take (the match's real moves in words, its seats),
and the show's own rules asked before the confirm page (nothing written).

Moves read as a spectator reads them: no hidden card shows in a form."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import services as match_services
from games.core.adapt import as_game_event, redact
from games.core.fields import whole
from games.core.protocol import RuleError
from games.core.registry import series_for
from games.models import Match
from games.presenters.table import describe_row, names_for, table_module
from games.visibility import SPECTATOR_VIEW

from . import shows
from .log_words import describe, match_titles
from .ruling_words import RULING_WORDS

RULING_FIELDS: dict[str, tuple[str, ...]] = {
    "dismiss": (),
    "void_to": ("version",),
    "award_bout": ("winner",),
    "replay_bout": (),
    "adjust_clock": ("seat", "seconds"),
    "overturn_series": ("winner",),
    "disqualify": ("entrant",),
}
FIELD_LABELS = {
    "version": gettext_lazy("void back to"),
    "winner": gettext_lazy("winner"),
    "entrant": gettext_lazy("entrant"),
    "seat": gettext_lazy("whose clock"),
    "seconds": gettext_lazy("seconds to add"),
}
MAX_CLOCK_SECONDS = 86400


@dataclass(frozen=True)
class Field:
    """One field of the form: a list of (value, words), or a number (no choices)."""

    name: str
    label: str
    choices: tuple[tuple[str, str], ...] | None = None


def dispute_no(dispute_id: str) -> int:
    """ "d-3" is dispute no. 3."""
    return int(dispute_id.split("-", 1)[1])


def rulings_for(d: shows.Dispute) -> list[tuple[str, str]]:
    """The rulings that may apply to what the dispute is about, in words."""
    on_show = not Match.objects.filter(stream=d.target_stream).exists()
    return [
        (r, str(RULING_WORDS[r]))
        for r in shows.RULINGS
        if not (on_show and r in shows.MATCH_ONLY_RULINGS)
    ]


def _void_boundaries(loaded, before: int) -> list[int]:
    """The versions before ``before`` a void may go back to (those
    ``services.state_at_boundary`` takes), folding the log once: each move's
    state is the one before it evolved by its event; only a void, which
    takes events back out, is folded again from the start."""
    rows, last = loaded.events, loaded.version
    voided = match_services.voided_versions(rows)
    series = series_for(loaded.match.game)
    state = None
    out = []
    for i, row in enumerate(rows):
        v = row.version
        if v >= min(before, last):
            break
        if not match_services.is_platform(row):
            state = series.evolve(state, as_game_event(row))
        elif row.type == "match_voided":
            state = match_services.fold_rows(loaded.match.game, rows[: i + 1])
        at_a_move_end = rows[i + 1].command_seq == 1
        if v in voided or not at_a_move_end or state is None:
            continue
        if state.finished or series.pending(state):
            out.append(v)
    return out


def _match_versions(match: Match, before: int) -> list[tuple[str, str]]:
    """The ends of moves a void may go back to, before the disputed event."""
    loaded = match_services.load(match)
    module, names = table_module(match.game), names_for(match.seats, None)
    rows = {r.version: r for r in loaded.events}
    out = []
    for v in _void_boundaries(loaded, before):
        row = rows[v]
        shown = redact(row, SPECTATOR_VIEW)
        what = describe_row(module, shown, None, names) if shown else row.type.replace("_", " ")
        out.append((str(v), _("move %(n)s: %(what)s") % {"n": v, "what": what}))
    return out


def _show_versions(state: shows.ShowState, stream: str, before: int) -> list[tuple[str, str]]:
    titles = match_titles(stream)
    return [
        (str(i), _("move %(n)s: %(what)s") % {"n": i, "what": describe(ev.type, ev.data, titles)})
        for i, ev in enumerate(state.log, 1)
        if i < before and i not in state.voided
    ]


def fields_for(ruling: str, state: shows.ShowState, d: shows.Dispute) -> list[Field]:
    """The fields ``ruling`` needs for dispute ``d``, with their valid values."""
    match = Match.objects.filter(stream=d.target_stream).first()
    seats = tuple((s, s) for s in match.seats) if match else ()
    out = []
    for name in RULING_FIELDS.get(ruling, ()):
        label = str(FIELD_LABELS[name])
        if name == "version":
            versions = (
                _match_versions(match, d.target_version)
                if match
                else _show_versions(state, d.target_stream, d.target_version)
            )
            out.append(Field(name, label, tuple(versions)))
        elif name == "entrant" and not match:
            out.append(Field(name, label, tuple((a, a) for a in shows.active(state))))
        elif name == "seconds":
            out.append(Field(name, label))
        else:
            out.append(Field(name, label, seats))
    return out


def params_from(post: Mapping[str, Any], ruling: str, fields: list[Field]) -> dict:
    """The ruling's parameters from the form; RuleError in words for a value
    the form did not offer (or a field left empty)."""
    params: dict[str, Any] = {}
    for f in fields:
        raw = (post.get(f.name) or "").strip()
        if f.choices is not None:
            offered = dict(f.choices)
            if raw not in offered:
                if not offered:
                    words = _("there is nothing to choose for “%(field)s”: pick another ruling")
                else:
                    words = _("choose one of the values offered for “%(field)s”")
                refused = words % {"field": f.label}
                raise RuleError(refused)
            params[f.name] = int(raw) if f.name == "version" else raw
        else:
            seconds = whole(raw)
            if seconds is None or not 1 <= seconds <= MAX_CLOCK_SECONDS:
                words = _("“%(field)s” is a whole number of seconds from 1 to %(max)s")
                refused = words % {"field": f.label, "max": MAX_CLOCK_SECONDS}
                raise RuleError(refused)
            params[f.name] = seconds
    return params
