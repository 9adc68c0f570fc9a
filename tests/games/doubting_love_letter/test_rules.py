"""Unit tests for Doubting Love Letter: what scenario files cannot express
(views per viewer, event visibility, the deal commitment, clocks, options,
items across bouts, bots)."""

from __future__ import annotations

import json
import random
from collections import Counter
from pathlib import Path

import pytest

from games.core.playout import play_match
from games.core.protocol import (
    MODERATOR_VIEW,
    SPECTATOR_VIEW,
    Ctx,
    Decision,
    Event,
    RuleError,
    Viewer,
)
from games.doubting_love_letter import bots
from games.doubting_love_letter.rules import RULES as DLL_RULES

from .helpers import RULES, SERIES, LeakChecker, Match, commitment

HERE = Path(__file__).parent
ANA, BEN = "ana", "ben"
ANA_V, BEN_V = Viewer.of_seat(ANA), Viewer.of_seat(BEN)


def setup(removed, deck, first=ANA, seed=0):
    return {
        "removed": [str(c) for c in removed],
        "deck": [str(c) for c in deck],
        "first": first,
        "seed": seed,
    }


def scenario(name):
    """Replay a scenario file through the test driver (for state checks)."""
    doc = json.loads((HERE / "scenarios" / f"{name}.json").read_text())
    m = Match(
        setup=doc["setup"],
        items=doc.get("items"),
        options=doc.get("options"),
        seed=doc["setup"].get("seed", 0),
    )
    for step in doc["steps"]:
        if "wait" in step:
            m.wait(step["wait"])
            continue
        try:
            m.do(step["by"], **step["do"])
        except RuleError:
            pass
        if m.state.bout_no > 0:
            break
    return m


def last(m, kind):
    return [e for e in m.events if e.type == kind][-1]


# ---- registry, options, series ---------------------------------------------------
def test_registered_with_items_and_template():
    assert RULES is DLL_RULES
    assert RULES.slug == "doubting-love-letter"
    assert set(RULES.items) == {"plus_one", "deck_rigging", "insurance", "advantage", "dmo"}
    assert RULES.chooser_items == frozenset({"advantage", "dmo"})
    assert RULES.rules_template == "games/doubting_love_letter.html"
    assert "heuristic" in RULES.bots


def test_option_defaults_and_first_to():
    opts = RULES.resolve_options({}, 2)
    assert opts == {
        "bluffs_per_bout": 3,
        "decision_s": 60,
        "reserve_s": 60,
        "reserve_step_s": 10,
        "first_to": 5,
    }
    assert RULES.resolve_options({"first_to": 7}, 2)["first_to"] == 7


@pytest.mark.parametrize(
    "bad",
    [
        {"bluffs_per_bout": -1},
        {"bluffs_per_bout": "3"},
        {"decision_s": 1.5},
        {"reserve_s": -10},
        {"reserve_step_s": 0},
        {"first_to": 0},
        {"speed": 1},
        {"decision_s": True},
    ],
)
def test_bad_options_rejected(bad):
    with pytest.raises(RuleError):
        RULES.resolve_options(bad, 2)


def test_death_match_first_to_seven_and_two_players_only():
    m = Match(options={"first_to": 7})
    assert m.state.target == 7
    assert Match().state.target == 5
    with pytest.raises(RuleError):
        Match(seats=("ana", "ben", "cy"))


@pytest.mark.parametrize(
    "bad",
    [
        {"deck": ["8", "8"]},
        {"removed": ["1", "2", "3", "4"]},
        {"deck": ["9"]},
        {"deck": "1,2"},
        {"removed": ["1", "1"], "deck": ["1"]},
    ],
)
def test_bad_setup_rejected(bad):
    with pytest.raises(RuleError):
        Match(setup={**bad, "first": ANA})


def test_stacked_setup_and_shuffle():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    b = m.bout
    assert b.removed == (3, 5, 7)
    assert b.hands == {ANA: (1, 4), BEN: (2,)}
    assert Counter(b.order) == Counter((1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8))
    # without a setup, a recorded shuffle: the same seed gives the same order
    a1, a2 = Match(seed=5).bout, Match(seed=5).bout
    assert a1.order == a2.order and a1.salt == a2.salt
    assert Match(seed=6).bout.order != a1.order


