"""One viewer's table fragment: the page's own template and table code."""

from __future__ import annotations

from django.template.loader import render_to_string

from games.tables import table_for


def fragment(match, viewer, *, csrf_token: str = "") -> tuple[int, str]:
    """The version a viewer may see now and the #table HTML of it, through
    the visibility policy (NotVisibleYet when nothing is old enough yet)."""
    table = table_for(match, viewer)
    context = {"table": table, "match": match, "csrf_token": csrf_token}
    return table.version, render_to_string("games/tables/_table.html", context)
