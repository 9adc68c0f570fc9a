"""The show's state: roles and statuses, the frozen dataclasses, and the
selectors that read them (pure)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from games.core.protocol import Decision, Event

from ..items import game_knows

ORGANIZER = "organizer"


MODERATOR = "moderator"


PLAYER = "player"


SPECTATOR = "spectator"


SYSTEM = "system"


ROLES = (ORGANIZER, MODERATOR, PLAYER, SPECTATOR, SYSTEM)


ACTIVE = "active"


ELIMINATED = "eliminated"


CHAMPION = "champion"


SUBSTITUTED = "substituted"  # replaced by a substitute; never returns


# before a scheduled show starts (registration, check-in): see commands/schedule.py
WAITING = "waiting"  # on the waiting list


APPLIED = "applied"  # registered, waiting for the organizer's approval


WITHDRAWN = "withdrawn"  # withdrew before the start


DECLINED = "declined"  # the organizer declined the registration


DROPPED = "dropped"  # absent at the close of check-in


# show phases (ShowState.phase)
SCHEDULED = "scheduled"  # registration open, not started yet


RUNNING = "running"  # started (every show without a start time from its creation)


CANCELLED = "cancelled"  # fewer than two entrants were there at the start


PLANNED = "planned"


STARTED = "started"


FINISHED = "finished"


# dispute states
OPEN = "open"


CLAIMED = "claimed"


AWAITING = "awaiting_approval"


RULED = "ruled"


RULINGS = (
    "dismiss",
    "void_to",
    "award_bout",
    "adjust_clock",
    "replay_bout",
    "overturn_series",
    "disqualify",
)


MATCH_ONLY_RULINGS = ("award_bout", "adjust_clock", "replay_bout", "overturn_series")


# decisions entrants take during a round (they have deadlines; timeouts pick at random)
ENTRANT_STEPS = ("give_token", "choose_candidate", "nominate", "ban_game")


# an entrant confirms they are there before their match opens (a ready-check);
# a missed ready-check forfeits the match (commands/ready.py)
READY = "ready"


# steps with a deadline per entrant (state.deadlines)
TIMED_STEPS = ENTRANT_STEPS + (READY,)


# the key of the final's ready-check deadlines in place of a round id
FINAL_KEY = "final"


# show progress: what a void ruling on the show's own stream takes back
STEP_EVENTS = frozenset(
    {
        "ranking_entered",
        "token_given",
        "candidates_named",
        "dmo_nominated",
        "game_banned",
        "game_picked",
        "death_match_opened",
        "death_match_linked",
        "death_match_result",
        "entrant_eliminated",
        "round_finished",
        "final_opened",
        "final_linked",
        "final_result",
        "champion_crowned",
        "final_cancelled",
        "death_match_corrected",
        "death_match_reopened",
        "champion_corrected",
        "final_reopened",
        "entrant_disqualified",
    }
)


# step events that settle who stays in the show (voiding them needs two moderators)
DECIDING_EVENTS = frozenset(
    {
        "death_match_result",
        "entrant_eliminated",
        "final_result",
        "champion_crowned",
        "death_match_corrected",
        "champion_corrected",
        "entrant_disqualified",
    }
)


@dataclass(frozen=True)
class Duel:
    """One death match: an elimination candidate against the DMO they named."""

    candidate: str
    dmo: str | None = None
    bans: Mapping[str, str] = field(default_factory=dict)  # who -> banned game
    game: str | None = None
    first_to: int | None = None
    opened: bool = False
    match_stream: str | None = None
    winner: str | None = None
    loser: str | None = None
    ready_by: float | None = None  # the ready-check's deadline (None: no ready-check)
    ready: tuple[str, ...] = ()  # who confirmed they are there
    ready_passed: bool = False

    @property
    def seats(self) -> tuple[str, ...]:
        return (self.candidate,) + ((self.dmo,) if self.dmo else ())

    @property
    def awaiting_ready(self) -> bool:
        """Opened, and its ready-check neither passed nor forfeited yet."""
        return self.ready_by is not None and not self.ready_passed and self.winner is None

    @property
    def decided(self) -> bool:
        return self.winner is not None


@dataclass(frozen=True)
class Round:
    id: str
    title: str
    status: str = PLANNED
    ranking: tuple[tuple[str, ...], ...] = ()
    winners: tuple[str, ...] = ()
    tokens: Mapping[str, int] = field(default_factory=dict)
    gift_due: bool = False  # the sole winner still has to give a token
    gift_to: str | None = None
    needed: int = 0  # elimination candidates this round
    named: bool = False
    candidates: tuple[str, ...] = ()
    duels: tuple[Duel, ...] = ()
    eliminated: tuple[str, ...] = ()
    note: str = ""

    @property
    def immune(self) -> frozenset[str]:
        return frozenset(self.winners) | ({self.gift_to} if self.gift_to else frozenset())

    def duel(self, candidate: str) -> Duel | None:
        for d in self.duels:
            if d.candidate == candidate:
                return d
        return None


@dataclass(frozen=True)
class Item:
    id: str
    item: str
    holder: str
    scope: str
    given_by: str
    reason: str = ""
    status: str = "held"  # held, used, revoked
    used_in: str | None = None


@dataclass(frozen=True)
class Invitation:
    """An invitation to hold an entrant (a signed link; the id is in the link)."""

    id: str
    entrant: str
    invited_by: str
    status: str = "open"  # open, accepted, revoked
    username: str | None = None  # the account that accepted it


@dataclass(frozen=True)
class Dispute:
    id: str
    target_stream: str
    target_version: int
    text: str
    filed_by: str
    filed_role: str
    filed_at: float
    status: str = OPEN
    claimed_by: str | None = None
    proposal: Mapping[str, Any] | None = None  # while awaiting approval
    ruling: Mapping[str, Any] | None = None  # once ruled
    filed_by_id: int | None = None  # the filing account (None: filed before it was recorded)


@dataclass(frozen=True)
class Final:
    players: tuple[str, ...]
    game: str
    first_to: int | None
    match_stream: str | None = None
    winner: str | None = None
    loser: str | None = None
    ready_by: float | None = None
    ready: tuple[str, ...] = ()
    ready_passed: bool = False

    @property
    def seats(self) -> tuple[str, ...]:
        return self.players

    @property
    def awaiting_ready(self) -> bool:
        return self.ready_by is not None and not self.ready_passed and self.winner is None


@dataclass(frozen=True)
class ShowState:
    created: bool = False
    name: str = ""
    organizer: str = ""
    organizer_id: int | None = None  # the organizer's account (None: not recorded)
    stream: str | None = None
    moderators: tuple[str, ...] = ()
    moderator_ids: Mapping[str, int | None] = field(default_factory=dict)  # name -> account
    entrants: tuple[str, ...] = ()  # everyone who ever entered, in order
    status: Mapping[str, str] = field(default_factory=dict)
    substitutions: tuple[Mapping[str, Any], ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)
    rounds: tuple[Round, ...] = ()
    round_seq: int = 0
    items: Mapping[str, Item] = field(default_factory=dict)
    item_seq: int = 0
    disputes: Mapping[str, Dispute] = field(default_factory=dict)
    dispute_seq: int = 0
    final: Final | None = None
    champion: str | None = None
    # (round id, step, entrant) -> absolute deadline
    deadlines: Mapping[tuple[str, str, str], float] = field(default_factory=dict)
    # the organizer took over their steps from an autopilot (the demo's)
    autopilot_released: bool = False
    invitations: Mapping[str, Invitation] = field(default_factory=dict)
    invitation_seq: int = 0
    held: Mapping[str, int] = field(default_factory=dict)  # entrant -> the account holding it
    bots: Mapping[str, str] = field(default_factory=dict)  # entrant -> "bot:<kind>" playing it
    # a scheduled show: its start time, whether check-in is open, who checked in,
    # the waiting list in order; shows without a start time run from their creation
    phase: str = RUNNING
    starts_at: float | None = None
    check_in_open: bool = False
    checked_in: frozenset[str] = frozenset()
    waiting: tuple[str, ...] = ()
    registered_by: Mapping[str, int] = field(default_factory=dict)  # entrant -> account
    version: int = 0
    log: tuple[Event, ...] = ()
    voided: frozenset[int] = frozenset()


def active(state: ShowState) -> tuple[str, ...]:
    return tuple(e for e in state.entrants if state.status.get(e) == ACTIVE)


def eliminated(state: ShowState) -> tuple[str, ...]:
    return tuple(e for e in state.entrants if state.status.get(e) == ELIMINATED)


def champion(state: ShowState) -> str | None:
    return state.champion


def is_moderator(state: ShowState, username: str) -> bool:
    return username == state.organizer or username in state.moderators


def seat_holder_ids(state: ShowState) -> frozenset[int]:
    """The accounts that hold (or held) an entrant of the show: none of them
    may moderate it, whatever names they go by."""
    return frozenset(
        uid for uid in state.held.values() if isinstance(uid, int) and not isinstance(uid, bool)
    )


def staff_ids(state: ShowState) -> frozenset[int]:
    """The accounts with the organizer's or a moderator's rights now: those
    appointed, less every account holding a seat in the show."""
    ids = {state.organizer_id, *state.moderator_ids.values()}
    return frozenset(i for i in ids if isinstance(i, int)) - seat_holder_ids(state)


def current_round(state: ShowState) -> Round | None:
    for r in state.rounds:
        if r.status == STARTED:
            return r
    return None


def next_round(state: ShowState) -> Round | None:
    for r in state.rounds:
        if r.status == PLANNED:
            return r
    return None


def round_by_id(state: ShowState, rid: str) -> Round | None:
    for r in state.rounds:
        if r.id == rid:
            return r
    return None


def immune(state: ShowState) -> frozenset[str]:
    """Who holds a token of life in the round in progress."""
    r = current_round(state)
    return r.immune if r else frozenset()


def inventory(state: ShowState, entrant: str) -> tuple[Item, ...]:
    """Items ``entrant`` holds: grants + transfers - uses - revokes, in id order."""
    held = [it for it in state.items.values() if it.holder == entrant and it.status == "held"]
    return tuple(sorted(held, key=lambda it: _item_no(it.id)))


def items_for_match(
    state: ShowState, entrant: str, kind: str, game: str | None = None
) -> tuple[tuple[str, str], ...]:
    """(item id, slug) of the held items usable in a match of ``kind``
    (main, death_match, final); with ``game``, only items that game knows."""
    return tuple(
        (it.id, it.item)
        for it in inventory(state, entrant)
        if _scope_allows(it.scope, kind) and game_knows(game, it.item)
    )


def item_reaches(state: ShowState, stream: str, scope: str, slug: str, game: str) -> bool:
    """Whether an item of ``scope`` may be used in the show's match ``stream``
    (of ``game``): its scope covers the match's kind and the game knows it."""
    return _scope_allows(scope, match_kind(state, stream)[0]) and game_knows(game, slug)


