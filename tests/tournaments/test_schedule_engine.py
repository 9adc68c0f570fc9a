"""A scheduled show in the pure engine: registration, the waiting list,
approval, withdrawal, check-in, the start with its drops and replacements,
and the ready-check with its no-show forfeit. No database.

Run: .venv/bin/python -m pytest -p no:django -q tests/tournaments/test_schedule_engine.py
"""

from __future__ import annotations

import random

import pytest

from games.core.protocol import Ctx, RoleRequired, RuleError
from tournaments import shows as S

T0 = 10_000.0
START = T0 + 3600
POOL = ["doubting-love-letter", "love-me-not", "higher-lower"]


class Scheduled:
    """A scheduled show driven through decide/evolve at explicit times."""

    def __init__(self, entrants=(), holders=None, **options):
        events = S.create_show(
            Ctx(T0, random.Random(0)),
            "Friday night",
            "org",
            list(entrants),
            {"game_pool": POOL, "step_deadline_s": 0, **options},
            stream="show-1",
            organizer_id=1,
            starts_at=START,
        )
        holders = holders or {}
        first = events[0]
        events[0] = type(first)(first.type, {**first.data, "holders": holders})
        self.events = list(events)
        self.state = S.fold(self.events)
        self.uid = 100

    def do(self, actor, role, type_, at, **fields):
        cmd = {"type": type_, "actor": actor, "role": role, **fields}
        new = S.decide(self.state, cmd, Ctx(at, random.Random(0)))
        for e in new:
            self.state = S.evolve(self.state, e)
        self.events.extend(new)
        return new

    def register(self, name, at=T0 + 10):
        self.uid += 1
        return self.do(name, S.SYSTEM, "register", at, user_id=self.uid, username=name)

    def player(self, name, type_, at, **fields):
        return self.do(name, S.PLAYER, type_, at, **fields)

    def system(self, type_, at):
        return self.do("clock", S.SYSTEM, type_, at)

    def types(self, events):
        return [e.type for e in events]


def test_registration_fills_the_cap_then_the_waiting_list_in_order():
    show = Scheduled(registration="open", cap=2)
    for name in ("ana", "ben", "cal", "dee"):
        show.register(name)
    s = show.state
    assert S.active(s) == ("ana", "ben")
    assert s.waiting == ("cal", "dee")
    assert s.status["cal"] == S.WAITING
    reason = show.events[-1].data["reason"]
    assert "full" in reason and "waiting list" in reason
    # a withdrawal frees a seat: the first on the waiting list takes it, an event with its reason
    new = show.player("ben", "withdraw", T0 + 20)
    assert show.types(new) == ["entrant_withdrew", "entrant_promoted"]
    assert new[1].data["entrant"] == "cal" and "ben withdrew" in new[1].data["reason"]
    assert S.active(show.state) == ("ana", "cal") and show.state.waiting == ("dee",)


def test_without_a_waiting_list_a_full_show_refuses_and_nothing_changes():
    show = Scheduled(registration="open", cap=2, waiting_list=False)
    show.register("ana")
    show.register("ben")
    before = show.state
    with pytest.raises(RuleError, match="full"):
        show.register("cal")
    assert show.state is before


def test_registration_refusals():
    show = Scheduled(registration="open")
    show.register("ana")
    with pytest.raises(RuleError, match="registered already"):
        show.do("ana", S.SYSTEM, "register", T0 + 11, user_id=show.uid, username="ana")
    with pytest.raises(RuleError, match="runs this show"):
        show.do("org", S.SYSTEM, "register", T0 + 11, user_id=1, username="org")
    with pytest.raises(RoleRequired):  # a person cannot record their own registration
        show.do("zed", S.PLAYER, "register", T0 + 11, user_id=999, username="zed")
    with pytest.raises(RuleError, match="an account's"):
        show.do("zed", S.SYSTEM, "register", T0 + 11, user_id="999", username="zed")
    by_invitation = Scheduled()  # the default: by invitation
    with pytest.raises(RuleError, match="by invitation"):
        by_invitation.register("ana")


def test_the_same_account_registers_again_under_its_name_and_another_gets_a_number():
    show = Scheduled(registration="open")
    show.register("ana")
    ana_id = show.uid
    show.player("ana", "withdraw", T0 + 20)
    assert show.state.status["ana"] == S.WITHDRAWN and "ana" not in show.state.held
    show.do("ana", S.SYSTEM, "register", T0 + 30, user_id=ana_id, username="ana")
    assert show.state.status["ana"] == S.ACTIVE and show.state.held["ana"] == ana_id
    show.player("ana", "withdraw", T0 + 40)
    show.do("ana", S.SYSTEM, "register", T0 + 50, user_id=777, username="ana")  # another account
    assert show.state.held["ana-2"] == 777


