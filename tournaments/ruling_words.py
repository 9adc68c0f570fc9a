"""A ruling's parameters in words, as the dashboard shows them
("the winner: ana", not ``{'winner': 'ana'}``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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