def match_kind(state: ShowState, stream: str) -> tuple[str, Any]:
    """What ``stream`` is to this show: ("show", None), ("final", None),
    ("death_match", (round id, candidate)) or ("other", None)."""
    if state.stream is not None and stream == state.stream:
        return "show", None
    if state.final is not None and state.final.match_stream == stream:
        return "final", None
    for r in state.rounds:
        for d in r.duels:
            if d.match_stream is not None and d.match_stream == stream:
                return "death_match", (r.id, d.candidate)
    return "other", None


def round_decisions(state: ShowState, rnd: Round) -> list[tuple[str, str]]:
    """(step, who) still owed in ``rnd``, entrants' steps and the organizer's picks."""
    if rnd.status != STARTED:
        return []
    if rnd.gift_due:
        return [("give_token", rnd.winners[0])]
    if not rnd.named:
        _forced, pool, _r = candidate_split(state, rnd)
        return [("choose_candidate", w) for w in rnd.winners] if pool else []
    out: list[tuple[str, str]] = []
    bans = state.options.get("game_pick") == "pool_with_bans"
    for d in rnd.duels:
        if d.dmo is None:
            out.append(("nominate", d.candidate))
        elif d.game is None:
            waiting = [w for w in (d.candidate, d.dmo) if bans and w not in d.bans]
            out.extend(("ban_game", w) for w in waiting)
            if not waiting:
                out.append(("pick_game", state.organizer))
        elif d.awaiting_ready:
            out.extend((READY, w) for w in not_ready(state, d))
    return out


