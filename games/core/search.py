"""Bots at levels: determinised search and information-set MCTS over any
``BoutRules`` (issue #46). Game-agnostic; a game supplies a ``SearchSpec``.

A bot decides from its seat's view only: every search starts from states
that ``spec.sample_state(view, seat, rng)`` builds out of that view (the
hidden cards re-dealt among the places the seat cannot see), so the true
state never reaches it. Budgets are iterations with a wall-clock cap; the
search's randomness is drawn from the bot's rng, so a seed replays a move
(as long as the cap is not reached).

Levels: 0 random legal, 1 the game's heuristic, 2 determinised search (each
candidate move scored by heuristic playouts on sampled deals), 3 ISMCTS (one
tree over the information set, a deal sampled per iteration, UCB below the
root, heuristic playouts), 4 ISMCTS over deals weighted by what the
opponents' own claims, challenges and bids say (``spec.weigh``), with a
larger budget. Levels 2 to 4 compare their root moves alike: every move on
each deal with the same random numbers, judged by the paired differences.
Where a game has a stronger play than level 1's (``spec.searching``), a
search level starts from it and plays its playouts with it.
"""

from __future__ import annotations

import bisect
import dataclasses
import itertools
import json
import math
import random
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from .playout import random_bot
from .protocol import Ctx, Outcome, RuleError, Viewer
from .rules import BoutRules

# the clock the caps are read on: the wall clock (a person waits for it); the
# bots benchmark reads them on the process's CPU time, one core's work,
# so a shared machine does not cut the search short
CLOCK = time.perf_counter
WAIT = {"type": "_wait"}  # the search's name for "let the clock run" (never submitted)
UCB_C = 0.9
PLAYOUT_STEPS = 400
WEIGHT_POOL = 256  # deals drawn once per move at level 4, weighed, then drawn by weight
ROOT_PROPOSALS = 8  # calls of the level 1 policy for the moves searched at the root
NODE_PROPOSALS = 2  # the same, deeper in the tree
EXPLORE = 2  # other legal moves searched beside the policy's
# below the root, a node takes other moves than the policy's only once visited
# WIDEN x (its children)^2 times (progressive widening): a node seldom visited
# plays as the playouts do, where each visit once added a random move, so a
# move's value at the root was mostly against random replies
WIDEN = 4
SIGNIFICANCE = 0.5  # standard errors by which a move must beat level 1's to replace it


@dataclass(frozen=True)
class Budget:
    iterations: int
    cap_s: float  # wall clock; the search stops early when reached


# the caps sit below the p95 goals (100 ms, 300 ms, 1 s): the
# iteration under way when a cap is reached still finishes
LEVEL_BUDGETS = {
    2: Budget(100, 0.08),
    3: Budget(300, 0.25),
    4: Budget(900, 0.8),
}


# a ceiling on every level's budget while set (``thinking_at_most``): None, none
_CEILING: ContextVar[Budget | None] = ContextVar("search_ceiling", default=None)


@contextmanager
def thinking_at_most(ceiling: Budget) -> Iterator[None]:
    """Within it, every level searches at most ``ceiling`` (iterations and cap,
    each the smaller of the two): for play nobody watches being thought, as the
    demo's history seeded in the past (levels are shown by name; how long they
    thought there is no part of it). The levels keep their own budgets outside."""
    token = _CEILING.set(ceiling)
    try:
        yield
    finally:
        _CEILING.reset(token)


def _in_force(budget: Budget) -> Budget:
    ceiling = _CEILING.get()
    if ceiling is None:
        return budget
    return Budget(min(budget.iterations, ceiling.iterations), min(budget.cap_s, ceiling.cap_s))


# how often each level slips (a random legal move instead of its own): level
# 1 is meant to be beatable by a newcomer who plays plainly (issue #46; the
# heuristic alone wins most bouts against the bench's scripted beginners),
# and each level above slips less than the one below
LEVEL_SLIPS = {1: 0.4, 2: 0.15, 3: 0.05, 4: 0.0}


