"""What a game supplies: the rules of one bout, as a pure object.

The series layer (series.py) wraps a ``BoutRules`` into a whole match, so
first-to-N, first-player choice and alternation, drawn bouts and
match-scoped items are written once for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .protocol import Ctx, Decision, Event, Outcome, RuleError, Viewer

# How the first player of the next bout is found.
FIRST_ALTERNATES = "alternate"  # rotates one seat on, in seat order
FIRST_WINNER = "winner"  # the previous bout's winner (tied winners: recorded random pick)
FIRST_NONE = "none"  # the game has no first player


@dataclass(frozen=True)
class OptionSpec:
    default: Any
    help: str
    validate: Callable[[Any], bool] | None = None
    # a whole number's bounds, said when a value is refused
    lo: int | None = None
    hi: int | None = None

    def check(self, name: str, value: Any) -> Any:
        if self.validate is None or self.validate(value):
            return value
        if self.lo is not None and self.hi is not None:
            raise RuleError("must be a whole number from {lo} to {hi}", lo=self.lo, hi=self.hi)
        raise RuleError("invalid value for option {name}: {value!r}", name=name, value=value)


def int_option(default: int, help: str, lo: int, hi: int) -> OptionSpec:
    return OptionSpec(
        default,
        help,
        lambda v: isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi,
        lo,
        hi,
    )


class BoutRules:
    """Base class of every game's rules. Override the methods marked so."""

    slug: str = ""
    name: str = ""
    min_seats: int = 2
    max_seats: int = 2
    options: Mapping[str, OptionSpec] = {}
    first_player: str = FIRST_ALTERNATES
    # items whose holder chooses the first player of bout 1
    chooser_items: frozenset[str] = frozenset()
    # every item this game knows (slug -> short rules text)
    items: Mapping[str, str] = {}
    # items that may be declared (use_item) while bout 1's first player is
    # chosen; they are in use from that bout's start
    early_items: frozenset[str] = frozenset()
    # command type -> the fields it may carry besides ``type`` (a command
    # with any other field is refused before the game sees it)
    command_fields: Mapping[str, frozenset[str]] = {}
    rules_template: str = ""

    # ---- options -------------------------------------------------------
    def resolve_options(self, given: Mapping[str, Any] | None, n_seats: int) -> dict:
        given = dict(given or {})
        unknown = set(given) - set(self.options) - {"first_to"}
        if unknown:
            raise RuleError(
                "unknown option(s) for {name}: {unknown}",
                name=self.name,
                unknown=", ".join(sorted(unknown)),
            )
        out = {}
        for name, spec in self.options.items():
            value = given.get(name, spec.default)
            try:
                out[name] = spec.check(name, value)
            except RuleError as exc:
                raise RuleError("option {name}: {exc}", name=name, exc=exc) from None
        first_to = given.get("first_to", self.default_first_to(out, n_seats))
        if not isinstance(first_to, int) or isinstance(first_to, bool) or first_to < 1:
            raise RuleError("option first_to: must be a whole number of at least 1")
        out["first_to"] = first_to
        return out

    def default_first_to(self, options: Mapping[str, Any], n_seats: int) -> int:
        """Override: what a side must score to win the series."""
        return 1

    # ---- the bout ------------------------------------------------------
    def setup_first(self, setup: Mapping[str, Any]) -> str | None:
        """Which seat a stacked setup names as first (scenario files)."""
        return setup.get("first")

    def start(
        self,
        ctx: Ctx,
        seats: tuple[str, ...],
        options: Mapping[str, Any],
        first: str | None,
        items: Mapping[str, tuple[str, ...]],
        setup: Mapping[str, Any] | None,
        bout_no: int,
    ) -> list[Event]:
        """Override: the events that open a bout (the shuffle, recorded).

        With a ``setup`` (scenarios, tests) the named cards are stacked on
        top and the rest shuffled with ``ctx.rng``.  The first event must
        let ``evolve(None, event)`` build the bout state.
        """
        raise NotImplementedError

    def evolve(self, state: Any, event: Event) -> Any:
        raise NotImplementedError

    def decide(self, state: Any, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        raise NotImplementedError

    def timeout(self, state: Any, decision: Decision, ctx: Ctx) -> list[Event]:
        """Override: the ruled consequence of ``decision`` reaching its deadline."""
        raise NotImplementedError

    def view(self, state: Any, viewer: Viewer) -> dict:
        raise NotImplementedError

    def pending(self, state: Any) -> list[Decision]:
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        raise NotImplementedError

    def scenario_scores(self, state: Any) -> dict[str, int]:
        """Override where a scenario's ``scores`` are not the bout's points."""
        out = self.outcome(state)
        seats = self.seats_of(state)
        if out is None:
            return {s: 0 for s in seats}
        return {s: int(out.points.get(s, 0)) for s in seats}

    def scenario_winner(self, state: Any) -> str | None:
        out = self.outcome(state)
        if out is None or len(out.winners) != 1:
            return None
        return out.winners[0]

    def seats_of(self, state: Any) -> tuple[str, ...]:
        return tuple(state.seats)

    def series_winners(self, scores: Mapping[str, int], target: int) -> tuple[str, ...]:
        """Who has won the series, given the scores; () while it goes on."""
        best = max(scores.values())
        if best < target:
            return ()
        return tuple(s for s, v in scores.items() if v == best)

    def legal_commands(self, state: Any, seat: str) -> list[dict]:
        """Override: every command ``seat`` may submit now (a representative
        sample where the space is huge, e.g. stakes), each one that changes
        the game. Used by the random bot and by random timeout moves."""
        raise NotImplementedError

    # bots: name -> function(view, seat, rng, legal) -> command, or None to
    # wait (let the clock run); ``view`` is ``self.view(state,
    # Viewer.of_seat(seat))`` so a bot cannot cheat, and ``legal`` is
    # ``self.legal_commands(state, seat)`` (never empty: a seat with nothing
    # legal is not asked).
    bots: Mapping[str, Callable[[dict, str, Any, list], Mapping[str, Any]]] = {}