# ---- the deal commitment ------------------------------------------------------------
def test_commitment_published_then_revealed():
    m = Match(setup=setup([3, 5, 7], [8, 2, 1]))
    start = m.events[[e.type for e in m.events].index("bout_started")]
    pub = start.for_viewer(BEN_V)
    assert set(pub) >= {"removed", "commitment"}
    assert "order" not in pub and "salt" not in pub and "items" not in pub
    assert start.for_viewer(SPECTATOR_VIEW) == pub
    assert start.for_viewer(MODERATOR_VIEW)["order"] == list(m.bout.order)
    salt = start.data["salt"]
    assert len(salt) == 32 and int(salt, 16) >= 0
    assert pub["commitment"] == commitment(start.data["order"], salt)
    m.play(ANA, 1, 3)
    m.do(BEN, type="challenge")
    reveal = last(m, "deal_revealed")
    assert reveal.visible_to is None
    assert reveal.data["order"] == start.data["order"] and reveal.data["salt"] == salt
    assert commitment(reveal.data["order"], reveal.data["salt"]) == pub["commitment"]
    # and every view of the finished bout shows the revealed deal
    assert RULES.view(m.state.last_bout, SPECTATOR_VIEW)["revealed_deals"][0]["salt"] == salt


# ---- hidden information --------------------------------------------------------------
def test_deal_and_draw_are_private():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    for e in m.events:
        if e.type == "card_dealt":
            assert e.visible_to == (e.data["seat"],)
            assert "card" not in e.public
        if e.type == "turn_started":
            assert e.visible_to == (ANA,) and "card" not in e.for_viewer(BEN_V)
            assert e.for_viewer(ANA_V)["card"] == 4
    assert m.view(ANA)["hand"] == [1, 4]
    assert m.view(BEN)["hand"] == [2]
    assert "hand" not in RULES.view(m.bout, SPECTATOR_VIEW)
    assert RULES.view(m.bout, MODERATOR_VIEW)["hands"] == {ANA: [1, 4], BEN: [2]}


def test_unchallenged_play_shows_only_the_claim():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    m.play(ANA, 1, 4)  # a bluff
    ev = last(m, "card_played")
    assert ev.for_viewer(BEN_V) == {
        "seat": ANA,
        "claim": 4,
        "target": None,
        "reserve_spent": 0,
        "at": 0.0,
    }
    assert ev.for_viewer(SPECTATOR_VIEW) == ev.for_viewer(BEN_V)
    assert ev.for_viewer(ANA_V)["card"] == 1 and ev.for_viewer(ANA_V)["bluff"] is True
    m.do(BEN, type="pass")
    for viewer in (BEN_V, SPECTATOR_VIEW):
        v = RULES.view(m.bout, viewer)
        (d,) = v["discards"]
        assert d["claim"] == 4 and "card" not in d and "bluff" not in d
        assert "bluffs_left" not in v or ANA not in v["bluffs_left"]
    (d,) = m.view(ANA)["discards"]
    assert d["card"] == 1 and d["bluff"] is True
    assert m.view(ANA)["bluffs_left"] == {ANA: 2}
    assert RULES.view(m.bout, MODERATOR_VIEW)["bluffs_left"] == {ANA: 2, BEN: 3}
    assert m.view(BEN)["discard_sums"] == {ANA: 4, BEN: 0}


def test_challenge_reveals_the_played_card_to_everyone():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    m.play(ANA, 4)
    m.do(BEN, type="challenge")
    ev = last(m, "challenged")
    assert ev.visible_to is None
    assert ev.data["card"] == 4 and ev.data["bluff"] is False
    (d,) = RULES.view(m.bout, SPECTATOR_VIEW)["discards"]
    assert d["card"] == 4 and d["challenged"] is True
    assert m.bout.lives == {ANA: 2, BEN: 1}
    assert m.bout.immune == frozenset({ANA})  # the effect resolved after the challenge


