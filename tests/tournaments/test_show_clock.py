"""Show step deadlines are enforced by the clocks' sweep: a person who lets a
step's deadline pass has a legal choice made for them, once."""

import pytest

from clocks.enforce import sweep
from eventlog.store import read
from tournaments import show_services as ss
from tournaments import shows
from tournaments.show_clock import sweep_shows

from .test_show_services import ORG, T0, show, state_of

RANKING = [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]]
STEP_S = 60


def people_show():
    """Every entrant a person (no bot makes a step), steps due within a minute."""
    stream = show(options={"step_deadline_s": STEP_S}, holders={})
    ss.command(stream, {"type": "enter_ranking", "ranking": RANKING}, ORG, now=T0)
    return stream


@pytest.mark.django_db
def test_the_clocks_sweep_times_out_a_missed_step_once():
    stream = people_show()
    state = state_of(stream)
    waiting = [(d.seat, d.kind) for d in shows.pending(state) if d.seat != state.organizer]
    assert waiting and state.deadlines  # someone owes a step, by a deadline
    assert sweep(now=T0 + STEP_S - 1) == 0  # not yet
    assert state_of(stream) == state

    after = T0 + STEP_S + 1
    assert sweep(now=after) > 0  # through the clocks' own sweep
    state = state_of(stream)
    assert shows.overdue(state, after) == []
    timed_out = [e for e in read(stream) if "deadline pass" in str(e.data.get("reason", ""))]
    assert timed_out and timed_out[0].metadata.get("actor") == "clock"
    version = read(stream)[-1].version
    assert sweep_shows(now=after) == 0  # a second sweep finds nothing due
    assert read(stream)[-1].version == version


@pytest.mark.django_db
def test_a_step_made_in_time_is_never_timed_out():
    stream = people_show()
    state = state_of(stream)
    decision = next(d for d in shows.pending(state) if d.seat != state.organizer)
    rnd = shows.current_round(state)
    if decision.kind == "give_token":
        cmd = {"type": "give_token", "to": shows.gift_options(state, rnd)[0]}
    elif decision.kind == "nominate":
        cmd = {"type": "nominate", "dmo": shows.dmo_options(state, rnd, decision.seat)[0]}
    else:
        _forced, pool, n = shows.candidate_split(state, rnd)
        cmd = {"type": "choose_candidate", "candidates": sorted(pool)[:n]}
    ss.command(stream, cmd, ss.Acting(decision.seat, shows.PLAYER), now=T0 + 1)
    events = len(read(stream))
    sweep_shows(now=T0 + STEP_S + 0.5)  # that step's deadline has passed, but it was made
    made_by_clock = [
        e
        for e in read(stream)[events:]
        if e.data.get("round") and decision.seat in str(e.data.get("reason", ""))
    ]
    assert made_by_clock == []
