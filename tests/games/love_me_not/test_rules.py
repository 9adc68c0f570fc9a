"""Love Me Not unit tests: views per viewer, event visibility, the secrecy
of simultaneous choices, reveal timing, scoring, options and the series."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Ctx, RuleError, Viewer
from games.core.registry import rules_for
from games.love_me_not.rules import score_breakdown

from .helpers import EXAMPLE_DECK, FULL_DECK, RULES, SERIES, Match, cards_in_play

TEMPLATE = Path(__file__).resolve().parents[3] / "templates" / "games" / "love_me_not.html"

# the shared example's choices, turn by turn: (ana keep, discard, ben keep, discard)
EXAMPLE = [
    ("JS", "2H", "3H", "4H"),
    ("2S", "5H", "3S", "5S"),
    ("4S", "2D", "JH", "3D"),
    ("5D", "4D", "2C", "3C"),
    ("JD", "4C", "5C", "JC"),
]


def play_turns(m, plan):
    for ak, ad, bk, bd in plan:
        m.choose("ana", ak, ad)
        m.choose("ben", bk, bd)


def events_of(m, kind):
    return [e for e in m.events if e.type == kind]


# ---- options, seats, deal ---------------------------------------------------------


def test_registered_and_described():
    assert rules_for("love-me-not") is RULES
    assert (RULES.min_seats, RULES.max_seats) == (2, 2)
    assert RULES.first_player == "none"
    assert RULES.rules_template == "games/love_me_not.html"
    assert "heuristic" in RULES.bots


def test_default_options():
    assert RULES.resolve_options({}, 2) == {"decision_s": 120, "first_to": 2}
    m = Match()
    assert m.state.target == 2 and m.state.first is None
    assert not events_of(m, "first_player_chosen")


def test_first_to_option():
    assert Match(options={"first_to": 3}).state.target == 3


@pytest.mark.parametrize(
    "options",
    [{"first_to": 0}, {"first_to": "2"}, {"decision_s": -1}, {"decision_s": 2.5}, {"colour": 1}],
)
def test_bad_options(options):
    with pytest.raises(RuleError):
        Match(options=options)


def test_exactly_two_players():
    with pytest.raises(RuleError):
        SERIES.start(
            Ctx(now=0, rng=random.Random(0)),
            ("ana", "ben", "cat"),
        )


def test_deal_draws_two_each_first_seat_first():
    m = Match(deck=EXAMPLE_DECK)
    b = m.bout
    assert b.turn == 1
    assert b.hands == (("2H", "JS"), ("3H", "4H"))
    assert len(b.deck) == 16
    assert cards_in_play(b) == FULL_DECK


def test_unstacked_deck_is_the_twenty_cards():
    m = Match(seed=4)
    assert cards_in_play(m.bout) == FULL_DECK and len(FULL_DECK) == 20
    (started,) = events_of(m, "match_started")
    assert sorted(started.data["deck"]) == sorted(FULL_DECK)


@pytest.mark.parametrize("deck", [["2H", "2H"], ["6H"], ["AS"], "2H", [2]])
def test_bad_setup(deck):
    with pytest.raises(RuleError):
        SERIES.start(
            Ctx(now=0, rng=random.Random(0)),
            ("ana", "ben"),
            None,
            None,
            {"deck": deck},
        )


# ---- secrecy of the choices ------------------------------------------------------------


def test_deal_events_are_private():
    m = Match(deck=EXAMPLE_DECK)
    (started,) = events_of(m, "match_started")
    assert started.visible_to == () and "deck" not in started.public
    for e in events_of(m, "cards_drawn"):
        seat = e.data["seat"]
        other = "ben" if seat == "ana" else "ana"
        assert e.visible_to == (seat,)
        assert e.for_viewer(Viewer.of_seat(other)) == {"seat": seat, "turn": 1}
        assert e.for_viewer(SPECTATOR_VIEW) == {"seat": seat, "turn": 1}


def test_a_choice_is_seen_by_its_seat_only():
    m = Match(deck=EXAMPLE_DECK)
    (chosen,) = m.choose("ana", "JS", "2H")
    assert chosen.type == "card_chosen"
    assert chosen.visible_to == ("ana",) and chosen.public is None
    assert chosen.for_viewer(Viewer.of_seat("ben")) is None
    assert chosen.for_viewer(SPECTATOR_VIEW) is None
    assert chosen.for_viewer(MODERATOR_VIEW)["keep"] == "JS"
    assert m.view("ana")["choice"] == {"keep": "JS", "discard": "2H"}
    ben = m.view("ben")
    assert ben["choice"] is None and ben["choices"]["ana"] is None
    assert ben["tableaus"]["ana"] == [None] and ben["piles"]["ana"] is None
    assert ben["waiting_for"] == ["ben"]


@pytest.mark.parametrize("viewer", [Viewer.of_seat("ben"), SPECTATOR_VIEW])
def test_the_other_cannot_tell_which_split_was_chosen(viewer):
    a, b = Match(deck=EXAMPLE_DECK), Match(deck=EXAMPLE_DECK)
    a.choose("ana", "JS", "2H")
    b.choose("ana", "2H", "JS")
    assert RULES.view(a.bout, viewer) == RULES.view(b.bout, viewer)
    assert [e.for_viewer(viewer) for e in a.events] == [e.for_viewer(viewer) for e in b.events]


def test_the_order_of_submission_changes_nothing():
    a, b = Match(deck=EXAMPLE_DECK), Match(deck=EXAMPLE_DECK)
    a.choose("ana", "JS", "2H")
    a.choose("ben", "3H", "4H")
    b.choose("ben", "3H", "4H")
    b.choose("ana", "JS", "2H")
    assert a.bout == b.bout
    strip = lambda evs: [e for e in evs if e.type != "card_chosen"]  # noqa: E731
    assert strip(a.events) == strip(b.events)
    for viewer in (Viewer.of_seat("ana"), Viewer.of_seat("ben"), SPECTATOR_VIEW):
        assert RULES.view(a.bout, viewer) == RULES.view(b.bout, viewer)


# ---- reveal timing ----------------------------------------------------------------------


def test_reveal_timing():
    m = Match(deck=EXAMPLE_DECK)
    play_turns(m, EXAMPLE[:1])
    (r1,) = events_of(m, "turn_resolved")
    assert r1.visible_to is None and r1.data["revealed"] == {} and r1.data["turn"] == 1
    assert m.view("ben")["tableaus"]["ana"] == [None]
    assert m.view("ana")["tableaus"]["ana"] == ["JS"]
    play_turns(m, EXAMPLE[1:2])
    r2 = events_of(m, "turn_resolved")[-1]
    assert r2.data["revealed"] == {"ana": "JS", "ben": "3H"}
    assert m.view("ben")["tableaus"]["ana"] == ["JS", None]
    assert m.view(kind="spectator")["tableaus"] == {"ana": ["JS", None], "ben": ["3H", None]}
    # piles stay face down, only their size is known
    assert m.view("ben")["piles"]["ana"] is None
    assert m.view("ben")["pile_sizes"] == {"ana": 2, "ben": 2}
    assert m.view("ben")["scores"] is None and m.view(kind="spectator")["scores"] is None
    play_turns(m, EXAMPLE[2:4])
    assert m.view("ana")["tableaus"]["ben"] == ["3H", "3S", "JH", None]
    assert m.view("ana")["revealed_turns"] == 3


def test_everything_revealed_after_turn_five():
    m = Match(deck=EXAMPLE_DECK)
    play_turns(m, EXAMPLE)
    (rev,) = events_of(m, "match_revealed")
    assert rev.visible_to is None
    assert rev.data["tableaus"] == {
        "ana": ["JS", "2S", "4S", "5D", "JD"],
        "ben": ["3H", "3S", "JH", "2C", "5C"],
    }
    assert rev.data["piles"] == {
        "ana": ["2H", "5H", "2D", "4D", "4C"],
        "ben": ["4H", "5S", "3D", "3C", "JC"],
    }
    v = m.view("ben", last=True)
    assert v["finished"] and v["piles"]["ana"] == ["2H", "5H", "2D", "4D", "4C"]
    s = v["scores"]["ana"]
    assert s["total"] == 6
    assert s["suits"]["D"] == {"tableau": 2, "pile": 2, "points": 4}
    assert s["suits"]["S"] == {"tableau": 3, "pile": 0, "points": 0}
    assert s["jacks"] == [{"card": "JS", "points": 1}, {"card": "JD", "points": 1}]
    b = v["scores"]["ben"]
    assert b["total"] == 9 and b["jacks"] == [{"card": "JH", "points": 2}]
    assert b["suits"]["C"] == {"tableau": 2, "pile": 2, "points": 4}
    assert v["winners"] == ["ben"]
    assert m.view(kind="spectator", last=True)["scores"] == v["scores"]


# ---- scoring ---------------------------------------------------------------------------------


def test_score_products_per_suit():
    s = score_breakdown(["2H", "3H", "4S"], ["5H", "2S", "3S"], [])
    assert s["suits"]["H"]["points"] == 2 and s["suits"]["S"]["points"] == 2
    assert s["total"] == 4 and s["jacks"] == []


def test_jack_counts_as_its_suit_and_scores_the_opponents_pile():
    s = score_breakdown(["JH", "2H"], ["3H"], ["4H", "5H", "2S", "JH"])
    # hearts 2 x 1, then the Jack finds three hearts in the other pile
    # (the opponent's pile cannot really hold JH: any heart counts)
    assert s["suits"]["H"] == {"tableau": 2, "pile": 1, "points": 2}
    assert s["jacks"] == [{"card": "JH", "points": 3}]
    assert s["total"] == 5


def test_jack_in_pile_counts_for_the_product():
    s = score_breakdown(["2D"], ["JD", "3D"], [])
    assert s["total"] == 2


def test_several_jacks_each_score():
    s = score_breakdown(["JH", "JS", "JC"], [], ["2H", "3S", "4S", "5D"])
    assert [j["points"] for j in s["jacks"]] == [1, 2, 0] and s["total"] == 3


# ---- commands --------------------------------------------------------------------------------


def test_legal_commands():
    m = Match(deck=EXAMPLE_DECK)
    assert RULES.legal_commands(m.bout, "ana") == [
        {"type": "choose", "keep": "2H", "discard": "JS"},
        {"type": "choose", "keep": "JS", "discard": "2H"},
    ]
    m.choose("ana", "JS", "2H")
    assert RULES.legal_commands(m.bout, "ana") == []
    assert len(RULES.legal_commands(m.bout, "ben")) == 2
    assert RULES.legal_commands(m.bout, "zed") == []


@pytest.mark.parametrize(
    "command",
    [
        {"type": "choose"},
        {"type": "choose", "keep": "JS"},
        {"type": "choose", "keep": ["JS"], "discard": "2H"},
        {"type": "choose", "keep": "JS", "discard": None},
        {"type": "choose", "keep": "JS", "discard": "JS"},
        {"type": "choose", "keep": "JS", "discard": "3H"},
        {"type": "choose", "keep": "QS", "discard": "2H"},
        {"type": "play", "card": "JS"},
        {"type": 7},
        {},
        "choose",
    ],
)
def test_malformed_or_illegal_commands(command):
    m = Match(deck=EXAMPLE_DECK)
    before = m.state
    with pytest.raises(RuleError):
        m.do("ana", command)
    assert m.state == before


def test_an_unseated_name_is_rejected():
    m = Match(deck=EXAMPLE_DECK)
    with pytest.raises(RuleError):
        m.choose("zed", "JS", "2H")


def test_second_choice_in_a_turn_rejected_even_after_the_other_chose():
    m = Match(deck=EXAMPLE_DECK)
    m.choose("ana", "JS", "2H")
    with pytest.raises(RuleError, match="already chosen"):
        m.choose("ana", "2H", "JS")


# ---- clock ---------------------------------------------------------------------------------


def test_deadlines_and_timeouts():
    m = Match(deck=EXAMPLE_DECK)
    assert [(d.seat, d.deadline) for d in RULES.pending(m.bout)] == [("ana", 120), ("ben", 120)]
    m.now = 50
    m.choose("ana", "JS", "2H")
    assert [(d.seat, d.deadline) for d in RULES.pending(m.bout)] == [("ben", 120)]
    new = m.wait(70)
    chosen = [e for e in new if e.type == "card_chosen"]
    assert len(chosen) == 1 and chosen[0].data["timeout"] is True
    assert chosen[0].visible_to == ("ben",)
    assert {chosen[0].data["keep"], chosen[0].data["discard"]} == {"3H", "4H"}
    (res,) = [e for e in new if e.type == "turn_resolved"]
    assert res.data["timed_out"] == ["ben"]
    (ts,) = [e for e in new if e.type == "turn_started"]
    assert ts.data == {"turn": 2, "at": 120}
    assert [d.deadline for d in RULES.pending(m.bout)] == [240, 240]


def test_both_time_out_in_seat_order():
    m = Match(deck=EXAMPLE_DECK)
    new = m.wait(120)
    assert [e.data["seat"] for e in new if e.type == "card_chosen"] == ["ana", "ben"]
    assert [e for e in new if e.type == "turn_resolved"][0].data["timed_out"] == ["ana", "ben"]


def test_no_clock():
    m = Match(options={"decision_s": 0})
    assert [d.deadline for d in RULES.pending(m.bout)] == [None, None]
    assert m.wait(1e6) == []


def test_command_at_the_deadline_is_too_late():
    m = Match(deck=EXAMPLE_DECK)
    m.now = 120
    with pytest.raises(RuleError):
        m.choose("ana", "JS", "2H")  # the timeout split these cards already


# ---- the series ---------------------------------------------------------------------------


def test_tied_match_scores_nothing_and_another_is_played():
    deck = [r + s for r in "2345J" for s in "CDHS"]
    m = Match(deck=deck)
    play_turns(m, [(r + "C", r + "D", r + "H", r + "S") for r in "2345J"])
    (scored,) = events_of(m, "bout_scored")
    assert scored.data["winners"] == [] and scored.data["points"] == {"ana": 0, "ben": 0}
    assert m.state.scores == {"ana": 0, "ben": 0} and not m.state.finished
    assert m.state.bout.turn == 1 and m.state.bout.bout == 2
    assert cards_in_play(m.state.bout) == FULL_DECK


def test_first_to_two_matches():
    m = Match(deck=EXAMPLE_DECK, seed=3)
    play_turns(m, EXAMPLE)  # ben wins the first match
    assert m.state.scores == {"ana": 0, "ben": 1}
    rng = random.Random(1)
    while not m.state.finished:
        for seat in ("ana", "ben"):
            legal = RULES.legal_commands(m.state.bout, seat)
            if legal:
                m.do(seat, rng.choice(legal))
    assert max(m.state.scores.values()) == 2
    assert m.state.winners == tuple(s for s, v in m.state.scores.items() if v == 2)
    with pytest.raises(RuleError):
        m.choose("ana", "2H", "3H")


def test_scenario_scores_are_card_scores():
    m = Match(deck=EXAMPLE_DECK)
    play_turns(m, EXAMPLE)
    assert RULES.scenario_scores(m.last) == {"ana": 6, "ben": 9}
    assert RULES.scenario_winner(m.last) == "ben"


# ---- rules page -------------------------------------------------------------------------------


def test_rules_page():
    text = TEMPLATE.read_text()
    assert text.startswith('{% extends "base.html" %}')
    assert "{% block title %}" in text and "{% block content %}" in text
    assert "<script" not in text and "http" not in text
    for needle in [
        "first_to",
        "decision_s",
        "tied match",
        "Jack",
        "keep",
        "discard",
        "revealed",
        "120",
    ]:
        assert needle.lower() in text.lower(), needle