def test_priest_is_private_to_the_player():
    m = scenario("priest-then-guard")
    seen = [e for e in m.events if e.type == "card_seen"][0]
    assert seen.visible_to == (ANA,)
    assert "card" not in seen.for_viewer(BEN_V) and "card" not in seen.for_viewer(SPECTATOR_VIEW)
    assert seen.data["card"] == 8


def test_priest_knowledge_in_view_until_the_opponent_draws():
    m = Match(setup=setup([5, 5, 6], [2, 8, 1, 7, 3]))
    m.play(ANA, 2)
    m.do(BEN, type="pass")
    # ben's turn has started: he drew, so ana no longer knows his card for sure
    assert m.view(ANA)["opponent_card"] is None
    assert m.view(ANA)["seen"] == [{"turn": 1, "how": "priest", "of": BEN, "card": 8}]
    assert m.view(BEN)["seen"] == [] and m.view(BEN)["opponent_card"] is None


def test_king_swap_both_learn_spectators_do_not():
    m = scenario("king-swap")
    sw = [e for e in m.events if e.type == "cards_swapped"][0]
    assert set(sw.visible_to) == {ANA, BEN}
    assert sw.data["cards"] == {ANA: 8, BEN: 1}
    assert "cards" not in sw.for_viewer(SPECTATOR_VIEW)


def test_king_view_knowledge():
    m = Match(setup=setup([3, 5, 7], [6, 8, 1, 1]))
    m.play(ANA, 6)
    m.do(BEN, type="pass")
    # ben drew at the start of his turn; ana's knowledge of his card is gone,
    # ben still knows ana holds his old 8
    assert m.view(BEN)["opponent_card"] == 8
    assert m.view(ANA)["opponent_card"] is None
    assert m.view(ANA)["hand"] == [8]


def test_baron_comparison_is_public():
    m = Match(setup=setup([1, 1, 5], [8, 2, 3, 4, 7, 3]))
    m.play(ANA, 3)
    m.do(BEN, type="pass")
    cmp_ = last(m, "cards_compared")
    assert cmp_.visible_to is None and cmp_.data["cards"] == {ANA: 8, BEN: 2}
    assert cmp_.data["loser"] == BEN
    assert m.view(ANA)["seen"] == [{"turn": 1, "how": "baron", "of": BEN, "card": 2}]
    assert m.view(BEN)["seen"] == [{"turn": 1, "how": "baron", "of": ANA, "card": 8}]
    disc = last(m, "card_discarded")
    assert disc.visible_to is None and disc.data == {"seat": BEN, "card": 2, "cause": "baron"}
    drawn = last(m, "card_drawn")
    assert drawn.visible_to == (BEN,) and drawn.public == {"seat": BEN}
    assert m.bout.lives[BEN] == 1 and m.bout.hands[BEN] == (4, 7)


def test_deck_rigging_choice_is_private():
    m = scenario("deck-rigging-take-deny")
    used = [e for e in m.events if e.type == "item_used"][0]
    assert used.data["take"] == 8 and used.data["deny"] == 1
    assert used.visible_to == (ANA,)
    assert "take" not in used.for_viewer(BEN_V) and "deny" not in used.for_viewer(BEN_V)
    first_deal = [e for e in m.events if e.type == "card_dealt"][:2]
    dealt = {e.data["seat"]: e.data["card"] for e in first_deal}
    assert dealt == {ANA: 8, BEN: 2}
    assert m.state.items[ANA] == ()  # consumed


