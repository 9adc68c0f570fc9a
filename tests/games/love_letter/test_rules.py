"""Love Letter unit tests: what scenario files cannot express well (views
per viewer, event visibility, options, the series around the rounds)."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.core.protocol import SPECTATOR_VIEW, RuleError, Viewer
from games.core.registry import rules_for

from .helpers import FULL_DECK, RULES, SERIES, Match, cards_in_play, stacked

TEMPLATE = Path(__file__).resolve().parents[3] / "templates" / "games" / "love_letter.html"


def events_of(match, kind):
    return [e for e in match.events if e.type == kind]


# ---- options, seats, deal ------------------------------------------------------


def test_registered_and_described():
    assert rules_for("love-letter") is RULES
    assert (RULES.min_seats, RULES.max_seats) == (2, 4)
    assert RULES.first_player == "winner"
    assert RULES.rules_template == "games/love_letter.html"
    assert "heuristic" in RULES.bots


@pytest.mark.parametrize("n,target", [(2, 7), (3, 5), (4, 4)])
def test_tokens_to_win_by_player_count(n, target):
    seats = ["ana", "ben", "cat", "dan"][:n]
    opts = RULES.resolve_options({}, n)
    assert opts == {"decision_s": 120, "two_player_face_up": 3, "first_to": target}
    m = Match(seats=seats)
    assert m.state.target == target


def test_first_to_can_be_set():
    assert Match(options={"first_to": 2}).state.target == 2


@pytest.mark.parametrize(
    "options",
    [
        {"two_player_face_up": 6},
        {"two_player_face_up": -1},
        {"two_player_face_up": "3"},
        {"decision_s": -5},
        {"decision_s": 1.5},
        {"decision_s": True},
        {"first_to": 0},
        {"bluffs_per_bout": 3},
    ],
)
def test_bad_options_rejected(options):
    with pytest.raises(RuleError):
        Match(options=options)


@pytest.mark.parametrize("seats", [("ana",), ("a", "b", "c", "d", "e"), ("ana", "ana")])
def test_seat_counts(seats):
    with pytest.raises(RuleError):
        Match(seats=seats)


@pytest.mark.parametrize("n,face_up", [(2, 3), (2, 0), (2, 5), (3, 3), (4, 3)])
def test_deal(n, face_up):
    seats = ["ana", "ben", "cat", "dan"][:n]
    m = Match(seats=seats, options={"two_player_face_up": face_up}, seed=n * 10 + face_up)
    b = m.bout
    assert b.hidden is not None
    assert len(b.removed) == (face_up if n == 2 else 0)
    assert cards_in_play(b) == FULL_DECK
    first = m.state.first
    assert b.turn == first
    for s in seats:
        assert len(b.hand(s)) == (2 if s == first else 1)
    assert len(b.deck) == 16 - 1 - len(b.removed) - n - 1


def test_stacked_deal_order():
    m = Match(seats=("ana", "ben", "cat"), setup=stacked(8, [], [3, 5, 1, 2], first="ben"))
    b = m.bout
    # dealt in seat order whoever starts; the first player then draws
    assert b.hand("ana") == (3,) and b.hand("cat") == (1,)
    assert b.hand("ben") == (5, 2)
    assert b.hidden == 8 and b.turn == "ben"


@pytest.mark.parametrize(
    "setup",
    [
        {"hidden": "8", "deck": ["8"]},  # one Princess only
        {"removed": ["1", "1", "1", "1"]},  # four face up, the game sets aside three
        {"deck": ["9"]},
        {"hidden": "x"},
        {"removed": "1"},
        {"deck": ["1"] * 6},
    ],
)
def test_bad_setup(setup):
    with pytest.raises(RuleError):
        Match(setup=setup)


def test_no_face_up_cards_with_three_players():
    with pytest.raises(RuleError):
        Match(seats=("ana", "ben", "cat"), setup={"removed": ["1"]})


# ---- views and visibility -------------------------------------------------------


def test_views_per_viewer():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    ana, ben = m.view("ana"), m.view("ben")
    spec, mod = m.view(kind="spectator"), m.view(kind="moderator")
    assert ana["hand"] == ["3", "1"] and ana["hands"]["ben"] is None
    assert ben["hand"] == ["5"] and ben["hands"]["ana"] is None
    assert spec["hand"] is None and set(spec["hands"].values()) == {None}
    assert mod["hands"] == {"ana": ["3", "1"], "ben": ["5"]}
    for v in (ana, ben, spec):
        assert v["hidden"] is None and v["deck"] is None
        assert v["removed"] == ["1", "1", "2"]
        assert v["hand_sizes"] == {"ana": 2, "ben": 1}
        assert v["deck_size"] == 9
    assert mod["hidden"] == "8" and len(mod["deck"]) == 9


def test_deal_events_are_private():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    (started,) = events_of(m, "round_started")
    assert started.visible_to == ()
    assert "hidden" not in started.public and "deck" not in started.public
    assert started.public["removed"] == ["1", "1", "2"]
    for e in events_of(m, "card_dealt") + events_of(m, "turn_started"):
        seat = e.data["seat"]
        assert e.visible_to == (seat,)
        assert "card" not in e.public
        other = "ben" if seat == "ana" else "ana"
        assert e.for_viewer(Viewer.of_seat(other)) == e.public
        assert e.for_viewer(Viewer.of_seat(seat))["card"] == e.data["card"]


def test_priest_look_is_private_to_the_player():
    m = Match(setup=stacked(8, [3, 3, 4], [2, 6, 1]))
    m.play("ana", 2, "ben")
    (seen,) = events_of(m, "card_seen")
    assert seen.visible_to == ("ana",)
    assert seen.data["card"] == "6"
    assert seen.for_viewer(Viewer.of_seat("ben")) == {"seat": "ana", "target": "ben"}
    assert seen.for_viewer(SPECTATOR_VIEW) == {"seat": "ana", "target": "ben"}
    log_ana = [e for e in m.view("ana")["log"] if e["type"] == "card_seen"]
    log_ben = [e for e in m.view("ben")["log"] if e["type"] == "card_seen"]
    assert log_ana[0]["card"] == "6"
    assert "card" not in log_ben[0]
    assert "card" not in [e for e in m.view(kind="spectator")["log"] if e["type"] == "card_seen"][0]


def test_baron_compare_private_to_both_loser_card_public():
    m = Match(seats=("ana", "ben", "cat"), setup=stacked(8, [], [7, 4, 2, 3]))
    m.play("ana", 3, "ben")
    (cmp_,) = events_of(m, "cards_compared")
    assert cmp_.visible_to == ("ana", "ben")
    assert cmp_.data["cards"] == {"ana": "7", "ben": "4"}
    assert cmp_.for_viewer(Viewer.of_seat("cat")) == {
        "seat": "ana",
        "target": "ben",
        "loser": "ben",
    }
    (out,) = events_of(m, "player_out")
    assert out.visible_to is None and out.data["cards"] == ["4"]
    # the winner's 7 stays secret from cat and spectators
    assert m.view("cat")["hands"]["ana"] is None
    assert all("cards" not in e for e in m.view("cat")["log"] if e["type"] == "cards_compared")
    assert m.view("cat")["discards"]["ben"] == ["4"]
    assert m.view("cat")["out"] == ["ben"]


def test_baron_tie_reveals_nothing_publicly():
    m = Match(seats=("ana", "ben", "cat"), setup=stacked(8, [], [5, 5, 2, 3]))
    m.play("ana", 3, "ben")
    (cmp_,) = events_of(m, "cards_compared")
    assert cmp_.data["loser"] is None
    assert cmp_.public == {"seat": "ana", "target": "ben", "loser": None}
    assert not events_of(m, "player_out")


def test_king_trade_private_to_the_two():
    m = Match(seats=("ana", "ben", "cat"), setup=stacked(1, [], [6, 8, 2, 3]))
    m.play("ana", 6, "ben")
    (tr,) = events_of(m, "hands_traded")
    assert tr.visible_to == ("ana", "ben")
    assert tr.data["cards"] == {"ana": "8", "ben": "3"}
    assert tr.public == {"seat": "ana", "target": "ben"}
    assert m.bout.hand("ana") == (8,) and m.bout.hand("ben")[0] == 3


def test_prince_discard_public_replacement_private():
    m = Match(setup=stacked(8, [1, 1, 1], [2, 3, 5, 6, 4]))
    m.play("ana", 5, "ben")
    (disc,) = events_of(m, "card_discarded")
    assert disc.visible_to is None and disc.data == {"seat": "ben", "card": "3", "by": "ana"}
    (rep,) = events_of(m, "card_replaced")
    assert rep.visible_to == ("ben",)
    assert rep.data == {"seat": "ben", "from": "deck", "card": "6"}
    assert rep.public == {"seat": "ben", "from": "deck"}
    assert m.view("ben")["hand"] == ["6", "4"]  # drew the 6, then his turn's 4


def test_prince_with_empty_deck_draws_the_face_down_card():
    deck = [4, 4, 2, 2, 3, 3, 7, 6, 5, 5]
    m = Match(options={"two_player_face_up": 5}, setup=stacked(8, [1] * 5, deck))
    for seat, card, target in [
        ("ana", 2, "ben"),
        ("ben", 2, "ana"),
        ("ana", 3, "ben"),
        ("ben", 3, "ana"),
        ("ana", 4, None),
        ("ben", 4, None),
        ("ana", 7, None),
    ]:
        m.play(seat, card, target)
    assert m.bout.deck == () and m.bout.hidden == 8
    assert m.view("ana")["hidden_set_aside"] is True
    m.play("ben", 5, "ana")
    (rep,) = events_of(m, "card_replaced")
    assert rep.data == {"seat": "ana", "from": "hidden", "card": "8"}
    b = m.last
    assert b.finished and b.hidden is None and b.winners == ("ana",)
    assert b.showdown["hands"] == {"ana": "8", "ben": "6"}


def test_round_end_reveals_face_down_card_to_all():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    m.play("ana", 1, "ben", 5)
    (end,) = events_of(m, "round_ended")
    assert end.visible_to is None and end.data["hidden"] == "8"
    assert m.view("ben", last=True)["hidden"] == "8"
    assert m.view(kind="spectator", last=True)["hidden"] == "8"


def test_princess_played_discards_the_other_card_too():
    m = Match(setup=stacked(1, [1, 1, 1], [8, 2, 4]))
    m.play("ana", 8)
    (out,) = events_of(m, "player_out")
    assert out.data == {"seat": "ana", "cards": ["4"], "reason": "princess"}
    assert m.last.discards[0] == (8, 4)
    assert cards_in_play(m.last) == FULL_DECK


# ---- rules of play ---------------------------------------------------------------


def test_protection_lasts_until_own_next_turn():
    m = Match(seats=("ana", "ben", "cat"), setup=stacked(8, [], [3, 1, 5, 4, 2, 2]))
    m.play("ana", 4)
    assert m.view("cat")["protected"] == ["ana"]
    m.play("ben", 2, "cat")
    assert m.bout.protected == frozenset({"ana"})
    m.play("cat", 2, "ben")
    assert m.bout.turn == "ana" and m.bout.protected == frozenset()


def test_no_target_case_lists_no_targets():
    m = Match(setup=stacked(8, [7, 6, 5], [1, 1, 4, 2]))
    m.play("ana", 4)
    legal = RULES.legal_commands(m.bout, "ben")
    assert {"type": "play", "card": "1"} in legal
    assert {"type": "play", "card": "2"} in legal
    assert all("target" not in c for c in legal)
    with pytest.raises(RuleError, match="protected"):
        m.play("ben", 1, "ana", 2)


def test_no_target_prince_targets_self_even_when_named():
    m = Match(setup=stacked(1, [1, 1, 1], [1, 2, 4, 5]))
    m.play("ana", 4)
    assert RULES.legal_commands(m.bout, "ben") == [
        {"type": "play", "card": "2"},
        {"type": "play", "card": "5", "target": "ben"},
    ]
    m.play("ben", 5, "ben")
    (disc,) = events_of(m, "card_discarded")
    assert disc.data["seat"] == "ben" and disc.data["card"] == "2"


def test_legal_commands_only_for_the_player_to_move():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    assert RULES.legal_commands(m.bout, "ben") == []
    legal = RULES.legal_commands(m.bout, "ana")
    guards = [c for c in legal if c["card"] == "1"]
    assert {c["guess"] for c in guards} == {str(g) for g in range(2, 9)}
    assert {"type": "play", "card": "3", "target": "ben"} in legal
    assert len(legal) == 8


def test_countess_forced_legal_commands():
    m = Match(setup=stacked(1, [1, 1, 1], [7, 3, 6]))
    assert RULES.legal_commands(m.bout, "ana") == [{"type": "play", "card": "7"}]


@pytest.mark.parametrize(
    "command",
    [
        {"type": "play", "card": ["1"]},
        {"type": "play", "card": "1", "target": 3, "guess": "5"},
        {"type": "play", "card": "1", "target": "ben", "guess": {"x": 1}},
        {"type": "play", "card": None},
        {"type": "play", "card": True},
        {"type": 5},
        {},
        "play",
    ],
)
def test_malformed_commands_are_rule_errors(command):
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    before = m.state
    with pytest.raises(RuleError):
        m.do("ana", command)
    assert m.state == before


def test_rejection_messages_name_no_hidden_card():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1]))
    msgs = []
    for cmd in [
        {"type": "play", "card": "5"},
        {"type": "play", "card": "8"},
        {"type": "play", "card": "1", "target": "ben"},
        {"type": "play", "card": "3"},
    ]:
        with pytest.raises(RuleError) as exc:
            m.do("ana", cmd)
        msgs.append(str(exc.value))
    with pytest.raises(RuleError) as exc:
        m.do("ben", {"type": "play", "card": "5", "target": "ana"})
    msgs.append(str(exc.value))
    # ben holds a 5 and the face-down card is an 8: no message names them
    # except where the player named the card himself
    assert msgs[0] == "you do not hold the Prince (5)"
    assert msgs[1] == "you do not hold the Princess (8)"
    assert "Prince" not in " ".join(msgs[2:])


# ---- clock ---------------------------------------------------------------------------


def test_pending_and_deadline():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1, 4]))
    assert RULES.pending(m.bout)[0].deadline == 120
    m.now = 30
    m.play("ana", 1, "ben", 2)
    (d,) = RULES.pending(m.bout)
    assert (d.seat, d.kind, d.deadline) == ("ben", "play", 150)
    assert m.view("ana")["deadline"] == 150


def test_no_clock():
    m = Match(options={"decision_s": 0})
    assert RULES.pending(m.bout)[0].deadline is None
    assert m.wait(10_000) == []


def test_timeout_plays_a_recorded_random_legal_move():
    m = Match(setup=stacked(8, [1, 1, 2], [3, 5, 1, 4]), seed=3)
    legal = RULES.legal_commands(m.bout, "ana")
    new = m.wait(120)
    played = [e for e in new if e.type == "card_played"]
    assert played and played[0].data["timeout"] is True and played[0].data["seat"] == "ana"
    cmd = {"type": "play", "card": played[0].data["card"]}
    if played[0].data["target"] is not None:
        cmd["target"] = played[0].data["target"]
    if played[0].data["guess"] is not None:
        cmd["guess"] = played[0].data["guess"]
    assert cmd in legal
    assert SERIES.fold(m.events) == m.state


def test_command_at_the_deadline_is_too_late():
    m = Match(setup=stacked(1, [1, 1, 1], [7, 2, 5, 8]))
    m.now = 120
    with pytest.raises(RuleError, match="ben's turn"):
        m.play("ana", 7)


# ---- the series around rounds ---------------------------------------------------------


def test_round_winner_starts_next_round():
    m = Match(setup=stacked(1, [1, 1, 1], [2, 6, 3]))
    m.play("ana", 3, "ben")  # ana loses the Baron
    (scored,) = events_of(m, "bout_scored")
    assert scored.data["winners"] == ["ben"] and scored.data["next_first"] == "ben"
    assert m.state.bout.turn == "ben" and m.state.bout.first == "ben"
    assert m.state.scores == {"ana": 0, "ben": 1}
    assert cards_in_play(m.state.bout) == FULL_DECK


def test_tied_winners_both_score_and_a_recorded_pick_starts():
    deck = [4, 4, 1, 1, 2, 2, 1, 1, 3, 3]
    m = Match(options={"two_player_face_up": 5}, setup=stacked(1, [5, 5, 8, 7, 6], deck))
    for seat, card, target, guess in [
        ("ana", 1, "ben", 2),
        ("ben", 1, "ana", 2),
        ("ana", 2, "ben", None),
        ("ben", 2, "ana", None),
        ("ana", 1, "ben", 3),
        ("ben", 1, "ana", 3),
        ("ana", 3, "ben", None),
        ("ben", 3, "ana", None),
    ]:
        m.play(seat, card, target, guess)
    (scored,) = events_of(m, "bout_scored")
    assert sorted(scored.data["winners"]) == ["ana", "ben"]
    assert scored.data["next_first"] in ("ana", "ben")
    assert m.state.scores == {"ana": 1, "ben": 1}
    assert RULES.scenario_winner(m.state.last_bout) is None


def test_match_ends_at_the_token_target():
    m = Match(options={"first_to": 1}, setup=stacked(1, [1, 1, 1], [8, 2, 4]))
    m.play("ana", 8)
    assert m.state.finished and m.state.winners == ("ben",)
    with pytest.raises(RuleError):
        m.play("ben", 2, "ana")


# ---- rules page -------------------------------------------------------------------------


def test_rules_page():
    text = TEMPLATE.read_text()
    assert text.startswith('{% extends "base.html" %}')
    assert "{% block title %}" in text and "{% block content %}" in text
    assert "<script" not in text and "http" not in text
    for needle in [
        "two_player_face_up",
        "decision_s",
        "all tied players win",
        "face down",
        "Countess",
        "Handmaid",
        "Guard",
        "7",
        "5",
        "4",
    ]:
        assert needle.lower() in text.lower(), needle
