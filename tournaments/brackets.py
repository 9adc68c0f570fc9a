"""Bracket engine (shared/TOURNAMENTS.md, "Brackets"): pure Python, no Django.

A bracket is an event-sourced fold. Two event types:

- ``bracket_created`` {format, entrants, options, coin_order}: the format
  ("single", "double", "round_robin", "swiss"), the entrants in seed order,
  the options, and the recorded coin-flip order (a permutation of the
  entrants drawn from ``options.seed``; see :func:`created_event`).
- ``series_result`` {series, a, b, winner, bouts: [x, y]}: the result of the
  pending series ``series`` between ``a`` and ``b``; ``bouts`` are the bouts
  won by this event's ``a`` and ``b``.

``evolve(state, event)`` folds one event; every series, standing and champion
is derived from the creation data and the results, so a replay is exact.
Commands: :func:`create`, :func:`apply_result` (raises :class:`BracketError`
in plain words when no such series is pending), :func:`reset_from` (void a
result and every result that depended on it). Reads:
:func:`pending_series`, :func:`series_list`, :func:`standings`,
:func:`champion`, :func:`output`.

The dry run of ``manage.py bracket`` is :func:`run_file` / :func:`main`.
"""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from games.limits import MAX_ENTRANTS, MAX_ROUNDS

FORMATS = ("single", "double", "round_robin", "swiss")
CREATED = "bracket_created"
RESULT = "series_result"

# the options this engine reads and checks (other keys are left alone)
_BOOL_OPTIONS = ("third_place", "grand_final_reset", "double_round")
_INT_OPTIONS = ("rounds", "seed")


class BracketError(Exception):
    """A command or event the bracket refuses; the message is plain words."""


class MalformedBracket(BracketError):
    """A bracket file or creation request that is itself wrong (exit 2)."""


class _Tbd:
    """A slot whose side is not decided yet."""

    _inst = None

    def __new__(cls):
        if cls._inst is None:
            cls._inst = super().__new__(cls)
        return cls._inst

    def __repr__(self) -> str:
        return "TBD"


TBD = _Tbd()


# ---------------------------------------------------------------- data types


@dataclass(frozen=True)
class Result:
    """One recorded series result, as applied (``bouts`` for ``a``, ``b``)."""

    series: str
    a: str
    b: str
    winner: str
    bouts: tuple[int, int]

    def to_event_data(self) -> dict:
        return {
            "series": self.series,
            "a": self.a,
            "b": self.b,
            "winner": self.winner,
            "bouts": list(self.bouts),
        }


@dataclass(frozen=True)
class Series:
    """A series whose sides are known, or a bye (``b`` None, winner set).

    ``bouts`` (for ``a``, ``b``) is set once the series is decided.
    """

    id: str
    round: str
    a: str
    b: str | None
    winner: str | None = None
    bouts: tuple[int, int] | None = None

    @property
    def bye(self) -> bool:
        return self.b is None

    @property
    def pending(self) -> bool:
        return self.winner is None

    @property
    def loser(self) -> str | None:
        if self.winner is None or self.b is None:
            return None
        return self.b if self.winner == self.a else self.a

    def as_dict(self) -> dict:
        return {"round": self.round, "a": self.a, "b": self.b, "winner": self.winner}

    def label(self) -> str:
        if self.b is None:
            return f"{self.round} {self.a} (bye)"
        return f"{self.round} {self.a} vs {self.b}"


@dataclass(frozen=True)
class Bracket:
    """The folded state: creation data, the results, and what follows."""

    format: str
    entrants: tuple[str, ...]
    options: tuple[tuple[str, Any], ...]
    coin_order: tuple[str, ...]
    results: tuple[Result, ...] = ()
    series: tuple[Series, ...] = ()
    standings: tuple[str, ...] = ()
    champion: str | None = None
    ended_early: bool = False
    version: int = 1

    @property
    def opts(self) -> dict:
        return dict(self.options)

    def seed_of(self, name: str) -> int:
        return self.entrants.index(name) + 1


# ---------------------------------------------------------------- validation


def _is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def validate_creation(fmt: Any, entrants: Any, options: Any) -> tuple[str, tuple, dict]:
    """Check a creation request; return (format, entrants, options) or raise."""
    if fmt not in FORMATS:
        raise MalformedBracket(
            f"unknown format {fmt!r}: use one of " + ", ".join(repr(f) for f in FORMATS)
        )
    if not isinstance(entrants, (list, tuple)):
        raise MalformedBracket("entrants must be a list of names, seed 1 first")
    for i, e in enumerate(entrants, 1):
        if not isinstance(e, str) or not e.strip():
            raise MalformedBracket(f"entrant {i} must be a non-empty name (a string), not {e!r}")
    seen: set[str] = set()
    for e in entrants:
        if e in seen:
            raise MalformedBracket(f"duplicate entrant {e!r}: every entrant must appear once")
        seen.add(e)
    if len(entrants) < 2:
        raise MalformedBracket("a bracket needs at least two entrants")
    if len(entrants) > MAX_ENTRANTS:
        raise MalformedBracket(f"a bracket has at most {MAX_ENTRANTS} entrants")
    if options is None:
        options = {}
    if not isinstance(options, Mapping):
        raise MalformedBracket("options must be an object")
    opts = dict(options)
    for key in _BOOL_OPTIONS:
        if key in opts and not isinstance(opts[key], bool):
            raise MalformedBracket(f"option {key} must be true or false, not {opts[key]!r}")
    for key in _INT_OPTIONS:
        if key in opts and not _is_int(opts[key]):
            raise MalformedBracket(f"option {key} must be a whole number, not {opts[key]!r}")
    if "rounds" in opts and not 1 <= opts["rounds"] <= MAX_ROUNDS:
        raise MalformedBracket(
            f"option rounds must be from 1 to {MAX_ROUNDS}, not {opts['rounds']}"
        )
    return fmt, tuple(entrants), opts