def _no_weight(view, seat, state) -> float:
    return 1.0


def _never_mixed(view, command) -> bool:
    return False


def _every_command(view, legal):
    return legal


def _cannot_wait(rules, state, seat) -> bool:
    return False


def _at_zero(view) -> float:
    return 0.0


def win_share(outcome: Outcome, seat: str, state) -> float:
    """1 for a lone win, shared between tied winners; 0.5 each for a draw."""
    if not outcome.winners:
        return 0.5
    return 1.0 / len(outcome.winners) if seat in outcome.winners else 0.0


@dataclass(frozen=True)
class SearchSpec:
    """What a game gives the search.

    ``sample_state(view, seat, rng)``: a bout state whose view for ``seat``
    equals ``view`` (the hidden cards re-dealt); ``policy``: the level 1 bot,
    used in playouts; ``candidates(view, legal)``: the moves worth searching
    (bid sizes bucketed); ``mixed(view, command)``: decisions (bluffs, bids,
    simultaneous commits) sampled from the search's counts rather than always
    the top move; ``weigh(view, seat, state)``: level 4's likelihood of a
    sampled state given the opponents' claims and bids; ``now_of(view)``: the
    game time to act at; ``can_wait(rules, state, seat)``: the seat may let the
    clock run instead of moving (an open auction).
    """

    rules: BoutRules
    sample_state: Callable[[dict, str, random.Random], Any]
    policy: Callable[[dict, str, random.Random, list], Mapping[str, Any] | None]
    candidates: Callable[[dict, list], list] = _every_command
    mixed: Callable[[dict, Mapping[str, Any]], bool] = _never_mixed
    weigh: Callable[[dict, str, Any], float] = _no_weight
    reward: Callable[[Outcome, str, Any], float] = win_share
    now_of: Callable[[dict], float] = _at_zero
    can_wait: Callable[[BoutRules, Any, str], bool] = _cannot_wait
    # the policy of playouts (None: ``policy``): the same play, made cheaper
    # where the heuristic samples (fewer samples), so more playouts fit a cap
    rollout: Callable[[dict, str, random.Random, list], Mapping[str, Any] | None] | None = None
    # each level's rate of slips (None: LEVEL_SLIPS), see ``erring``
    slips: Mapping[int, float] | None = None
    # a search level's own policy (level -> policy; a level not named: ``policy``):
    # its move unless the search finds a better one, and its playouts' and its
    # tree's (``rollout`` then unused), where a game has a stronger play than
    # level 1's to search with
    searching: Mapping[int, Callable] | None = None
    # the seat's view as the search's policies read it (None: ``rules.view``):
    # a cheaper build of the same dict (or of the part the policies read),
    # shared data read-only; playouts ask for one at every step
    view: Callable[[Any, str], dict] | None = None
    # ``sampler(view, seat)``: a function of the rng drawing what
    # ``sample_state(view, seat, rng)`` draws, with the work that depends on
    # the view alone done once per move, not once per deal (None: no such work)
    sampler: Callable[[dict, str], Callable[[random.Random], Any]] | None = None
    # ``finish(state, rng)``: the playout from ``state`` on, played as
    # ``playout`` plays it (the same moves, the same draws from the rng) on a
    # compact state of the game's own: each seat's reward, or None where it
    # does not apply (the playout goes on the rules' way a step)
    finish: Callable[[Any, random.Random], dict[str, float] | None] | None = None

    def view_of(self, state, seat: str) -> dict:
        if self.view is not None:
            return self.view(state, seat)
        return self.rules.view(state, Viewer.of_seat(seat))

    def deals(self, view: dict, seat: str) -> Callable[[random.Random], Any]:
        if self.sampler is not None:
            return self.sampler(view, seat)
        sample = self.sample_state
        return lambda rng: sample(view, seat, rng)


