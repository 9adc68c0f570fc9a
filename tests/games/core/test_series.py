"""The series layer, played with a tiny game defined here: each bout, the
first player names a number; higher than the second player's number wins."""

import random
from dataclasses import dataclass, replace

import pytest

from games.core.protocol import MODERATOR_VIEW, Ctx, Decision, Event, Outcome, RuleError, Viewer
from games.core.rules import FIRST_WINNER, BoutRules, int_option
from games.core.series import Series


@dataclass(frozen=True)
class Duel:
    seats: tuple
    order: tuple  # who names first, then second
    named: tuple = ()
    asked_at: float = 0.0
    decision_s: int = 0
    holders_items: tuple = ()


class DuelRules(BoutRules):
    slug = "duel"
    name = "Duel"
    options = {"decision_s": int_option(0, "seconds per decision", 0, 600)}
    chooser_items = frozenset({"advantage"})
    items = {"advantage": "choose who starts", "boost": "+1 once"}

    def default_first_to(self, options, n):
        return 2

    def start(self, ctx, seats, options, first, items, setup, bout_no):
        i = seats.index(first)
        order = seats[i:] + seats[:i]
        return [
            Event(
                "duel_started",
                {
                    "seats": list(seats),
                    "order": list(order),
                    "at": ctx.now,
                    "decision_s": options["decision_s"],
                },
            )
        ]

    def evolve(self, state, event):
        d = event.data
        if event.type == "duel_started":
            return Duel(
                tuple(d["seats"]), tuple(d["order"]), asked_at=d["at"], decision_s=d["decision_s"]
            )
        if event.type in ("named", "timed_out"):
            return replace(state, named=state.named + (d["n"],), asked_at=d["at"])
        if event.type == "item_used":
            return state
        raise AssertionError(event.type)

    def decide(self, state, command, ctx):
        if len(state.named) == 2:
            raise RuleError("the bout is over")
        turn = state.order[len(state.named)]
        if ctx.seat != turn:
            raise RuleError(f"it is {turn}'s turn")
        if command["type"] != "name" or not isinstance(command.get("n"), int):
            raise RuleError("name a number")
        out = [Event("named", {"seat": ctx.seat, "n": command["n"], "at": ctx.now})]
        if command.get("boost"):
            out.append(Event("item_used", {"seat": ctx.seat, "item": "boost"}))
        return out

    def timeout(self, state, decision, ctx):
        return [Event("timed_out", {"seat": decision.seat, "n": 0, "at": ctx.now})]

    def pending(self, state):
        if len(state.named) == 2:
            return []
        dl = state.asked_at + state.decision_s if state.decision_s else None
        return [Decision(state.order[len(state.named)], "name", dl)]

    def outcome(self, state):
        if len(state.named) < 2:
            return None
        a, b = state.named
        if a == b:
            return Outcome((), {}, "drawn")
        w = state.order[0] if a > b else state.order[1]
        return Outcome((w,), {w: 1})

    def view(self, state, viewer):
        return {"named": list(state.named)}

    def legal_commands(self, state, seat):
        return (
            [{"type": "name", "n": n} for n in range(3)]
            if self.pending(state)[0].seat == seat
            else []
        )


def make(rules=None):
    return Series(rules or DuelRules())


def play(series, state, seat, cmd, now=1.0):
    events = series.decide(state, cmd, Ctx(now=now, rng=random.Random(0), seat=seat))
    for e in events:
        state = series.evolve(state, e)
    return state, events


def start(series, items=None, setup=None, options=None, seed=0):
    events = series.start(
        Ctx(0.0, random.Random(seed), role="system"), ["ana", "ben"], options, items, setup
    )
    return series.fold(events), events


def test_coin_flip_is_recorded_and_first_player_alternates():
    s = make()
    state, events = start(s, seed=3)
    flip = [e for e in events if e.type == "first_player_chosen"]
    assert len(flip) == 1 and flip[0].data["how"] == "coin"
    first = state.first
    other = "ben" if first == "ana" else "ana"
    state, _ = play(s, state, first, {"type": "name", "n": 2})
    state, ev = play(s, state, other, {"type": "name", "n": 1})
    assert [e.type for e in ev][:2] == ["named", "bout_scored"]
    assert state.scores[first] == 1
    assert state.first == other  # alternates
    assert state.bout.order[0] == other


