"""The bracket drawn as a bracket: rounds as columns of slots (every future
slot drawn) joined by lines, for single and double elimination; standings
with their tie-breakers for round robin and Swiss."""

from __future__ import annotations

from collections.abc import Mapping

from django.utils.translation import gettext as _

from . import brackets


def bracket_tree(state: brackets.Bracket, series: list[dict]) -> dict:
    """Columns of slots for an elimination bracket (every future slot drawn),
    or the standings table with its tie-breakers for round robin and Swiss."""
    seed = {e: i for i, e in enumerate(state.entrants, 1)}
    by_id = {s["id"]: s for s in series}
    if state.format in ("single", "double"):
        label = "R" if state.format == "single" else "W"
        size = 2
        while size < len(state.entrants):
            size *= 2
        columns = []
        r, slots = 1, size // 2
        winners: list = []
        while slots >= 1:
            cells = [_slot(by_id.get(f"{label}{r}-{i}"), seed) for i in range(1, slots + 1)]
            for i, cell in enumerate(cells):
                if cell["future"] and winners:  # who already waits in this slot
                    cell["sides"] = [_side(w, seed) for w in winners[2 * i : 2 * i + 2]]
            winners = [c["s"]["winner"] if not c["future"] else None for c in cells]
            columns.append(
                {
                    "title": _round_title(label, r, slots),
                    "pairs": [cells[i : i + 2] for i in range(0, len(cells), 2)],
                }
            )
            r, slots = r + 1, slots // 2
        if state.format == "double":
            sections = _double_sections(state, by_id, seed, size)
            return {"columns": columns, "sections": sections, "others": [], "table": None}
        extra = [s for s in series if not s["id"].startswith(label)]
        return {"columns": columns, "others": _by_round(extra, seed), "table": None}
    return {"columns": [], "others": _by_round(series, seed), "table": _standings_table(state)}


def _double_sections(state, by_id: Mapping[str, dict], seed, size: int) -> list[dict]:
    """The losers bracket and the grand final (with its reset) drawn like the
    winners bracket: L1 (the first-round losers among themselves) feeds L2 one
    to one (each L2 match adds a newcomer from the winners bracket); the
    winners of an even losers round meet pairwise in the next."""
    k = size.bit_length() - 1
    last = 2 * (k - 1)
    losers = []
    for r in range(1, last + 1):
        cells = [
            _slot(by_id.get(f"L{r}-{i}"), seed) for i in range(1, (size >> ((r + 1) // 2 + 1)) + 1)
        ]
        joins = r % 2 == 0 and r < last  # two matches feed one of the next round
        losers.append(
            {
                "title": _("losers final") if r == last else _("losers round %(n)s") % {"n": r},
                "pairs": [cells[i : i + 2] for i in range(0, len(cells), 2)]
                if joins
                else [[c] for c in cells],
            }
        )
    gf = _slot(by_id.get("GF"), seed)
    if gf["future"]:  # who already waits for it
        for i, sid in enumerate((f"W{k}-1", f"L{last}-1" if last else "W1-1")):
            done = by_id.get(sid)
            if done and done.get("winner"):
                if i == 1 and not last:  # two entrants: the W1 loser is the losers' side
                    name = done["b"] if done["winner"] == done["a"] else done["a"]
                else:
                    name = done["winner"]
                gf["sides"][i] = _side(name, seed)
    finals = [{"title": _("grand final"), "pairs": [[gf]]}]
    reset_unneeded = not gf["future"] and gf["s"].get("winner") and "GF2" not in by_id
    if state.opts.get("grand_final_reset", True) and not reset_unneeded:
        finals.append(
            {
                "title": _("grand final reset (if the losers' side wins)"),
                "pairs": [[_slot(by_id.get("GF2"), seed)]],
            }
        )
    sections = (
        [{"title": _("losers bracket"), "kind": "losers", "columns": losers}] if losers else []
    )
    return sections + [{"title": _("grand final"), "kind": "final", "columns": finals}]


def _by_round(series: list[dict], seed: Mapping[str, int]) -> list[dict]:
    groups: dict[str, list] = {}
    for s in series:
        groups.setdefault(s["round"], []).append(_slot(s, seed))
    return [{"title": k, "slots": v} for k, v in groups.items()]


def _round_title(label: str, r: int, slots: int) -> str:
    names = {1: _("final"), 2: _("semi-finals"), 4: _("quarter-finals")}
    name = names.get(slots) or _("round %(n)s") % {"n": r}
    return _("winners %(round)s") % {"round": name} if label == "W" else name


def _side(name: str | None, seed: Mapping[str, int]) -> dict:
    return {"name": name, "seed": seed.get(name), "won": False, "score": None}


def _slot(s: Mapping | None, seed: Mapping[str, int]) -> dict:
    if s is None:
        return {"future": True, "sides": [_side(None, seed), _side(None, seed)]}
    sides = []
    match = s.get("match")
    for key in ("a", "b"):
        name = s.get(key)
        sides.append(
            {
                "name": name,
                "seed": seed.get(name),
                "won": name is not None and s.get("winner") == name and s.get("b") is not None,
                "score": match.scores.get(name) if match is not None and name else None,
            }
        )
    return {"future": False, "s": s, "sides": sides, "bye": s.get("b") is None, "match": match}


def _standings_table(state: brackets.Bracket) -> dict:
    if state.format == "swiss":
        rows = brackets.swiss_table(state)
        return {
            "heads": [_("series won"), "Buchholz", _("median Buchholz"), _("bout difference")],
            "rows": [
                {
                    "side": r["side"],
                    "values": [
                        r["series_won"],
                        r["buchholz"],
                        r["median_buchholz"],
                        r["bout_difference"],
                    ],
                }
                for r in rows
            ],
        }
    st = brackets._stats(state.entrants, state.series)
    wins = st.wins
    rows = []
    for e in state.standings:
        tied = [o for o in state.entrants if wins[o] == wins[e] and o != e]
        h2h = sum(st.beat.get((e, o), 0) for o in tied)
        diff = st.bouts_for[e] - st.bouts_against[e]
        rows.append({"side": e, "values": [wins[e], h2h, diff, st.bouts_for[e]]})
    return {
        "heads": [_("series won"), _("won among the tied"), _("bout difference"), _("bouts won")],
        "rows": rows,
    }
