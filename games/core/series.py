"""The series layer: a whole match (every bout of it) as one decider.

Every game's ``BoutRules`` is wrapped by ``Series`` so that first-to-N, the
first player (chosen by an advantage holder, else a recorded coin flip, then
alternating or going to the winner), drawn bouts replayed, match-scoped
items and moderator clock pauses are written once.

Series events: ``series_started``, ``first_player_chosen``, ``bout_scored``,
``series_ended``, ``clock_paused``, ``clock_resumed``, ``time_added``,
``time_credit_used``, ``series_forfeited``, ``clock_reanchored``. Every
other event belongs to the current bout. ``clock_reanchored`` (data ``at``, ``since``) is never decided
here: a void ruling carries it, and the clocks then run as they stood at
``since`` from the moment ``at``.

Time added to ONE seat (``add_time`` with ``seat``) is that seat's credit:
its deadlines lie that much later on the wall clock, and nobody else's move.
The credit is spent only by a decision of that seat taken (or timed out)
after the game's own deadline: ``time_credit_used`` then shifts the game
clock by what was spent, so the game sees the decision in time and the next
decision's clock starts when it really was taken. Seats deciding at the same
moment pay the same seconds from their credit, so their deadlines stay put.
Bout events of type ``item_used`` (data ``seat``, ``item``) consume that item.

A seat's ``resign`` (no fields) gives up the whole match: ``series_forfeited``
with ``loser`` that seat and reason ``resigned``, a loss for it as any forfeit
is; open only between two players (``resign_refusal``).

An item granted during the match (by a show's moderator) reaches it as
``item_received`` (data ``seat``, ``item``, ``from_bout``), a system command:
the bout in progress keeps the items it was dealt with, so the item applies
from the next bout to start, ``from_bout``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.frozen import replace

from .fields import check_fields, shown
from .protocol import (
    EVERY_SEAT,
    MODERATOR,
    SEAT,
    Ctx,
    Decision,
    Event,
    Outcome,
    RuleError,
    Viewer,
)
from .rules import FIRST_ALTERNATES, FIRST_NONE, FIRST_WINNER, BoutRules

SERIES_EVENTS = frozenset(
    {
        "series_started",
        "first_player_chosen",
        "bout_scored",
        "series_ended",
        "clock_paused",
        "clock_resumed",
        "time_added",
        "time_credit_used",
        "series_forfeited",
        "series_overturned",
        "bout_replayed",
        "clock_reanchored",
        "item_declared",
        "item_received",
        "player_ready",
        "ready_check_passed",
        "ready_check_expired",
    }
)
READY_EVENTS = frozenset({"player_ready", "ready_check_passed", "ready_check_expired"})
NO_SHOW = "no-show"  # the reason of a forfeit a moderator declares after a ready-check

MAX_ADD_TIME_S = 24 * 3600  # a moderator adds at most a day at once
CREDIT_MARGIN_S = 0.001  # a late decision lives on credit: the game sees it this much in time


# a seat gives up the whole match: it ends at once as a forfeit, a loss for
# that seat (TOURNAMENTS.md, "A series"), the reason recorded as RESIGNED
RESIGN = "resign"
RESIGNED = "resigned"


def resign_refusal(seats, seat: str | None, finished: bool) -> RuleError | None:
    """Why ``seat`` may not resign now (None: it may). A resignation gives
    the match to the other side, so it is open to a seat of a match between
    two players only (not Love Letter's three or four, not Bleven's teams)."""
    if seat is None or seat not in seats:
        return RuleError("only a seated player may resign")
    if finished:
        return RuleError("the match is over")
    if len(seats) != 2:
        return RuleError(
            "resigning gives the match to the other side, so it is open only in a match "
            "of two players: this one has {n}",
            n=len(seats),
        )
    return None


# what a moderator (or a ruling carried out by one) may do to a match
MODERATOR_COMMANDS = frozenset(
    {
        "pause",
        "resume",
        "add_time",
        "award_bout",
        "replay_bout",
        "overturn",
        "forfeit",
        "declare_no_show",
    }
)


@dataclass(frozen=True)
class MatchState:
    seats: tuple[str, ...]
    options: Mapping[str, Any]
    target: int
    scores: Mapping[str, int]
    items: Mapping[str, tuple[str, ...]]
    setup: Mapping[str, Any] | None = None
    first: str | None = None  # first player of the current / next bout
    chooser: str | None = None  # seat that must choose the first player
    bout_no: int = 0
    bout: Any = None
    last_bout: Any = None
    history: tuple[Mapping[str, Any], ...] = ()  # one entry per scored bout
    finished: bool = False
    winners: tuple[str, ...] = ()
    end_reason: str = ""
    # clocks: game time = wall time - paused_total; paused_since set while paused
    paused_total: float = 0.0
    paused_since: float | None = None
    extra_time: Mapping[str, float] = field(default_factory=dict)  # seat -> credit (add_time)
    started_at: float = 0.0
    # items declared while bout 1's first player is chosen (rules.early_items)
    declared: tuple[tuple[str, str], ...] = ()
    # who may choose the first player of bout 1, as the match opened (an item
    # received later does not change it)
    first_choosers: tuple[str, ...] = ()
    # the ready-check a match between people opens with: the seats still
    # awaited, its deadline, and whether the deadline passed with someone absent;
    # the clocks stand still (paused_since) until every awaited seat is ready
    awaiting: tuple[str, ...] = ()
    ready_by: float | None = None
    ready_expired: bool = False


class Series:
    def __init__(self, rules: BoutRules):
        self.rules = rules

    # ---- starting ------------------------------------------------------
    def start(
        self,
        ctx: Ctx,
        seats: tuple[str, ...] | list[str],
        options: Mapping[str, Any] | None = None,
        items: Mapping[str, list[str]] | None = None,
        setup: Mapping[str, Any] | None = None,
        chooser: str | None = None,
        ready: Mapping[str, Any] | None = None,
    ) -> list[Event]:
        """Events that create a match; then the first bout's deal, or a wait
        for an advantage holder (or ``chooser``, e.g. the higher seed of a
        bracket series) to choose who starts. ``ready`` (``{"seats": [...],
        "by": t}``): a ready-check, whose clocks stand still until those seats
        said they are there (``ready``) or ``by`` passed."""
        seats = tuple(seats)
        rules = self.rules
        if len(set(seats)) != len(seats):
            raise RuleError("every seat needs a different player")
        if not rules.min_seats <= len(seats) <= rules.max_seats:
            if rules.min_seats == rules.max_seats:
                raise RuleError(
                    "{name} is played by exactly {min_seats} players",
                    name=rules.name,
                    min_seats=rules.min_seats,
                )
            raise RuleError(
                "{name} is played by {min_seats} to {max_seats} players",
                name=rules.name,
                min_seats=rules.min_seats,
                max_seats=rules.max_seats,
            )
        resolved = rules.resolve_options(options, len(seats))
        held = {s: tuple((items or {}).get(s, ())) for s in seats}
        for seat, its in (items or {}).items():
            if seat not in seats:
                raise RuleError("{seat} is not seated in this match", seat=seat)
            for it in its:
                if it not in rules.items:
                    raise RuleError("{name} has no item called {it}", name=rules.name, it=it)
        if chooser is not None and chooser not in seats:
            raise RuleError("{chooser} is not seated in this match", chooser=chooser)
        data = {
            "seats": list(seats),
            "options": resolved,
            "items": {s: list(v) for s, v in held.items()},
            "chooser": chooser,
            "at": ctx.now,
        }
        if ready and ready.get("seats"):
            data["ready"] = {"seats": list(ready["seats"]), "by": float(ready["by"])}
        # items and a stacked deal are not for everyone's eyes: seats learn
        # their own items from view(), moderators see the whole event
        public = {k: v for k, v in data.items() if k != "items"}
        full = {**data, "setup": dict(setup)} if setup else data
        events = [Event("series_started", full, visible_to=(), public=public)]
        state = self.evolve(None, events[0])
        events += self._open_bout_or_wait(state, ctx)
        return events

    def _first_choice(self, state: MatchState, ctx: Ctx) -> list[Event]:
        """For bout 1: a stacked first player, an advantage holder's choice,
        or a recorded coin flip."""
        rules = self.rules
        if rules.first_player == FIRST_NONE:
            return []
        named = rules.setup_first(state.setup or {})
        if named is not None:
            if named not in state.seats:
                raise RuleError("setup names {named} first, who is not seated", named=named)
            return [Event("first_player_chosen", {"seat": named, "how": "setup"})]
        if len(self._choosers(state)) == 1:
            return []  # wait for choose_first
        seat = state.seats[ctx.rng.randrange(len(state.seats))]
        return [Event("first_player_chosen", {"seat": seat, "how": "coin"})]

    def _choosers(self, state: MatchState) -> list[str]:
        """Who may choose the first player of bout 1: the one holder of an
        advantage item, else the match's named chooser (as the match opened)."""
        return list(state.first_choosers)

    def _first_choosers(self, seats, items, chooser) -> tuple[str, ...]:
        holders = tuple(s for s in seats if set(items.get(s, ())) & self.rules.chooser_items)
        if holders:
            return holders
        return (chooser,) if chooser else ()

    @staticmethod
    def next_bout(state: MatchState) -> int:
        """The number of the next bout to start (the one in progress does not count)."""
        return state.bout_no + (2 if state.bout is not None else 1)

    def _open_bout_or_wait(self, state: MatchState, ctx: Ctx) -> list[Event]:
        events = self._first_choice(state, ctx)
        for e in events:
            state = self.evolve(state, e)
        if self.rules.first_player != FIRST_NONE and state.first is None:
            return events  # a chooser decides first
        return events + self._bout_start(state, ctx)

    def _bout_start(self, state: MatchState, ctx: Ctx) -> list[Event]:
        now = self.game_time(state, ctx.now)
        events = self.rules.start(
            replace(ctx, now=now),
            state.seats,
            state.options,
            state.first,
            state.items,
            state.setup if state.bout_no == 0 else None,
            state.bout_no + 1,
        )
        # items declared while bout 1's first player was chosen are in use from
        # its start (once: a replayed bout 1 finds them spent)
        used = [
            Event("item_used", {"seat": s, "item": i, "at": now})
            for s, i in state.declared
            if state.bout_no == 0 and i in state.items.get(s, ())
        ]
        events = events[:1] + used + events[1:]
        return events

    # ---- clock translation ---------------------------------------------
    def game_time(self, state: MatchState, now: float) -> float:
        """Wall time to the game's clock, which stands still while paused."""
        paused = state.paused_total
        if state.paused_since is not None:
            paused += now - state.paused_since
        return now - paused

    def wall_time(self, state: MatchState, game_t: float) -> float:
        return game_t + state.paused_total

    # ---- the protocol ----------------------------------------------------
    def _started(self, d: Mapping[str, Any]) -> MatchState:
        seats = tuple(d["seats"])
        items = {s: tuple(v) for s, v in d["items"].items()}
        return MatchState(
            seats=seats,
            options=d["options"],
            target=self.rules.default_first_to(d["options"], len(seats))
            if "first_to" not in d["options"]
            else d["options"]["first_to"],
            scores={s: 0 for s in seats},
            items=items,
            setup=d.get("setup"),
            chooser=d.get("chooser"),
            started_at=d.get("at", 0.0),
            first_choosers=self._first_choosers(seats, items, d.get("chooser")),
            **_ready_opened(d),
        )

    def evolve(self, state: MatchState | None, event: Event) -> MatchState:
        t, d = event.type, event.data
        if t == "series_started":
            return self._started(d)
        assert state is not None, f"{t} before series_started"
        if t in READY_EVENTS:
            return _ready_evolved(state, t, d)
        if t == "first_player_chosen":
            return replace(state, first=d["seat"])
        if t == "item_declared":
            return replace(state, declared=state.declared + ((d["seat"], d["item"]),))
        if t == "item_received":
            held = state.items.get(d["seat"], ()) + (d["item"],)
            return replace(state, items={**state.items, d["seat"]: held})
        if t == "bout_scored":
            scores = dict(state.scores)
            for s, p in d["points"].items():
                scores[s] = scores.get(s, 0) + p
            return replace(
                state,
                scores=scores,
                first=d.get("next_first"),
                last_bout=state.bout,
                bout=None,
                bout_no=state.bout_no + 1,
                history=state.history + (dict(d),),
            )
        if t == "bout_replayed":
            return replace(state, bout=None)
        if t in ("series_ended", "series_forfeited", "series_overturned"):
            return replace(
                state,
                finished=True,
                winners=tuple(d["winners"]),
                end_reason=d.get("reason", ""),
                last_bout=state.bout if state.bout is not None else state.last_bout,
            )
        if t == "clock_paused":
            return replace(state, paused_since=d["at"])
        if t == "clock_resumed":
            return replace(
                state,
                paused_total=state.paused_total + (d["at"] - state.paused_since),
                paused_since=None,
            )
        if t == "time_added":
            if d.get("seat") is not None:
                extra = {**state.extra_time}
                extra[d["seat"]] = extra.get(d["seat"], 0.0) + d["seconds"]
                return replace(state, extra_time=extra)
            return replace(state, paused_total=state.paused_total + d["seconds"])
        if t == "time_credit_used":
            extra = {s: max(0.0, v - d["seats"].get(s, 0.0)) for s, v in state.extra_time.items()}
            return replace(state, paused_total=state.paused_total + d["seconds"], extra_time=extra)
        if t == "clock_reanchored":
            # the game clock skips the voided span; a paused clock stood still anyway
            if state.paused_since is not None:
                return state
            return replace(state, paused_total=state.paused_total + max(0.0, d["at"] - d["since"]))
        # a bout event
        bout = self.rules.evolve(state.bout, event)
        items = state.items
        if t == "item_used":
            held = list(items.get(d["seat"], ()))
            if d["item"] in held:
                held.remove(d["item"])
            items = {**items, d["seat"]: tuple(held)}
        return replace(state, bout=bout, items=items)

    def decide(self, state: MatchState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        """Validate and apply one command; overdue deadlines fire first."""
        if not isinstance(command, Mapping) or not isinstance(command.get("type"), str):
            raise RuleError("a command needs a type")
        kind = command["type"]
        if kind in MODERATOR_COMMANDS:
            return self._moderate(state, command, ctx)
        fields = {"choose_first": ("seat",), "ready": (), RESIGN: ()}
        check_fields(command, {**fields, **self.rules.command_fields})
        events = self.fire_due(state, ctx)
        for e in events:
            state = self.evolve(state, e)
        if kind == "timeout":
            if not events:
                raise RuleError("no deadline has passed")
            return events
        if ctx.seat is not None and ctx.seat not in state.seats:
            raise RuleError("{seat} is not seated in this match", seat=ctx.seat)
        if kind == RESIGN:  # paused clocks do not hold a resignation back
            return events + self._resign(state, ctx)
        if state.finished:
            raise RuleError("the match is over")
        if kind == "ready" or (state.awaiting and not ctx.is_system):
            return events + ready_command(state, kind, ctx)
        if state.paused_since is not None and not ctx.is_system:
            raise RuleError("the match's clocks are paused by a moderator; wait until they resume")
        if kind == "receive_item":
            new = self._receive_item(state, command, ctx)
        elif kind == "choose_first":
            new = self._choose_first(state, command, ctx)
        elif kind == "use_item" and state.bout is None and state.bout_no == 0:
            new = self._declare_early(state, command, ctx)
        else:
            if state.bout is None:
                raise RuleError("no bout is in progress")
            spent = self._spend_credit(state, ctx.seat, ctx.now, late_move=True)
            paid = state
            for e in spent:
                paid = self.evolve(paid, e)
            new = spent + self.rules.decide(
                paid.bout, command, replace(ctx, now=self.game_time(paid, ctx.now))
            )
        return events + self._after(state, new, ctx)

    def _resign(self, state: MatchState, ctx: Ctx) -> list[Event]:
        """The acting seat gives up the match: a loss for it, at once."""
        refused = resign_refusal(state.seats, ctx.seat, state.finished)
        if refused is not None:
            raise refused
        return self.forfeit(state, ctx.seat, RESIGNED, at=ctx.now)

    def _choose_first(self, state: MatchState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if state.first is not None or state.bout is not None or state.bout_no > 0:
            raise RuleError("the first player has already been chosen")
        if ctx.seat not in self._choosers(state):
            raise RuleError("only the holder of the advantage chooses who plays first")
        seat = command.get("seat")
        if seat not in state.seats:
            raise RuleError(
                "choose one of the seated players: {seats}", seats=", ".join(state.seats)
            )
        chosen = Event("first_player_chosen", {"seat": seat, "how": ctx.seat})
        return [chosen] + self._bout_start(self.evolve(state, chosen), ctx)

    def _receive_item(self, state: MatchState, command: Mapping[str, Any], ctx: Ctx):
        """An item granted during the match: it applies from the next bout."""
        if not ctx.is_system:
            raise RuleError("only the platform hands a match an item granted during it")
        seat, item = command.get("seat"), command.get("item")
        if seat not in state.seats:
            raise RuleError("{seat} is not seated in this match", seat=shown(seat))
        if not isinstance(item, str) or item not in self.rules.items:
            raise RuleError(
                "{name} has no item called {item}", name=self.rules.name, item=shown(item)
            )
        data = {"seat": seat, "item": item, "from_bout": self.next_bout(state), "at": ctx.now}
        # which item is the holder's secret, as in the show's log
        public = {k: v for k, v in data.items() if k != "item"}
        return [Event("item_received", data, visible_to=(seat,), public=public)]

    def _declare_early(self, state: MatchState, command: Mapping[str, Any], ctx: Ctx):
        """An item declared while bout 1's first player is being chosen."""
        item = command.get("item")
        if not isinstance(item, str) or item not in self.rules.early_items:
            raise RuleError("no bout is in progress: wait until the first player is chosen")
        if ctx.seat is None or item not in state.items.get(ctx.seat, ()):
            raise RuleError("you do not hold {item}", item=item.replace("_", " ").title())
        if (ctx.seat, item) in state.declared:
            raise RuleError("your {item} is already declared", item=item.replace("_", " ").title())
        return [Event("item_declared", {"seat": ctx.seat, "item": item, "at": ctx.now})]

    def _after(self, state: MatchState, new: list[Event], ctx: Ctx) -> list[Event]:
        """Append the series' own consequences when a bout ends."""
        for e in new:
            state = self.evolve(state, e)
        if state.bout is None:
            return new
        out = self.rules.outcome(state.bout)
        if out is None:
            return new
        return new + self._score(state, out, ctx)

    def _score(self, state: MatchState, out: Outcome, ctx: Ctx) -> list[Event]:
        rules = self.rules
        seats = state.seats
        next_first = None
        if rules.first_player == FIRST_ALTERNATES:
            cur = state.first if state.first in seats else seats[0]
            next_first = seats[(seats.index(cur) + 1) % len(seats)]
        elif rules.first_player == FIRST_WINNER:
            if out.winners:
                ws = [s for s in seats if s in out.winners]
                next_first = ws[0] if len(ws) == 1 else ws[ctx.rng.randrange(len(ws))]
            else:
                next_first = state.first
        scored = Event(
            "bout_scored",
            {
                "bout": state.bout_no + 1,
                "winners": list(out.winners),
                "points": {s: int(out.points.get(s, 0)) for s in seats},
                "reason": out.reason,
                "next_first": next_first,
                "at": ctx.now,
            },
        )
        state = self.evolve(state, scored)
        winners = rules.series_winners(state.scores, state.target)
        if winners:
            return [scored, Event("series_ended", {"winners": list(winners), "reason": "score"})]
        return [scored] + self._bout_start(state, ctx)

    def _moderate(self, state: MatchState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
        if ctx.role != MODERATOR:
            raise RuleError("only a moderator may pause, resume, add time or carry out a ruling")
        reason = str(command.get("reason") or "").strip()
        kind = command["type"]
        if kind == "overturn":
            winner = command.get("winner")
            if winner not in state.seats:
                raise RuleError("name the new winner among {seats}", seats=", ".join(state.seats))
            if state.finished and tuple(state.winners) == (winner,):
                raise RuleError("{winner} already won this match", winner=winner)
            return [
                Event(
                    "series_overturned",
                    {"winners": [winner], "reason": reason or "overturned", "at": ctx.now},
                )
            ]
        if state.finished:
            raise RuleError("the match is over")
        if kind == "pause":
            if state.paused_since is not None:
                raise RuleError("the clocks are already paused")
            events = self.fire_due(state, ctx)
            return events + [Event("clock_paused", {"at": ctx.now, "reason": reason})]
        if kind == "resume":
            if state.awaiting:
                raise RuleError("the match waits for its players to say they are there")
            if state.paused_since is None:
                raise RuleError("the clocks are not paused")
            return [Event("clock_resumed", {"at": ctx.now, "reason": reason})]
        if kind == "declare_no_show":
            return declare_no_show(state, command.get("seat"), reason)
        if kind == "forfeit":
            loser = command.get("loser")
            if loser not in state.seats:
                raise RuleError(
                    "name the seat that forfeits among {seats}", seats=", ".join(state.seats)
                )
            return self.forfeit(state, loser, reason or "forfeit")
        if kind in ("award_bout", "replay_bout"):
            if state.bout is None:
                raise RuleError("no bout is in progress")
            if kind == "replay_bout":
                replayed = Event(
                    "bout_replayed", {"bout": state.bout_no + 1, "reason": reason, "at": ctx.now}
                )
                return [replayed] + self._bout_start(self.evolve(state, replayed), ctx)
            winner = command.get("winner")
            if winner not in state.seats:
                raise RuleError(
                    "name the bout's winner among {seats}", seats=", ".join(state.seats)
                )
            return self._score(
                state, Outcome((winner,), {winner: 1}, reason or "awarded by a ruling"), ctx
            )
        seconds = command.get("seconds")
        if (
            not isinstance(seconds, (int, float))
            or isinstance(seconds, bool)
            or not 0 < seconds <= MAX_ADD_TIME_S  # also refuses nan and inf
        ):
            raise RuleError(
                "add a number of seconds above 0 and at most {max_add_time_s} (24 hours)",
                max_add_time_s=MAX_ADD_TIME_S,
            )
        data = {"seconds": seconds, "reason": reason, "at": ctx.now}
        seat = command.get("seat")
        if seat is not None:
            if seat not in state.seats:
                raise RuleError(
                    "{seat!r} is not seated in this match: add time to one of {seats}",
                    seat=seat,
                    seats=", ".join(state.seats),
                )
            data = {"seat": seat, **data}
        events = self.fire_due(state, ctx)
        return events + [Event("time_added", data)]

    # ---- clocks ----------------------------------------------------------
    def pending(self, state: MatchState) -> list[Decision]:
        """Who must decide what, with deadlines on the wall clock."""
        if state.finished:
            return []
        if state.awaiting:
            by = None if state.ready_expired else state.ready_by
            return [Decision(s, "ready", by) for s in state.awaiting]
        if state.bout is None:
            if state.first is not None or self.rules.first_player == FIRST_NONE:
                return []
            holders = self._choosers(state)
            return [Decision(holders[0], "choose_first")] if len(holders) == 1 else []
        if state.paused_since is not None:
            return [replace(d, deadline=None) for d in self.rules.pending(state.bout)]
        return [
            d
            if d.deadline is None
            else replace(d, deadline=self.wall_time(state, d.deadline) + self.credit(state, d.seat))
            for d in self.rules.pending(state.bout)
        ]

    def credit(self, state: MatchState, seat: str) -> float:
        """Seconds a moderator added to this seat alone, not yet spent."""
        return max(0.0, state.extra_time.get(seat, 0.0))

    def _spend_credit(
        self, state: MatchState, seat: str | None, now: float, late_move: bool
    ) -> list[Event]:
        """The credit ``seat`` spends on the decision it takes (or times out) at
        ``now``: what it is late by its game deadline (all of it at a timeout)."""
        if state.bout is None or seat is None or self.credit(state, seat) <= 0:
            return []
        pending = [d for d in self.rules.pending(state.bout) if d.deadline is not None]
        own = [d.deadline for d in pending if d.seat == seat]
        if not own:
            return []
        late = self.game_time(state, now) - min(own)
        if late < 0:
            return []
        seconds = self.credit(state, seat)
        if late_move:
            seconds = min(seconds, late + CREDIT_MARGIN_S)
        shares = {seat: seconds}
        for d in pending:  # others deciding now keep their deadlines where they were
            if d.seat != seat and self.credit(state, d.seat) > 0:
                shares[d.seat] = min(seconds, self.credit(state, d.seat))
        return [Event("time_credit_used", {"seconds": seconds, "seats": shares, "at": now})]

    def next_deadline(self, state: MatchState) -> float | None:
        ds = [d.deadline for d in self.pending(state) if d.deadline is not None]
        return min(ds) if ds else None

    def fire_due(self, state: MatchState, ctx: Ctx) -> list[Event]:
        """Every deadline passed by ``ctx.now`` fires, earliest first, each at
        its own moment (so the next decision's clock starts then)."""
        events: list[Event] = ready_due(state, ctx.now)
        for e in events:
            state = self.evolve(state, e)
        for _ in range(10_000):
            if state.finished or state.bout is None or state.paused_since is not None:
                break
            due = [
                d for d in self.pending(state) if d.deadline is not None and d.deadline <= ctx.now
            ]
            if not due:
                break
            first = min(due, key=lambda d: d.deadline)
            at = first.deadline
            spent = self._spend_credit(state, first.seat, at, late_move=False)
            for e in spent:
                state = self.evolve(state, e)
            events += spent
            game_decision = replace(first, deadline=self.game_time(state, at))
            sys_ctx = Ctx(now=at, rng=ctx.rng, seat=None, role="system")
            new = self.rules.timeout(
                state.bout, game_decision, replace(sys_ctx, now=game_decision.deadline)
            )
            new = self._after(state, new, sys_ctx)
            for e in new:
                state = self.evolve(state, e)
            events += new
        return events

    def forfeit(
        self, state: MatchState, loser: str, reason: str, at: float | None = None
    ) -> list[Event]:
        if state.finished:
            raise RuleError("the match is over")
        winners = [s for s in state.seats if s != loser]
        data = {"winners": winners, "loser": loser, "reason": reason}
        return [Event("series_forfeited", data if at is None else {**data, "at": at})]

    # ---- reading ---------------------------------------------------------
    def outcome(self, state: MatchState) -> Outcome | None:
        if not state.finished:
            return None
        return Outcome(tuple(state.winners), dict(state.scores), state.end_reason)

    def view(self, state: MatchState, viewer: Viewer) -> dict:
        bout = state.bout if state.bout is not None else state.last_bout
        return {
            "seats": list(state.seats),
            "scores": dict(state.scores),
            "target": state.target,
            "bout_no": state.bout_no + (0 if state.finished else 1),
            "first": state.first,
            "finished": state.finished,
            "winners": list(state.winners),
            "end_reason": state.end_reason,
            "paused": state.paused_since is not None and not state.awaiting,
            "ready_check": ready_view(state),
            "items": {
                s: list(v)
                for s, v in state.items.items()
                if viewer.kind in (MODERATOR, EVERY_SEAT)
                or (viewer.kind == SEAT and viewer.seat == s)
            },
            "pending": [
                {"seat": d.seat, "kind": d.kind, "deadline": d.deadline}
                for d in self.pending(state)
            ],
            "history": [dict(h) for h in state.history],
            "declared": [{"seat": s, "item": i} for s, i in state.declared if state.bout_no == 0]
            if state.bout is None
            else [],
            "bout": self.rules.view(bout, viewer) if bout is not None else None,
        }

    def fold(self, events) -> MatchState:
        state = None
        for e in events:
            state = self.evolve(state, e)
        return state


# ---- the ready-check ------------------------------------------------------
def _ready_opened(d: Mapping[str, Any]) -> dict:
    """The state a match opened with a ready-check starts in: its clocks stand
    still from the opening until the check passes."""
    ready = d.get("ready")
    if not ready:
        return {}
    return {
        "awaiting": tuple(ready["seats"]),
        "ready_by": ready["by"],
        "paused_since": d.get("at", 0.0),
    }


def ready_view(state: MatchState) -> dict | None:
    """The ready-check as everyone sees it (None: none open)."""
    if not state.awaiting:
        return None
    return {"awaiting": list(state.awaiting), "by": state.ready_by, "expired": state.ready_expired}


def _ready_evolved(state: MatchState, t: str, d: Mapping[str, Any]) -> MatchState:
    if t == "player_ready":
        return replace(state, awaiting=tuple(s for s in state.awaiting if s != d["seat"]))
    if t == "ready_check_expired":
        return replace(state, ready_expired=True)
    # ready_check_passed: the clocks start now, as from a pause
    since = state.paused_since if state.paused_since is not None else d["at"]
    return replace(
        state,
        awaiting=(),
        paused_total=state.paused_total + (d["at"] - since),
        paused_since=None,
    )


def ready_due(state: MatchState, now: float) -> list[Event]:
    """The ready-check's deadline passed with someone absent: recorded once;
    nobody loses by it (a moderator declares a no-show, TOURNAMENTS.md), and
    a latecomer may still say they are there until then."""
    if not state.awaiting or state.ready_expired or state.finished:
        return []
    if state.ready_by is None or state.ready_by > now:
        return []
    return [Event("ready_check_expired", {"absent": list(state.awaiting), "at": state.ready_by})]


def ready_command(state: MatchState, kind: str, ctx: Ctx) -> list[Event]:
    """``ready`` from an awaited seat; anything else waits for the check."""
    if kind != "ready":
        raise RuleError("the match waits for its players to say they are there")
    if ctx.seat not in state.awaiting:
        raise RuleError("nobody waits for you to say you are there")
    out = [Event("player_ready", {"seat": ctx.seat, "at": ctx.now})]
    if set(state.awaiting) == {ctx.seat}:
        out.append(Event("ready_check_passed", {"at": ctx.now}))
    return out


def declare_no_show(state: MatchState, loser: Any, reason: str) -> list[Event]:
    """A moderator declares a no-show once the ready-check's time is up:
    the absent seat forfeits the series (TOURNAMENTS.md)."""
    if not state.awaiting:
        raise RuleError(
            "no ready-check is open: a no-show is declared only before the match starts"
        )
    if not state.ready_expired:
        raise RuleError("the ready-check's time is not up yet: a no-show waits for it")
    if loser not in state.awaiting:
        raise RuleError("name the absent seat among {seats}", seats=", ".join(state.awaiting))
    winners = [s for s in state.seats if s != loser]
    data = {"winners": winners, "loser": loser, "reason": NO_SHOW, "note": reason}
    return [Event("series_forfeited", data)]