def test_drawn_bout_scores_for_nobody_and_is_replayed_with_the_other_first():
    s = make()
    state, _ = start(s, setup={"first": "ana"})
    state, _ = play(s, state, "ana", {"type": "name", "n": 1})
    state, _ = play(s, state, "ben", {"type": "name", "n": 1})
    assert state.scores == {"ana": 0, "ben": 0}
    assert state.history[-1]["winners"] == []
    assert state.bout.order[0] == "ben"


def test_series_ends_at_first_to_and_refuses_further_moves():
    s = make()
    state, _ = start(s, setup={"first": "ana"})
    for first, second in (("ana", "ben"), ("ben", "ana")):
        hi = 2 if first == "ana" else 0
        state, _ = play(s, state, first, {"type": "name", "n": hi})
        state, events = play(s, state, second, {"type": "name", "n": 1})
    assert state.finished and state.winners == ("ana",)
    assert events[-1].type == "series_ended"
    with pytest.raises(RuleError, match="over"):
        play(s, state, "ben", {"type": "name", "n": 1})


def test_advantage_holder_chooses_first_and_nobody_else_may():
    s = make()
    state, events = start(s, items={"ben": ["advantage"]})
    assert state.bout is None and not [e for e in events if e.type == "first_player_chosen"]
    assert s.pending(state)[0].kind == "choose_first"
    with pytest.raises(RuleError, match="holder of the advantage"):
        play(s, state, "ana", {"type": "choose_first", "seat": "ana"})
    with pytest.raises(RuleError, match="choose one of"):
        play(s, state, "ben", {"type": "choose_first", "seat": "zed"})
    state, _ = play(s, state, "ben", {"type": "choose_first", "seat": "ana"})
    assert state.bout.order == ("ana", "ben")
    with pytest.raises(RuleError, match="already"):
        play(s, state, "ben", {"type": "choose_first", "seat": "ben"})


def test_items_are_consumed_by_item_used_events():
    s = make()
    state, _ = start(s, items={"ana": ["boost", "boost"]}, setup={"first": "ana"})
    state, _ = play(s, state, "ana", {"type": "name", "n": 1, "boost": True})
    assert state.items["ana"] == ("boost",)
    assert s.view(state, Viewer.of_seat("ben"))["items"] == {"ben": []}
    assert s.view(state, MODERATOR_VIEW)["items"]["ana"] == ["boost"]


def test_bad_seat_counts_options_and_items_are_refused():
    s = make()
    with pytest.raises(RuleError, match="exactly 2"):
        s.start(Ctx(0, random.Random(0)), ["a", "b", "c"])
    with pytest.raises(RuleError, match="different"):
        s.start(Ctx(0, random.Random(0)), ["a", "a"])
    with pytest.raises(RuleError, match="unknown option"):
        s.start(Ctx(0, random.Random(0)), ["a", "b"], {"speed": 3})
    with pytest.raises(RuleError, match="decision_s"):
        s.start(Ctx(0, random.Random(0)), ["a", "b"], {"decision_s": -1})
    with pytest.raises(RuleError, match="no item"):
        s.start(Ctx(0, random.Random(0)), ["a", "b"], None, {"a": ["wand"]})


def test_deadlines_fire_in_order_each_clock_starting_when_the_last_fired():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    assert s.next_deadline(state) == 10.0
    # a move arriving exactly at the deadline is too late: the timeout fires first
    state, events = play(s, state, "ben", {"type": "name", "n": 2}, now=10.0)
    assert [e.type for e in events][:1] == ["timed_out"]
    assert events[0].data["at"] == 10.0
    assert state.last_bout.named == (0, 2)
    assert state.scores == {"ana": 0, "ben": 1}


