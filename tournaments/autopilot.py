"""Bots for the show side: the choices bot-held entrants make (token gift,
candidate choice, nomination, bans) and, when asked to, the organizer's
steps (a random main-match ranking, the game pick), never those of a show
whose organizer took over (``release_autopilot``). A step a person owes
too (the winners' choice of candidates) a bot leaves to them, so its speed
never closes their window (``leaves_to_a_person``). Used after every show
command and match end (tournaments.bot_steps), by seed_demo and by tests;
people use the pages and the API."""

from __future__ import annotations

import random

from games import services as match_services
from games.holders import is_bot
from games.models import Match

from . import shows
from .show_services import Acting, command, load


def _bot_choice(state, kind: str, who: str, rng: random.Random) -> dict | None:
    rnd = shows.current_round(state)
    if rnd is None:
        return None
    if kind == "give_token":
        options = shows.gift_options(state, rnd)
        return {"type": "give_token", "to": rng.choice(options)} if options else None
    if kind == "choose_candidate":
        _forced, pool, n = shows.candidate_split(state, rnd)
        return {"type": "choose_candidate", "candidates": rng.sample(list(pool), n)}
    if kind == "nominate":
        options = shows.dmo_options(state, rnd, who)
        return {"type": "nominate", "dmo": rng.choice(options)} if options else None
    if kind == "ban_game":
        duel = next(d for d in rnd.duels if who in (d.candidate, d.dmo))
        return {"type": "ban_game", "game": rng.choice(shows.ban_options(state, duel))}
    return None


def _organizer_choice(state, kind: str, rng: random.Random) -> dict | None:
    if kind == "enter_ranking":
        order = list(shows.active(state))
        rng.shuffle(order)
        return {"type": "enter_ranking", "ranking": [[e] for e in order]}
    if kind == "pick_game":
        rnd = shows.current_round(state)
        for duel in rnd.duels:
            if duel.dmo is not None and duel.game is None:
                options = shows.ban_options(state, duel)
                if (
                    all(w in duel.bans for w in (duel.candidate, duel.dmo))
                    or state.options.get("game_pick") != "pool_with_bans"
                ):
                    return {
                        "type": "pick_game",
                        "candidate": duel.candidate,
                        "game": rng.choice(options),
                    }
    if kind == "add_round":
        return {"type": "add_round", "title": f"Round {len(state.rounds) + 1}"}
    return None


# steps several entrants owe together, the first made closing them for all
# (the main match's winners choose the candidates): a person's window
SHARED_STEPS = ("choose_candidate",)


def _is_person(holder) -> bool:
    return isinstance(holder, int) and not isinstance(holder, bool)


def leaves_to_a_person(state, holders, kind: str, seat: str) -> bool:
    """Whether the bot on ``seat`` leaves the step ``kind`` to a person who
    owes it too: a shared step (SHARED_STEPS) that a person may make is
    theirs, so a bot's speed never closes it before they could; if they do
    not, the step's deadline decides for them (its timeout) as for people."""
    if kind not in SHARED_STEPS:
        return False
    return any(
        d.kind == kind and d.seat != seat and _is_person(holders.get(d.seat))
        for d in shows.pending(state)
    )


def step(
    stream: str, rng: random.Random, *, organizer: bool = True, now: float | None = None
) -> bool:
    """Make one show decision a bot (or the organizer's autopilot) owes.
    Returns False when only people (or matches) are awaited."""
    state, _, holders = load(stream)
    for d in shows.pending(state):
        if d.seat == state.organizer:
            if not organizer or state.autopilot_released:
                continue  # the person logged in as organizer makes these
            cmd = _organizer_choice(state, d.kind, rng)
            acting = Acting(state.organizer, shows.ORGANIZER)
        else:
            holder = holders.get(d.seat)
            if not is_bot(holder):
                continue
            if leaves_to_a_person(state, holders, d.kind, d.seat):
                continue  # a person may make it: the bot waits its turn as they would
            cmd = _bot_choice(state, d.kind, d.seat, rng)
            acting = Acting(d.seat, shows.PLAYER)
        if cmd is not None:
            command(stream, cmd, acting, now=now, rng=rng)
            return True
    return False


def run(
    stream: str, rng: random.Random, *, start: float, organizer: bool = True, max_steps: int = 500
) -> float:
    """Drive a show with bots until it ends or waits for a person; matches
    are played on a simulated clock. Returns the clock's final time."""
    t = start
    for _ in range(max_steps):
        if step(stream, rng, organizer=organizer, now=t):
            continue
        moved = False
        for match in Match.objects.filter(show_stream=stream, status="live"):
            before = match.version
            t = match_services.run_bots(match, start=t, rng=rng)
            match.refresh_from_db()
            moved = moved or match.version != before
        if not moved:
            break
    return t