def not_ready(state: ShowState, match: Duel | Final) -> tuple[str, ...]:
    """The seats of a death match or the final that a person holds and that
    have not confirmed they are there (bots are always there)."""
    return tuple(w for w in match.seats if w in state.held and w not in match.ready)


def final_decisions(state: ShowState) -> list[tuple[str, str]]:
    """(step, who) the final waits on before it opens: its ready-check."""
    f = state.final
    if f is None or not f.awaiting_ready:
        return []
    return [(READY, w) for w in not_ready(state, f)]


def candidate_split(state: ShowState, rnd: Round) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """(forced candidates, pool the winners choose from, how many to choose).

    Rule "last": whole groups from the bottom of the ranking that fit are
    candidates; the group that does not fit is the pool. Rule
    "winners_choose_any": every entrant without immunity is in the pool.
    """
    imm = rnd.immune
    live = set(active(state))
    if state.options.get("candidate_rule") == "winners_choose_any":
        pool = tuple(e for e in active(state) if e not in imm)
        return (), (pool if rnd.needed else ()), rnd.needed
    forced: list[str] = []
    remaining = rnd.needed
    for group in reversed(rnd.ranking[1:]):
        if remaining == 0:
            break
        members = [m for m in group if m not in imm and m in live]
        if len(members) <= remaining:
            forced.extend(members)
            remaining -= len(members)
        else:
            return tuple(forced), tuple(members), remaining
    return tuple(forced), (), remaining