def test_pause_stops_the_clock_and_resume_shifts_deadlines():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    mod = lambda now: Ctx(now, random.Random(0), None, "moderator")  # noqa: E731
    with pytest.raises(RuleError, match="only a moderator"):
        s.decide(state, {"type": "pause"}, Ctx(3, random.Random(0), "ana"))
    for e in s.decide(state, {"type": "pause", "reason": "stream died"}, mod(4)):
        state = s.evolve(state, e)
    assert s.next_deadline(state) is None
    with pytest.raises(RuleError, match="paused"):
        play(s, state, "ana", {"type": "name", "n": 1}, now=5)
    for e in s.decide(state, {"type": "resume"}, mod(34)):
        state = s.evolve(state, e)
    assert s.next_deadline(state) == 40.0  # 10 + 30 s paused
    for e in s.decide(state, {"type": "add_time", "seconds": 5, "reason": "lag"}, mod(35)):
        state = s.evolve(state, e)
    assert s.next_deadline(state) == 45.0


def test_winner_starts_next_bout_when_the_game_says_so():
    class WinnerFirst(DuelRules):
        first_player = FIRST_WINNER

    s = make(WinnerFirst())
    state, _ = start(s, setup={"first": "ana"})
    state, _ = play(s, state, "ana", {"type": "name", "n": 0})
    state, _ = play(s, state, "ben", {"type": "name", "n": 1})
    assert state.first == "ben"


def test_replay_equals_state():
    s = make()
    state, events = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    all_events = list(events)
    for seat, n, t in (("ana", 1, 1), ("ben", 2, 2), ("ana", 0, 30)):
        try:
            state, ev = play(s, state, seat, {"type": "name", "n": n}, now=t)
        except RuleError:
            continue
        all_events += ev
    assert s.fold(all_events) == state


def mod_do(s, state, cmd, now=5.0):
    events = s.decide(state, cmd, Ctx(now, random.Random(0), None, "moderator"))
    for e in events:
        state = s.evolve(state, e)
    return state, events


def test_rulings_award_bout_replay_bout_overturn_and_forfeit():
    s = make()
    state, _ = start(s, setup={"first": "ana"})
    with pytest.raises(RuleError, match="only a moderator"):
        play(s, state, "ana", {"type": "award_bout", "winner": "ana"})
    state, ev = mod_do(s, state, {"type": "award_bout", "winner": "ben", "reason": "ruling"})
    assert ev[0].type == "bout_scored" and state.scores == {"ana": 0, "ben": 1}
    state, _ = play(s, state, "ben", {"type": "name", "n": 1})
    state, ev = mod_do(s, state, {"type": "replay_bout", "reason": "misdeal"})
    assert ev[0].type == "bout_replayed" and state.bout.named == ()
    assert state.scores == {"ana": 0, "ben": 1}
    state, ev = mod_do(s, state, {"type": "forfeit", "loser": "ben", "reason": "no-show"})
    assert state.finished and state.winners == ("ana",)
    with pytest.raises(RuleError, match="already won"):
        mod_do(s, state, {"type": "overturn", "winner": "ana"})
    state, ev = mod_do(s, state, {"type": "overturn", "winner": "ben", "reason": "dispute 3"})
    assert state.winners == ("ben",) and ev[0].type == "series_overturned"
    with pytest.raises(RuleError, match="over"):
        mod_do(s, state, {"type": "pause"})


def test_named_chooser_picks_the_first_player():
    s = make()
    events = s.start(Ctx(0.0, random.Random(0), role="system"), ["ana", "ben"], chooser="ben")
    state = s.fold(events)
    assert s.pending(state)[0] == Decision("ben", "choose_first")
    with pytest.raises(RuleError):
        play(s, state, "ana", {"type": "choose_first", "seat": "ana"})
    state, _ = play(s, state, "ben", {"type": "choose_first", "seat": "ben"})
    assert state.bout.order[0] == "ben"


