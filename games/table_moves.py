"""A move chosen on a person's table (a control and its fields), decided
once for both ways it arrives: the htmx POST (games.views.match_command)
and the table's socket (live.consumers). The answer is the same either way:
the refusal's words, its control and its HTTP status, or nothing (made)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from eventlog.store import CommandIdReused, ConcurrencyError, replayed
from games.core.fields import whole
from games.core.protocol import SEAT, RuleError
from games.presenters.base import BadForm

from . import services
from .engine_words import refusal
from .models import Match
from .presenters.table import RESIGN_CONTROL, find_control, table_for

TABLE_CHANGED = gettext_noop(
    "the table changed before your move arrived, so it was not made: here is the table as it is now"
)


@dataclass(frozen=True)
class Refused:
    """Why a table's move was not made: shown beside ``control`` (None: above
    the controls), with the HTTP status and the API's code for it."""

    message: str
    status: int
    code: str
    control: str | None = None


def move_from_table(
    match: Match,
    user,
    form: Mapping[str, Any],
    *,
    wait: Callable[[], float | None],
    command_id: str | None,
) -> Refused | None:
    """Make the move ``form`` asks for (its ``control``, the control's fields
    and the ``table_version`` it was chosen on) as ``user``; None once made.
    ``wait`` counts it under the API's rate limits (seconds to wait, or None)."""
    viewer = services.viewer_for(match, user)
    if viewer.kind != SEAT:
        msg = _("only a seated player may make moves in this match")
        return Refused(msg, 403, "permission_denied")
    seconds = wait()  # the API's limits, per account and per address
    if seconds is not None:
        msg = _("too many moves at once: wait %(s)s seconds") % {"s": max(1, round(seconds))}
        return Refused(msg, 429, "throttled")
    key = str(form.get("control", ""))
    if key == RESIGN_CONTROL:
        return _resign(match, user, viewer, form, command_id)
    table = table_for(match, viewer)
    stale = _made_for_an_older_table(form, table)
    control = find_control(table, key)
    if control is None:
        if _made_already(match, viewer.seat, user, command_id):
            return None  # the move's answer was lost on the way: this retry is answered as made
        if stale:
            return Refused(_(TABLE_CHANGED), 200, "table_changed")
        return Refused(_("that action is not open to you now; look again"), 409, "conflict")
    return _make(match, user, viewer, lambda: control.command(form), key, command_id, stale)


def _resign(match: Match, user, viewer, form: Mapping[str, Any], command_id) -> Refused | None:
    """The resign form: made only with its confirmation (``confirm=yes``, the
    second step of the button), whatever table it was chosen on."""
    if str(form.get("confirm", "")) != "yes":
        msg = _("resigning needs its confirmation: open Resign and confirm there")
        return Refused(msg, 422, "rule", RESIGN_CONTROL)
    return _make(
        match, user, viewer, lambda: {"type": "resign"}, RESIGN_CONTROL, command_id, stale=False
    )


def _make(match: Match, user, viewer, command, key: str, command_id, stale: bool):
    """Submit ``command()`` as the viewer's seat: None once made, else why not."""
    try:
        services.submit(
            match,
            viewer.seat,
            command(),
            actor=user.username,
            command_id=command_id,
            account=user.pk,
        )
    except (RuleError, BadForm) as exc:
        if stale:  # chosen on a table that has changed since: the fresh one, not a bare 422
            return Refused(_(TABLE_CHANGED), 200, "table_changed")
        # the rules' own words, in the reader's language where they are fixed
        return Refused(refusal(exc), 422, "rule", key)
    except ConcurrencyError:
        msg = _("the match moved on while you were deciding; look again")
        return Refused(msg, 409, "conflict", key)
    except CommandIdReused:
        msg = _("this form was already used for another move; look again")
        return Refused(msg, 409, "command_id_reused", key)
    return None


def _made_already(match: Match, seat: str, user, command_id: str | None) -> bool:
    """This seat's move under ``command_id`` was made by ``user`` already (a
    socket's answer lost, then the same form posted): its control is gone
    from the table it changed, and the same id answers as the move made, as
    ``services.submit`` answers a retry, not as a refusal."""
    try:
        key = services.command_key(command_id)
    except RuleError:  # a bad id: refused as ever
        return False
    rows = replayed(match.stream, key) if key else []
    return bool(rows) and all(
        r.metadata.get("actor") == user.username
        and (r.metadata.get("command") or {}).get("seat") == seat
        for r in rows
    )


def _made_for_an_older_table(form: Mapping[str, Any], table) -> bool:
    """The form names the table version it was shown on (``table_version``);
    an older one than the viewer's table now means the move was chosen on a
    table that has changed since (a bot moved, a clock ran out)."""
    made_for = whole(str(form.get("table_version", "")))
    return made_for is not None and made_for < table.version
