"""A ruling and its parameters in words, as the dashboard, the ruling form
and the show's log show them ("dismiss the dispute"; "the winner: ana", not
``{'winner': 'ana'}``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

RULING_WORDS = {
    "dismiss": gettext_lazy("dismiss the dispute"),
    "void_to": gettext_lazy("void the match back to a version"),
    "award_bout": gettext_lazy("award the bout in progress"),
    "replay_bout": gettext_lazy("replay the bout from a new deal"),
    "adjust_clock": gettext_lazy("add time to the clock"),
    "overturn_series": gettext_lazy("overturn the series result"),
    "disqualify": gettext_lazy("disqualify an entrant"),
}

PARAM_WORDS = {
    "version": gettext_lazy("back to version %(value)s"),
    "winner": gettext_lazy("the winner: %(value)s"),
    "entrant": gettext_lazy("the entrant: %(value)s"),
    "seat": gettext_lazy("the seat: %(value)s"),
    "seconds": gettext_lazy("%(value)s seconds more"),
}


def ruling_params_words(params: Mapping[str, Any] | None) -> str:
    """Each parameter as a short phrase, joined; an unknown one by its name."""
    parts = []
    for key, value in (params or {}).items():
        if value is None or value == "":
            continue
        words = PARAM_WORDS.get(key)
        if words is not None:
            parts.append(str(words) % {"value": value})
        else:
            parts.append(_("%(name)s: %(value)s") % {"name": key.replace("_", " "), "value": value})
    return ", ".join(parts)