def test_approval_then_decline_with_a_reason():
    show = Scheduled(registration="open", approval=True, cap=2)
    show.register("ana")
    show.register("ben")
    show.register("cal")
    assert S.active(show.state) == ()
    assert show.state.status["ana"] == S.APPLIED
    with pytest.raises(RoleRequired):
        show.player("ana", "approve_registration", T0 + 20, entrant="ana")
    show.do("org", S.ORGANIZER, "approve_registration", T0 + 20, entrant="ana")
    show.do("org", S.ORGANIZER, "approve_registration", T0 + 20, entrant="ben")
    new = show.do("org", S.ORGANIZER, "approve_registration", T0 + 20, entrant="cal")
    assert new[0].data["status"] == S.WAITING  # approved, but the cap is reached
    with pytest.raises(RuleError, match="reason"):
        show.do("org", S.ORGANIZER, "decline_registration", T0 + 21, entrant="ben")
    new = show.do(
        "org", S.ORGANIZER, "decline_registration", T0 + 21, entrant="ben", reason="banned"
    )
    assert [e.type for e in new] == ["registration_declined", "entrant_promoted"]
    assert new[0].data["reason"] == "banned"
    assert S.active(show.state) == ("ana", "cal")


def test_check_in_opens_on_time_and_the_start_drops_and_replaces_absentees():
    show = Scheduled(registration="open", cap=4, check_in_s=600, absentees="waiting_list_then_bot")
    for name in ("ana", "ben", "cal", "dee", "eve"):
        show.register(name)
    assert show.state.waiting == ("eve",)
    assert S.due(show.state, START - 601) is None
    with pytest.raises(RuleError, match="not open"):
        show.player("ana", "check_in", START - 601)
    with pytest.raises(RuleError, match="not due"):
        show.system("open_check_in", START - 601)
    assert S.due(show.state, START - 600) == "open_check_in"
    show.system("open_check_in", START - 600)
    assert S.next_due(show.state) == START
    for name in ("ana", "ben", "eve"):  # eve stands by on the waiting list
        show.player(name, "check_in", START - 300)
    with pytest.raises(RuleError, match="start time has not come"):
        show.system("start", START - 1)
    new = show.system("start", START)
    kinds = [(e.type, e.data.get("entrant") or e.data.get("in")) for e in new]
    assert kinds[:4] == [
        ("entrant_dropped", "cal"),
        ("entrant_replaced", "eve"),
        ("entrant_dropped", "dee"),
        ("entrant_replaced", "bot-1"),
    ]
    assert new[0].data["reason"] == "cal did not check in"
    assert "waiting list" in new[1].data["reason"] and "bot" in new[3].data["reason"]
    assert new[3].data["holder"] == "bot:heuristic"
    assert ("show_started", None) in kinds
    s = show.state
    assert s.phase == S.RUNNING and S.active(s) == ("ana", "ben", "eve", "bot-1")
    assert s.status["cal"] == s.status["dee"] == S.DROPPED
    assert [r.title for r in s.rounds] == ["Round 1", "Round 2"]
    assert S.pending(s)[0].kind == "enter_ranking"
    with pytest.raises(RuleError, match="started"):
        show.player("ana", "withdraw", START + 1)


@pytest.mark.parametrize(
    "rule, active",
    [("drop", ("ana", "ben")), ("bot", ("ana", "ben", "bot-1")), ("waiting_list", ("ana", "ben"))],
)
def test_each_absentee_rule(rule, active):
    show = Scheduled(registration="open", check_in_s=60, absentees=rule, replacement_bot="random")
    for name in ("ana", "ben", "cal"):
        show.register(name)
    show.system("open_check_in", START - 60)
    show.player("ana", "check_in", START - 30)
    show.player("ben", "check_in", START - 30)
    show.system("start", START)
    assert S.active(show.state) == active
    if rule == "bot":
        assert show.state.bots["bot-1"] == "bot:random"


def test_too_few_at_the_start_cancel_the_show():
    show = Scheduled(registration="open", check_in_s=60)
    show.register("ana")
    show.register("ben")
    show.system("open_check_in", START - 60)
    show.player("ana", "check_in", START - 30)
    new = show.system("start", START)
    assert [e.type for e in new] == ["entrant_dropped", "show_cancelled"]
    assert show.state.phase == S.CANCELLED and S.due(show.state, START + 99) is None
    with pytest.raises(RuleError, match="cancelled"):
        show.do("org", S.ORGANIZER, "enter_ranking", START + 1, ranking=[["ana"], ["ben"]])


