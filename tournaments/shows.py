"""The show engine (shared/TOURNAMENTS.md, "Shows", "Disputes and corrections").

Pure Python, no Django: one show is one stream, decided like a game.

    create_show(ctx, name, organizer, entrants, options) -> [Event]   (initial)
    decide(state, command, ctx) -> [Event]     raises RuleError("clear words")
    evolve(state, event) -> ShowState          pure, deterministic, total
    view(state, viewer_role, username=None, now=None) -> dict
    pending(state) -> [Decision]               who must act, by when

A command is a mapping ``{"type": ..., "actor": USERNAME, "role": ROLE, ...}``
with ROLE one of organizer, moderator, player, spectator, system (the
services layer fills in actor and role; ``system`` records what a match
reported). Every event's data carries ``actor``, ``role``, ``reason`` and
``at`` (ctx.now). A rejected command returns nothing.

The k-th event of the show's stream is version k: ``evolve`` counts them, so
rulings can name show events by version and void them (the voided events
stay in ``state.log``; no fold uses them).

Commands, with their fields (``round`` is optional wherever it appears and
defaults to the round in progress):

organizer  add_round {title}; reorder_rounds {order, reason};
           appoint_moderator {username}; substitute {out, in, reason};
           extend_deadline {round, step, seconds, reason, entrant?};
           enter_ranking {round?, ranking}; pick_game {round?, candidate?, game}
player     give_token {round?, to}; choose_candidate {round?, candidates | candidate};
           nominate {round?, dmo}; ban_game {round?, game};
           transfer_item {from, to, item_id} (own items); file_dispute (seated)
moderator  grant_item {entrant, item, scope, given_by, reason};
           transfer_item {from, to, item_id, reason}; revoke_item {item_id, reason};
           file_dispute {target_stream, target_version, text};
           claim_dispute {dispute_id}; transfer_dispute {dispute_id, to};
           rule_dispute {dispute_id, ruling, params, reason,
                         changes_series_winner?, reopens_series?};
           approve_ruling {dispute_id, reason?}; reject_ruling {dispute_id, reason}
system     death_match_linked {round?, candidate, match_stream};
           death_match_result {round?, candidate, winner, loser, match_stream?};
           final_linked {match_stream}; final_result {winner, loser?, match_stream?};
           item_used {entrant, item_id | item, match_stream, kind?}; timeout {}

The organizer counts as a moderator of the show.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from games.core.protocol import (
    SPECTATOR_VIEW,
    Ctx,
    Decision,
    Event,
    RuleError,
    Viewer,
)

from .items import (
    CATALOGUE,
    DOUBTING_LOVE_LETTER,
    GAMES,
    MATCH_KINDS,
    SCOPE_WORDS,
    SCOPES,
    describe,
    game_knows,
    games_knowing,
    known_items,
)

# ---- roles, statuses, option defaults ---------------------------------------

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

DEATH_MATCH_FIRST_TO_DLL = 7
FINAL_FIRST_TO_DLL = 5

DEFAULT_OPTIONS: Mapping[str, Any] = {
    "spectator_delay_s": 300,
    "spectator_policy": "public",  # or "everything"
    "final_game": DOUBTING_LOVE_LETTER,
    "final_first_to": None,  # None: 5 for Doubting Love Letter, else the game's default
    "death_match_first_to": None,  # None: 7 for Doubting Love Letter, else the game's default
    "game_pick": "organizer",  # or "pool_with_bans"
    "game_pool": list(GAMES),
    "candidates_per_round": 1,
    "candidate_rule": "last",  # or "winners_choose_any"
    "step_deadline_s": 3600,  # each entrant decision of a round; 0 = no deadline
}

# decisions entrants take during a round (they have deadlines; timeouts pick at random)
ENTRANT_STEPS = ("give_token", "choose_candidate", "nominate", "ban_game")

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


# ---- state ------------------------------------------------------------------


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

    @property
    def seats(self) -> tuple[str, ...]:
        return (self.candidate,) + ((self.dmo,) if self.dmo else ())

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


@dataclass(frozen=True)
class Final:
    players: tuple[str, ...]
    game: str
    first_to: int | None
    match_stream: str | None = None
    winner: str | None = None
    loser: str | None = None


@dataclass(frozen=True)
class ShowState:
    created: bool = False
    name: str = ""
    organizer: str = ""
    stream: str | None = None
    moderators: tuple[str, ...] = ()
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
    version: int = 0
    log: tuple[Event, ...] = ()
    voided: frozenset[int] = frozenset()


# ---- selectors ----------------------------------------------------------------


def active(state: ShowState) -> tuple[str, ...]:
    return tuple(e for e in state.entrants if state.status.get(e) == ACTIVE)


def eliminated(state: ShowState) -> tuple[str, ...]:
    return tuple(e for e in state.entrants if state.status.get(e) == ELIMINATED)


def champion(state: ShowState) -> str | None:
    return state.champion


def is_moderator(state: ShowState, username: str) -> bool:
    return username == state.organizer or username in state.moderators


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
    return out


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
    if not state.created or state.champion is not None:
        return out
    rnd = current_round(state)
    if rnd is not None:
        for step, who in round_decisions(state, rnd):
            out.append(Decision(who, step, state.deadlines.get((rnd.id, step, who))))
    elif state.final is None and len(active(state)) > 2:
        out.append(Decision(state.organizer, "enter_ranking" if next_round(state) else "add_round"))
    return out


def overdue(state: ShowState, now: float) -> list[tuple[float, tuple[str, str, str]]]:
    """Deadlines that have passed at ``now`` (a deadline T has passed at T), earliest first."""
    return sorted((d, k) for k, d in state.deadlines.items() if d <= now)


def next_deadline(state: ShowState) -> float | None:
    return min(state.deadlines.values(), default=None)


# ---- options and creation -----------------------------------------------------


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _name_ok(v: Any) -> bool:
    return isinstance(v, str) and v.strip() != ""


def resolve_options(options: Mapping[str, Any] | None, n_entrants: int = 0) -> dict[str, Any]:
    raw = dict(options or {})
    unknown = sorted(set(raw) - set(DEFAULT_OPTIONS))
    if unknown:
        raise RuleError(
            f"unknown show option(s): {', '.join(unknown)}; options: {', '.join(DEFAULT_OPTIONS)}"
        )
    o = {**DEFAULT_OPTIONS, **raw}
    if not _is_int(o["spectator_delay_s"]) or o["spectator_delay_s"] < 0:
        raise RuleError("spectator_delay_s must be a whole number of seconds, 0 or more")
    if o["spectator_policy"] not in ("public", "everything"):
        raise RuleError('spectator_policy must be "public" or "everything"')
    if o["final_game"] not in GAMES:
        raise RuleError(f"final_game must be one of {', '.join(GAMES)}")
    for key in ("final_first_to", "death_match_first_to"):
        if o[key] is not None and (not _is_int(o[key]) or o[key] < 1):
            raise RuleError(f"{key} must be a whole number of at least 1")
    if o["final_first_to"] is None and o["final_game"] == DOUBTING_LOVE_LETTER:
        o["final_first_to"] = FINAL_FIRST_TO_DLL
    if o["game_pick"] not in ("organizer", "pool_with_bans"):
        raise RuleError('game_pick must be "organizer" or "pool_with_bans"')
    pool = o["game_pool"]
    if not isinstance(pool, (list, tuple)) or not pool:
        raise RuleError("game_pool must be a non-empty list of game slugs")
    bad = [g for g in pool if g not in GAMES]
    if bad:
        raise RuleError(
            f"game_pool: unknown game(s) {', '.join(map(str, bad))}; games: {', '.join(GAMES)}"
        )
    if len(set(pool)) != len(pool):
        raise RuleError("game_pool lists a game twice")
    o["game_pool"] = list(pool)
    if o["game_pick"] == "pool_with_bans" and len(pool) < 3:
        raise RuleError(
            "pool_with_bans needs at least three games in game_pool (two bans, one left)"
        )
    if not _is_int(o["candidates_per_round"]) or o["candidates_per_round"] < 1:
        raise RuleError("candidates_per_round must be a whole number of at least 1")
    if o["candidate_rule"] not in ("last", "winners_choose_any"):
        raise RuleError('candidate_rule must be "last" or "winners_choose_any"')
    if not _is_int(o["step_deadline_s"]) or o["step_deadline_s"] < 0:
        raise RuleError(
            "step_deadline_s must be a whole number of seconds, 0 or more (0: no deadline)"
        )
    return o


def death_match_first_to(state: ShowState, game: str) -> int | None:
    """First to N of a death match of ``game`` (None: the game's own default)."""
    set_ = state.options.get("death_match_first_to")
    if set_ is not None:
        return set_
    return DEATH_MATCH_FIRST_TO_DLL if game == DOUBTING_LOVE_LETTER else None


def create_show(
    ctx: Ctx,
    name: str,
    organizer: str,
    entrants: Sequence[str],
    options: Mapping[str, Any] | None = None,
    *,
    rounds: Sequence[str | Mapping[str, Any]] | None = None,
    stream: str | None = None,
) -> list[Event]:
    """The initial events of a show. ``rounds``: titles of the planned rounds
    (default: enough for one elimination each round); ``stream``: the show's
    own stream id, so that disputes can name show events."""
    if not _name_ok(name):
        raise RuleError("a show needs a name")
    if not _name_ok(organizer):
        raise RuleError("a show needs an organizer (a username)")
    if not isinstance(entrants, (list, tuple)) or not all(_name_ok(e) for e in entrants):
        raise RuleError("entrants must be a list of usernames")
    entrants = list(entrants)
    if len(set(entrants)) != len(entrants):
        dup = sorted({e for e in entrants if entrants.count(e) > 1})
        raise RuleError(f"entrant(s) listed twice: {', '.join(dup)}")
    if len(entrants) < 2:
        raise RuleError("a show needs at least two entrants")
    if organizer in entrants:
        raise RuleError(f"the organizer {organizer} cannot also be an entrant")
    opts = resolve_options(options, len(entrants))
    if rounds is None:
        k = opts["candidates_per_round"]
        count = -(-max(len(entrants) - 2, 0) // k)
        titles = [f"Round {i}" for i in range(1, count + 1)]
    else:
        if not isinstance(rounds, (list, tuple)):
            raise RuleError("rounds must be a list of round titles")
        titles = []
        for i, r in enumerate(rounds, 1):
            t = r.get("title") if isinstance(r, Mapping) else r
            if not _name_ok(t):
                raise RuleError(f"round {i} needs a title")
            titles.append(t)
    if stream is not None and not _name_ok(stream):
        raise RuleError("stream must be a stream id")
    b = _Builder(ShowState(), {"actor": organizer, "role": ORGANIZER, "reason": ""}, ctx)
    b.emit(
        "show_created",
        {
            "name": name,
            "organizer": organizer,
            "stream": stream,
            "entrants": entrants,
            "options": opts,
            "rounds": [{"id": f"r{i}", "title": t} for i, t in enumerate(titles, 1)],
        },
    )
    _maybe_open_final(b)
    return b.events


# ---- the builder: emit events, folding as we go ----------------------------------


class _Builder:
    def __init__(self, state: ShowState, cmd: Mapping[str, Any], ctx: Ctx):
        self.state = state
        self.cmd = cmd
        self.ctx = ctx
        self.events: list[Event] = []
        self.actor = cmd.get("actor")
        self.role = cmd.get("role")
        self.on_behalf: str | None = None  # set by timeouts: the entrant whose step it is

    def meta(self, reason: str | None = None) -> dict[str, Any]:
        r = self.cmd.get("reason", "") if reason is None else reason
        m = {"actor": self.actor, "role": self.role, "reason": r or "", "at": self.ctx.now}
        if self.on_behalf is not None:
            m["timeout"] = True
            m["on_behalf_of"] = self.on_behalf
        return m

    def emit(
        self,
        type_: str,
        data: Mapping[str, Any],
        reason: str | None = None,
        visible_to: tuple[str, ...] | None = None,
        public: Mapping[str, Any] | None = None,
    ) -> Event:
        meta = self.meta(reason)
        ev = Event(
            type_,
            {**data, **meta},
            visible_to,
            None if public is None else {**public, **meta},
        )
        self.state = evolve(self.state, ev)
        self.events.append(ev)
        return ev


# ---- decide ---------------------------------------------------------------------


def decide(state: ShowState, command: Mapping[str, Any], ctx: Ctx) -> list[Event]:
    if not isinstance(command, Mapping):
        raise RuleError("a command is a mapping with a type, an actor and a role")
    kind = command.get("type")
    handler = _HANDLERS.get(kind)  # type: ignore[arg-type]
    if handler is None:
        raise RuleError(f"unknown show command {kind!r}; commands: {', '.join(sorted(_HANDLERS))}")
    if not state.created:
        raise RuleError("there is no show yet: create it first")
    if not _name_ok(command.get("actor")):
        raise RuleError("a command needs an actor (a username)")
    if command.get("role") not in ROLES:
        raise RuleError(f"role must be one of {', '.join(ROLES)}")
    reason = command.get("reason", "")
    if reason is not None and not isinstance(reason, str):
        raise RuleError("reason must be text")
    if command["role"] == SPECTATOR:
        raise RuleError(f"spectators may only watch: {_WHAT.get(kind, kind)} is not for them")
    b = _Builder(state, command, ctx)
    handler(b, command)
    return b.events


_WHAT = {
    "add_round": "add a round",
    "reorder_rounds": "reorder rounds",
    "appoint_moderator": "appoint a moderator",
    "substitute": "substitute an entrant",
    "extend_deadline": "extend a deadline",
    "enter_ranking": "enter a main-match ranking",
    "pick_game": "pick the death-match game",
    "give_token": "give a token of life",
    "choose_candidate": "choose the elimination candidate",
    "nominate": "nominate a death-match opponent",
    "ban_game": "ban a game",
    "grant_item": "grant an item",
    "transfer_item": "transfer an item",
    "revoke_item": "revoke an item",
    "item_used": "record an item's use",
    "death_match_linked": "link a death match",
    "death_match_result": "record a death-match result",
    "final_linked": "link the final",
    "final_result": "record the final's result",
    "file_dispute": "file a dispute",
    "claim_dispute": "claim a dispute",
    "transfer_dispute": "transfer a dispute",
    "rule_dispute": "rule on a dispute",
    "approve_ruling": "approve a ruling",
    "reject_ruling": "reject a ruling",
    "timeout": "time out a step",
}


# ---- role checks ----


def _need_organizer(b: _Builder, kind: str) -> None:
    if b.actor != b.state.organizer or b.role not in (ORGANIZER, MODERATOR):
        raise RuleError(f"only the organizer may {_WHAT[kind]}")


def _need_moderator(b: _Builder, kind: str) -> None:
    if b.role not in (ORGANIZER, MODERATOR) or not is_moderator(b.state, b.actor):
        raise RuleError(f"only a moderator of this show may {_WHAT[kind]}")


def _need_system(b: _Builder, kind: str) -> None:
    if b.role != SYSTEM:
        raise RuleError(f"only the system may {_WHAT[kind]}: it is recorded from the match")


def _player(b: _Builder, kind: str) -> str:
    """The entrant acting (a timeout acts for the entrant whose step it is)."""
    if b.on_behalf is not None:
        return b.on_behalf
    if b.role != PLAYER or b.actor not in b.state.entrants:
        raise RuleError(f"only an entrant of this show may {_WHAT[kind]}")
    if b.state.status.get(b.actor) != ACTIVE:
        raise RuleError(f"{b.actor} is no longer in the show")
    return b.actor


def _self_field(b: _Builder, c: Mapping[str, Any], key: str, who: str) -> None:
    if key in c and c[key] is not None and c[key] != who:
        raise RuleError("you may only act for yourself")


def _not_over(s: ShowState) -> None:
    if s.champion is not None:
        raise RuleError(f"the show is over: {s.champion} is the champion")


def _text(c: Mapping[str, Any], key: str, what: str) -> str:
    v = c.get(key)
    if not _name_ok(v):
        raise RuleError(f"{what} is required")
    return v


def _reason(c: Mapping[str, Any], what: str) -> str:
    return _text(c, "reason", f"a reason for {what}")


def _round_in_progress(b: _Builder, c: Mapping[str, Any]) -> Round:
    s = b.state
    _not_over(s)
    rnd = current_round(s)
    if rnd is None:
        raise RuleError("no round is in progress")
    rid = c.get("round")
    if rid is not None and rid != rnd.id:
        raise RuleError(f"round {rid} is not in progress; round {rnd.id} is")
    return rnd


# ---- organizer: rounds, moderators, substitutions, deadlines ----


def _add_round(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "add_round")
    _not_over(b.state)
    if b.state.final is not None:
        raise RuleError("the final is under way: no more rounds")
    n = b.state.round_seq + 1
    title = c.get("title") or f"Round {n}"
    if not isinstance(title, str):
        raise RuleError("a round's title is text")
    b.emit("round_added", {"round": f"r{n}", "title": title})


def _reorder_rounds(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "reorder_rounds")
    _not_over(b.state)
    reason = _reason(c, "reordering rounds")
    order = c.get("order")
    if not isinstance(order, (list, tuple)) or not all(isinstance(x, str) for x in order):
        raise RuleError("order must be a list of round ids")
    ids = [r.id for r in b.state.rounds]
    done = [r.id for r in b.state.rounds if r.status != PLANNED]
    todo = [r.id for r in b.state.rounds if r.status == PLANNED]
    order = list(order)
    if order[: len(done)] == done and len(order) == len(ids):
        order = order[len(done) :]
    started = [x for x in order if x in done]
    if started:
        raise RuleError(
            f"round(s) {', '.join(started)} already started: only rounds not started may be reordered"
        )
    if sorted(order) != sorted(todo) or len(set(order)) != len(order):
        raise RuleError(f"order must list each round not started exactly once: {', '.join(todo)}")
    b.emit("rounds_reordered", {"order": done + order}, reason=reason)


def _appoint_moderator(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "appoint_moderator")
    who = _text(c, "username", "the new moderator's username")
    s = b.state
    if who == s.organizer:
        raise RuleError("the organizer is a moderator already")
    if who in s.moderators:
        raise RuleError(f"{who} is a moderator already")
    if s.status.get(who) in (ACTIVE, CHAMPION):
        raise RuleError(f"{who} is an entrant of this show and cannot moderate it")
    b.emit("moderator_appointed", {"username": who})


def _substitute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "substitute")
    s = b.state
    _not_over(s)
    reason = _reason(c, "a substitution")
    out, new = c.get("out"), c.get("in")
    if not _name_ok(out) or not _name_ok(new):
        raise RuleError("a substitution needs out and in (usernames)")
    if s.status.get(out) != ACTIVE:
        raise RuleError(f"{out} is not an active entrant")
    if new in s.entrants:
        raise RuleError(f"{new} has already been an entrant of this show")
    if is_moderator(s, new):
        raise RuleError(f"{new} moderates this show and cannot enter it")
    rnd = current_round(s)
    if rnd is not None:
        for d in rnd.duels:
            if d.opened and not d.decided and out in d.seats:
                raise RuleError(f"{out} is playing a death match: rule on that match instead")
    if s.final is not None and out in s.final.players:
        raise RuleError(f"{out} is playing the final: rule on that match instead")
    moved = [it.id for it in inventory(s, out)]
    b.emit("entrant_substituted", {"out": out, "in": new, "items": moved}, reason=reason)


def _extend_deadline(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "extend_deadline")
    rnd = _round_in_progress(b, c)
    reason = _reason(c, "extending a deadline")
    step = c.get("step")
    if step not in ENTRANT_STEPS:
        raise RuleError(f"step must be one of {', '.join(ENTRANT_STEPS)}")
    secs = c.get("seconds")
    if not isinstance(secs, (int, float)) or isinstance(secs, bool) or secs <= 0:
        raise RuleError("seconds must be a positive number")
    who = c.get("entrant")
    keys = [
        k
        for k in b.state.deadlines
        if k[0] == rnd.id and k[1] == step and (who is None or k[2] == who)
    ]
    if not keys:
        raise RuleError(f"no deadline for {step} is running in round {rnd.id}")
    b.emit(
        "deadline_extended",
        {"round": rnd.id, "step": step, "seconds": secs, "entrants": sorted(k[2] for k in keys)},
        reason=reason,
    )


# ---- a round's steps ----


def _parse_ranking(raw: Any, live: Sequence[str]) -> list[list[str]]:
    if not isinstance(raw, (list, tuple)) or not raw:
        raise RuleError(
            'ranking must be a list of places, best first, e.g. [["ana"], ["ben", "cal"]]'
        )
    groups: list[list[str]] = []
    for g in raw:
        if isinstance(g, str):
            g = [g]
        if not isinstance(g, (list, tuple)) or not g or not all(isinstance(x, str) for x in g):
            raise RuleError("every place of the ranking is a non-empty list of usernames")
        groups.append(list(g))
    flat = [x for g in groups for x in g]
    dups = sorted({x for x in flat if flat.count(x) > 1})
    if dups:
        raise RuleError(f"the ranking lists {', '.join(dups)} more than once")
    extra = [x for x in flat if x not in live]
    if extra:
        raise RuleError(f"not active entrants: {', '.join(extra)}")
    missing = [x for x in live if x not in flat]
    if missing:
        raise RuleError(
            f"the ranking must place every active entrant; missing: {', '.join(missing)}"
        )
    if len(groups) < 2:
        raise RuleError("a ranking with everyone tied has no last place")
    return groups


def _enter_ranking(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "enter_ranking")
    s = b.state
    _not_over(s)
    if s.final is not None:
        raise RuleError("the final is under way: no more rounds")
    cur = current_round(s)
    if cur is not None:
        raise RuleError(f"round {cur.id} ({cur.title}) is still in progress")
    nxt = next_round(s)
    if nxt is None:
        raise RuleError("no round left to play: add one with add_round")
    rid = c.get("round", nxt.id)
    if rid != nxt.id:
        raise RuleError(f"the next round is {nxt.id} ({nxt.title}), not {rid}")
    live = active(s)
    groups = _parse_ranking(c.get("ranking"), live)
    winners = groups[0]
    n = len(live)
    sole = len(winners) == 1
    gift_due = sole and n >= 4
    immune_count = len(winners) + (1 if gift_due else 0)
    needed = max(0, min(s.options["candidates_per_round"], (n - immune_count) // 2, n - 2))
    note = ""
    if sole and not gift_due:
        note = "only three entrants remain: the second token of life is not given"
    b.emit(
        "ranking_entered",
        {
            "round": nxt.id,
            "ranking": groups,
            "winners": winners,
            "tokens": {w: (2 if sole else 1) for w in winners},
            "gift_due": gift_due,
            "needed": needed,
            "note": note,
        },
    )
    _advance(b)


def _advance(b: _Builder) -> None:
    """Take every step that follows by itself: name forced candidates, finish
    a round with nothing left, open the final."""
    rnd = current_round(b.state)
    if rnd is not None:
        if rnd.needed == 0:
            b.emit(
                "round_finished",
                {"round": rnd.id, "eliminated": []},
                reason="no elimination: fewer than two entrants without a token of life",
            )
        elif not rnd.gift_due and not rnd.named:
            forced, pool, _r = candidate_split(b.state, rnd)
            if not pool:
                b.emit(
                    "candidates_named",
                    {"round": rnd.id, "candidates": list(forced), "chosen_by": None},
                    reason="last place of the ranking",
                )
        elif rnd.named and rnd.duels and all(d.decided for d in rnd.duels):
            b.emit(
                "round_finished",
                {"round": rnd.id, "eliminated": [d.loser for d in rnd.duels]},
                reason="every death match of the round is decided",
            )
    _maybe_open_final(b)


def _maybe_open_final(b: _Builder) -> None:
    s = b.state
    if s.final is not None or s.champion is not None or current_round(s) is not None:
        return
    live = active(s)
    if len(live) != 2:
        return
    game = s.options["final_game"]
    b.emit(
        "final_opened",
        {
            "players": list(live),
            "game": game,
            "first_to": s.options.get("final_first_to"),
        },
        reason="two entrants remain",
    )


def _give_token(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "give_token")
    rnd = _round_in_progress(b, c)
    _self_field(b, c, "giver", who)
    if not rnd.gift_due:
        raise RuleError("no token of life is waiting to be given this round")
    giver = rnd.winners[0]
    if who != giver:
        raise RuleError(f"only the sole winner {giver} may give the second token of life")
    to = c.get("to")
    if not _name_ok(to):
        raise RuleError("give_token needs to: the entrant who receives the token")
    _check_gift(b.state, rnd, to)
    b.emit("token_given", {"round": rnd.id, "giver": giver, "to": to})
    _advance(b)


def gift_options(s: ShowState, rnd: Round) -> tuple[str, ...]:
    forced, _pool, _r = candidate_split(s, rnd)
    return tuple(e for e in active(s) if e not in rnd.winners and e not in forced)


def _check_gift(s: ShowState, rnd: Round, to: str) -> None:
    if to == rnd.winners[0]:
        raise RuleError("the second token must go to another entrant")
    if s.status.get(to) != ACTIVE:
        raise RuleError(f"{to} is not an active entrant")
    forced, _pool, _r = candidate_split(s, rnd)
    if to in forced:
        raise RuleError(f"{to} is the elimination candidate and cannot receive a token of life")


def _choose_candidate(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "choose_candidate")
    rnd = _round_in_progress(b, c)
    if rnd.gift_due:
        raise RuleError(f"first {rnd.winners[0]} must give the second token of life")
    if rnd.named:
        raise RuleError("the elimination candidates are already named")
    forced, pool, r = candidate_split(b.state, rnd)
    if not pool:
        raise RuleError("the candidates follow from the ranking: there is nothing to choose")
    if who not in rnd.winners:
        raise RuleError(
            f"only the winners of the main match ({', '.join(rnd.winners)}) may choose the candidate"
        )
    raw = c.get("candidates", c.get("candidate"))
    chosen = [raw] if isinstance(raw, str) else raw
    if not isinstance(chosen, (list, tuple)) or not all(isinstance(x, str) for x in chosen):
        raise RuleError("choose_candidate needs candidates: a list of usernames")
    chosen = list(chosen)
    if len(set(chosen)) != len(chosen):
        raise RuleError("a candidate is named twice")
    if len(chosen) != r:
        raise RuleError(f"choose exactly {r} candidate(s) among {', '.join(pool)}")
    bad = [x for x in chosen if x not in pool]
    if bad:
        imm = [x for x in bad if x in rnd.immune]
        if imm:
            raise RuleError(f"{', '.join(imm)} hold(s) a token of life and cannot be a candidate")
        raise RuleError(f"{', '.join(bad)} cannot be chosen; choose among {', '.join(pool)}")
    b.emit(
        "candidates_named",
        {"round": rnd.id, "candidates": list(forced) + chosen, "chosen_by": who},
    )
    _advance(b)


def dmo_options(s: ShowState, rnd: Round, candidate: str) -> tuple[str, ...]:
    taken = {d.dmo for d in rnd.duels if d.dmo}
    return tuple(
        e
        for e in active(s)
        if e != candidate and e not in rnd.immune and e not in rnd.candidates and e not in taken
    )


def _nominate(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "nominate")
    rnd = _round_in_progress(b, c)
    _self_field(b, c, "candidate", who)
    if not rnd.named:
        raise RuleError("the elimination candidates are not named yet")
    duel = rnd.duel(who)
    if duel is None:
        raise RuleError(
            f"only an elimination candidate may nominate a death-match opponent; {who} is not one in round {rnd.id}"
        )
    if duel.dmo is not None:
        raise RuleError(f"{who} has already nominated {duel.dmo}")
    dmo = c.get("dmo")
    if not _name_ok(dmo):
        raise RuleError("nominate needs dmo: the entrant you challenge")
    if dmo == who:
        raise RuleError("you cannot nominate yourself")
    if b.state.status.get(dmo) != ACTIVE:
        raise RuleError(f"{dmo} is not an active entrant")
    if dmo in rnd.immune:
        raise RuleError(f"{dmo} holds a token of life this round and cannot be nominated")
    if dmo in rnd.candidates:
        raise RuleError(f"{dmo} is an elimination candidate too")
    for d in rnd.duels:
        if d.dmo == dmo:
            raise RuleError(f"{dmo} is already the death-match opponent of {d.candidate}")
    b.emit("dmo_nominated", {"round": rnd.id, "candidate": who, "dmo": dmo})


def ban_options(s: ShowState, duel: Duel) -> tuple[str, ...]:
    return tuple(g for g in s.options["game_pool"] if g not in duel.bans.values())


def _duel_of(rnd: Round, who: str) -> Duel | None:
    for d in rnd.duels:
        if who == d.candidate or who == d.dmo:
            return d
    return None


def _ban_game(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "ban_game")
    rnd = _round_in_progress(b, c)
    if b.state.options["game_pick"] != "pool_with_bans":
        raise RuleError("this show has no bans: the organizer picks the death-match game")
    duel = _duel_of(rnd, who)
    cand = c.get("candidate")
    if cand is not None and (duel is None or duel.candidate != cand):
        raise RuleError("you may only act for yourself")
    if duel is None or duel.dmo is None:
        raise RuleError(
            "only an elimination candidate or their death-match opponent may ban a game"
        )
    if duel.game is not None:
        raise RuleError(f"the game of this death match is already picked: {duel.game}")
    if who in duel.bans:
        raise RuleError(f"{who} has already banned {duel.bans[who]}")
    game = c.get("game")
    if game not in b.state.options["game_pool"]:
        raise RuleError(
            f"{game!r} is not in the show's pool: {', '.join(b.state.options['game_pool'])}"
        )
    if game in duel.bans.values():
        raise RuleError(f"{game} is already banned")
    b.emit("game_banned", {"round": rnd.id, "candidate": duel.candidate, "by": who, "game": game})


def _pick_game(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "pick_game")
    rnd = _round_in_progress(b, c)
    s = b.state
    ready = [d for d in rnd.duels if d.dmo is not None and d.game is None]
    cand = c.get("candidate")
    if cand is None:
        if len(ready) != 1:
            raise RuleError("name the candidate whose death match this game is for")
        duel = ready[0]
    else:
        duel = rnd.duel(cand)
        if duel is None:
            raise RuleError(f"{cand} is not an elimination candidate in round {rnd.id}")
    if duel.dmo is None:
        raise RuleError(f"{duel.candidate} has not nominated a death-match opponent yet")
    if duel.game is not None:
        raise RuleError(f"the death match of {duel.candidate} is already set: {duel.game}")
    bans = s.options["game_pick"] == "pool_with_bans"
    if bans:
        waiting = [w for w in (duel.candidate, duel.dmo) if w not in duel.bans]
        if waiting:
            raise RuleError(f"waiting for the ban of {', '.join(waiting)}")
    game = c.get("game")
    remaining = ban_options(s, duel)
    if game not in remaining:
        if game in duel.bans.values():
            raise RuleError(
                f"{game} is banned for this death match; pick among {', '.join(remaining)}"
            )
        raise RuleError(f"pick the game among {', '.join(remaining)}")
    b.emit("game_picked", {"round": rnd.id, "candidate": duel.candidate, "game": game})
    first_to = death_match_first_to(s, game)
    dmo_item = "dmo" if game_knows(game, "dmo") else None
    b.emit(
        "death_match_opened",
        {
            "round": rnd.id,
            "candidate": duel.candidate,
            "dmo": duel.dmo,
            "seats": [duel.candidate, duel.dmo],
            "game": game,
            "first_to": first_to,
            "advantage": duel.dmo,
            "advantage_item": dmo_item,
        },
        reason=c.get("reason") or "",
    )


# ---- what the system records from the matches ----


def _open_duel(b: _Builder, c: Mapping[str, Any]) -> tuple[Round, Duel]:
    s = b.state
    _not_over(s)
    rid = c.get("round")
    rnd = current_round(s) if rid is None else round_by_id(s, rid)
    if rnd is None:
        raise RuleError("no round is in progress" if rid is None else f"no round {rid}")
    cand = c.get("candidate")
    duel = rnd.duel(cand) if cand is not None else None
    if duel is None:
        raise RuleError(f"no death match of {cand!r} in round {rnd.id}")
    if not duel.opened:
        raise RuleError(f"the death match of {cand} is not open yet")
    return rnd, duel


def _death_match_linked(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "death_match_linked")
    rnd, duel = _open_duel(b, c)
    stream = _text(c, "match_stream", "match_stream")
    if duel.match_stream is not None:
        raise RuleError(
            f"the death match of {duel.candidate} is already linked to {duel.match_stream}"
        )
    if match_kind(b.state, stream)[0] != "other":
        raise RuleError(f"{stream} is already a stream of this show")
    b.emit(
        "death_match_linked", {"round": rnd.id, "candidate": duel.candidate, "match_stream": stream}
    )


def _death_match_result(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "death_match_result")
    rnd, duel = _open_duel(b, c)
    if rnd.status != STARTED:
        raise RuleError(f"round {rnd.id} is not in progress")
    if duel.decided:
        raise RuleError(
            f"the death match of {duel.candidate} is decided already: {duel.winner} won"
        )
    winner, loser = c.get("winner"), c.get("loser")
    if loser is None and winner in duel.seats:
        loser = duel.dmo if winner == duel.candidate else duel.candidate
    if {winner, loser} != set(duel.seats) or winner == loser:
        raise RuleError(f"winner and loser must be {duel.candidate} and {duel.dmo}")
    stream = c.get("match_stream")
    if stream is not None and duel.match_stream is not None and stream != duel.match_stream:
        raise RuleError(f"that death match is {duel.match_stream}, not {stream}")
    b.emit(
        "death_match_result",
        {
            "round": rnd.id,
            "candidate": duel.candidate,
            "winner": winner,
            "loser": loser,
            "match_stream": duel.match_stream or stream,
        },
    )
    b.emit(
        "entrant_eliminated",
        {"entrant": loser, "round": rnd.id, "cause": "death_match"},
        reason=f"lost the death match to {winner}",
    )
    _advance(b)


def _final_linked(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "final_linked")
    s = b.state
    _not_over(s)
    if s.final is None:
        raise RuleError("the final is not open")
    stream = _text(c, "match_stream", "match_stream")
    if s.final.match_stream is not None:
        raise RuleError(f"the final is already linked to {s.final.match_stream}")
    if match_kind(s, stream)[0] != "other":
        raise RuleError(f"{stream} is already a stream of this show")
    b.emit("final_linked", {"match_stream": stream})


def _final_result(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "final_result")
    s = b.state
    _not_over(s)
    f = s.final
    if f is None:
        raise RuleError("the final is not open")
    winner = c.get("winner")
    if winner not in f.players:
        raise RuleError(f"the winner must be {f.players[0]} or {f.players[1]}")
    loser = f.players[1] if winner == f.players[0] else f.players[0]
    if c.get("loser") not in (None, loser):
        raise RuleError(f"the loser must be {loser}")
    stream = c.get("match_stream")
    if stream is not None and f.match_stream is not None and stream != f.match_stream:
        raise RuleError(f"the final is {f.match_stream}, not {stream}")
    b.emit(
        "final_result", {"winner": winner, "loser": loser, "match_stream": f.match_stream or stream}
    )
    b.emit(
        "entrant_eliminated",
        {"entrant": loser, "round": None, "cause": "final"},
        reason=f"lost the final to {winner}",
    )
    b.emit("champion_crowned", {"champion": winner}, reason="won the final")


# ---- items ----


def _item_no(item_id: str) -> int:
    try:
        return int(item_id.split("-", 1)[1])
    except (IndexError, ValueError):
        return 0


def _scope_allows(scope: str, kind: str) -> bool:
    return scope == "any" or scope == kind


def _held(s: ShowState, item_id: Any) -> Item:
    it = s.items.get(item_id) if isinstance(item_id, str) else None
    if it is None:
        raise RuleError(f"no item {item_id!r} in this show")
    if it.status != "held":
        raise RuleError(f"item {item_id} ({it.item}) is {it.status} and held by nobody")
    return it


def _grant_item(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "grant_item")
    s = b.state
    _not_over(s)
    who = c.get("entrant")
    if s.status.get(who) != ACTIVE:
        raise RuleError(f"{who} is not an active entrant")
    slug = c.get("item")
    if slug not in known_items():
        raise RuleError(f"no item called {slug!r}; items: {', '.join(sorted(known_items()))}")
    scope = c.get("scope", "any")
    if scope not in SCOPES:
        raise RuleError(f"scope must be one of {', '.join(SCOPES)}")
    given_by = _text(c, "given_by", "given_by (who gives the item, e.g. a host's name)")
    item_id = f"it-{s.item_seq + 1}"
    b.emit(
        "item_granted",
        {
            "item_id": item_id,
            "entrant": who,
            "item": slug,
            "scope": scope,
            "given_by": given_by,
            "games": list(games_knowing(slug)),
        },
        visible_to=(who,),
        public={"item_id": item_id, "entrant": who, "given_by": given_by},
    )


def _transfer_item(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    _not_over(s)
    src, dst = c.get("from"), c.get("to")
    if b.role in (ORGANIZER, MODERATOR):
        _need_moderator(b, "transfer_item")
    else:
        who = _player(b, "transfer_item")
        if src != who:
            raise RuleError("you may only act for yourself")
        mine = s.items.get(c.get("item_id")) if isinstance(c.get("item_id"), str) else None
        if mine is None or mine.holder != who or mine.status != "held":
            raise RuleError(
                f"you hold no item {c.get('item_id')!r}"
            )  # says nothing of others' items
    it = _held(s, c.get("item_id"))
    if it.holder != src:
        raise RuleError(f"{src} does not hold item {it.id} ({it.item}); {it.holder} does")
    if s.status.get(dst) != ACTIVE:
        raise RuleError(f"{dst} is not an active entrant")
    if dst == src:
        raise RuleError("an item cannot be transferred to its own holder")
    b.emit(
        "item_transferred",
        {"item_id": it.id, "item": it.item, "scope": it.scope, "from": src, "to": dst},
        visible_to=(src, dst),
        public={"item_id": it.id, "from": src, "to": dst},
    )


def _revoke_item(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "revoke_item")
    it = _held(b.state, c.get("item_id"))
    reason = _reason(c, "revoking an item")
    b.emit(
        "item_revoked",
        {"item_id": it.id, "item": it.item, "entrant": it.holder},
        reason=reason,
        visible_to=(it.holder,),
        public={"item_id": it.id, "entrant": it.holder},
    )


def _item_used(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "item_used")
    s = b.state
    who = c.get("entrant")
    stream = _text(c, "match_stream", "match_stream")
    known, _where = match_kind(s, stream)
    if known in ("death_match", "final"):
        kind = known
        if c.get("kind") not in (None, kind):
            raise RuleError(f"{stream} is a {kind.replace('_', ' ')}, not a {c.get('kind')}")
    elif known == "show":
        raise RuleError("items are used in matches, not in the show's own stream")
    else:
        kind = c.get("kind")
        if kind not in MATCH_KINDS:
            raise RuleError(
                f"kind must be one of {', '.join(MATCH_KINDS)} for a match the show does not know"
            )
    if c.get("item_id") is not None:
        it = _held(s, c["item_id"])
        if it.holder != who:
            raise RuleError(f"{who} does not hold item {it.id} ({it.item})")
    else:
        slug = c.get("item")
        held = [x for x in inventory(s, who) if x.item == slug]
        if not held:
            raise RuleError(f"{who} holds no {slug}")
        usable = [x for x in held if _scope_allows(x.scope, kind)]
        it = (usable or held)[0]
    if not _scope_allows(it.scope, kind):
        raise RuleError(
            f"item {it.id} ({it.item}) is for {SCOPE_WORDS[it.scope]}; it cannot be used in a "
            f"{kind.replace('_', ' ')} match"
        )
    b.emit(
        "item_used",
        {"item_id": it.id, "item": it.item, "entrant": who, "match_stream": stream, "kind": kind},
        visible_to=(who,),
        public={"item_id": it.id, "entrant": who, "match_stream": stream, "kind": kind},
    )


# ---- disputes ----


def _dispute(s: ShowState, c: Mapping[str, Any]) -> Dispute:
    did = c.get("dispute_id")
    d = s.disputes.get(did) if isinstance(did, str) else None
    if d is None:
        raise RuleError(f"no dispute {did!r} in this show")
    return d


def _file_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    s = b.state
    mod = b.role in (ORGANIZER, MODERATOR) and is_moderator(s, b.actor)
    if not mod and not (b.role == PLAYER and c.get("seated") is True):
        raise RuleError(
            "only a player seated in that match or a moderator of this show may file a dispute"
        )
    stream = _text(c, "target_stream", "target_stream (the stream of the disputed event)")
    version = c.get("target_version")
    if not _is_int(version) or version < 1:
        raise RuleError("target_version must be the version of the disputed event (1 or more)")
    if match_kind(s, stream)[0] == "show" and version > s.version:
        raise RuleError(f"the show has no event {version} yet (it is at version {s.version})")
    text = _text(c, "text", "a dispute's text")
    did = f"d-{s.dispute_seq + 1}"
    data = {
        "dispute_id": did,
        "target_stream": stream,
        "target_version": version,
        "text": text,
        "filed_by": b.actor,
    }
    public = {k: v for k, v in data.items() if k != "text"}
    b.emit("dispute_filed", data, visible_to=(b.actor,), public=public)


def _claim_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "claim_dispute")
    d = _dispute(b.state, c)
    if d.status != OPEN:
        who = f" by {d.claimed_by}" if d.claimed_by else ""
        raise RuleError(f"dispute {d.id} is {d.status.replace('_', ' ')}{who}, not open")
    b.emit("dispute_claimed", {"dispute_id": d.id, "moderator": b.actor})


def _transfer_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "transfer_dispute")
    s = b.state
    d = _dispute(s, c)
    if d.status != CLAIMED:
        raise RuleError(
            f"dispute {d.id} is {d.status.replace('_', ' ')}: only a claimed dispute can be transferred"
        )
    if b.actor not in (d.claimed_by, s.organizer):
        raise RuleError(
            f"only {d.claimed_by}, who claimed dispute {d.id}, or the organizer may transfer it"
        )
    to = c.get("to")
    if not _name_ok(to) or not is_moderator(s, to):
        raise RuleError(f"{to!r} is not a moderator of this show")
    if to == d.claimed_by:
        raise RuleError(f"{to} holds dispute {d.id} already")
    b.emit("dispute_transferred", {"dispute_id": d.id, "from": d.claimed_by, "to": to})


@dataclass(frozen=True)
class _Plan:
    """What a ruling does to the show."""

    four_eyes: bool
    effect: str  # none, void, disqualify, correct, reopen
    target_kind: str
    where: Any = None
    new_winner: str | None = None
    entrant: str | None = None
    voided: tuple[int, ...] = ()


def _check_params(ruling: str, params: Mapping[str, Any], target_version: int) -> None:
    if ruling == "void_to":
        v = params.get("version")
        if not _is_int(v) or v < 1 or v >= target_version:
            raise RuleError(
                f"void_to needs params.version: a version from 1 to {target_version - 1}, before the disputed event"
            )
    elif ruling in ("award_bout", "overturn_series"):
        if not _name_ok(params.get("winner")):
            raise RuleError(f"{ruling} needs params.winner")
    elif ruling == "disqualify":
        if not _name_ok(params.get("entrant")):
            raise RuleError("disqualify needs params.entrant")
    elif ruling == "adjust_clock":
        secs = params.get("seconds")
        if (
            not _name_ok(params.get("seat"))
            or not isinstance(secs, (int, float))
            or isinstance(secs, bool)
        ):
            raise RuleError("adjust_clock needs params.seat and params.seconds")


def _plan_ruling(
    s: ShowState, d: Dispute, ruling: str, params: Mapping[str, Any], flags: Mapping[str, Any]
) -> _Plan:
    """Validate a ruling against the show now; raise RuleError if it cannot apply."""
    if ruling not in RULINGS:
        raise RuleError(f"ruling must be one of {', '.join(RULINGS)}")
    _check_params(ruling, params, d.target_version)
    changes = bool(flags.get("changes_series_winner"))
    reopens = bool(flags.get("reopens_series"))
    kind, where = match_kind(s, d.target_stream)
    if kind == "show":
        if ruling in MATCH_ONLY_RULINGS:
            raise RuleError(f"{ruling} applies to a match, not to the show's own stream")
        if ruling == "void_to":
            v = params["version"]
            voided = tuple(
                i
                for i, ev in enumerate(s.log, 1)
                if i > v and i not in s.voided and ev.type in STEP_EVENTS
            )
            deciding = any(s.log[i - 1].type in DECIDING_EVENTS for i in voided)
            return _Plan(changes or deciding, "void", kind, voided=voided)
        if ruling == "disqualify":
            who = params["entrant"]
            _check_show_disqualify(s, who)
            return _Plan(True, "disqualify", kind, entrant=who)
        return _Plan(changes, "none", kind)
    if kind in ("death_match", "final"):
        if kind == "final":
            seats = s.final.players
            winner = s.final.winner
        else:
            rnd = round_by_id(s, where[0])
            duel = rnd.duel(where[1])
            seats = duel.seats
            winner = duel.winner
        for key in ("winner", "seat", "entrant"):
            if key in params and params[key] not in seats:
                raise RuleError(f"{params[key]} is not seated in that match ({' vs '.join(seats)})")
        new_winner = None
        if ruling == "overturn_series":
            new_winner = params["winner"]
            if winner is None:
                raise RuleError("that match has no result to overturn yet")
        elif ruling == "disqualify":
            new_winner = seats[1] if params["entrant"] == seats[0] else seats[0]
        elif ruling == "award_bout" and changes:
            new_winner = params["winner"]
        four = changes or ruling in ("overturn_series", "disqualify")
        if winner is not None and (reopens or ruling == "void_to") and new_winner is None:
            _check_correctable(s, kind, where)
            return _Plan(True, "reopen", kind, where)
        if winner is not None and new_winner is not None and new_winner != winner:
            _check_correctable(s, kind, where)
            return _Plan(True, "correct", kind, where, new_winner=new_winner)
        return _Plan(four, "none", kind, where)
    return _Plan(changes or ruling == "overturn_series", "none", kind)


def _check_correctable(s: ShowState, kind: str, where: Any) -> None:
    if kind == "final":
        return
    rid = where[0]
    ids = [r.id for r in s.rounds]
    later = [r for r in s.rounds[ids.index(rid) + 1 :] if r.status != PLANNED]
    if later:
        raise RuleError(
            f"the show has moved on to round {later[0].id}: that death match can no longer be corrected"
        )
    if s.final is not None and s.final.winner is not None:
        raise RuleError("the final is decided: that death match can no longer be corrected")


def _check_show_disqualify(s: ShowState, who: str) -> None:
    if s.status.get(who) != ACTIVE:
        raise RuleError(f"{who} is not an active entrant")
    if s.final is not None:
        raise RuleError(f"the final is under way: disqualify {who} in the final match instead")
    rnd = current_round(s)
    if rnd is not None:
        if not rnd.named or any(d.dmo is None for d in rnd.duels):
            raise RuleError(
                f"round {rnd.id} is choosing its candidates and opponents: wait until every candidate has nominated"
            )
        involved = set(rnd.winners) | set(rnd.candidates) | {d.dmo for d in rnd.duels if d.dmo}
        if rnd.gift_to:
            involved.add(rnd.gift_to)
        if who in involved:
            raise RuleError(
                f"{who} takes part in round {rnd.id}: rule on their match, or wait for the round to end"
            )
        pending_losses = sum(1 for d in rnd.duels if not d.decided)
        if len(active(s)) - 1 - pending_losses < 2:
            raise RuleError("disqualifying now would leave fewer than two entrants for the final")


def _rule_dispute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "rule_dispute")
    s = b.state
    d = _dispute(s, c)
    if d.status == OPEN:
        raise RuleError(f"dispute {d.id} is open: claim it before ruling")
    if d.status != CLAIMED:
        raise RuleError(f"dispute {d.id} is {d.status.replace('_', ' ')} already")
    if b.actor != d.claimed_by:
        raise RuleError(f"only {d.claimed_by}, who claimed dispute {d.id}, may rule on it")
    ruling = c.get("ruling")
    params = c.get("params") or {}
    if not isinstance(params, Mapping):
        raise RuleError("params must be a mapping")
    reason = _reason(c, "a ruling")
    flags = {
        "changes_series_winner": bool(c.get("changes_series_winner")),
        "reopens_series": bool(c.get("reopens_series")),
    }
    plan = _plan_ruling(s, d, ruling, params, flags)
    body = {
        "dispute_id": d.id,
        "ruling": ruling,
        "params": dict(params),
        "target": {"stream": d.target_stream, "version": d.target_version},
        "flags": flags,
    }
    if plan.four_eyes:
        b.emit(
            "ruling_proposed",
            {**body, "moderator": b.actor},
            reason=reason,
            visible_to=(),
            public={"dispute_id": d.id, "status": AWAITING},
        )
    else:
        _apply_ruling(b, d, body, plan, [b.actor], reason)


def _apply_ruling(
    b: _Builder,
    d: Dispute,
    body: Mapping[str, Any],
    plan: _Plan,
    moderators: list[str],
    reason: str,
) -> None:
    b.emit(
        "ruling_applied",
        {**body, "moderators": moderators, "voided": list(plan.voided), "show_effect": plan.effect},
        reason=reason,
    )
    s = b.state
    if plan.effect == "disqualify":
        b.emit(
            "entrant_disqualified",
            {"entrant": plan.entrant, "dispute_id": d.id},
            reason=reason,
        )
        _advance(b)
    elif plan.effect in ("correct", "reopen") and plan.target_kind == "death_match":
        rid, cand = plan.where
        duel = round_by_id(s, rid).duel(cand)
        final_open = s.final is not None and s.final.winner is None
        if final_open:
            b.emit(
                "final_cancelled",
                {"players": list(s.final.players), "match_stream": s.final.match_stream},
                reason=reason,
            )
        if plan.effect == "correct":
            loser = duel.candidate if plan.new_winner == duel.dmo else duel.dmo
            b.emit(
                "death_match_corrected",
                {
                    "round": rid,
                    "candidate": cand,
                    "winner": plan.new_winner,
                    "loser": loser,
                    "previous_winner": duel.winner,
                    "dispute_id": d.id,
                },
                reason=reason,
            )
            _maybe_open_final(b)
        else:
            b.emit(
                "death_match_reopened",
                {"round": rid, "candidate": cand, "reinstated": duel.loser, "dispute_id": d.id},
                reason=reason,
            )
    elif plan.effect in ("correct", "reopen") and plan.target_kind == "final":
        f = s.final
        if plan.effect == "correct":
            b.emit(
                "champion_corrected",
                {"champion": plan.new_winner, "previous": f.winner, "dispute_id": d.id},
                reason=reason,
            )
        else:
            b.emit(
                "final_reopened", {"players": list(f.players), "dispute_id": d.id}, reason=reason
            )


def _approve_ruling(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "approve_ruling")
    s = b.state
    d = _dispute(s, c)
    if d.status != AWAITING or d.proposal is None:
        raise RuleError(f"dispute {d.id} has no ruling awaiting approval")
    proposer = d.proposal["moderator"]
    if b.actor == proposer:
        raise RuleError(
            "a ruling that changes who won needs a second moderator: you cannot approve your own ruling"
        )
    p = d.proposal
    plan = _plan_ruling(s, d, p["ruling"], p["params"], p.get("flags", {}))
    body = {k: p[k] for k in ("dispute_id", "ruling", "params", "target", "flags")}
    body["approved_by"] = b.actor
    _apply_ruling(b, d, body, plan, [proposer, b.actor], p.get("reason", ""))


def _reject_ruling(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_moderator(b, "reject_ruling")
    d = _dispute(b.state, c)
    if d.status != AWAITING or d.proposal is None:
        raise RuleError(f"dispute {d.id} has no ruling awaiting approval")
    if b.actor == d.proposal["moderator"]:
        raise RuleError("a second moderator must review the ruling: you proposed it")
    reason = _reason(c, "rejecting a ruling")
    b.emit(
        "ruling_rejected",
        {"dispute_id": d.id, "moderator": b.actor, "proposed_by": d.proposal["moderator"]},
        reason=reason,
        visible_to=(),
        public={"dispute_id": d.id, "status": CLAIMED},
    )


# ---- timeouts ----


def _timeout(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "timeout")
    s = b.state
    late = overdue(s, b.ctx.now)
    if not late:
        raise RuleError("no deadline has passed")
    _deadline, (rid, step, who) = late[0]
    rnd = current_round(s)
    rng = b.ctx.rng
    cmd: dict[str, Any] = {
        "type": step,
        "round": rid,
        "reason": f"{who} let the {step.replace('_', ' ')} deadline pass",
    }

    def pick(options):
        options = sorted(options)
        if not options:
            raise RuleError(f"no legal choice is left for {who}'s {step.replace('_', ' ')}")
        return rng.choice(options)

    if step == "give_token":
        cmd["to"] = pick(gift_options(s, rnd))
    elif step == "choose_candidate":
        _forced, pool, r = candidate_split(s, rnd)
        if len(pool) < r:
            raise RuleError(f"no legal choice is left for {who}'s choose candidate")
        cmd["candidates"] = rng.sample(sorted(pool), r)
    elif step == "nominate":
        cmd["dmo"] = pick(dmo_options(s, rnd, who))
    elif step == "ban_game":
        cmd["game"] = pick(ban_options(s, _duel_of(rnd, who)))
    b.cmd = {**b.cmd, **cmd}
    b.on_behalf = who
    _HANDLERS[step](b, b.cmd)


_HANDLERS = {
    "add_round": _add_round,
    "reorder_rounds": _reorder_rounds,
    "appoint_moderator": _appoint_moderator,
    "substitute": _substitute,
    "extend_deadline": _extend_deadline,
    "enter_ranking": _enter_ranking,
    "give_token": _give_token,
    "choose_candidate": _choose_candidate,
    "nominate": _nominate,
    "ban_game": _ban_game,
    "pick_game": _pick_game,
    "death_match_linked": _death_match_linked,
    "death_match_result": _death_match_result,
    "final_linked": _final_linked,
    "final_result": _final_result,
    "grant_item": _grant_item,
    "transfer_item": _transfer_item,
    "revoke_item": _revoke_item,
    "item_used": _item_used,
    "file_dispute": _file_dispute,
    "claim_dispute": _claim_dispute,
    "transfer_dispute": _transfer_dispute,
    "rule_dispute": _rule_dispute,
    "approve_ruling": _approve_ruling,
    "reject_ruling": _reject_ruling,
    "timeout": _timeout,
}

COMMANDS = tuple(_HANDLERS)


# ---- evolve ---------------------------------------------------------------------


def evolve(state: ShowState, event: Event) -> ShowState:
    """Fold one event (pure, total: an unknown or impossible event changes
    nothing but the version). A ruling that voids show events refolds the
    log without them."""
    s = _apply(state, event)
    if event.type == "ruling_applied":
        extra = frozenset(event.data.get("voided") or ())
        if extra - state.voided:
            s = _refold(s.log, state.voided | extra)
    return s


def fold(events: Iterable[Event]) -> ShowState:
    s = ShowState()
    for ev in events:
        s = evolve(s, ev)
    return s


replay = fold


def _refold(log: tuple[Event, ...], voided: frozenset[int]) -> ShowState:
    s = ShowState()
    for i, ev in enumerate(log, 1):
        if i in voided:
            s = replace(s, version=i, log=s.log + (ev,))
        else:
            s = _apply(s, ev)
    return replace(s, voided=voided)


def _apply(state: ShowState, event: Event) -> ShowState:
    s = replace(state, version=state.version + 1, log=state.log + (event,))
    fn = _EVOLVERS.get(event.type)
    if fn is None:
        return s
    try:
        return _sync_deadlines(fn(s, event.data), event.data.get("at"))
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return s  # an event this state cannot hold: total, never raises


def _sync_deadlines(s: ShowState, at: Any) -> ShowState:
    """Open a deadline for every entrant step that became due, drop the rest."""
    rnd = current_round(s)
    want = []
    if rnd is not None:
        want = [
            (rnd.id, step, who) for step, who in round_decisions(s, rnd) if step in ENTRANT_STEPS
        ]
    secs = s.options.get("step_deadline_s") or 0
    new = {}
    for k in want:
        if k in s.deadlines:
            new[k] = s.deadlines[k]
        elif secs and isinstance(at, (int, float)):
            new[k] = at + secs
    if new == dict(s.deadlines):
        return s
    return replace(s, deadlines=new)


def _set_round(s: ShowState, rid: str, **changes: Any) -> ShowState:
    rounds = tuple(replace(r, **changes) if r.id == rid else r for r in s.rounds)
    return replace(s, rounds=rounds)


def _set_duel(s: ShowState, rid: str, cand: str, **changes: Any) -> ShowState:
    rnd = round_by_id(s, rid)
    duels = tuple(replace(d, **changes) if d.candidate == cand else d for d in rnd.duels)
    return _set_round(s, rid, duels=duels)


def _status(s: ShowState, **by_name: str) -> ShowState:
    return replace(s, status={**s.status, **by_name})


def _ev_show_created(s: ShowState, d: Mapping[str, Any]) -> ShowState:
    rounds = tuple(Round(r["id"], r["title"]) for r in d["rounds"])
    return replace(
        s,
        created=True,
        name=d["name"],
        organizer=d["organizer"],
        stream=d.get("stream"),
        entrants=tuple(d["entrants"]),
        status={e: ACTIVE for e in d["entrants"]},
        options=dict(d["options"]),
        rounds=rounds,
        round_seq=len(rounds),
    )


def _ev_round_added(s, d):
    return replace(s, rounds=s.rounds + (Round(d["round"], d["title"]),), round_seq=s.round_seq + 1)


def _ev_rounds_reordered(s, d):
    by_id = {r.id: r for r in s.rounds}
    order = [x for x in d["order"] if x in by_id]
    rest = [r for r in s.rounds if r.id not in order]
    return replace(s, rounds=tuple(by_id[x] for x in order) + tuple(rest))


def _ev_moderator_appointed(s, d):
    return replace(s, moderators=s.moderators + (d["username"],))


def _rename(name: Any, out: str, new: str) -> Any:
    return new if name == out else name


def _ev_entrant_substituted(s, d):
    out, new = d["out"], d["in"]
    rounds = []
    for r in s.rounds:
        if r.status == STARTED:
            rn = lambda x: _rename(x, out, new)  # noqa: E731
            r = replace(
                r,
                ranking=tuple(tuple(rn(x) for x in g) for g in r.ranking),
                winners=tuple(rn(x) for x in r.winners),
                tokens={rn(k): v for k, v in r.tokens.items()},
                gift_to=rn(r.gift_to),
                candidates=tuple(rn(x) for x in r.candidates),
                duels=tuple(
                    replace(
                        du,
                        candidate=rn(du.candidate),
                        dmo=rn(du.dmo),
                        bans={rn(k): v for k, v in du.bans.items()},
                    )
                    for du in r.duels
                ),
            )
        rounds.append(r)
    items = dict(s.items)
    for iid in d.get("items", ()):
        if iid in items:
            items[iid] = replace(items[iid], holder=new)
    deadlines = {(k[0], k[1], _rename(k[2], out, new)): v for k, v in s.deadlines.items()}
    sub = {"out": out, "in": new, "reason": d.get("reason", ""), "at": d.get("at")}
    return replace(
        _status(s, **{out: SUBSTITUTED, new: ACTIVE}),
        entrants=s.entrants + (new,),
        rounds=tuple(rounds),
        items=items,
        deadlines=deadlines,
        substitutions=s.substitutions + (sub,),
    )


def _ev_deadline_extended(s, d):
    secs = d["seconds"]
    dl = {
        k: (v + secs if k[0] == d["round"] and k[1] == d["step"] and k[2] in d["entrants"] else v)
        for k, v in s.deadlines.items()
    }
    return replace(s, deadlines=dl)


def _ev_ranking_entered(s, d):
    return _set_round(
        s,
        d["round"],
        status=STARTED,
        ranking=tuple(tuple(g) for g in d["ranking"]),
        winners=tuple(d["winners"]),
        tokens=dict(d["tokens"]),
        gift_due=bool(d["gift_due"]),
        needed=int(d["needed"]),
        note=d.get("note", ""),
    )


def _ev_token_given(s, d):
    rnd = round_by_id(s, d["round"])
    tokens = {**rnd.tokens, d["giver"]: rnd.tokens.get(d["giver"], 2) - 1, d["to"]: 1}
    return _set_round(s, d["round"], gift_due=False, gift_to=d["to"], tokens=tokens)


def _ev_candidates_named(s, d):
    cands = tuple(d["candidates"])
    return _set_round(
        s, d["round"], named=True, candidates=cands, duels=tuple(Duel(x) for x in cands)
    )


def _ev_dmo_nominated(s, d):
    return _set_duel(s, d["round"], d["candidate"], dmo=d["dmo"])


def _ev_game_banned(s, d):
    duel = round_by_id(s, d["round"]).duel(d["candidate"])
    return _set_duel(s, d["round"], d["candidate"], bans={**duel.bans, d["by"]: d["game"]})


def _ev_game_picked(s, d):
    return _set_duel(s, d["round"], d["candidate"], game=d["game"])


def _ev_death_match_opened(s, d):
    return _set_duel(
        s, d["round"], d["candidate"], game=d["game"], first_to=d.get("first_to"), opened=True
    )


def _ev_death_match_linked(s, d):
    return _set_duel(s, d["round"], d["candidate"], match_stream=d["match_stream"])


def _ev_death_match_result(s, d):
    s = _set_duel(s, d["round"], d["candidate"], winner=d["winner"], loser=d["loser"])
    if d.get("match_stream"):
        duel = round_by_id(s, d["round"]).duel(d["candidate"])
        if duel.match_stream is None:
            s = _set_duel(s, d["round"], d["candidate"], match_stream=d["match_stream"])
    return s


def _ev_entrant_eliminated(s, d):
    who = d["entrant"]
    s = _status(s, **{who: ELIMINATED})
    rid = d.get("round")
    if rid is not None:
        rnd = round_by_id(s, rid)
        s = _set_round(s, rid, eliminated=rnd.eliminated + (who,))
    return s


def _ev_round_finished(s, d):
    return _set_round(s, d["round"], status=FINISHED)


def _ev_final_opened(s, d):
    return replace(s, final=Final(tuple(d["players"]), d["game"], d.get("first_to")))


def _ev_final_linked(s, d):
    return replace(s, final=replace(s.final, match_stream=d["match_stream"]))


def _ev_final_result(s, d):
    return replace(s, final=replace(s.final, winner=d["winner"], loser=d["loser"]))


def _ev_champion_crowned(s, d):
    return replace(_status(s, **{d["champion"]: CHAMPION}), champion=d["champion"])


def _ev_final_cancelled(s, d):
    return replace(s, final=None)


def _ev_death_match_corrected(s, d):
    rid, cand = d["round"], d["candidate"]
    duel = round_by_id(s, rid).duel(cand)
    old_loser = duel.loser
    s = _set_duel(s, rid, cand, winner=d["winner"], loser=d["loser"])
    rnd = round_by_id(s, rid)
    elim = tuple(d["loser"] if x == old_loser else x for x in rnd.eliminated)
    s = _set_round(s, rid, eliminated=elim)
    changes = {d["loser"]: ELIMINATED}
    if old_loser and old_loser != d["loser"]:
        changes[old_loser] = ACTIVE
    return _status(s, **changes)


def _ev_death_match_reopened(s, d):
    rid, cand = d["round"], d["candidate"]
    duel = round_by_id(s, rid).duel(cand)
    old_loser = duel.loser
    s = _set_duel(s, rid, cand, winner=None, loser=None)
    rnd = round_by_id(s, rid)
    s = _set_round(
        s, rid, status=STARTED, eliminated=tuple(x for x in rnd.eliminated if x != old_loser)
    )
    return _status(s, **{old_loser: ACTIVE}) if old_loser else s


def _ev_champion_corrected(s, d):
    new, old = d["champion"], d["previous"]
    s = _status(s, **{new: CHAMPION, old: ELIMINATED})
    return replace(s, champion=new, final=replace(s.final, winner=new, loser=old))


def _ev_final_reopened(s, d):
    players = tuple(d["players"])
    s = _status(s, **{p: ACTIVE for p in players})
    return replace(s, champion=None, final=replace(s.final, winner=None, loser=None))


def _ev_entrant_disqualified(s, d):
    return _status(s, **{d["entrant"]: ELIMINATED})


def _ev_item_granted(s, d):
    it = Item(d["item_id"], d["item"], d["entrant"], d["scope"], d["given_by"], d.get("reason", ""))
    return replace(s, items={**s.items, it.id: it}, item_seq=max(s.item_seq, _item_no(it.id)))


def _ev_item_transferred(s, d):
    it = s.items[d["item_id"]]
    return replace(s, items={**s.items, it.id: replace(it, holder=d["to"])})


def _ev_item_revoked(s, d):
    it = s.items[d["item_id"]]
    return replace(s, items={**s.items, it.id: replace(it, status="revoked")})


def _ev_item_used(s, d):
    it = s.items[d["item_id"]]
    return replace(
        s, items={**s.items, it.id: replace(it, status="used", used_in=d.get("match_stream"))}
    )


def _ev_dispute_filed(s, d):
    dp = Dispute(
        d["dispute_id"],
        d["target_stream"],
        d["target_version"],
        d["text"],
        d["filed_by"],
        d.get("role", ""),
        d.get("at", 0.0),
    )
    n = int(dp.id.split("-", 1)[1])
    return replace(s, disputes={**s.disputes, dp.id: dp}, dispute_seq=max(s.dispute_seq, n))


def _set_dispute(s, did, **changes):
    return replace(s, disputes={**s.disputes, did: replace(s.disputes[did], **changes)})


def _ev_dispute_claimed(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, claimed_by=d["moderator"])


def _ev_dispute_transferred(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, claimed_by=d["to"])


def _ev_ruling_proposed(s, d):
    proposal = {
        k: d[k]
        for k in ("dispute_id", "ruling", "params", "target", "flags", "moderator", "reason", "at")
    }
    return _set_dispute(s, d["dispute_id"], status=AWAITING, proposal=proposal)


def _ev_ruling_rejected(s, d):
    return _set_dispute(s, d["dispute_id"], status=CLAIMED, proposal=None)


def _ev_ruling_applied(s, d):
    ruling = {
        k: d.get(k)
        for k in (
            "ruling",
            "params",
            "target",
            "moderators",
            "reason",
            "at",
            "voided",
            "show_effect",
        )
    }
    return _set_dispute(s, d["dispute_id"], status=RULED, proposal=None, ruling=ruling)


_EVOLVERS = {
    "show_created": _ev_show_created,
    "round_added": _ev_round_added,
    "rounds_reordered": _ev_rounds_reordered,
    "moderator_appointed": _ev_moderator_appointed,
    "entrant_substituted": _ev_entrant_substituted,
    "deadline_extended": _ev_deadline_extended,
    "ranking_entered": _ev_ranking_entered,
    "token_given": _ev_token_given,
    "candidates_named": _ev_candidates_named,
    "dmo_nominated": _ev_dmo_nominated,
    "game_banned": _ev_game_banned,
    "game_picked": _ev_game_picked,
    "death_match_opened": _ev_death_match_opened,
    "death_match_linked": _ev_death_match_linked,
    "death_match_result": _ev_death_match_result,
    "entrant_eliminated": _ev_entrant_eliminated,
    "round_finished": _ev_round_finished,
    "final_opened": _ev_final_opened,
    "final_linked": _ev_final_linked,
    "final_result": _ev_final_result,
    "champion_crowned": _ev_champion_crowned,
    "final_cancelled": _ev_final_cancelled,
    "death_match_corrected": _ev_death_match_corrected,
    "death_match_reopened": _ev_death_match_reopened,
    "champion_corrected": _ev_champion_corrected,
    "final_reopened": _ev_final_reopened,
    "entrant_disqualified": _ev_entrant_disqualified,
    "item_granted": _ev_item_granted,
    "item_transferred": _ev_item_transferred,
    "item_revoked": _ev_item_revoked,
    "item_used": _ev_item_used,
    "dispute_filed": _ev_dispute_filed,
    "dispute_claimed": _ev_dispute_claimed,
    "dispute_transferred": _ev_dispute_transferred,
    "ruling_proposed": _ev_ruling_proposed,
    "ruling_rejected": _ev_ruling_rejected,
    "ruling_applied": _ev_ruling_applied,
}

EVENT_TYPES = tuple(_EVOLVERS)


# ---- reads: views and the public log ----------------------------------------------


def as_of(state: ShowState, t: float) -> ShowState:
    """The show as it stood at time ``t`` (events recorded after ``t`` left out)."""
    kept = []
    for ev in state.log:
        at = ev.data.get("at")
        if isinstance(at, (int, float)) and at > t:
            break
        kept.append(ev)
    return fold(kept)


def _duel_view(d: Duel) -> dict[str, Any]:
    return {
        "candidate": d.candidate,
        "dmo": d.dmo,
        "bans": dict(d.bans),
        "game": d.game,
        "first_to": d.first_to,
        "opened": d.opened,
        "match_stream": d.match_stream,
        "winner": d.winner,
        "loser": d.loser,
    }


def _round_view(s: ShowState, r: Round) -> dict[str, Any]:
    return {
        "id": r.id,
        "title": r.title,
        "status": r.status,
        "ranking": [list(g) for g in r.ranking],
        "winners": list(r.winners),
        "tokens": dict(r.tokens),
        "immune": sorted(r.immune) if r.status != PLANNED else [],
        "gift_due": r.gift_due,
        "gift_to": r.gift_to,
        "candidates_needed": r.needed,
        "candidates": list(r.candidates),
        "duels": [_duel_view(d) for d in r.duels],
        "eliminated": list(r.eliminated),
        "note": r.note,
    }


def _item_view(it: Item) -> dict[str, Any]:
    info = describe(it.item) or {}
    return {
        "id": it.id,
        "item": it.item,
        "name": info.get("name", it.item),
        "scope": it.scope,
        "scope_words": SCOPE_WORDS.get(it.scope, it.scope),
        "given_by": it.given_by,
        "rules": info.get("rules", ""),
    }


def _dispute_view(d: Dispute, full: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "id": d.id,
        "target": {"stream": d.target_stream, "version": d.target_version},
        "status": d.status,
        "claimed_by": d.claimed_by,
        "filed_by": d.filed_by,
        "ruling": dict(d.ruling) if d.ruling else None,
    }
    if full:
        out["text"] = d.text
        out["proposal"] = dict(d.proposal) if d.proposal else None
    return out


def view(
    state: ShowState,
    viewer_role: str,
    username: str | None = None,
    now: float | None = None,
) -> dict[str, Any]:
    """What ``viewer_role`` (organizer, moderator, player, spectator) may know.

    Spectators given ``now`` see the show as it stood ``spectator_delay_s``
    earlier, so that the show does not tell a death match's result before
    the delayed match does. Dispute texts go to moderators and the filer.
    Items are private like the match's own: each entrant sees their own,
    moderators (and spectators under policy "everything") see all; everyone
    sees how many items each entrant holds.
    """
    s = state
    if viewer_role == SPECTATOR and now is not None:
        s = as_of(state, now - s.options.get("spectator_delay_s", 0))
    staff = viewer_role in (ORGANIZER, MODERATOR)
    see_items = staff or (
        viewer_role == SPECTATOR and s.options.get("spectator_policy") == "everything"
    )
    return {
        "name": s.name,
        "organizer": s.organizer,
        "moderators": list(s.moderators),
        "options": dict(s.options),
        "status": "over" if s.champion else ("final" if s.final else "rounds"),
        "champion": s.champion,
        "entrants": [{"name": e, "status": s.status[e]} for e in s.entrants],
        "substitutions": [dict(x) for x in s.substitutions],
        "rounds": [_round_view(s, r) for r in s.rounds],
        "final": None
        if s.final is None
        else {
            "players": list(s.final.players),
            "game": s.final.game,
            "first_to": s.final.first_to,
            "match_stream": s.final.match_stream,
            "winner": s.final.winner,
        },
        "pending": [{"who": d.seat, "step": d.kind, "deadline": d.deadline} for d in pending(s)],
        "inventories": {
            e: [_item_view(it) for it in inventory(s, e)]
            for e in s.entrants
            if inventory(s, e) and (see_items or e == username)
        },
        "item_counts": {e: len(inventory(s, e)) for e in s.entrants if inventory(s, e)},
        "disputes": [
            _dispute_view(d, staff or (username is not None and d.filed_by == username))
            for d in sorted(s.disputes.values(), key=lambda d: int(d.id.split("-")[1]))
        ],
        "catalogue": {g: {k: dict(v) for k, v in items.items()} for g, items in CATALOGUE.items()},
    }


def _describe_event(ev: Event, data: Mapping[str, Any]) -> str:
    t, d = ev.type, data
    g = d.get
    texts = {
        "show_created": lambda: f"{g('name')} opens with {len(g('entrants') or [])} entrants",
        "round_added": lambda: f"round {g('round')} ({g('title')}) planned",
        "rounds_reordered": lambda: f"rounds reordered: {', '.join(g('order') or [])}",
        "moderator_appointed": lambda: f"{g('username')} moderates the show",
        "entrant_substituted": lambda: f"{g('in')} replaces {g('out')}",
        "deadline_extended": lambda: f"{g('step')} deadline extended by {g('seconds')} s",
        "ranking_entered": lambda: (
            f"round {g('round')}: main match won by {', '.join(g('winners') or [])}"
        ),
        "token_given": lambda: f"{g('giver')} gives a token of life to {g('to')}",
        "candidates_named": lambda: f"elimination candidate(s): {', '.join(g('candidates') or [])}",
        "dmo_nominated": lambda: f"{g('candidate')} nominates {g('dmo')} for the death match",
        "game_banned": lambda: f"{g('by')} bans {g('game')}",
        "game_picked": lambda: f"death match of {g('candidate')}: {g('game')}",
        "death_match_opened": lambda: (
            f"death match {g('candidate')} vs {g('dmo')} opens ({g('game')})"
        ),
        "death_match_result": lambda: f"{g('winner')} wins the death match against {g('loser')}",
        "entrant_eliminated": lambda: f"{g('entrant')} is eliminated",
        "round_finished": lambda: f"round {g('round')} ends",
        "final_opened": lambda: f"final: {' vs '.join(g('players') or [])} ({g('game')})",
        "final_result": lambda: f"{g('winner')} wins the final",
        "champion_crowned": lambda: f"{g('champion')} is the champion",
        "item_granted": lambda: (
            f"{g('entrant')} receives {g('item') or 'an item'} ({g('item_id')}), "
            f"given by {g('given_by')}"
        ),
        "item_transferred": lambda: (
            f"{g('item') or 'an item'} ({g('item_id')}) passes from {g('from')} to {g('to')}"
        ),
        "item_revoked": lambda: (
            f"{g('item') or 'an item'} ({g('item_id')}) is taken from {g('entrant')}"
        ),
        "item_used": lambda: f"{g('entrant')} uses {g('item') or 'an item'} ({g('item_id')})",
        "dispute_filed": lambda: (
            f"dispute {g('dispute_id')} filed against {g('target_stream')} v{g('target_version')}"
        ),
        "ruling_applied": lambda: (
            f"ruling on {g('dispute_id')}: {g('ruling')} by {', '.join(g('moderators') or [])}"
        ),
        "death_match_corrected": lambda: (
            f"ruling: {g('winner')} wins the death match, {g('loser')} is eliminated"
        ),
        "death_match_reopened": lambda: (
            f"ruling: the death match of {g('candidate')} is back in play"
        ),
        "champion_corrected": lambda: f"ruling: {g('champion')} is the champion",
        "entrant_disqualified": lambda: f"{g('entrant')} is disqualified",
    }
    fn = texts.get(t)
    return fn() if fn else t.replace("_", " ")


def public_log(state: ShowState, now: float | None = None) -> list[dict[str, Any]]:
    """The show's public log: every show step, item movement and ruling, as
    spectators may see it (which item it is, dispute texts and unapproved
    proposals withheld; with ``now``, only what is older than the spectator
    delay). Voided events are marked."""
    cut = None if now is None else now - state.options.get("spectator_delay_s", 0)
    out = []
    for i, ev in enumerate(state.log, 1):
        at = ev.data.get("at")
        if cut is not None and isinstance(at, (int, float)) and at > cut:
            break
        data = ev.for_viewer(SPECTATOR_VIEW)
        if data is None:
            continue
        out.append(
            {
                "version": i,
                "type": ev.type,
                "text": _describe_event(ev, data),
                "data": dict(data),
                "void": i in state.voided,
            }
        )
    return out


def events_for(state: ShowState, viewer: Viewer) -> list[tuple[int, Mapping[str, Any]]]:
    """(version, data) of every event this viewer may see (redacted)."""
    out = []
    for i, ev in enumerate(state.log, 1):
        data = ev.for_viewer(viewer)
        if data is not None:
            out.append((i, data))
    return out


__all__ = [
    "COMMANDS",
    "EVENT_TYPES",
    "ShowState",
    "Round",
    "Duel",
    "Item",
    "Dispute",
    "Final",
    "create_show",
    "decide",
    "evolve",
    "fold",
    "replay",
    "view",
    "pending",
    "public_log",
    "inventory",
    "items_for_match",
    "active",
    "eliminated",
    "champion",
    "current_round",
    "next_round",
    "immune",
    "candidate_split",
    "match_kind",
    "as_of",
]
