"""Time added to ONE seat's clock, played against the platform's own clock
(the sweep with an explicit time): that seat's deadline moves, nobody else's."""

import random

import pytest

from clocks.enforce import sweep
from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, RuleError, Viewer

FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}
MOD = {"actor": "mod", "role": "moderator"}


def rows(match, kind):
    return [r for r in read(match.stream) if r.type == kind]


def deadlines(match):
    return {d["seat"]: d["deadline"] for d in services.view_for(match, MODERATOR_VIEW)["pending"]}


def add_time(match, now, **cmd):
    services.submit(match, None, {"type": "add_time", "reason": "lag", **cmd}, now=now, **MOD)
    match.refresh_from_db()


@pytest.mark.django_db
def test_time_added_to_the_seat_deciding_lets_it_play_late_and_the_next_clock_starts_then():
    t0 = 7_000_000.0
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options=FAST_DLL,
        setup={"first": "ana"},
        rng=random.Random(1),
        now=t0,
    )
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 3)  # 1 s + 2 s reserve
    add_time(match, t0 + 0.5, seat="ana", seconds=5)
    assert match.next_deadline.timestamp() == pytest.approx(t0 + 8)
    assert sweep(now=t0 + 7.9) == 0  # her old deadline has passed: nothing fires
    hand = [str(c) for c in services.view_for(match, Viewer.of_seat("ana"))["bout"]["hand"]]
    card = "7" if "7" in hand else next(c for c in hand if c != "8")  # a legal play
    services.submit(
        match,
        "ana",
        {"type": "play", "card": card, "claim": card, "target": "opponent"},
        now=t0 + 6,
    )
    match.refresh_from_db()
    assert not rows(match, "timed_out")
    used = rows(match, "time_credit_used")
    assert len(used) == 1 and used[0].data["seats"] == {"ana": pytest.approx(3.001)}
    played = [
        r for r in read(match.stream) if r.data.get("seat") == "ana" and "reserve_spent" in r.data
    ]
    assert played[-1].data["reserve_spent"] == 2  # her reserve went first, then the added time
    # ben's 1 s + 2 s start when ana really played (t0 + 6), not when the game thought
    assert deadlines(match) == {"ben": pytest.approx(t0 + 9)}
    assert sweep(now=t0 + 8.9) == 0
    assert sweep(now=t0 + 9) >= 1
    assert rows(match, "timed_out")[0].data["seat"] == "ben"


@pytest.mark.django_db
def test_on_simultaneous_turns_only_the_seat_given_time_waits_longer():
    t0 = 8_000_000.0
    match = services.create_match(
        "love-me-not", ["ana", "ben"], options={"decision_s": 10}, rng=random.Random(2), now=t0
    )
    assert deadlines(match) == {"ana": pytest.approx(t0 + 10), "ben": pytest.approx(t0 + 10)}
    add_time(match, t0 + 1, seat="ana", seconds=30)
    assert deadlines(match) == {"ana": pytest.approx(t0 + 40), "ben": pytest.approx(t0 + 10)}
    sweep(now=t0 + 10)
    timed = [r for r in rows(match, "card_chosen") if r.data.get("timeout")]
    assert [r.data["seat"] for r in timed] == ["ben"]  # ben's clock ran out; ana's did not
    assert set(deadlines(match)) == {"ana"}
    assert deadlines(match)["ana"] == pytest.approx(t0 + 40)
    assert sweep(now=t0 + 39.9) == 0
    sweep(now=t0 + 40)
    assert rows(match, "time_credit_used")[0].data["seconds"] == pytest.approx(30)
    # the next turn's clocks both start at t0 + 40, when ana's added time ran out
    assert deadlines(match) == {"ana": pytest.approx(t0 + 50), "ben": pytest.approx(t0 + 50)}


@pytest.mark.django_db
def test_time_for_the_whole_clock_still_moves_every_deadline():
    t0 = 9_000_000.0
    match = services.create_match(
        "love-me-not", ["ana", "ben"], options={"decision_s": 10}, rng=random.Random(2), now=t0
    )
    add_time(match, t0 + 1, seconds=30)
    assert deadlines(match) == {"ana": pytest.approx(t0 + 40), "ben": pytest.approx(t0 + 40)}
    with pytest.raises(RuleError, match="not seated in this match"):
        add_time(match, t0 + 2, seat="cal", seconds=5)
    assert len(rows(match, "time_added")) == 1