def test_both_rig_each_asked_in_turn_privately_and_no_deny_applies():
    m = Match(
        setup={"removed": ["3", "5", "7"], "deck": ["2", "2", "1", "4"], "first": BEN},
        items={ANA: ["deck_rigging"], BEN: ["deck_rigging"]},
    )
    assert m.bout.asked == BEN
    m.do(BEN, type="use_item", item="deck_rigging", take="8", deny="2")
    # the second is still asked, knows the first rigged but not what was taken
    assert m.bout.asked == ANA and m.bout.phase == "deck_rigging"
    (used,) = [e for e in m.events if e.type == "item_used"]
    assert used.for_viewer(ANA_V) == {
        "seat": BEN,
        "item": "deck_rigging",
        "reserve_spent": 0,
        "at": 0.0,
    }
    assert not [e for e in m.events if e.type == "card_dealt"]  # nothing dealt yet
    takes = {c["take"] for c in RULES.legal_commands(m.bout, ANA) if "take" in c}
    assert "8" not in takes and "2" in takes  # the second takes from what the first left
    m.do(ANA, type="use_item", item="deck_rigging", take="2", deny="8")
    dealt = {e.data["seat"]: e.data["card"] for e in m.events if e.type == "card_dealt"}
    assert dealt == {ANA: 2, BEN: 8}  # each the card they took; neither deny applied
    assert m.bout.deck[:2] == (1, 4)  # the second 2 was ben's draw; the rest keep their order
    assert m.state.items == {ANA: (), BEN: ()}


def test_views_pass_the_leak_checker_through_a_scenario():
    m = scenario("insurance-caught-claim-counts")
    checker = LeakChecker()
    for e in m.events:
        if e.type == "bout_scored":
            break  # the next bout's deal follows
        checker.event(e)
    checker.views(m.state.last_bout)


def test_leak_checker_catches_leaks():
    checker = LeakChecker()
    leaky = Event("card_played", {"seat": ANA, "card": 3, "claim": 1, "bluff": True})
    with pytest.raises(AssertionError):
        checker.event(leaky)
    leaky = Event("card_seen", {"seat": ANA, "of": BEN, "card": 3}, visible_to=(ANA, BEN))
    with pytest.raises(AssertionError):
        checker.event(leaky)
    over_redacted = Event(
        "turn_started",
        {"seat": ANA, "turn": 1, "card": 3, "at": 0},
        visible_to=(),
        public={"seat": ANA},
    )
    with pytest.raises(AssertionError):
        checker.event(over_redacted)


def test_scenario_outputs_are_json():
    from games.core.scenario import run_file

    for path in sorted((HERE / "scenarios").glob("*.json")):
        result, problems = run_file(path)
        assert problems == []
        json.dumps(result)


# ---- effects and endings, beyond what scenario expectations show ---------------------
def test_guard_on_princess_with_empty_deck_costs_one_life_only():
    m = scenario("guard-princess-empty-deck")
    b = m.state.last_bout
    assert b.lives == {ANA: 2, BEN: 1}
    assert b.hands[BEN] == (8,)
    assert not [e for e in m.events if e.type == "card_discarded"]
    show = last(m, "showdown")
    assert show.data["hands"] == {ANA: 1, BEN: 8} and show.data["how"] == "card"


def test_handmaid_blocks_baron_and_king():
    m = scenario("handmaid-blocks-baron-and-king")
    b = m.bout
    assert b.lives == {ANA: 2, BEN: 2}
    assert not [e for e in m.events if e.type in ("cards_compared", "cards_swapped")]
    assert len([e for e in m.events if e.type == "no_effect"]) == 2


def test_baron_tie_does_nothing():
    m = Match(setup=setup([5, 6, 8], [3, 4, 4, 1]))
    m.play(ANA, 3)
    m.do(BEN, type="pass")
    assert last(m, "cards_compared").data["loser"] is None
    assert m.bout.lives == {ANA: 2, BEN: 2}


def test_prince_discard_is_public_and_counts_real_value():
    m = Match(setup=setup([1, 1, 7], [5, 3, 2, 6, 4]))
    m.play(ANA, 5, target="opponent")
    m.do(BEN, type="pass")
    assert last(m, "card_discarded").data == {"seat": BEN, "card": 3, "cause": "prince"}
    assert m.bout.hands[BEN] == (6, 4)
    sums = m.view(ANA)["discard_sums"]
    assert sums == {ANA: 5, BEN: 3}


def test_prince_on_empty_deck_has_no_effect():
    m = scenario("prince-empty-deck")
    assert last(m, "no_effect").data["reason"] == "the deck is empty"
    assert last(m, "showdown").data["sums"] == {ANA: 27, BEN: 25}


