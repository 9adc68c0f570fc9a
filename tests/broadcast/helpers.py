"""Shows and matches the broadcast's tests (pages and browser) watch."""

import random

from games import services
from games.models import Match
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay"]


def live_show(organizer, *, delay=60, policy="public", moves=6, name="Broadcast night", seed=7):
    """A show of bots whose first death match is open and has had ``moves``
    moves, all made now (real time). Returns (record, match, rng)."""
    rng = random.Random(seed)
    stream = ss.create_show(
        name=name,
        organizer=organizer.username,
        organizer_id=organizer.pk,
        entrants=ENTRANTS,
        options={
            "death_match_first_to": 3,
            "final_first_to": 3,
            "game_pool": ["love-me-not"],
            "spectator_delay_s": delay,
            "spectator_policy": policy,
        },
        holders={e: "bot:heuristic" for e in ENTRANTS},
        rng=rng,
    )
    acting = ss.Acting(organizer.username, "organizer")
    ss.command(stream, {"type": "enter_ranking", "ranking": [[e] for e in ENTRANTS]}, acting)
    for _ in range(30):
        if Match.objects.filter(show_stream=stream, kind="death_match").exists():
            break
        if not autopilot.step(stream, rng):
            break
    match = Match.objects.get(show_stream=stream, kind="death_match")
    services.play_bots(match, max_moves=moves, rng=rng)
    match.refresh_from_db()
    return ShowRecord.objects.get(stream=stream), match, rng


def finished_match(seed=4, person=None):
    """A Love Letter match of two bots played to its end: (match, last version).
    With ``person`` (a user), she holds the seat ana (her moves made for her)."""
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": person.pk if person else "bot:random", "ben": "bot:random"},
        rng=random.Random(seed),
    )
    if person is None:
        services.play_bots(match, rng=random.Random(seed))
    else:
        from tests.visibility.helpers import play_out

        play_out(match, seed=seed)
    return match, services.load(match).version