def test_add_time_is_bounded_to_a_day_of_real_seconds():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    for bad in (0, -1, 1e12, 10**400, 24 * 3600 + 1, float("inf"), float("nan"), True, "5", None):
        with pytest.raises(RuleError, match="at most 86400"):
            mod_do(s, state, {"type": "add_time", "seconds": bad})
    state, _ = mod_do(s, state, {"type": "add_time", "seconds": 24 * 3600}, now=1.0)
    assert s.next_deadline(state) == 10.0 + 24 * 3600


def test_a_reanchor_restarts_the_clocks_as_they_stood_at_its_since():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    state, _ = play(s, state, "ana", {"type": "name", "n": 1}, now=4.0)
    assert s.next_deadline(state) == 14.0  # ben asked at 4
    # back to that moment, 1000 s later: ben has his 10 s again, from 1000
    moved = s.evolve(state, Event("clock_reanchored", {"at": 1000.0, "since": 4.0}))
    assert s.next_deadline(moved) == 1010.0
    assert s.fire_due(moved, Ctx(1009.9, random.Random(0), None, "system")) == []
    # a clock that stood paused at that moment stays as it was: resume gives the rest
    paused, _ = mod_do(s, state, {"type": "pause"}, now=6.0)
    paused = s.evolve(paused, Event("clock_reanchored", {"at": 1000.0, "since": 7.0}))
    assert s.next_deadline(paused) is None
    resumed, _ = mod_do(s, paused, {"type": "resume"}, now=2000.0)
    assert s.next_deadline(resumed) == 2008.0  # 8 s were left when it paused at 6
    # a ruling time before the anchor (clock skew) takes no time away
    assert s.next_deadline(s.evolve(state, Event("clock_reanchored", {"at": 1, "since": 4}))) == 14


# ---- time added to one seat -------------------------------------------------------
def deadlines(s, state):
    return {d.seat: d.deadline for d in s.pending(state)}


def test_time_added_to_a_seat_waiting_moves_no_deadline_until_its_turn():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    state, _ = mod_do(s, state, {"type": "add_time", "seat": "ben", "seconds": 30}, now=2.0)
    assert deadlines(s, state) == {"ana": 10.0}  # ana's clock is not ben's
    state, _ = play(s, state, "ana", {"type": "name", "n": 2}, now=4.0)
    assert deadlines(s, state) == {"ben": 44.0}  # his 10 s from 4, and his 30 s
    # ben decides 26 s past his own 10 s: the credit pays for it, the game sees him in time
    state, events = play(s, state, "ben", {"type": "name", "n": 1}, now=40.0)
    assert [e.type for e in events][:2] == ["time_credit_used", "named"]
    assert events[0].data["seconds"] == pytest.approx(26.001)
    assert events[1].data["at"] < 14.0
    assert s.credit(state, "ben") == pytest.approx(3.999)
    # bout 2 (ben first) starts when ben really decided, at 40; his credit left still his
    assert state.first == "ben"
    assert deadlines(s, state) == {"ben": pytest.approx(50.0 + 3.999)}


def test_time_added_to_the_seat_deciding_moves_its_deadline_and_is_spent_at_its_timeout():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    state, _ = mod_do(s, state, {"type": "add_time", "seat": "ana", "seconds": 30}, now=5.0)
    assert s.next_deadline(state) == 40.0
    assert s.fire_due(state, Ctx(39.9, random.Random(0), None, "system")) == []
    fired = s.fire_due(state, Ctx(40.0, random.Random(0), None, "system"))
    assert [e.type for e in fired] == ["time_credit_used", "timed_out"]
    assert fired[1].data["at"] == 10.0  # the game's own deadline
    for e in fired:
        state = s.evolve(state, e)
    assert s.credit(state, "ana") == 0.0
    assert deadlines(s, state) == {"ben": 50.0}  # ben's 10 s start at 40, when ana timed out


def test_an_early_decision_keeps_the_credit_for_later():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    state, _ = mod_do(s, state, {"type": "add_time", "seat": "ana", "seconds": 30}, now=1.0)
    state, events = play(s, state, "ana", {"type": "name", "n": 2}, now=3.0)
    assert "time_credit_used" not in [e.type for e in events]
    assert s.credit(state, "ana") == 30.0
    assert deadlines(s, state) == {"ben": 13.0}