def key_of(command: Mapping[str, Any]) -> str:
    return json.dumps(command, sort_keys=True)


# ---- playing on a sampled state ------------------------------------------------
def apply(rules: BoutRules, state, seat: str, command, now: float, rng: random.Random):
    for e in rules.decide(state, command, Ctx(now=now, rng=rng, seat=seat)):
        state = rules.evolve(state, e)
    return state


def _policy_move(spec: SearchSpec, state, seat: str, rng: random.Random):
    rules = spec.rules
    legal = rules.legal_commands(state, seat)
    if not legal:
        return None
    policy = spec.rollout or spec.policy
    return policy(spec.view_of(state, seat), seat, rng, legal)


def advance(spec: SearchSpec, state, now: float, rng: random.Random, skip: str | None = None):
    """One step by the policy of the first pending seat (not ``skip``) that
    moves; when every one waits, the earliest deadline fires. Returns the new
    state and time, or None when nothing can happen."""
    rules = spec.rules
    pending = rules.pending(state)
    for d in pending:
        if d.seat == skip:
            continue
        command = _policy_move(spec, state, d.seat, rng)
        if command is not None:
            return apply(rules, state, d.seat, dict(command), now, rng), now
    timed = [d for d in pending if d.deadline is not None]
    if not timed:
        return None
    first = min(timed, key=lambda d: d.deadline)
    now = max(now, first.deadline)
    for e in rules.timeout(state, first, Ctx(now=now, rng=rng, role="system")):
        state = rules.evolve(state, e)
    return state, now


def play(spec: SearchSpec, state, seat: str, command, now: float, rng: random.Random):
    """``seat`` plays ``command`` (WAIT: the others move or the clock runs)."""
    if command == WAIT:
        stepped = advance(spec, state, now, rng, skip=seat)
        return stepped if stepped is not None else (state, now)
    return apply(spec.rules, state, seat, command, now, rng), now


def playout(spec: SearchSpec, state, now: float, rng: random.Random) -> dict[str, float] | None:
    """Heuristic play to the bout's end: each seat's reward (None: stuck)."""
    rules = spec.rules
    finish = spec.finish
    for _ in range(PLAYOUT_STEPS):
        out = rules.outcome(state)
        if out is not None:
            return {s: spec.reward(out, s, state) for s in rules.seats_of(state)}
        if finish is not None:
            done = finish(state, rng)
            if done is not None:
                return done
        stepped = advance(spec, state, now, rng)
        if stepped is None:
            return None
        state, now = stepped
    return None


def _proposals(
    spec: SearchSpec,
    view: dict,
    seat: str,
    legal,
    state,
    rng,
    calls: int,
    policy=None,
    explore: int = EXPLORE,
) -> list:
    """The moves worth searching: what the level 1 policy plays (first) and
    proposes over ``calls`` calls, ``explore`` other legal moves (bid sizes
    bucketed by ``spec.candidates``) and, where allowed, letting the clock run."""
    out: list = []
    seen: set[str] = set()

    def add(command) -> None:
        command = dict(command) if command is not None else dict(WAIT)
        k = key_of(command)
        if k not in seen:
            seen.add(k)
            out.append(command)

    policy = policy or spec.policy
    for _ in range(calls):
        add(policy(view, seat, rng, legal))
    if explore:
        pool = spec.candidates(view, legal)
        for c in rng.sample(pool, min(explore, len(pool))):
            add(c)
    if spec.can_wait(spec.rules, state, seat):
        add(WAIT)
    return out


@dataclass
class Tally:
    """Rewards of one candidate move: count, mean and spread."""

    n: int = 0
    total: float = 0.0
    squares: float = 0.0

    def add(self, r: float) -> None:
        self.n += 1
        self.total += r
        self.squares += r * r

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else -1.0

    def var_of_mean(self) -> float:
        if self.n < 2:
            return 1.0
        m = self.mean
        return max(0.0, self.squares / self.n - m * m) / (self.n - 1)