def _check_bouts(bouts: Any) -> tuple[int, int]:
    if (
        not isinstance(bouts, (list, tuple))
        or len(bouts) != 2
        or not all(_is_int(x) and x >= 0 for x in bouts)
    ):
        raise BracketError(
            f"bouts must be two whole numbers of bouts won (for a and b), not {bouts!r}"
        )
    return (bouts[0], bouts[1])


def _check_result_shape(entrants: Sequence[str], a: Any, b: Any, winner: Any, bouts: Any):
    for key, val in (("a", a), ("b", b), ("winner", winner)):
        if not isinstance(val, str):
            raise BracketError(f"{key} must be an entrant's name, not {val!r}")
    for name in (a, b):
        if name not in entrants:
            raise BracketError(f"{name} is not an entrant of this bracket")
    if a == b:
        raise BracketError(f"a series needs two different sides, not {a} against {a}")
    if winner not in (a, b):
        raise BracketError(f"the winner {winner} is not one of the pair {a} and {b}")
    return _check_bouts(bouts)


# ---------------------------------------------------------------- events


def coin_order_for(entrants: Sequence[str], seed: int = 0) -> list[str]:
    """The recorded coin flips: a permutation of the entrants from ``seed``.

    Whenever a tie reaches the coin flip, the tied sides are ordered as they
    appear in this list.
    """
    order = list(entrants)
    random.Random(seed).shuffle(order)
    return order


def created_event(fmt: str, entrants: Sequence[str], options: Mapping | None = None) -> dict:
    """Decide the creation: validate and record the coin-flip order."""
    fmt, ents, opts = validate_creation(fmt, entrants, options)
    return {
        "type": CREATED,
        "data": {
            "format": fmt,
            "entrants": list(ents),
            "options": opts,
            "coin_order": coin_order_for(ents, opts.get("seed", 0)),
        },
    }


def result_event(state: Bracket, a: str, b: str, winner: str, bouts: Sequence[int]) -> dict:
    """Decide a result: the ``series_result`` event, or BracketError."""
    bouts_t = _check_result_shape(state.entrants, a, b, winner, bouts)
    target = _find_pending(state, a, b)
    return {
        "type": RESULT,
        "data": {"series": target.id, "a": a, "b": b, "winner": winner, "bouts": list(bouts_t)},
    }


def _event_parts(event: Any) -> tuple[str, Mapping]:
    if isinstance(event, Mapping):
        return event.get("type"), event.get("data") or {}
    return getattr(event, "type", None), getattr(event, "data", None) or {}


def evolve(state: Bracket | None, event: Any) -> Bracket:
    """Fold one event (a mapping {type, data} or an object with .type/.data)."""
    etype, data = _event_parts(event)
    if etype == CREATED:
        if state is not None:
            raise BracketError("the bracket was already created")
        fmt, ents, opts = validate_creation(
            data.get("format"), data.get("entrants"), data.get("options")
        )
        coin = data.get("coin_order")
        if coin is None:
            coin = coin_order_for(ents, opts.get("seed", 0))
        if sorted(coin) != sorted(ents):
            raise BracketError("the recorded coin order must list every entrant once")
        base = Bracket(
            format=fmt,
            entrants=ents,
            options=tuple(sorted(opts.items())),
            coin_order=tuple(coin),
        )
        return _derive(base, ())
    if etype == RESULT:
        if state is None:
            raise BracketError("no bracket: the first event must be bracket_created")
        a, b, winner = data.get("a"), data.get("b"), data.get("winner")
        bouts = _check_result_shape(state.entrants, a, b, winner, data.get("bouts"))
        target = _find_pending(state, a, b, data.get("series"))
        res = Result(target.id, a, b, winner, bouts)
        return _derive(state, state.results + (res,))
    raise BracketError(f"unknown bracket event {etype!r}")


def fold(events: Iterable[Any]) -> Bracket:
    state = None
    for e in events:
        state = evolve(state, e)
    if state is None:
        raise BracketError("no bracket: there are no events")
    return state


def create(fmt: str, entrants: Sequence[str], options: Mapping | None = None) -> Bracket:
    return evolve(None, created_event(fmt, entrants, options))


def apply_result(
    state: Bracket, a: str, b: str, winner: str, bouts: Sequence[int] = (0, 0)
) -> Bracket:
    return evolve(state, result_event(state, a, b, winner, bouts))


def events_of(state: Bracket) -> list[dict]:
    """The events that rebuild ``state`` (creation, then each result)."""
    created = {
        "type": CREATED,
        "data": {
            "format": state.format,
            "entrants": list(state.entrants),
            "options": state.opts,
            "coin_order": list(state.coin_order),
        },
    }
    return [created] + [{"type": RESULT, "data": r.to_event_data()} for r in state.results]