def test_time_for_a_seat_not_in_the_match_is_refused_in_words():
    s = make()
    state, _ = start(s, setup={"first": "ana"}, options={"decision_s": 10})
    for bad in ("cal", "", 3, ["ana"]):
        with pytest.raises(
            RuleError, match="not seated in this match: add time to one of ana, ben"
        ):
            mod_do(s, state, {"type": "add_time", "seat": bad, "seconds": 5})
    with pytest.raises(RuleError, match="at most 86400"):
        mod_do(s, state, {"type": "add_time", "seat": "ana", "seconds": 86_401})


def test_a_ready_check_holds_the_clocks_until_every_awaited_seat_is_there():
    """The engine's ready-check (issue 43), no database: nothing but ``ready``
    before it passes, the clocks counting from the pass, its expiry recorded
    once with nobody losing, the no-show a moderator's after it, and the log
    folding to the same state at every step."""
    s = make()
    events = s.start(
        Ctx(0.0, random.Random(0), role="system"),
        ["ana", "ben"],
        {"decision_s": 10},
        None,
        {"first": "ana"},
        ready={"seats": ["ana", "ben"], "by": 100.0},
    )
    state = s.fold(events)
    log = list(events)
    assert [(d.seat, d.kind, d.deadline) for d in s.pending(state)] == [
        ("ana", "ready", 100.0),
        ("ben", "ready", 100.0),
    ]
    with pytest.raises(RuleError, match="waits for its players"):
        play(s, state, "ana", {"type": "name", "n": 1}, now=5)
    with pytest.raises(RuleError, match="has no field"):
        play(s, state, "ana", {"type": "ready", "seat": "ben"}, now=5)
    with pytest.raises(RuleError, match="not up yet"):
        mod_do(s, state, {"type": "declare_no_show", "seat": "ben"}, now=50)
    with pytest.raises(RuleError, match="waits for its players"):
        mod_do(s, state, {"type": "resume"}, now=50)
    state, ev = play(s, state, "ana", {"type": "ready"}, now=20)
    log += ev
    assert s.fold(log) == state and state.awaiting == ("ben",)
    # the deadline passes: recorded, nobody loses, no deadline left to fire
    state, ev = play(s, state, None, {"type": "timeout"}, now=150)
    log += ev
    assert [e.type for e in ev] == ["ready_check_expired"] and not state.finished
    assert s.next_deadline(state) is None and s.fold(log) == state
    with pytest.raises(RuleError, match="absent seat"):
        mod_do(s, state, {"type": "declare_no_show", "seat": "ana"}, now=160)
    # the latecomer comes: the clocks start then (ana names first, 10 s)
    state, ev = play(s, state, "ben", {"type": "ready"}, now=200)
    log += ev
    assert [e.type for e in ev] == ["player_ready", "ready_check_passed"]
    assert s.next_deadline(state) == 210.0 and s.fold(log) == state


def test_a_no_show_declared_after_the_ready_check_forfeits_the_absent_seat():
    s = make()
    events = s.start(
        Ctx(0.0, random.Random(0), role="system"),
        ["ana", "ben"],
        None,
        None,
        {"first": "ana"},
        ready={"seats": ["ana", "ben"], "by": 60.0},
    )
    state = s.fold(events)
    state, _ = play(s, state, "ana", {"type": "ready"}, now=1)
    state, _ = play(s, state, None, {"type": "timeout"}, now=61)
    with pytest.raises(RuleError, match="only a moderator"):
        play(s, state, "ana", {"type": "declare_no_show", "seat": "ben"}, now=62)
    state, ev = mod_do(s, state, {"type": "declare_no_show", "seat": "ben"}, now=62)
    assert ev[0].type == "series_forfeited" and ev[0].data["reason"] == "no-show"
    assert state.finished and state.winners == ("ana",)