def _pick_final(spec, view, commands, tallies: list[Tally], rng, beats=None, weights=None):
    """Level 1's move (``commands[0]``, itself mixed where level 1 bluffs)
    unless the search finds others clearly better (by SIGNIFICANCE standard
    errors; ``beats(i)`` where the game's search says so otherwise): then the
    best, or for a mixed decision (bluff, bid, simultaneous commit) one of
    those drawn by its count (or by ``weights``), never always the top."""
    base = tallies[0]

    def unpaired(i: int) -> bool:
        t = tallies[i]
        gap = math.sqrt(t.var_of_mean() + base.var_of_mean())
        return t.n > 1 and t.mean - base.mean > SIGNIFICANCE * gap

    better = [i for i in range(1, len(commands)) if (beats or unpaired)(i)]
    if not better:
        return commands[0]
    best = max(better, key=lambda i: tallies[i].mean)
    if not spec.mixed(view, commands[best]):
        return commands[best]
    odds = [(weights or [t.n for t in tallies])[i] for i in better]
    if sum(odds) <= 0:
        odds = [1.0] * len(better)
    return commands[rng.choices(better, weights=odds)[0]]


def _as_command(command):
    return None if command == WAIT else command


# ---- level 2: determinised search -----------------------------------------------
def _paired(spec, view, commands, deal, srng, budget, evaluate, start=None):
    """Each of ``commands`` evaluated on the same deals, each deal's
    evaluations drawing the same random numbers (common random numbers):
    ``evaluate(state, command, index, draws)`` is the bot seat's reward (None:
    refused or stuck). A move replaces level 1's (``commands[0]``) when its
    reward on the same deals is higher by SIGNIFICANCE standard errors of the
    paired differences, a far smaller error than the two means' (most deals
    end the same whichever move is made)."""
    tallies = [Tally() for _ in commands]
    diffs = [Tally() for _ in commands]  # against level 1's move, deal by deal
    start = CLOCK() if start is None else start
    done = 0
    while done < budget.iterations and CLOCK() - start < budget.cap_s:
        state = deal(srng)
        draws = srng.getrandbits(64)
        rewards: list[float | None] = []
        for i, command in enumerate(commands):
            if CLOCK() - start >= budget.cap_s:
                break
            rewards.append(evaluate(state, command, i, draws))
        for i, r in enumerate(rewards):
            if r is None:
                continue
            tallies[i].add(r)
            if i and rewards[0] is not None:
                diffs[i].add(r - rewards[0])
        done += len(commands)

    def beats(i: int) -> bool:
        d = diffs[i]
        return d.n > 1 and d.mean > SIGNIFICANCE * math.sqrt(d.var_of_mean())

    # a mixed decision draws among the moves that beat level 1's by how much
    # they beat it (every move was tried on as many deals)
    gains = [max(d.mean, 0.0) for d in diffs]
    return _as_command(_pick_final(spec, view, commands, tallies, srng, beats, gains))


def determinised(spec: SearchSpec, level_budget: Budget):
    """Each candidate move played out by the heuristic on the same deals,
    compared with level 1's move deal by deal (``_paired``)."""

    def bot(view, seat, rng, legal):
        budget = _in_force(level_budget)
        srng = random.Random(rng.getrandbits(64))
        now = spec.now_of(view)
        deal = spec.deals(view, seat)
        probe = deal(srng)
        commands = _proposals(spec, view, seat, legal, probe, srng, ROOT_PROPOSALS)
        if len(commands) <= 1:
            return _as_command(commands[0])

        def evaluate(state, command, i, draws):
            return _played_out(spec, state, seat, command, now, draws)

        return _paired(spec, view, commands, deal, srng, budget, evaluate)

    return bot