def _replay(state: Bracket, results: Iterable[Result]) -> tuple[Bracket, list[str]]:
    """Rebuild from creation with ``results`` in order, dropping any result
    whose series is no longer pending with the same two sides."""
    new = _derive(state, ())
    dropped = []
    for r in results:
        ids = {s.id: s for s in new.series if s.pending}
        s = ids.get(r.series)
        if s is None or {s.a, s.b} != {r.a, r.b}:
            dropped.append(r.series)
            continue
        new = _derive(new, new.results + (r,))
    return new, dropped


def reset_from(state: Bracket, series_id: str) -> Bracket:
    """Void the result of ``series_id`` and every later result that depended
    on it (its series is no longer pending with the same sides once the
    voided result is gone); those series are pending again or unknown."""
    return _reset(state, series_id)[0]


def dependents(state: Bracket, series_id: str) -> list[str]:
    """The series ids whose results :func:`reset_from` would void (the
    series itself first)."""
    return _reset(state, series_id)[1]


def _reset(state: Bracket, series_id: str) -> tuple[Bracket, list[str]]:
    idx = next((i for i, r in enumerate(state.results) if r.series == series_id), None)
    if idx is None:
        known = next((s for s in state.series if s.id == series_id), None)
        if known is not None and known.bye:
            raise BracketError(f"{known.label()} is a bye: there is no result to void")
        raise BracketError(f"no result is recorded for series {series_id}")
    kept = state.results[:idx] + state.results[idx + 1 :]
    new, dropped = _replay(state, kept)
    return new, [series_id] + dropped


# ---------------------------------------------------------------- reads


def series_list(state: Bracket) -> list[Series]:
    return list(state.series)


def pending_series(state: Bracket) -> list[Series]:
    return [s for s in state.series if s.pending]


def standings(state: Bracket) -> list[str]:
    return list(state.standings)


def champion(state: Bracket) -> str | None:
    return state.champion


def output(state: Bracket) -> dict:
    """The object ``manage.py bracket`` prints."""
    return {
        "series": [s.as_dict() for s in state.series],
        "standings": list(state.standings),
        "champion": state.champion,
    }


def _find_pending(state: Bracket, a: str, b: str, series_id: str | None = None) -> Series:
    pair = {a, b}
    for s in state.series:
        if s.pending and {s.a, s.b} == pair and (series_id is None or s.id == series_id):
            return s
    raise BracketError(_not_pending_message(state, a, b, series_id))


def _not_pending_message(state: Bracket, a: str, b: str, series_id: str | None) -> str:
    pair = {a, b}
    same = [s for s in state.series if s.b is not None and {s.a, s.b} == pair]
    if series_id is not None:
        head = f"series {series_id} between {a} and {b} is not pending"
    else:
        head = f"no series between {a} and {b} is pending"
    done = [s for s in same if not s.pending]
    if done:
        head += "; " + ", ".join(f"{s.label()} was already won by {s.winner}" for s in done)
    if state.champion is not None:
        head += f"; the bracket is over ({state.champion} is the champion)"
    else:
        pend = pending_series(state)
        if pend:
            shown = ", ".join(s.label() for s in pend[:6]) + (", ..." if len(pend) > 6 else "")
            head += f"; pending: {shown}"
    return head


# ---------------------------------------------------------------- derivation


def _derive(state: Bracket, results: tuple[Result, ...]) -> Bracket:
    played = {r.series: r for r in results}
    builder = {
        "single": _build_single,
        "double": _build_double,
        "round_robin": _build_round_robin,
        "swiss": _build_swiss,
    }[state.format]
    series, stand, champ, ended_early = builder(state, played)
    return Bracket(
        format=state.format,
        entrants=state.entrants,
        options=state.options,
        coin_order=state.coin_order,
        results=results,
        series=tuple(series),
        standings=tuple(stand),
        champion=champ,
        ended_early=ended_early,
        version=1 + len(results),
    )


def _make(sid: str, rnd: str, a: str, b: str, played: Mapping[str, Result]) -> Series:
    """A two-sided series, decided if a result for it (same sides) exists."""
    r = played.get(sid)
    if r is None or {r.a, r.b} != {a, b}:
        return Series(sid, rnd, a, b)
    bouts = r.bouts if r.a == a else (r.bouts[1], r.bouts[0])
    return Series(sid, rnd, a, b, r.winner, bouts)


def seed_order(size: int) -> list[int]:
    """The standard bracket order of seeds for a power-of-two ``size``."""
    order = [1, 2]
    while len(order) < size:
        m = 2 * len(order)
        order = [x for s in order for x in (s, m + 1 - s)]
    return order[:size] if size >= 2 else [1]


def _size(n: int) -> int:
    size = 1
    while size < n:
        size *= 2
    return max(size, 2)


@dataclass
class _Tree:
    series: list[Series]
    losers: list[list]  # per round, per match: loser name, None (bye) or TBD
    reached: dict  # side -> furthest round it was placed in (k+1: won the final)
    lost_in: dict  # side -> round it lost
    champion: Any  # name or TBD
    k: int