def test_insured_bluff_loses_one_life_and_no_effect():
    m = Match(setup=setup([4, 5, 6], [8, 2, 1, 7, 3]), items={ANA: ["insurance"]})
    m.do(ANA, type="use_item", item="insurance")
    assert m.state.items[ANA] == ()
    assert m.view(BEN)["insurance_active"] == [ANA]
    m.play(ANA, 1, 3)
    m.do(BEN, type="challenge")
    assert m.bout.lives == {ANA: 1, BEN: 2}  # the claimed Baron (8 vs 2) did not happen
    assert m.bout.insurance == frozenset()
    assert m.bout.turn == BEN and not m.state.finished


def test_truth_challenged_challenger_dies_no_effect():
    m = scenario("bluff-countess-and-wrong-challenges")
    assert m.state.last_bout.lives == {ANA: 0, BEN: 2}


def test_showdown_records_sums_with_claims():
    m = scenario("insurance-caught-claim-counts")
    show = last(m, "showdown")
    assert show.data["hands"] == {ANA: 6, BEN: 6}
    assert show.data["sums"] == {ANA: 27, BEN: 24} and show.data["how"] == "discards"


def test_plus_one_bonus_recorded():
    m = scenario("plus-one-wins-tie")
    show = last(m, "showdown")
    assert show.data["bonus"] == {ANA: 1, BEN: 0} and show.data["how"] == "plus_one"
    assert m.state.items[ANA] == ()


# ---- series: drawn bouts, items across bouts -----------------------------------------
def test_drawn_bout_scores_nobody_and_other_player_starts():
    m = scenario("showdown-drawn")
    scored = last(m, "bout_scored")
    assert scored.data["winners"] == [] and scored.data["points"] == {ANA: 0, BEN: 0}
    assert scored.data["next_first"] == BEN
    assert m.bout.first == BEN and m.state.bout_no == 1


def test_advantage_is_never_consumed():
    m = scenario("advantage-wins-sum-tie")
    assert last(m, "showdown").data["how"] == "advantage"
    assert m.state.items[BEN] == ("advantage",)
    assert m.bout.items[BEN] == ("advantage",)  # the next bout knows it too


def test_chooser_items_wait_for_choose_first():
    m = Match(items={BEN: ["dmo"]})
    assert m.state.bout is None
    assert [d.kind for d in SERIES.pending(m.state)] == ["choose_first"]
    m.do(BEN, type="choose_first", seat=BEN)
    assert m.bout.first == BEN


def test_mulligan_restarts_the_deal_and_is_used_up():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]), items={ANA: ["dmo", "insurance"]})
    m.do(ANA, type="use_item", item="insurance")
    m.now = 75
    old = m.bout
    new = m.do(ANA, type="mulligan")
    kinds = [e.type for e in new]
    assert kinds[:4] == ["mulligan", "deal_revealed", "item_used", "bout_redealt"]
    assert new[0].data["reserve_spent"] == 20
    assert new[1].data["order"] == list(old.order) and new[1].data["salt"] == old.salt
    redeal = new[3]
    assert redeal.visible_to == () and "order" not in redeal.public
    assert redeal.public["commitment"] == commitment(redeal.data["order"], redeal.data["salt"])
    b = m.bout
    assert b.deals == 2 and b.turn == ANA and b.turn_no == 1
    assert b.lives == {ANA: 2, BEN: 2} and b.reserve == {ANA: 60, BEN: 60}
    assert b.insurance == frozenset({ANA})  # declared for this bout, still active
    assert m.state.items[ANA] == ()
    assert not m.view(ANA)["can_mulligan"]
    with pytest.raises(RuleError):
        m.do(ANA, type="mulligan")


def test_mulligan_gone_in_later_bouts():
    m = Match(setup=setup([3, 5, 7], [8, 2, 1]), items={ANA: ["dmo"]})
    m.do(ANA, type="mulligan")
    # the re-dealt bout: let ana time out, then ben starts bout 2; bout 3 ana again
    m.wait(120)
    assert m.state.bout_no == 1 and m.bout.first == BEN
    m.wait(120)
    assert m.state.bout_no == 2 and m.bout.first == ANA
    assert "dmo" not in m.bout.items[ANA]
    assert {"type": "mulligan"} not in RULES.legal_commands(m.bout, ANA)