def _played_out(spec, state, seat, command, now, draws: int) -> float | None:
    """``seat``'s reward for ``command`` on ``state``, played out with an rng
    seeded by ``draws`` (None: refused, or a playout stuck)."""
    rng = random.Random(draws)
    try:
        after, t = play(spec, state, seat, command, now, rng)
    except RuleError:
        return None
    result = playout(spec, after, t, rng)
    return None if result is None else result[seat]


# ---- levels 3 and 4: information-set MCTS ----------------------------------------
@dataclass
class Node:
    seat: str | None = None  # who moved into this node
    tally: Tally = field(default_factory=Tally)  # rewards of ``seat`` through it
    available: int = 0  # iterations in which its move was legal
    children: dict[str, Node] = field(default_factory=dict)

    def ucb(self) -> float:
        n = self.tally.n
        if n == 0:
            return math.inf
        return self.tally.mean + UCB_C * math.sqrt(math.log(max(1, self.available)) / n)


def _mover(rules: BoutRules, state, root_seat: str) -> tuple[str | None, list]:
    """The seat the tree branches on, with its legal moves: the root's seat
    first among several deciding at once (its move is made without seeing
    theirs)."""
    seats = [d.seat for d in rules.pending(state)]
    if root_seat in seats:
        legal = rules.legal_commands(state, root_seat)
        if legal:
            return root_seat, legal
    for s in seats:
        if s == root_seat:
            continue
        legal = rules.legal_commands(state, s)
        if legal:
            return s, legal
    return None, []


def weighted_deals(spec: SearchSpec, view: dict, seat: str, deals, rng: random.Random):
    """Level 4's deals: ``WEIGHT_POOL`` deals drawn once per move and weighed
    by ``spec.weigh``; each iteration then draws one of them by its weight
    (sampling-importance-resampling: with a pool this size the deals drawn
    follow the weighted distribution, where four candidates an iteration
    moved them only part of the way, for four deals' work each time). When
    every weight is the same, the plain deals (a fresh one each iteration)."""
    pool = [deals(rng) for _ in range(WEIGHT_POOL)]
    weights = [max(0.0, float(spec.weigh(view, seat, d))) for d in pool]
    if len(set(weights)) <= 1 or sum(weights) <= 0:
        return deals
    cumulative = list(itertools.accumulate(weights))
    total = cumulative[-1]
    last = len(pool) - 1

    def draw(r: random.Random):
        return pool[min(last, bisect.bisect_right(cumulative, r.random() * total))]

    return draw


def _node_moves(
    spec: SearchSpec, node: Node, state, mover: str, legal: list, rng: random.Random
) -> list:
    """The moves searched below the root: proposed by the playouts' policy
    (``spec.rollout``, a cheaper heuristic where the game has one), as a
    node is met once per iteration that passes through it; others only as
    the node's visits widen it (``WIDEN``)."""
    view = spec.view_of(state, mover)
    widen = node.tally.n >= WIDEN * len(node.children) ** 2
    return _proposals(
        spec, view, mover, legal, state, rng, NODE_PROPOSALS, spec.rollout, EXPLORE if widen else 0
    )


def _descend(spec, root, root_moves, seat, state, now, rng):
    """Selection and expansion on one sampled deal: the path taken, the
    state reached and its time (None when a move was refused)."""
    rules = spec.rules
    node, path, t = root, [root], now
    while rules.outcome(state) is None:
        mover, legal = _mover(rules, state, seat)
        if mover is None:
            stepped = advance(spec, state, t, rng)
            if stepped is None:
                return None
            state, t = stepped
            continue
        moves = root_moves if node is root else _node_moves(spec, node, state, mover, legal, rng)
        keys = [key_of(c) for c in moves]
        for k in keys:
            if k in node.children:
                node.children[k].available += 1
        untried = [i for i, k in enumerate(keys) if k not in node.children]
        if untried:
            # the policy's moves first (``_proposals`` lists them first): a
            # node seldom visited plays as the playouts do, not at random
            i = untried[0]
            node.children[keys[i]] = Node(seat=mover, available=1)
        else:
            i = max(range(len(keys)), key=lambda j: node.children[keys[j]].ucb())
        try:
            state, t = play(spec, state, mover, moves[i], t, rng)
        except RuleError:
            return None
        node = node.children[keys[i]]
        path.append(node)
        if untried:
            break
    return path, state, t


