"""The fold of a bracket's stream ``bracket-<id>``: the engine's events
(brackets.py) and the platform's own, the links of series to the matches that
play them and the voiding of a series. Shared by the services that write the
stream (bracket_services.py) and the read model that keeps its folds
(readmodels.py)."""

from __future__ import annotations

from . import brackets

LINKED = "bracket_match_linked"
VOIDED = "bracket_series_voided"
# a bracket created with its check-in open (``created["check_in"]``): its
# entrants check in, then the draw is a second ``bracket_created`` of those
# present (``dropped``: the absent); no series opens before it
CHECKED_IN = "bracket_entrant_checked_in"


def fold_bracket(rows, start=None) -> tuple[brackets.Bracket, dict, dict]:
    """(engine state, creation data, series id -> match stream), folding
    ``rows`` onto ``start`` (such a triple, or None for a new bracket)."""
    state, created, links = start if start is not None else (None, {}, {})
    links = dict(links)
    for r in rows:
        if r.type == brackets.CREATED:
            created = r.data
            state = brackets.evolve(None, {"type": r.type, "data": r.data})
        elif r.type == brackets.RESULT:
            state = brackets.evolve(state, {"type": r.type, "data": r.data})
        elif r.type == VOIDED:
            state = brackets.reset_from(state, r.data["series"])
            for sid in r.data.get("unlinked", r.data["dropped"]):
                links.pop(sid, None)
        elif r.type == LINKED:
            links[r.data["series"]] = r.data["match_stream"]
        elif r.type == CHECKED_IN:
            present = [*created.get("checked_in", ()), r.data["entrant"]]
            created = {**created, "checked_in": present}
    return state, created, links