def test_dmo_mulligan_allowed_in_a_later_bout_if_unused():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]), items={BEN: ["dmo"]})
    m.wait(120)  # ana times out; ben goes first in bout 2
    assert m.bout.first == BEN and m.bout.turn == BEN
    assert {"type": "mulligan"} in RULES.legal_commands(m.bout, BEN)
    m.do(BEN, type="mulligan")
    assert m.state.items[BEN] == ()


# ---- clocks -------------------------------------------------------------------------
def test_deadlines_and_reserve_spending():
    m = Match(setup=setup([3, 5, 7], [4, 2, 7, 1, 2, 4]))
    assert RULES.pending(m.bout) == [Decision(ANA, "play", 120.0)]
    m.now = 75
    m.play(ANA, 4)
    assert last(m, "card_played").data["reserve_spent"] == 20
    assert last(m, "card_played").public["reserve_spent"] == 20
    assert m.bout.reserve == {ANA: 40, BEN: 60}
    assert RULES.pending(m.bout) == [Decision(BEN, "challenge", 195.0)]
    m.now = 135.5  # 60.5 s: one started step
    m.do(BEN, type="pass")
    assert last(m, "passed").data["reserve_spent"] == 10
    assert m.bout.reserve == {ANA: 40, BEN: 50}
    assert m.view(ANA)["reserve"] == {ANA: 40, BEN: 50}
    assert RULES.pending(m.bout) == [Decision(BEN, "play", 135.5 + 60 + 50)]


def test_exactly_sixty_seconds_is_free():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    m.now = 60
    m.play(ANA, 4)
    assert last(m, "card_played").data["reserve_spent"] == 0


def test_timeout_loses_the_bout():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    b = m.bout
    events = RULES.timeout(b, Decision(ANA, "play", 120.0), Ctx(now=120.0, rng=random.Random()))
    assert [e.type for e in events] == ["timed_out", "bout_ended", "deal_revealed"]
    assert events[0].data == {"seat": ANA, "decision": "play", "reserve_spent": 60, "at": 120.0}
    b2 = b
    for e in events:
        b2 = RULES.evolve(b2, e)
    out = RULES.outcome(b2)
    assert out.winners == (BEN,) and out.points == {ANA: 0, BEN: 1}
    assert b2.reserve[ANA] == 0


def test_late_command_refused():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]))
    with pytest.raises(RuleError):
        RULES.decide(
            m.bout,
            {"type": "play", "card": "4", "claim": "4"},
            Ctx(now=120.0, rng=random.Random(), seat=ANA),
        )


def test_no_clock_has_no_deadline():
    m = Match(setup=setup([3, 5, 7], [1, 2, 4]), options={"decision_s": 0})
    assert RULES.pending(m.bout) == [Decision(ANA, "play", None)]
    m.now = 10_000
    m.play(ANA, 4)
    assert m.bout.reserve[ANA] == 60


# ---- legal commands -----------------------------------------------------------------
def test_legal_commands_respect_the_rules():
    m = Match(setup=setup([1, 1, 2], [7, 3, 5, 6, 7]))
    legal = RULES.legal_commands(m.bout, ANA)
    assert {c["card"] for c in legal if c["type"] == "play"} == {"7"}
    assert not any(c.get("claim") == "8" for c in legal)
    assert {c.get("target") for c in legal if c.get("claim") == "5"} == {"self", "opponent"}
    assert RULES.legal_commands(m.bout, BEN) == []
    m = Match(setup=setup([5, 6, 8], [3, 4, 3, 4, 2]), options={"bluffs_per_bout": 0})
    legal = RULES.legal_commands(m.bout, ANA)
    assert legal == [{"type": "play", "card": "3", "claim": "3"}]


def test_legal_commands_with_immune_opponent():
    m = Match(setup=setup([1, 1, 6], [5, 4, 3, 2], first=BEN))
    m.play(BEN, 4)
    m.do(ANA, type="pass")
    legal = RULES.legal_commands(m.bout, ANA)
    assert {c.get("target") for c in legal if c.get("claim") == "5"} == {"self"}


