"""Playing whole matches with bots, for tests, benchmarks and the demo."""

from __future__ import annotations

import random
from collections.abc import Mapping

from .protocol import Ctx, Event, Viewer
from .series import MatchState, Series


def random_bot(view, seat, rng, legal):
    return rng.choice(legal)


# A seat or an entrant held by a bot names it ``bot:<name>``: a level
# (``bot:level:0`` to ``bot:level:4``, games.core.search) or one of the two
# older kinds, which play as levels 0 and 1 (``heuristic`` without level 1's
# slips) and keep ratings of their own.
# A name is one of these strings exactly (no parsing: no "1e308", no "٣").
LEVELS = (0, 1, 2, 3, 4)
LEVEL_NAMES = tuple(f"level:{n}" for n in LEVELS)
BOT_NAMES = ("random", "heuristic", *LEVEL_NAMES)
BOT = "bot:"
BOTS_IN_WORDS = "bot:level:0 to bot:level:4 (or bot:random, bot:heuristic)"


def bot_name(holder) -> str | None:
    """The bot a holder names (``"bot:level:2"`` -> ``"level:2"``); None for
    anything else, a bot by any other name included."""
    if isinstance(holder, str) and holder.startswith(BOT) and holder[len(BOT) :] in BOT_NAMES:
        return holder[len(BOT) :]
    return None


def level_of(name: str) -> int | None:
    """A bot's level (``"level:2"`` -> 2; the older kinds as they play)."""
    if name in LEVEL_NAMES:
        return LEVELS[LEVEL_NAMES.index(name)]
    return {"random": 0, "heuristic": 1}.get(name)


def level_holder(level: int) -> str:
    return f"{BOT}{LEVEL_NAMES[level]}"


def bot_policy(rules, name: str):
    """The function that plays as bot ``name`` in a game (``rules.bots``)."""
    if name == "random":
        return random_bot
    if name in LEVEL_NAMES:
        return rules.bots[f"level{level_of(name)}"]
    return rules.bots[name]


def bot_command(
    series: Series, state: MatchState, seat: str, kind: str, rng: random.Random
) -> dict | None:
    """What the bot ``kind`` (one of BOT_NAMES, or one of the game's bots) plays now;
    None when it waits (nothing legal to do, or the bot chooses to let the
    clock run, e.g. in an open auction)."""
    pending = [d for d in series.pending(state) if d.seat == seat]
    if pending and pending[0].kind == "choose_first":
        return {"type": "choose_first", "seat": seat}
    rules = series.rules
    legal = rules.legal_commands(state.bout, seat) if state.bout is not None else []
    if not legal:
        return None
    command = bot_policy(rules, kind)(
        rules.view(state.bout, Viewer.of_seat(seat)), seat, rng, legal
    )
    return None if command is None else dict(command)


def play_match(
    series: Series,
    seats,
    bots: Mapping[str, str],
    rng: random.Random,
    options=None,
    items=None,
    setup=None,
    step_s: float = 1.0,
    max_steps: int = 20_000,
    start: float = 0.0,
) -> tuple[list[Event], MatchState]:
    """Play a match to its end; every command goes through ``decide`` as a
    player's would. Returns all events and the final state."""
    now = start
    events = series.start(Ctx(now=now, rng=rng, role="system"), seats, options, items, setup)
    state = series.fold(events)
    for _ in range(max_steps):
        if state.finished:
            break
        pending = series.pending(state)
        if not pending:
            raise AssertionError("match stuck: nobody has a decision")
        first = rng.randrange(len(pending))
        seat, command = None, None
        for d in pending[first:] + pending[:first]:
            command = bot_command(series, state, d.seat, bots[d.seat], rng)
            if command is not None:
                seat = d.seat
                break
        if command is None:
            # every bot waits: time runs to the next deadline, which fires
            deadline = series.next_deadline(state)
            if deadline is None:
                raise AssertionError("match stuck: every bot waits and no clock runs")
            now = max(now + step_s, deadline)
            new = series.decide(state, {"type": "timeout"}, Ctx(now=now, rng=rng, role="system"))
        else:
            now += step_s
            new = series.decide(state, command, Ctx(now=now, rng=rng, seat=seat))
        for e in new:
            state = series.evolve(state, e)
        events += new
    else:
        raise AssertionError("match did not end within max_steps")
    return events, state