def pending(state: ShowState) -> list[Decision]:
    """Who must decide what, by when (organizer steps have no deadline)."""
    out: list[Decision] = []
    if not state.created or state.champion is not None or state.phase != RUNNING:
        return out
    rnd = current_round(state)
    if rnd is not None:
        for step, who in round_decisions(state, rnd):
            out.append(Decision(who, step, state.deadlines.get((rnd.id, step, who))))
    elif state.final is not None:
        for step, who in final_decisions(state):
            out.append(Decision(who, step, state.deadlines.get((FINAL_KEY, step, who))))
    elif len(active(state)) > 2:
        out.append(Decision(state.organizer, "enter_ranking" if next_round(state) else "add_round"))
    return out


def overdue(state: ShowState, now: float) -> list[tuple[float, tuple[str, str, str]]]:
    """Deadlines that have passed at ``now`` (a deadline T has passed at T), earliest first."""
    return sorted((d, k) for k, d in state.deadlines.items() if d <= now)


def next_deadline(state: ShowState) -> float | None:
    return min(state.deadlines.values(), default=None)


def gift_options(s: ShowState, rnd: Round) -> tuple[str, ...]:
    forced, _pool, _r = candidate_split(s, rnd)
    return tuple(e for e in active(s) if e not in rnd.winners and e not in forced)


def dmo_options(s: ShowState, rnd: Round, candidate: str) -> tuple[str, ...]:
    taken = {d.dmo for d in rnd.duels if d.dmo}
    return tuple(
        e
        for e in active(s)
        if e != candidate and e not in rnd.immune and e not in rnd.candidates and e not in taken
    )


def ban_options(s: ShowState, duel: Duel) -> tuple[str, ...]:
    return tuple(g for g in s.options["game_pool"] if g not in duel.bans.values())


def _duel_of(rnd: Round, who: str) -> Duel | None:
    for d in rnd.duels:
        if who == d.candidate or who == d.dmo:
            return d
    return None


def _item_no(item_id: str) -> int:
    try:
        return int(item_id.split("-", 1)[1])
    except (IndexError, ValueError):
        return 0


def _scope_allows(scope: str, kind: str) -> bool:
    return scope == "any" or scope == kind