# ---- bots ---------------------------------------------------------------------------
def test_heuristic_challenges_an_impossible_claim():
    # both 6s are out (one removed, one forcibly discarded): a claimed King is a bluff
    view = {
        "seats": [ANA, BEN],
        "phase": "challenge",
        "asked": BEN,
        "removed": [6, 3, 3],
        "hand": [2],
        "discards": [
            {"seat": BEN, "kind": "forced", "card": 6, "turn": 1},
            {"seat": ANA, "kind": "played", "claim": 6, "challenged": False, "turn": 2},
        ],
        "play": {"seat": ANA, "claim": 6, "challenged": False, "turn": 2},
        "lives": {ANA: 2, BEN: 1},
        "immune": [],
        "opponent_card": None,
    }
    legal = [{"type": "challenge"}, {"type": "pass"}]
    for seed in range(20):
        assert bots.heuristic(view, BEN, random.Random(seed), legal) == {"type": "challenge"}


def test_heuristic_guesses_a_known_card_and_never_plays_the_princess():
    view = {
        "seats": [ANA, BEN],
        "phase": "guess",
        "asked": ANA,
        "removed": [1, 1, 2],
        "hand": [8],
        "discards": [],
        "opponent_card": 5,
        "immune": [],
        "lives": {},
    }
    legal = [{"type": "guess", "card": str(c)} for c in range(2, 9)]
    assert bots.heuristic(view, ANA, random.Random(1), legal) == {"type": "guess", "card": "5"}


def test_heuristic_beats_random():
    wins = Counter()
    for seed in range(60):
        bots_ = {ANA: "heuristic", BEN: "random"} if seed % 2 else {ANA: "random", BEN: "heuristic"}
        _, st = play_match(SERIES, [ANA, BEN], bots_, random.Random(seed), options={"first_to": 1})
        wins["heuristic" if bots_[st.winners[0]] == "heuristic" else "random"] += 1
    assert wins["heuristic"] >= 40, wins


# ---- the rules page -----------------------------------------------------------------
def test_rules_page_covers_decisions_and_options():
    page = (
        Path(__file__).resolve().parents[3] / "templates" / "games" / "doubting_love_letter.html"
    ).read_text()
    assert '{% extends "base.html" %}' in page
    assert "{% block title %}" in page and "{% block content %}" in page
    assert "<script" not in page and "http" not in page
    for needle in (
        "bluffs_per_bout",
        "decision_s",
        "reserve_s",
        "reserve_step_s",
        "first_to",
        "drawn",
        "Plus One",
        "Deck Rigging",
        "Insurance",
        "Advantage",
        "DMO",
        "mulligan",
        "sha256",
    ):
        assert needle in page, needle


def test_insurance_declared_while_the_first_player_is_chosen():
    m = Match(items={ANA: ["advantage", "insurance"], BEN: ["insurance", "plus_one"]})
    assert m.state.bout is None and SERIES.pending(m.state)[0].kind == "choose_first"
    with pytest.raises(RuleError, match="wait until the first player is chosen"):
        m.do(BEN, type="use_item", item="plus_one")
    with pytest.raises(RuleError, match="no bout is in progress"):
        m.do(BEN, type="play", card="1", claim="1")
    (declared,) = m.do(BEN, type="use_item", item="insurance")
    assert declared.type == "item_declared" and declared.visible_to is None
    assert SERIES.view(m.state, ANA_V)["declared"] == [{"seat": BEN, "item": "insurance"}]
    with pytest.raises(RuleError, match="already declared"):
        m.do(BEN, type="use_item", item="insurance")
    m.do(ANA, type="choose_first", seat=ANA)
    assert m.bout.insurance == frozenset({BEN}) and m.state.items[BEN] == ("plus_one",)
    assert m.bout.items[BEN] == ("plus_one",)
    m.do(ANA, type="use_item", item="insurance")  # still before the first play
    assert m.bout.insurance == frozenset({ANA, BEN})
    # a replayed bout 1 finds the declared Insurance spent
    m.submit(None, {"type": "replay_bout"}, role="moderator")
    assert m.bout.bout_no == 1 and m.bout.insurance == frozenset()