def _iterate_on(spec, root, root_moves, seat, deal, now, rng) -> float | None:
    """One iteration on the sampled state ``deal``: selection, expansion, a
    playout and its rewards backed up the path; ``seat``'s reward (None: a
    move refused, or the playout stuck)."""
    rules = spec.rules
    descended = _descend(spec, root, root_moves, seat, deal, now, rng)
    if descended is None:
        return None
    path, state, t = descended
    out = rules.outcome(state)
    if out is not None:
        result = {s: spec.reward(out, s, state) for s in rules.seats_of(state)}
    else:
        result = playout(spec, state, t, rng)
    if result is None:
        return None
    for n in path:
        if n.seat is not None:
            n.tally.add(result.get(n.seat, 0.0))
    return result.get(seat)


def ismcts(spec: SearchSpec, level_budget: Budget, weighted: bool = False):
    """One tree over the information set, a deal sampled per iteration. At
    the root every move is searched on each deal, its subtree descended with
    the same random numbers (as level 2 plays its moves out), and the moves
    compared deal by deal (``_paired``): UCB at the root spread the visits
    over the moves, and their means' errors hid all but large differences,
    so level 3 mostly played level 1's move. Below the root, UCB as usual."""

    def bot(view, seat, rng, legal):
        budget = _in_force(level_budget)
        srng = random.Random(rng.getrandbits(64))
        now = spec.now_of(view)
        deals = spec.deals(view, seat)
        probe = deals(srng)
        moves = _proposals(spec, view, seat, legal, probe, srng, ROOT_PROPOSALS)
        if len(moves) <= 1:
            return _as_command(moves[0])
        start = CLOCK()
        if weighted:
            deals = weighted_deals(spec, view, seat, deals, srng)
        root = Node()

        def evaluate(state, command, i, draws):
            return _iterate_on(spec, root, [command], seat, state, now, random.Random(draws))

        return _paired(spec, view, moves, deals, srng, budget, evaluate, start)

    return bot


def erring(bot, rate: float):
    """``bot`` with a person's slips: at ``rate`` it plays a random legal
    move instead of thinking (as Lichess's levels lower their skill, not only
    their depth). The slip is drawn from the bot's rng before anything else,
    so a seed replays the move and the seat's view alone decides it."""
    if rate <= 0:
        return bot

    def slipping(view, seat, rng, legal):
        if rng.random() < rate:
            return rng.choice(legal)
        return bot(view, seat, rng, legal)

    slipping.slips = rate
    return slipping


def level_bots(
    spec: SearchSpec,
    budgets: Mapping[int, Budget] | None = None,
    slips: Mapping[int, float] | None = None,
) -> dict:
    """The five levels, as a game's RULES.bots entries ("level0".."level4")."""
    b = {**LEVEL_BUDGETS, **(budgets or {})}
    rate = {**LEVEL_SLIPS, **(spec.slips or {}), **(slips or {})}
    own = spec.searching or {}

    def at(level: int) -> SearchSpec:
        if level not in own:
            return spec
        return dataclasses.replace(spec, policy=own[level], rollout=None)

    return {
        "level0": random_bot,
        "level1": erring(spec.policy, rate[1]),
        "level2": erring(determinised(at(2), b[2]), rate[2]),
        "level3": erring(ismcts(at(3), b[3]), rate[3]),
        "level4": erring(ismcts(at(4), b[4], weighted=True), rate[4]),
    }