def test_nothing_is_played_before_the_start_and_the_organizer_may_start_early():
    show = Scheduled(["a", "b", "c"], holders={e: "bot:random" for e in "abc"})
    assert S.pending(show.state) == []
    with pytest.raises(RuleError, match="not started"):
        show.do("org", S.ORGANIZER, "enter_ranking", T0 + 5, ranking=[["a"], ["b"], ["c"]])
    with pytest.raises(RoleRequired):
        show.player("a", "start", T0 + 5)
    new = show.do("org", S.ORGANIZER, "start", T0 + 5)
    assert new[0].data["by"] == "organizer" and show.state.phase == S.RUNNING


def _to_death_match(**options):
    """ana (last) against ben, both people; cal and dee are bots."""
    holders = {"ana": 11, "ben": 12, "cal": "bot:random", "dee": "bot:random"}
    show = Scheduled(["ana", "ben", "cal", "dee"], holders=holders, **options)
    show.system("start", START)
    show.do(
        "org", S.ORGANIZER, "enter_ranking", START + 1, ranking=[["cal", "dee"], ["ben"], ["ana"]]
    )
    show.player("ana", "nominate", START + 2, dmo="ben")
    show.do("org", S.ORGANIZER, "pick_game", START + 3, game="love-me-not")
    return show


def test_a_no_show_at_the_ready_check_forfeits_and_the_show_moves_on():
    show = _to_death_match(ready_check_s=120)
    duel = show.state.rounds[0].duels[0]
    assert duel.ready_by == START + 3 + 120 and duel.awaiting_ready
    waits = {(d.seat, d.kind, d.deadline) for d in S.pending(show.state)}
    assert waits == {("ana", S.READY, START + 123), ("ben", S.READY, START + 123)}
    show.player("ana", "ready", START + 10)
    with pytest.raises(RuleError, match="no match of ana"):
        show.player("ana", "ready", START + 11)
    with pytest.raises(RuleError, match="no deadline has passed"):
        show.system("timeout", START + 122)
    new = show.system("timeout", START + 123)
    assert [e.type for e in new][:3] == [
        "no_show_forfeited",
        "death_match_result",
        "entrant_eliminated",
    ]
    assert new[0].data["entrants"] == ["ben"] and new[0].data["loser"] == "ben"
    assert "did not confirm within 120 s" in new[0].data["reason"]
    assert new[1].data["forfeit"] == "no_show" and new[1].data["match_stream"] is None
    s = show.state
    assert s.status["ben"] == S.ELIMINATED and s.rounds[0].status == S.FINISHED
    assert S.pending(s)[0].kind == "enter_ranking"  # the show moved on to the next round


def test_both_absent_the_candidate_forfeits():
    show = _to_death_match(ready_check_s=60)
    new = show.system("timeout", START + 63)
    assert new[0].data["entrants"] == ["ana", "ben"] and new[0].data["loser"] == "ana"


def test_everyone_ready_passes_the_check_and_no_check_without_the_option():
    show = _to_death_match(ready_check_s=60)
    show.player("ben", "ready", START + 5)
    new = show.player("ana", "ready", START + 6)
    assert [e.type for e in new] == ["player_ready", "ready_check_passed"]
    assert not show.state.rounds[0].duels[0].awaiting_ready and show.state.deadlines == {}
    plain = _to_death_match()
    assert not plain.state.rounds[0].duels[0].awaiting_ready
    assert S.pending(plain.state) == []


def test_the_organizer_extends_a_ready_check():
    show = _to_death_match(ready_check_s=60)
    show.do(
        "org",
        S.ORGANIZER,
        "extend_deadline",
        START + 10,
        step="ready",
        seconds=30,
        reason="ben's connection",
    )
    with pytest.raises(RuleError, match="no deadline has passed"):
        show.system("timeout", START + 63)
    assert show.system("timeout", START + 93)[0].type == "no_show_forfeited"


def test_the_finals_ready_check_with_bots_passes_at_once_and_a_person_forfeits():
    bots = Scheduled(["a", "b"], holders={"a": "bot:random", "b": "bot:random"}, ready_check_s=30)
    new = bots.system("start", START)
    assert [e.type for e in new][-2:] == ["final_opened", "ready_check_passed"]
    person = Scheduled(["a", "b"], holders={"a": 5, "b": "bot:random"}, ready_check_s=30)
    person.system("start", START)
    assert [(d.seat, d.kind) for d in S.pending(person.state)] == [("a", S.READY)]
    new = person.system("timeout", START + 30)
    assert [e.type for e in new] == [
        "no_show_forfeited",
        "final_result",
        "entrant_eliminated",
        "champion_crowned",
    ]
    assert person.state.champion == "b"
