"""Unit tests for Higher or Lower: what scenario files cannot express well
(views per viewer, event visibility, timeouts' recorded moves, options)."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from games.core.playout import bot_command, play_match
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Ctx, Event, RuleError, Viewer
from games.higher_lower.rules import HLState

from .helpers import RULES, SEATS, SERIES, Match

BOT_PAIRS = [("random", "random"), ("heuristic", "heuristic"), ("random", "heuristic")]

ANA, BEN = Viewer.of_seat("ana"), Viewer.of_seat("ben")
TEMPLATE = Path(__file__).parents[3] / "templates" / "games" / "higher_lower.html"


def of_type(events, kind):
    return [e for e in events if e.type == kind]


def play_to_end(m, dealer="ana", guesser="ben", shown=13):
    """From the show on: the Dealer shows ``shown``, then plays the rest in
    ascending order, the Guesser staking 0 on higher every turn."""
    m.do(dealer, type="show", card=shown)
    for c in range(1, 26):
        if c != shown:
            m.do(dealer, type="pick", card=c)
            m.do(guesser, type="guess", direction="higher", stake=0)


# ---- options ---------------------------------------------------------------


def test_default_options():
    assert RULES.resolve_options({}, 2) == {"auction_close_s": 15, "decision_s": 45, "first_to": 1}
    assert RULES.resolve_options({"decision_s": 0, "first_to": 3}, 2)["decision_s"] == 0


@pytest.mark.parametrize(
    "options",
    [
        {"auction_close_s": 0},
        {"auction_close_s": "15"},
        {"decision_s": -1},
        {"decision_s": True},
        {"decision_s": 4.5},
        {"colour": "red"},
        {"first_to": 0},
    ],
)
def test_bad_options_are_refused(options):
    with pytest.raises(RuleError):
        RULES.resolve_options(options, 2)


def test_two_players_only():
    with pytest.raises(RuleError, match="exactly 2"):
        Match(seats=("ana", "ben", "cy"))


def test_rules_metadata():
    from games.core.rules import FIRST_NONE

    assert RULES.slug == "higher-lower"
    assert RULES.first_player == FIRST_NONE
    assert RULES.rules_template == "games/higher_lower.html"
    assert set(RULES.bots) == {"heuristic", "level0", "level1", "level2", "level3", "level4"}


# ---- the auction -------------------------------------------------------------


def test_auction_close_records_the_winning_bid():
    m = Match()
    m.do("ana", type="bid", amount=10)
    m.now = 3.0
    m.do("ben", type="bid", amount="20")  # a string of digits is a number too
    m.wait(14.9)
    assert m.bout.phase == "auction"
    (closed,) = of_type(m.wait(0.1), "auction_closed")
    assert closed.visible_to is None
    assert dict(closed.data) == {
        "guesser": "ben",
        "dealer": "ana",
        "declared": 20,
        "how": "bid",
        "at": 18.0,
    }
    assert RULES.scenario_scores(m.bout) == {"ana": 0, "ben": 25}


def test_scores_are_zero_until_the_close():
    m = Match()
    m.do("ana", type="bid", amount=10)
    assert RULES.scenario_scores(m.bout) == {"ana": 0, "ben": 0}


def test_no_bid_coin_flip_is_recorded_and_replayed():
    guessers = set()
    for seed in range(40):
        m = Match(seed=seed)
        (closed,) = of_type(m.wait(15), "auction_closed")
        assert closed.data["how"] == "coin"
        assert closed.data["declared"] == 10
        assert closed.data["at"] == 15.0
        assert {closed.data["guesser"], closed.data["dealer"]} == {"ana", "ben"}
        assert m.bout.guesser == closed.data["guesser"]
        assert m.bout.declared == 10
        # replay needs no randomness: the flip is in the event
        assert SERIES.fold(m.events) == m.state
        guessers.add(closed.data["guesser"])
    assert guessers == {"ana", "ben"}


def test_pass_is_refused_in_every_phase_and_writes_nothing():
    """Issue 13: a no-op pass wrote 1,500 events a minute. There is none."""
    m = Match()
    phases = []
    for step in ("auction", "bid", "show", "turns", "picked"):
        if step == "bid":
            m.do("ben", type="bid", amount=10)
        elif step == "show":
            m.wait(15)
        elif step == "turns":
            m.do("ana", type="show", card=13)
        elif step == "picked":
            m.do("ana", type="pick", card=1)
        phases.append(m.bout.phase)
        before, n = m.state, len(m.events)
        for seat in SEATS:
            with pytest.raises(RuleError, match="no pass in Higher or Lower"):
                m.do(seat, type="pass")
        assert m.state == before and len(m.events) == n
    assert phases == ["auction", "auction", "show", "turns", "turns"]


def test_an_auction_bot_with_nothing_to_do_waits():
    m = Match()
    m.do("ana", type="bid", amount=10)
    assert RULES.legal_commands(m.bout, "ana") == []  # it holds the standing bid
    assert bot_command(SERIES, m.state, "ana", "random", m.rng) is None
    assert bot_command(SERIES, m.state, "ana", "heuristic", m.rng) is None
    m.do("ben", type="bid", amount=1500)
    assert RULES.legal_commands(m.bout, "ana") == []  # the bots' ceiling: they stop
    (closed,) = of_type(m.wait(15), "auction_closed")
    assert closed.data["guesser"] == "ben" and closed.data["declared"] == 1500


def test_every_legal_command_of_a_bot_match_changes_the_game():
    """Over whole bot matches: every legal command of every seat, at every
    step, writes events that change the state; the bots' auctions hold a
    bounded number of bids."""
    for seed, pair in enumerate(BOT_PAIRS * 2):
        rng = random.Random(seed)
        events, state = play_match(SERIES, SEATS, dict(zip(SEATS, pair, strict=True)), rng)
        assert state.finished
        assert not [e for e in events if e.type == "passed"]
        assert len([e for e in events if e.type == "bid_made"]) <= 1500 // 10
        walk = None
        for i, e in enumerate(events):
            walk = SERIES.evolve(walk, e)
            if i % 7 or walk.bout is None or walk.finished:
                continue
            now = e.data.get("at") or 0.0
            for seat in SEATS:
                for command in RULES.legal_commands(walk.bout, seat):
                    new = SERIES.decide(walk, command, Ctx(now=now, rng=rng, seat=seat))
                    after = walk
                    for n in new:
                        after = SERIES.evolve(after, n)
                    assert new and after != walk, command


@pytest.mark.parametrize(
    "standing,expected",
    [
        (None, [10, 20, 50]),
        (30, [40, 50, 80]),
        (990, [1000, 1010, 1040]),
        (1000, [1050, 1100, 1250]),
    ],
)
def test_legal_bid_samples_are_legal(standing, expected):
    m = Match()
    if standing is not None:
        m.do("ana", type="bid", amount=standing)
    legal = RULES.legal_commands(m.bout, "ben")
    assert [c["amount"] for c in legal] == expected
    for c in legal:
        SERIES.decide(m.state, c, Ctx(now=1.0, rng=m.rng, seat="ben"))  # raises if not legal
    if standing is not None:
        assert RULES.legal_commands(m.bout, "ana") == []


def test_bid_messages_are_plain_words():
    m = Match()
    with pytest.raises(RuleError, match="multiple of 10, at least 10"):
        m.do("ana", type="bid", amount=5)
    m.do("ana", type="bid", amount=1000)
    with pytest.raises(RuleError, match="your own bid"):
        m.do("ana", type="bid", amount=1050)
    with pytest.raises(RuleError, match=r"multiple of 50 \(1050, 1100"):
        m.do("ben", type="bid", amount=1010)
    for bad in (None, "ten", [10], {"a": 1}, True, -10):
        with pytest.raises(RuleError):
            m.do("ben", type="bid", amount=bad)


# ---- the guessing --------------------------------------------------------------


def test_first_secret_pick_is_seen_only_by_the_dealer():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    (picked,) = m.do("ana", type="pick", card=20)
    assert picked.type == "card_picked"
    assert picked.visible_to == ("ana",)
    assert picked.for_viewer(ANA)["card"] == 20
    assert picked.for_viewer(MODERATOR_VIEW)["card"] == 20
    for viewer in (BEN, SPECTATOR_VIEW):
        seen = picked.for_viewer(viewer)
        assert seen == {"seat": "ana", "turn": 1, "committed": True, "at": 15.0, "timeout": False}
    assert m.view("ana")["pick"] == 20
    assert m.view(kind="moderator")["pick"] == 20
    assert m.view("ben")["pick"] is None
    assert m.view(kind="spectator")["pick"] is None
    assert m.view("ben")["committed"] == {"dealer": True, "guesser": False}
    # the second submission reveals both, to everybody
    guessed, revealed = m.do("ben", type="guess", direction="higher", stake=5)
    assert revealed.type == "turn_revealed" and revealed.visible_to is None
    assert dict(revealed.data) == {
        "turn": 1,
        "previous": 13,
        "card": 20,
        "direction": "higher",
        "stake": 5,
        "correct": True,
        "chips": 30,
        "at": 15.0,
    }
    for who in ("ana", "ben"):
        v = m.view(who)
        assert v["pick"] is None and v["guess"] is None
        assert v["history"][0]["card"] == 20 and v["chips"] == 30 and v["previous"] == 20


def test_first_secret_guess_is_seen_only_by_the_guesser():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    (guessed,) = m.do("ben", type="guess", direction="lower", stake=7)
    assert guessed.visible_to == ("ben",)
    assert guessed.for_viewer(BEN)["direction"] == "lower"
    assert guessed.for_viewer(BEN)["stake"] == 7
    for viewer in (ANA, SPECTATOR_VIEW):
        seen = guessed.for_viewer(viewer)
        assert "direction" not in seen and "stake" not in seen and seen["committed"] is True
    assert m.view("ben")["guess"] == {"direction": "lower", "stake": 7}
    assert m.view(kind="moderator")["guess"] == {"direction": "lower", "stake": 7}
    assert m.view("ana")["guess"] is None
    assert m.view(kind="spectator")["guess"] is None
    m.do("ana", type="pick", card=2)
    assert m.bout.chips == 32


def test_errors_never_name_the_secret_card():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    m.do("ana", type="pick", card=17)
    messages = []
    for cmd in (
        {"type": "pick", "card": 17},
        {"type": "pick", "card": 3},
        {"type": "show", "card": 17},
        {"type": "guess", "direction": "higher", "stake": 30},
        {"type": "guess", "direction": "sideways", "stake": 3},
        {"type": "guess", "direction": "higher", "stake": 3, "turn": 2},
        {"type": "bid", "amount": 10},
        {"type": "dance"},
    ):
        with pytest.raises(RuleError) as err:
            m.do("ben", **cmd)
        messages.append(str(err.value))
    for cmd in ({"type": "pick", "card": 18}, {"type": "guess", "direction": "higher", "stake": 1}):
        with pytest.raises(RuleError) as err:
            m.do("ana", **cmd)
        messages.append(str(err.value))
    assert not any(re.search(r"\b17\b", msg) for msg in messages), messages


@pytest.mark.parametrize(
    "command",
    [
        {"type": "pick"},
        {"type": "pick", "card": None},
        {"type": "pick", "card": [5]},
        {"type": "pick", "card": "five"},
        {"type": "pick", "card": 5.5},
        {"type": "pick", "card": 5, "turn": "one"},
    ],
)
def test_malformed_picks_are_refused(command):
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    with pytest.raises(RuleError):
        m.do("ana", **command)
    assert m.bout.pick is None


@pytest.mark.parametrize(
    "command",
    [
        {"type": "guess", "stake": 3},
        {"type": "guess", "direction": None, "stake": 3},
        {"type": "guess", "direction": 1, "stake": 3},
        {"type": "guess", "direction": "higher"},
        {"type": "guess", "direction": "higher", "stake": None},
        {"type": "guess", "direction": "higher", "stake": True},
        {"type": "guess", "direction": "higher", "stake": {"n": 1}},
        {"type": "guess", "direction": "higher", "stake": 26},
        {"type": "guess", "direction": "higher", "stake": -1},
    ],
)
def test_malformed_guesses_are_refused(command):
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    with pytest.raises(RuleError):
        m.do("ben", **command)
    assert m.bout.guess is None


# ---- clocks ------------------------------------------------------------------------


def test_show_timeout_shows_a_recorded_random_card():
    m = Match().guesser_at(10)
    (shown,) = m.wait(45)
    assert shown.type == "card_shown" and shown.visible_to is None
    assert shown.data["timeout"] is True and shown.data["at"] == 60.0
    assert 1 <= shown.data["card"] <= 25
    assert m.bout.revealed == (shown.data["card"],)
    assert m.bout.timeouts == (("ana", "show", 0),)


def test_guesser_timeout_stakes_zero_on_higher():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    m.do("ana", type="pick", card=5)
    guessed, revealed = m.wait(45)
    assert guessed.type == "guess_made"
    assert guessed.data["direction"] == "higher" and guessed.data["stake"] == 0
    assert guessed.data["timeout"] is True
    assert revealed.data["correct"] is False and revealed.data["chips"] == 25
    assert revealed.data["at"] == 60.0
    assert m.bout.timeouts == (("ben", "guess", 1),)
    assert m.bout.history[0].direction == "higher"
    assert RULES.pending(m.bout)[0].deadline == 105.0


def test_dealer_timeout_plays_a_recorded_random_remaining_card():
    cards = set()
    for seed in range(15):
        m = Match(seed=seed).guesser_at(10)
        m.do("ana", type="show", card=13)
        m.do("ben", type="guess", direction="lower", stake=1)
        picked, revealed = m.wait(45)
        assert picked.type == "card_picked" and picked.data["timeout"] is True
        assert picked.visible_to == ("ana",) and "card" not in picked.for_viewer(BEN)
        card = picked.data["card"]
        assert card != 13 and revealed.data["card"] == card
        cards.add(card)
        assert SERIES.fold(m.events) == m.state
    assert len(cards) > 3


def test_both_time_out_then_the_next_turn_runs_from_the_reveal():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    new = m.wait(45)
    assert [e.type for e in new] in (
        ["card_picked", "guess_made", "turn_revealed"],
        ["guess_made", "card_picked", "turn_revealed"],
    )
    assert {(d.seat, d.kind, d.deadline) for d in RULES.pending(m.bout)} == {
        ("ana", "pick", 105.0),
        ("ben", "guess", 105.0),
    }


def test_pending_per_phase():
    m = Match()
    assert {(d.seat, d.kind, d.deadline) for d in RULES.pending(m.bout)} == {
        ("ana", "auction", 15.0),
        ("ben", "auction", 15.0),
    }
    m.now = 4.0
    m.do("ben", type="bid", amount=10)
    assert {d.deadline for d in RULES.pending(m.bout)} == {19.0}
    m.wait(15)
    assert [(d.seat, d.kind, d.deadline) for d in RULES.pending(m.bout)] == [("ana", "show", 64.0)]
    m.do("ana", type="show", card=1)
    m.do("ana", type="pick", card=2)
    assert [(d.seat, d.kind) for d in RULES.pending(m.bout)] == [("ben", "guess")]


def test_no_clock_means_no_deadlines():
    m = Match(options={"decision_s": 0}).guesser_at(10)
    assert [d.deadline for d in RULES.pending(m.bout)] == [None]
    m.do("ana", type="show", card=1)
    assert [d.deadline for d in RULES.pending(m.bout)] == [None, None]


# ---- the end -------------------------------------------------------------------------


def test_outcome_and_series_end():
    m = Match().guesser_at(20)
    m.do("ana", type="show", card=1)
    m.do("ben", type="guess", direction="higher", stake=25)  # certain: every card is higher
    play_rest = [c for c in range(2, 26)]
    for i, c in enumerate(play_rest):
        if i:
            m.do("ben", type="guess", direction="higher", stake=0)
        m.do("ana", type="pick", card=c)
    out = RULES.outcome(m.bout)
    assert out.winners == ("ben",) and dict(out.points) == {"ben": 1, "ana": 0}
    assert m.state.finished and m.state.winners == ("ben",)
    assert RULES.scenario_scores(m.bout) == {"ana": 0, "ben": 50}
    assert len(m.bout.history) == 24 and sorted(m.bout.revealed) == list(range(1, 26))
    assert RULES.legal_commands(m.bout, "ana") == RULES.legal_commands(m.bout, "ben") == []
    with pytest.raises(RuleError):
        m.do("ana", type="guess", direction="higher", stake=0)


def test_first_to_two_opens_a_new_auction():
    m = Match(options={"first_to": 2}).guesser_at(10)
    play_to_end(m)
    assert m.state.scores == {"ana": 0, "ben": 1} and not m.state.finished
    bout = m.state.bout
    assert bout.phase == "auction" and bout.opened_at == 15.0 and bout.guesser is None
    m.do("ana", type="bid", amount=10)
    m.wait(15)
    play_to_end(m, dealer="ben", guesser="ana")
    assert m.state.scores == {"ana": 1, "ben": 1} and not m.state.finished


def test_evolve_ignores_events_of_other_games():
    m = Match()
    assert RULES.evolve(m.bout, Event("something_else", {})) == m.bout
    assert isinstance(m.bout, HLState)


def test_a_game_can_end_by_a_timeout_command():
    m = Match().guesser_at(10)
    m.do("ana", type="show", card=13)
    for c in [c for c in range(1, 26) if c != 13]:
        m.do("ana", type="pick", card=c)
        if c != 25:
            m.do("ben", type="guess", direction="higher", stake=0)
    m.now += 45
    new = SERIES.decide(m.state, {"type": "timeout"}, Ctx(now=m.now, rng=m.rng, role="system"))
    assert new[-1].type == "series_ended"


# ---- the rules page --------------------------------------------------------------------


def test_rules_page_states_every_ruling():
    html = TEMPLATE.read_text()
    assert html.startswith('{% extends "base.html" %}')
    assert "{% block title %}" in html and "{% block content %}" in html
    assert "<script" not in html and "http" not in html
    text = re.sub(r"\s+", " ", html)
    for needed in (
        "coin",
        "declared amount",
        "990",
        "1040",
        "stakes 0 on <em>higher</em>",
        "no shuffled deck",
        "There is no <em>pass</em>",
        "random remaining card",
        "auction_close_s",
        "decision_s",
        "first_to",
        "15",
        "45",
        "at least",
    ):
        assert needed in text, needed
