"""The demo's rated league (seed_demo): people's seats moved as a bot would,
on a simulated clock in the past, so the pages show ratings with history."""

from __future__ import annotations

import random

from django.db import transaction

from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from games.models import Match
from tournaments import bracket_services

DAY = 86_400.0


def play_out(
    match: Match, rng: random.Random, *, now: float, bot: str = "random", max_moves: int = 5_000
) -> float:
    """Every seat moves (``bot``'s choice) until the match ends; a second
    passes a move, and a due deadline fires first. Returns the clock's time."""
    series = series_for(match.game)
    t = now
    for _ in range(max_moves):
        state = services.load(match).state
        if state.finished:
            return t
        t += 1.0
        due = series.next_deadline(state)
        if due is not None and due <= t:
            services.submit(match, None, {"type": "timeout"}, role="system", now=t, rng=rng)
            continue
        moved = False
        for d in series.pending(state):
            command = bot_command(series, state, d.seat, bot, rng)
            if command is not None:
                services.submit(match, d.seat, command, now=t, rng=rng)
                moved = True
                break
        if not moved:
            if due is None:
                raise RuntimeError(f"{match}: nobody can move and no clock runs")
            t = max(t, due)
            services.submit(match, None, {"type": "timeout"}, role="system", now=t, rng=rng)
    raise RuntimeError(f"{match} did not end within {max_moves} moves")


def play_bracket(stream: str, rng: random.Random, *, now: float, step: float = DAY, bot="random"):
    """Every series of a bracket, one after another, ``step`` apart."""
    t = now
    for _ in range(500):
        live = Match.objects.filter(show_stream=stream, status="live").order_by("id").first()
        if live is None:
            return t
        with transaction.atomic():  # one commit a match, not one a move
            t = play_out(live, rng, now=t, bot=bot) + step
    raise RuntimeError("the bracket did not end")


def league(
    name: str, game: str, holders: dict, rng: random.Random, *, start: float, step: float, **options
):
    """A finished, rated round robin of ``game`` played from ``start`` on
    (``options``: the format's, e.g. double_round)."""
    stream = bracket_services.create_bracket(
        name=name,
        game=game,
        format="round_robin",
        entrants=list(holders),
        options=options,
        holders=holders,
        first_to=1,
        # series days apart never time out; played at once (no ready-check: history)
        match_options={"decision_s": 0, "ready_check_s": 0},
        actor="organizer",
        rng=rng,
        now=start,
    )
    play_bracket(stream, rng, now=start, step=step, bot="heuristic")
    return stream