def _elimination_tree(state: Bracket, played: Mapping[str, Result], label: str) -> _Tree:
    ents = state.entrants
    n = len(ents)
    size = _size(n)
    k = size.bit_length() - 1
    seed = {e: i for i, e in enumerate(ents)}
    current: list = [ents[s - 1] if s <= n else None for s in seed_order(size)]
    reached = {e: 1 for e in ents}
    lost_in: dict = {}
    series: list[Series] = []
    losers: list[list] = []
    for r in range(1, k + 1):
        rnd = f"{label}{r}"
        nxt: list = []
        lost: list = []
        for i in range(len(current) // 2):
            x, y = current[2 * i], current[2 * i + 1]
            sid = f"{rnd}-{i + 1}"
            if x is TBD or y is TBD:
                nxt.append(TBD)
                lost.append(TBD)
            elif x is None or y is None:
                side = x if y is None else y
                series.append(Series(sid, rnd, side, None, side))
                nxt.append(side)
                lost.append(None)
            else:
                a, b = sorted((x, y), key=seed.__getitem__)
                s = _make(sid, rnd, a, b, played)
                series.append(s)
                if s.winner is None:
                    nxt.append(TBD)
                    lost.append(TBD)
                else:
                    nxt.append(s.winner)
                    lost.append(s.loser)
                    lost_in[s.loser] = r
        for side in nxt:
            if side is not TBD and side is not None:
                reached[side] = r + 1
        losers.append(lost)
        current = nxt
    return _Tree(series, losers, reached, lost_in, current[0], k)


# ------------------------------------------------------------ single elimination


def _build_single(state: Bracket, played: Mapping[str, Result]):
    tree = _elimination_tree(state, played, "R")
    series = list(tree.series)
    k = tree.k
    third: dict = {}
    if state.opts.get("third_place", False) and k >= 2:
        semis = [s for s in series if s.round == f"R{k - 1}"]
        if len(semis) == 2 and not any(s.bye for s in semis) and all(s.winner for s in semis):
            x, y = semis[0].loser, semis[1].loser
            a, b = sorted((x, y), key=state.entrants.index)
            s3 = _make("3P", "3P", a, b, played)
            series.append(s3)
            if s3.winner:
                third = {s3.winner: 0, s3.loser: 1}
    champ = tree.champion if tree.champion is not TBD else None

    def key(e):
        return (-tree.reached[e], 1 if e in tree.lost_in else 0, third.get(e, 0), state.seed_of(e))

    stand = sorted(state.entrants, key=key)
    return series, stand, champ, False


# ------------------------------------------------------------ double elimination


def _lb_entry(j: int) -> int:
    """The losers-bracket round that the losers of winners round ``j`` enter."""
    return 1 if j == 1 else 2 * (j - 1)


@dataclass
class _DoubleBuild:
    """What building a double elimination gathers as it goes: the series so
    far, the pairs that have met, and the level at which each side was
    eliminated (a losers round, or the grand final's)."""

    played: Mapping[str, Result]
    seed: dict  # side -> its seed index
    series: list[Series]
    met: set
    elim: dict

    def play(self, sid: str, rnd: str, x: str, y: str) -> Series:
        """The series of ``x`` and ``y`` (better seed first), added."""
        a, b = sorted((x, y), key=self.seed.__getitem__)
        s = _make(sid, rnd, a, b, self.played)
        self.series.append(s)
        return s


def _lb_pairs(r: int, prev: list, losers: list[list]) -> tuple[list, str]:
    """Losers round ``r`` paired by bracket slot, before any repeated meeting
    is avoided, and the kind of round: "among" its own field, or "drop"
    (the survivors against the next winners round's losers, reversed)."""
    if r == 1:
        slots = losers[0]
        return [(slots[2 * i], slots[2 * i + 1]) for i in range(len(slots) // 2)], "among"
    if r % 2 == 0:
        newcomers = losers[r // 2]  # winners round r//2 + 1
        m = len(newcomers)
        return [(prev[i], newcomers[m - 1 - i]) for i in range(m)], "drop"
    return [(prev[2 * i], prev[2 * i + 1]) for i in range(len(prev) // 2)], "among"


def _play_lb_round(build: _DoubleBuild, r: int, pairs: list) -> list:
    """Losers round ``r``'s series; the side each pair sends on (None: an
    empty pair, TBD: not played yet)."""
    rnd = f"L{r}"
    out: list = []
    for i, (x, y) in enumerate(pairs):
        sid = f"{rnd}-{i + 1}"
        if x is None and y is None:
            out.append(None)
        elif x is None or y is None:
            side = x if y is None else y
            build.series.append(Series(sid, rnd, side, None, side))
            out.append(side)
        else:
            s = build.play(sid, rnd, x, y)
            build.met.add(frozenset((s.a, s.b)))
            if s.winner is None:
                out.append(TBD)
            else:
                out.append(s.winner)
                build.elim[s.loser] = r
    return out


def _losers_bracket(build: _DoubleBuild, tree: _Tree) -> tuple[Any, dict]:
    """Losers rounds L1..L(2k-2): (their champion, or TBD; side -> the losers
    round it is in, alive)."""
    lb_rounds = 2 * (tree.k - 1)
    lb_level: dict = {}
    if tree.k == 1:
        lb_champ = tree.losers[0][0]
        if lb_champ is not TBD:
            lb_level[lb_champ] = 0
        return lb_champ, lb_level
    prev: list = []
    for r in range(1, lb_rounds + 1):
        pairs, kind = _lb_pairs(r, prev, tree.losers)
        for x, y in pairs:
            for side in (x, y):
                if side is not TBD and side is not None:
                    lb_level[side] = r
        if any(x is TBD or y is TBD for x, y in pairs):
            prev = [TBD] * len(pairs)
            continue
        prev = _play_lb_round(build, r, _avoid_rematches(pairs, kind, build.met))
    lb_champ = prev[0] if prev else TBD
    if lb_champ is not TBD and lb_champ is not None:
        lb_level[lb_champ] = lb_rounds + 0.5
    return lb_champ, lb_level


def _grand_final(
    build: _DoubleBuild, wb_champ: Any, lb_champ: Any, gf_level: int, reset: bool
) -> tuple[str | None, dict]:
    """GF, and GF2 with ``reset`` when the losers-bracket side wins GF:
    (the champion or None; side -> the final's level it plays at)."""
    gf2_level = gf_level + 1
    if wb_champ is TBD:
        return None, {}
    if lb_champ is TBD or lb_champ is None:
        return None, {wb_champ: gf_level}
    gf = build.play("GF", "GF", wb_champ, lb_champ)
    in_final = {gf.a: gf_level, gf.b: gf_level}
    if gf.winner == wb_champ:
        build.elim[lb_champ] = gf_level
        return wb_champ, in_final
    if gf.winner != lb_champ:
        return None, in_final
    if not reset:
        build.elim[wb_champ] = gf_level
        return lb_champ, in_final
    gf2 = build.play("GF2", "GF2", wb_champ, lb_champ)
    in_final = {gf2.a: gf2_level, gf2.b: gf2_level}
    if gf2.winner:
        build.elim[gf2.loser] = gf2_level
    return gf2.winner, in_final


def _build_double(state: Bracket, played: Mapping[str, Result]):
    """Winners bracket W1..Wk as in single elimination; losers bracket
    L1..L(2k-2): L1 pairs the W1 losers by bracket slot (slot 2i against
    2i+1, a missing loser gives a bye), then rounds alternate between the
    survivors against the next winners round's losers in reverse bracket
    order (survivor i against the loser of match m-1-i) and the survivors
    among themselves (adjacent). A losers round is paired once its whole
    field is known, so that a repeated meeting can be avoided when another
    pairing of that round avoids it (:func:`_avoid_rematches`). Then GF and,
    with ``grand_final_reset`` (default on) when the losers-bracket side wins
    it, GF2. Standings: the champion, then by the stage each side got to (a
    side still playing above one eliminated at the same stage), ties by seed.
    """
    tree = _elimination_tree(state, played, "W")
    seed = {e: i for i, e in enumerate(state.entrants)}
    series = list(tree.series)
    met = {frozenset((s.a, s.b)) for s in series if s.b is not None}
    build = _DoubleBuild(played, seed, series, met, elim={})
    lb_champ, lb_level = _losers_bracket(build, tree)
    lb_rounds = 2 * (tree.k - 1)
    gf_level, top = lb_rounds + 1, lb_rounds + 3
    reset = state.opts.get("grand_final_reset", True)
    champ, in_final = _grand_final(build, tree.champion, lb_champ, gf_level, reset)
    elim = build.elim

    def key(e):
        if e == champ:
            return (-top, 0, seed[e])
        if e in elim:
            return (-elim[e], 3, seed[e])
        if e in in_final:
            return (-in_final[e], 0, seed[e])
        if e not in tree.lost_in:  # still in the winners bracket
            return (-_lb_entry(tree.reached[e]), 1, seed[e])
        return (-lb_level.get(e, 0), 2, seed[e])

    stand = sorted(state.entrants, key=key)
    return series, stand, champ, False


_SEARCH_BUDGET = 200_000


def _avoid_rematches(pairs: list, kind: str, met: set) -> list:
    """Keep the bracket's pairing unless it repeats a meeting that another
    pairing of the same round avoids; then take the pairing with the fewest
    repeats, the nearest to the bracket's own in search order. Byes stay."""
    idx = [i for i, (x, y) in enumerate(pairs) if x is not None and y is not None]

    def repeats(ps):
        return sum(frozenset(p) in met for p in ps)

    base = [pairs[i] for i in idx]
    if repeats(base) == 0 or len(base) < 2:
        return pairs
    best = [repeats(base), base]
    budget = [_SEARCH_BUDGET]

    if kind == "drop":
        xs = [p[0] for p in base]
        ys = [p[1] for p in base]

        def dfs(i, used, acc, cost):
            budget[0] -= 1
            if cost >= best[0] or budget[0] < 0:
                return
            if i == len(xs):
                best[0], best[1] = cost, list(acc)
                return
            order = [i] + [j for j in range(len(ys)) if j != i]
            for j in order:
                if j in used:
                    continue
                c = cost + (frozenset((xs[i], ys[j])) in met)
                acc.append((xs[i], ys[j]))
                used.add(j)
                dfs(i + 1, used, acc, c)
                used.discard(j)
                acc.pop()
                if best[0] == 0:
                    return

        dfs(0, set(), [], 0)
    else:
        sides = [s for p in base for s in p]
        partner = {}
        for x, y in base:
            partner[x], partner[y] = y, x

        def dfs2(free, acc, cost):
            budget[0] -= 1
            if cost >= best[0] or budget[0] < 0:
                return
            if not free:
                best[0], best[1] = cost, list(acc)
                return
            x = free[0]
            rest = free[1:]
            cands = [partner[x]] if partner[x] in rest else []
            cands += [y for y in rest if y != partner[x]]
            for y in cands:
                c = cost + (frozenset((x, y)) in met)
                acc.append((x, y))
                dfs2([z for z in rest if z != y], acc, c)
                acc.pop()
                if best[0] == 0:
                    return

        dfs2(sides, [], 0)
    out = list(pairs)
    for i, p in zip(idx, best[1], strict=True):
        out[i] = p
    return out


# ------------------------------------------------------------ round robin


def circle_rounds(entrants: Sequence[str]) -> list[list[tuple]]:
    """The circle method: the first entrant fixed, the others rotating one
    place each round; an odd count adds a bye (None). Each pair is (home,
    away): the side at position i against the side at position m-1-i."""
    p: list = list(entrants) + ([None] if len(entrants) % 2 else [])
    m = len(p)
    rounds = []
    for _ in range(m - 1):
        rounds.append([(p[i], p[m - 1 - i]) for i in range(m // 2)])
        p = [p[0], p[-1]] + p[1:-1]
    return rounds


@dataclass
class _Stats:
    wins: dict
    bouts_for: dict
    bouts_against: dict
    beat: dict  # (winner, loser) -> count
    opponents: dict  # side -> list of opponents of decided series


def _stats(entrants: Sequence[str], series: Iterable[Series]) -> _Stats:
    st = _Stats(
        {e: 0 for e in entrants},
        {e: 0 for e in entrants},
        {e: 0 for e in entrants},
        {},
        {e: [] for e in entrants},
    )
    for s in series:
        if s.winner is None or s.b is None:
            continue
        st.wins[s.winner] += 1
        ba, bb = s.bouts
        st.bouts_for[s.a] += ba
        st.bouts_against[s.a] += bb
        st.bouts_for[s.b] += bb
        st.bouts_against[s.b] += ba
        st.beat[(s.winner, s.loser)] = st.beat.get((s.winner, s.loser), 0) + 1
        st.opponents[s.a].append(s.b)
        st.opponents[s.b].append(s.a)
    return st


def _build_round_robin(state: Bracket, played: Mapping[str, Result]):
    legs = circle_rounds(state.entrants)
    rounds = list(legs)
    if state.opts.get("double_round", False):
        rounds += [[(y, x) for (x, y) in pairs] for pairs in legs]
    series = []
    for r, pairs in enumerate(rounds, 1):
        rnd = f"R{r}"
        for i, (x, y) in enumerate(pairs, 1):
            sid = f"{rnd}-{i}"
            if x is None or y is None:
                side = x if y is None else y
                series.append(Series(sid, rnd, side, None, side))
            else:
                series.append(_make(sid, rnd, x, y, played))
    st = _stats(state.entrants, series)
    stand = round_robin_order(state.entrants, st, state.coin_order)
    champ = stand[0] if not any(s.pending for s in series) else None
    return series, stand, champ, False


def round_robin_order(entrants: Sequence[str], st: _Stats, coin: Sequence[str]) -> list[str]:
    """Series won; then, once per group tied on series won, series won among
    the group; then bout difference; then bouts won; then the coin order."""
    coin_idx = {e: i for i, e in enumerate(coin)}
    out: list[str] = []
    by_wins = sorted(entrants, key=lambda e: -st.wins[e])
    for _, grp in itertools.groupby(by_wins, key=lambda e: st.wins[e]):
        grp = list(grp)
        h2h = {e: sum(st.beat.get((e, o), 0) for o in grp if o != e) for e in grp}
        out.extend(
            sorted(
                grp,
                key=lambda e: (
                    -h2h[e],
                    -(st.bouts_for[e] - st.bouts_against[e]),
                    -st.bouts_for[e],
                    coin_idx[e],
                ),
            )
        )
    return out


# ------------------------------------------------------------ Swiss


def swiss_rounds(n: int, options: Mapping) -> int:
    return options.get("rounds") or max(1, math.ceil(math.log2(n)))


def _swiss_keys(entrants, st: _Stats, byes: set):
    wins = {e: st.wins[e] + (1 if e in byes else 0) for e in entrants}
    keys = {}
    for e in entrants:
        opp = [wins[o] for o in st.opponents[e]]
        buch = sum(opp)
        med = buch - max(opp) - min(opp) if len(opp) >= 3 else 0
        keys[e] = (wins[e], buch, med, st.bouts_for[e] - st.bouts_against[e])
    return keys


def swiss_table(state: Bracket) -> list[dict]:
    """Each side's Swiss tie-break values, best first."""
    byes = {s.a for s in state.series if s.bye}
    st = _stats(state.entrants, state.series)
    keys = _swiss_keys(state.entrants, st, byes)
    return [
        {
            "side": e,
            "series_won": keys[e][0],
            "buchholz": keys[e][1],
            "median_buchholz": keys[e][2],
            "bout_difference": keys[e][3],
            "coin": state.coin_order.index(e),
        }
        for e in state.standings
    ]


def _build_swiss(state: Bracket, played: Mapping[str, Result]):
    ents = state.entrants
    total = swiss_rounds(len(ents), state.opts)
    seed = {e: i for i, e in enumerate(ents)}
    series: list[Series] = []
    byes: set = set()
    met: set = set()
    ended_early = False
    for r in range(1, total + 1):
        st = _stats(ents, series)
        keys = _swiss_keys(ents, st, byes)
        ranking = sorted(ents, key=lambda e: (tuple(-v for v in keys[e]), seed[e]))
        wins = {e: keys[e][0] for e in ents}
        paired = swiss_pairing(ranking, wins, met, byes)
        if paired is None:
            ended_early = True
            break
        pairs, bye = paired
        rnd = f"R{r}"
        rank = {e: i for i, e in enumerate(ranking)}
        pairs = sorted(
            (tuple(sorted(p, key=rank.__getitem__)) for p in pairs), key=lambda p: rank[p[0]]
        )
        round_series = [_make(f"{rnd}-{i}", rnd, a, b, played) for i, (a, b) in enumerate(pairs, 1)]
        if bye is not None:
            round_series.append(Series(f"{rnd}-{len(pairs) + 1}", rnd, bye, None, bye))
            byes.add(bye)
        for a, b in pairs:
            met.add(frozenset((a, b)))
        series.extend(round_series)
        if any(s.pending for s in round_series):
            break
    st = _stats(ents, series)
    keys = _swiss_keys(ents, st, byes)
    coin = {e: i for i, e in enumerate(state.coin_order)}
    stand = sorted(ents, key=lambda e: (tuple(-v for v in keys[e]), coin[e]))
    champ = stand[0] if not any(s.pending for s in series) else None
    return series, stand, champ, ended_early


class _Pairable:
    """Which sets of sides can be paired among themselves without repeating a
    meeting: a set is a bit mask over the ranking, each answer memoised."""

    def __init__(self, ranking: Sequence[str], met: set):
        self.pos = {e: i for i, e in enumerate(ranking)}
        self.bits = {e: 1 << i for i, e in enumerate(ranking)}
        self.ok = [[frozenset((x, y)) not in met for y in ranking] for x in ranking]
        self.full = (1 << len(ranking)) - 1
        self._memo: dict[int, bool] = {0: True}

    def feasible(self, mask: int) -> bool:
        if mask in self._memo:
            return self._memo[mask]
        low = mask & -mask
        i = low.bit_length() - 1
        rest = mask ^ low
        res = False
        m = rest
        while m:
            lb = m & -m
            j = lb.bit_length() - 1
            if self.ok[i][j] and self.feasible(rest ^ lb):
                res = True
                break
            m ^= lb
        self._memo[mask] = res
        return res

    def mask_of(self, sides) -> int:
        m = 0
        for s in sides:
            m |= self.bits[s]
        return m


def _swiss_bye(ranking: Sequence[str], had_bye: set, p: _Pairable) -> str | None:
    """The lowest-ranked side without a bye whose bye leaves the rest
    pairable (None: no such side)."""
    for cand in reversed(ranking):
        if cand not in had_bye and p.feasible(p.full ^ p.bits[cand]):
            return cand
    return None


def _floaters(pool: list[str], lower: list[str], p: _Pairable) -> list[str]:
    """The fewest and lowest-ranked sides of ``pool`` to send down, so that
    both what stays and the groups below (with them) can be paired."""
    lower_mask = p.mask_of(lower)
    for size in range(len(pool) % 2, len(pool) + 1, 2):
        for combo in itertools.combinations(list(reversed(pool)), size):
            inner = p.mask_of(pool) ^ p.mask_of(combo)
            if p.feasible(inner) and p.feasible(lower_mask | p.mask_of(combo)):
                return list(combo)
    raise AssertionError("the whole rest was feasible")  # pragma: no cover


def swiss_pairing(ranking: Sequence[str], wins: Mapping[str, int], met: set, had_bye: set):
    """Pair one Swiss round. Returns (pairs, bye) or None when every pairing
    would repeat a meeting (the event then ends early).

    The bye goes to the lowest-ranked side without one (the next one up only
    if that bye would leave no pairing without repeats). Score groups are
    paired top half against bottom half in ranking order; an odd group sends
    its lowest-ranked side down (into the next group, above its sides); when
    a group cannot be paired without a repeat, the fewest and lowest-ranked
    sides that make it possible move down instead. Within a group the
    highest-ranked side takes the first opponent of the bottom half that
    still lets the rest be paired, and so on down."""
    p = _Pairable(ranking, met)
    bye = None
    pool_all = list(ranking)
    if len(ranking) % 2:
        bye = _swiss_bye(ranking, had_bye, p)
        if bye is None:
            return None
        pool_all.remove(bye)
    elif not p.feasible(p.full):
        return None

    groups = [list(g) for _, g in itertools.groupby(pool_all, key=lambda e: wins[e])]
    pairs: list[tuple[str, str]] = []
    carry: list[str] = []
    for gi, grp in enumerate(groups):
        pool = sorted(carry + grp, key=p.pos.__getitem__)
        lower = [s for g in groups[gi + 1 :] for s in g]
        floaters = [] if gi == len(groups) - 1 else _floaters(pool, lower, p)
        inner_sides = [s for s in pool if s not in floaters]
        pairs.extend(_pair_group(inner_sides, p))
        carry = sorted(floaters, key=p.pos.__getitem__)
    return pairs, bye


def _pair_group(sides, p: _Pairable):
    """Top half against bottom half, deviating as little as the order of
    choice allows when a meeting would repeat."""
    half = len(sides) // 2
    top, bottom = sides[:half], sides[half:]
    free = list(sides)
    pairs = []
    while free:
        x = free[0]
        rest = free[1:]
        cands = [y for y in bottom if y in rest] + [y for y in top if y in rest]
        for y in cands:
            if p.ok[p.pos[x]][p.pos[y]] and p.feasible(p.mask_of([z for z in rest if z != y])):
                pairs.append((x, y))
                free = [z for z in rest if z != y]
                break
        else:  # pragma: no cover - feasibility was checked before
            raise AssertionError("no pairing for " + x)
    return pairs


# ---------------------------------------------------------------- files


def parse_doc(doc: Any) -> tuple[str, tuple, dict, list[dict]]:
    """Validate a bracket file's object; raise MalformedBracket."""
    if not isinstance(doc, Mapping):
        raise MalformedBracket("the file must hold a JSON object")
    if "format" not in doc:
        raise MalformedBracket("the file needs a format")
    if "entrants" not in doc:
        raise MalformedBracket("the file needs a list of entrants")
    fmt, ents, opts = validate_creation(doc.get("format"), doc.get("entrants"), doc.get("options"))
    results = doc.get("results", [])
    if results is None:
        results = []
    if not isinstance(results, list):
        raise MalformedBracket("results must be a list")
    for i, r in enumerate(results, 1):
        if not isinstance(r, Mapping):
            raise MalformedBracket(f"result {i} must be an object with a, b, winner and bouts")
        for key in ("a", "b", "winner", "bouts"):
            if key not in r:
                raise MalformedBracket(f"result {i} has no {key}")
        try:
            _check_result_shape(ents, r["a"], r["b"], r["winner"], r["bouts"])
        except MalformedBracket:
            raise
        except BracketError as exc:
            raise MalformedBracket(f"result {i}: {exc}") from None
    expect = doc.get("expect")
    if expect is not None and not isinstance(expect, Mapping):
        raise MalformedBracket("expect must be an object")
    return fmt, ents, opts, list(results)


def run(doc: Any) -> tuple[dict, list[str], Bracket]:
    """Play a bracket file's object: (output, problems, state). Problems are
    refused results (the run stops at the first); MalformedBracket when the
    file itself is wrong."""
    fmt, ents, opts, results = parse_doc(doc)
    state = create(fmt, ents, opts)
    problems = []
    for i, r in enumerate(results, 1):
        try:
            state = apply_result(state, r["a"], r["b"], r["winner"], r["bouts"])
        except BracketError as exc:
            problems.append(f"result {i} ({r['a']} vs {r['b']}): {exc}")
            break
    return output(state), problems, state


def compare(out: Mapping[str, Any], expect: Mapping[str, Any]) -> list[str]:
    """Every mismatch between an output and an ``expect`` (its keys only)."""
    problems = []
    for key, want in expect.items():
        if key not in out:
            problems.append(f"unknown expect key {key!r}")
            continue
        got = out[key]
        if key == "series" and isinstance(want, list):
            for i, (g, w) in enumerate(zip(got, want, strict=False), 1):
                if g != w:
                    problems.append(f"series {i}: expected {json.dumps(w)}, got {json.dumps(g)}")
            if len(got) != len(want):
                extra = got[len(want) :] if len(got) > len(want) else want[len(got) :]
                which = "unexpected" if len(got) > len(want) else "missing"
                problems.append(
                    f"series: expected {len(want)} entries, got {len(got)}; {which}: "
                    + json.dumps(extra)
                )
        elif got != want:
            problems.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(got)}")
    return problems


def run_file(path: str | Path) -> tuple[dict, list[str]]:
    """Run one bracket file: (output, problems). Problems are refused results
    and mismatches with the file's ``expect``; MalformedBracket (exit 2) when
    the file cannot be read or is malformed."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except OSError as exc:
        raise MalformedBracket(f"{path}: cannot read the file ({exc.strerror or exc})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedBracket(f"{path}: not valid JSON ({exc})") from None
    try:
        out, problems, _ = run(doc)
    except MalformedBracket as exc:
        raise MalformedBracket(f"{path}: {exc}") from None
    problems = list(problems) + compare(out, doc.get("expect") or {})
    return out, problems


def main(argv: Sequence[str], stdout=None, stderr=None) -> int:
    """``manage.py bracket FILE [FILE ...]``: print the output (a JSON list
    when several files), name every problem on stderr. Exit 0; 1 when a
    result is refused or an ``expect`` does not match; 2 when a file is
    malformed (or no file is given)."""
    import sys

    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    if not argv:
        stderr.write("usage: manage.py bracket FILE.json [FILE.json ...]\n")
        return 2
    code = 0
    outs = []
    for p in argv:
        try:
            out, problems = run_file(p)
        except MalformedBracket as exc:
            stderr.write(f"malformed bracket file: {exc}\n")
            code = 2
            continue
        outs.append(out)
        for msg in problems:
            stderr.write(f"{p}: {msg}\n")
        if problems:
            code = max(code, 1)
    if outs:
        payload = outs[0] if len(argv) == 1 else outs
        stdout.write(json.dumps(payload, indent=1) + "\n")
    return code
