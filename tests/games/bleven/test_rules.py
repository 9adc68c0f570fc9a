"""Bleven unit tests: what scenario files cannot express well (seats and
options, the deal, views and event visibility per viewer, clocks, series)."""

import random

import pytest

from games.bleven.cards import DECK, parse_card, value
from games.bleven.rules import RULES, random_move
from games.core.deal import verify_deal
from games.core.playout import play_match
from games.core.protocol import (
    MODERATOR_VIEW,
    SPECTATOR_VIEW,
    Ctx,
    Event,
    RuleError,
    Viewer,
)
from games.core.series import Series

SERIES = Series(RULES)
A1 = ["7H", "6H", "KH"]  # 6 7 10
B1 = ["QS", "JS", "7S"]  # 7 8 9
FILL = ["AC", "2C", "3C", "4C", "AD", "2D", "3D", "4D"]
CARDS = set(DECK)


def start(seats=("ana", "ben"), deck=None, cutter="ana", options=None, seed=1):
    setup = {"deck": list(deck if deck is not None else A1 + B1 + FILL), "cutter": cutter}
    rng = random.Random(seed)
    events = SERIES.start(Ctx(now=0.0, rng=rng, role="system"), list(seats), options, None, setup)
    return events, SERIES.fold(events), rng


def play(state, events, rng, seat, command, now=1.0):
    new = SERIES.decide(state, command, Ctx(now=now, rng=rng, seat=seat))
    for e in new:
        state = SERIES.evolve(state, e)
    return state, events + new, new


def to_bidding(seats=("ana", "ben"), deck=None, options=None):
    """Every seat draws and discards its drawn card three times."""
    events, state, rng = start(seats, deck, options=options)
    pile = state.bout.pile
    k = 0
    for _ in range(3):
        for s in seats:
            state, events, _ = play(state, events, rng, s, {"type": "draw"})
            state, events, _ = play(state, events, rng, s, {"type": "discard", "card": pile[k]})
            k += 1
    return state, events, rng


def cards_in(obj) -> set:
    out = set()
    if isinstance(obj, str):
        if obj in CARDS:
            out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            out |= cards_in(k) | cards_in(v)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            out |= cards_in(v)
    return out


# ---- cards ------------------------------------------------------------------------


def test_deck_has_forty_cards_valued_one_to_ten():
    assert len(DECK) == len(set(DECK)) == 40
    assert sorted({value(c) for c in DECK}) == list(range(1, 11))
    assert value("AS") == 1 and value("7H") == 7 and value("JD") == 8
    assert value("QC") == 9 and value("KH") == 10
    assert parse_card(" kh ") == "KH"
    assert parse_card("8H") is None and parse_card("10H") is None and parse_card(7) is None


# ---- seats and options ----------------------------------------------------------------


def test_three_seats_are_refused_with_clear_words():
    with pytest.raises(RuleError, match="2 players, or by 4 in two teams"):
        SERIES.start(Ctx(0.0, random.Random(0), role="system"), ["a", "b", "c"])
    with pytest.raises(RuleError, match="cannot be played by 3"):
        RULES.resolve_options({}, 3)
    with pytest.raises(RuleError):
        SERIES.start(Ctx(0.0, random.Random(0), role="system"), ["a", "b", "c", "d", "e"])
    # 2 and 4 are fine
    SERIES.start(Ctx(0.0, random.Random(0), role="system"), ["a", "b"])
    SERIES.start(Ctx(0.0, random.Random(0), role="system"), ["a", "b", "c", "d"])


def test_options_and_defaults():
    opts = RULES.resolve_options({}, 2)
    assert opts == {"crowns": 1, "decision_s": 120, "first_to": 300}
    assert RULES.resolve_options({"crowns": 3}, 4)["first_to"] == 900
    assert RULES.resolve_options({"decision_s": 0}, 2)["decision_s"] == 0
    for bad in (
        {"crowns": 0},
        {"crowns": 4},
        {"crowns": "2"},
        {"crowns": True},
        {"decision_s": -1},
        {"decision_s": 1.5},
        {"jokers": 1},
    ):
        with pytest.raises(RuleError):
            RULES.resolve_options(bad, 2)


# ---- the deal -------------------------------------------------------------------------


def test_deal_three_consecutive_cards_from_the_cutter_in_seat_order():
    deck = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "JH", "QH", "KH", "AS", "2S", "3S"]
    _, state, _ = start(("ana", "ben", "cid", "dan"), deck, cutter="cid")
    b = state.bout
    assert b.hand("cid") == ("AH", "2H", "3H")
    assert b.hand("dan") == ("4H", "5H", "6H")
    assert b.hand("ana") == ("7H", "JH", "QH")
    assert b.hand("ben") == ("KH", "AS", "2S")
    assert b.pile[0] == "3S" and len(b.pile) == 28
    assert b.turn == "cid"
    assert sorted(b.pile + sum(b.hands, ())) == sorted(DECK)


def test_unnamed_cards_are_shuffled_and_the_order_recorded():
    events, state, _ = start(deck=["KH"], seed=5)
    dealt = [e for e in events if e.type == "round_dealt"][0]
    assert sorted(dealt.data["deck"]) == sorted(DECK)
    assert dealt.data["deck"][0] == "KH"
    _, other, _ = start(deck=["KH"], seed=6)
    assert other.bout.deck != state.bout.deck


def test_bad_setup_is_refused():
    with pytest.raises(RuleError):
        start(deck=["KH", "KH"])
    with pytest.raises(RuleError):
        start(deck=["8H"])
    with pytest.raises(RuleError):
        start(cutter="zed")


def test_cutter_random_without_setup_and_passes_left_each_round():
    rng = random.Random(3)
    seats = ["ana", "ben", "cid", "dan"]
    events, state = play_match(SERIES, seats, {s: "heuristic" for s in seats}, rng)
    cutters = [e.data["cutter"] for e in events if e.type == "round_dealt"]
    assert len(cutters) >= 2
    for a, b in zip(cutters, cutters[1:], strict=False):
        assert b == seats[(seats.index(a) + 1) % 4]
    # with no first player given the rules pick one with ctx.rng
    evs = RULES.start(
        Ctx(0.0, random.Random(1)), ("a", "b"), {"decision_s": 120}, None, {}, None, 1
    )
    assert evs[0].data["cutter"] in ("a", "b")


# ---- views and visibility ------------------------------------------------------------------


def test_views_show_each_seat_only_its_own_field():
    events, state, rng = start()
    b = state.bout
    ana = RULES.view(b, Viewer.of_seat("ana"))
    assert ana["hand"] == A1 and set(ana["fields"]) == {"ana"}
    assert cards_in(ana) == set(A1)
    ben = RULES.view(b, Viewer.of_seat("ben"))
    assert ben["hand"] == B1 and cards_in(ben) == set(B1)
    spec = RULES.view(b, SPECTATOR_VIEW)
    assert spec["hand"] is None and cards_in(spec) == set()
    mod = RULES.view(b, MODERATOR_VIEW)
    assert cards_in(mod) == CARDS and mod["pile"] == list(b.pile)
    # a seat that is not seated sees what a spectator sees
    assert cards_in(RULES.view(b, Viewer.of_seat("zed"))) == set()


def test_deal_events_are_redacted():
    events, state, _ = start()
    dealt = next(e for e in events if e.type == "round_dealt")
    assert dealt.visible_to == ()
    assert cards_in(dealt.for_viewer(Viewer.of_seat("ana"))) == set()
    assert cards_in(dealt.for_viewer(SPECTATOR_VIEW)) == set()
    assert cards_in(dealt.for_viewer(MODERATOR_VIEW)) == CARDS
    fields = [e for e in events if e.type == "field_dealt"]
    assert [e.visible_to for e in fields] == [("ana",), ("ben",)]
    assert cards_in(fields[0].for_viewer(Viewer.of_seat("ana"))) == set(A1)
    assert cards_in(fields[0].for_viewer(Viewer.of_seat("ben"))) == set()
    started = next(e for e in events if e.type == "series_started")
    assert cards_in(started.for_viewer(Viewer.of_seat("ana"))) == set()


def test_drawn_card_is_private_until_discarded():
    events, state, rng = start()
    state, events, new = play(state, events, rng, "ana", {"type": "draw"})
    drawn = new[0]
    assert drawn.type == "card_drawn" and drawn.data["card"] == "AC"
    assert drawn.visible_to == ("ana",)
    assert cards_in(drawn.for_viewer(Viewer.of_seat("ben"))) == set()
    assert RULES.view(state.bout, Viewer.of_seat("ana"))["drawn"] == "AC"
    assert RULES.view(state.bout, Viewer.of_seat("ben"))["drawn"] is None
    assert "AC" not in cards_in(RULES.view(state.bout, Viewer.of_seat("ben")))
    assert RULES.view(state.bout, Viewer.of_seat("ben"))["field_counts"]["ana"] == 4
    state, events, new = play(state, events, rng, "ana", {"type": "discard", "card": "AC"})
    assert new[0].visible_to is None
    assert RULES.view(state.bout, SPECTATOR_VIEW)["showrooms"]["ana"] == ["AC"]


def test_duel_reveals_only_the_duelists_fields():
    seats = ("ana", "ben", "cid", "dan")
    deck = A1 + ["KC", "QC", "JC", "5H", "5S", "4S"] + B1 + FILL + ["5C", "6C", "5D", "6D"]
    state, events, rng = to_bidding(seats, deck)
    state, events, _ = play(
        state, events, rng, "ana", {"type": "declare", "tricks": 1, "stones": 3}
    )
    state, events, _ = play(state, events, rng, "ben", {"type": "respond", "answer": "ignore"})
    state, events, new = play(state, events, rng, "dan", {"type": "respond", "answer": "believe"})
    duel = next(e for e in new if e.type == "duel_fought")
    assert duel.visible_to is None
    assert set(duel.data["fields"]) == {"ana", "dan"}
    bout = state.last_bout
    hidden = {"KC", "QC", "JC", "5H", "5S", "4S"}
    others = {"ben": {"KC", "QC", "JC"}, "cid": {"5H", "5S", "4S"}}
    for seat in seats:
        v = RULES.view(bout, Viewer.of_seat(seat))
        seen = cards_in({k: x for k, x in v.items() if k != "revealed_deal"})
        assert set(A1) <= seen and set(B1) <= seen  # both duelists revealed
        for other, cards in others.items():
            if other != seat:
                assert not (cards & seen), (seat, other)
    spectator = RULES.view(bout, SPECTATOR_VIEW)
    assert not (hidden & cards_in({k: x for k, x in spectator.items() if k != "revealed_deal"}))
    ended = new[: new.index(duel) + 1]
    assert not (hidden & cards_in([e.for_viewer(SPECTATOR_VIEW) for e in ended]))
    # then the round's deal is revealed, the whole deck as committed (non-duelists' too)
    reveal = new[new.index(duel) + 1]
    assert reveal.type == "deal_revealed" and reveal.visible_to is None
    assert reveal.data["order"][: len(deck)] == deck
    assert spectator["revealed_deal"] == dict(reveal.data)
    assert verify_deal(reveal.data["commitment"], reveal.data["order"], reveal.data["salt"])
    # team points: ana's side 0 + ... each seat shows its team's stones
    out = RULES.outcome(bout)
    assert out.points["ana"] == out.points["cid"] and out.points["ben"] == out.points["dan"]


def test_rule_errors_do_not_name_hidden_cards():
    state, events, rng = to_bidding()
    b = state.bout
    hidden_from_ana = set(b.hand("ben")) | set(b.pile)
    bad = [
        {"type": "discard", "card": "KH"},
        {"type": "respond", "answer": "believe"},
        {"type": "confirm"},
        {"type": "hijack", "tricks": 3, "stones": 30},
        {"type": "declare", "tricks": 5, "stones": 3},
    ]
    for cmd in bad:
        with pytest.raises(RuleError) as exc:
            SERIES.decide(state, cmd, Ctx(now=1.0, rng=rng, seat="ana"))
        assert not (cards_in(str(exc.value).replace(",", " ").split()) & hidden_from_ana)
    state, events, _ = play(state, events, rng, "ana", {"type": "draw"})
    with pytest.raises(RuleError) as exc:
        SERIES.decide(state, {"type": "discard", "card": "QS"}, Ctx(now=1.0, rng=rng, seat="ana"))
    assert str(exc.value) == "you do not hold QS"


def test_malformed_commands_raise_rule_errors():
    state, events, rng = to_bidding()
    for cmd in (
        {"type": "declare"},
        {"type": "declare", "tricks": None, "stones": None},
        {"type": "declare", "tricks": 1, "stones": 3, "positions": "1"},
        {"type": "declare", "tricks": 1, "stones": 3, "positions": [True]},
        {"type": "declare", "tricks": 1.0, "stones": 3},
        {"type": "declare", "tricks": 1, "stones": 3.0},
        {"type": 5},
        {},
        {"type": "respond", "answer": None},
    ):
        with pytest.raises(RuleError):
            SERIES.decide(state, cmd, Ctx(now=1.0, rng=rng, seat="ana"))
    with pytest.raises(RuleError):
        RULES.decide(state.bout, ["draw"], Ctx(now=1.0, rng=rng, seat="ana"))
    with pytest.raises(RuleError):
        RULES.decide(state.bout, {"type": "draw"}, Ctx(now=1.0, rng=rng, seat=None))
    with pytest.raises(RuleError):
        RULES.decide(None, {"type": "draw"}, Ctx(now=1.0, rng=rng, seat="ana"))


# ---- legal commands ------------------------------------------------------------------------


def test_legal_commands_follow_the_phase():
    events, state, rng = start()
    b = state.bout
    assert RULES.legal_commands(b, "ana") == [{"type": "draw"}]
    assert RULES.legal_commands(b, "ben") == []
    state, events, _ = to_bidding()
    legal = RULES.legal_commands(state.bout, "ana")
    assert legal[0] == {"type": "draw"}
    declares = [c for c in legal if c["type"] == "declare"]
    # 11 stake levels x (1 + 4 + 7 + 8) position choices over 0..3 tricks
    assert len(declares) == 11 * 20
    state, events, _ = play(
        state, events, rng, "ana", {"type": "declare", "tricks": 2, "stones": 24}
    )
    legal = RULES.legal_commands(state.bout, "ben")
    assert {"type": "respond", "answer": "ignore"} in legal
    raises = sorted(c["raise"] for c in legal if "raise" in c and c["answer"] == "believe")
    assert raises == [3, 6]
    hijacks = [c for c in legal if c["type"] == "hijack"]
    assert hijacks and all(c["stones"] > 24 or c["tricks"] > 2 for c in hijacks)
    assert len(hijacks) == 8 * 11 + 12 * 2  # 3 tricks at any stake, or 0..2 tricks for 27 or 30
    # every listed command is accepted
    for cmd in legal:
        SERIES.decide(state, cmd, Ctx(now=2.0, rng=random.Random(0), seat="ben"))
    state, events, _ = play(state, events, rng, "ben", {"type": "hijack", "tricks": 3, "stones": 0})
    legal = RULES.legal_commands(state.bout, "ana")
    assert {"type": "respond", "answer": "ignore"} not in legal
    assert RULES.legal_commands(state.bout, "ben") == []


def test_random_timeout_move_picks_a_kind_first():
    legal = [{"type": "draw"}] + [
        {"type": "declare", "tricks": 0, "stones": s} for s in range(0, 31, 3)
    ]
    rng = random.Random(0)
    draws = sum(random_move(legal, rng)["type"] == "draw" for _ in range(400))
    assert 150 < draws < 250


# ---- clocks ------------------------------------------------------------------------------------


def test_deadlines_and_too_late_commands():
    events, state, rng = start()
    (d,) = RULES.pending(state.bout)
    assert (d.seat, d.kind, d.deadline) == ("ana", "draw", 120.0)
    with pytest.raises(RuleError, match="time"):
        RULES.decide(state.bout, {"type": "draw"}, Ctx(now=120.0, rng=rng, seat="ana"))
    # the series fires the deadline first: the draw is made for ana, recorded as a timeout
    new = SERIES.decide(state, {"type": "timeout"}, Ctx(now=120.0, rng=rng, role="system"))
    assert [e.type for e in new] == ["timed_out", "card_drawn"]
    assert new[0].data == {"seat": "ana", "kind": "draw", "at": 120.0}
    for e in new:
        state = SERIES.evolve(state, e)
    (d,) = RULES.pending(state.bout)
    assert (d.seat, d.kind, d.deadline) == ("ana", "discard", 240.0)
    events, state, rng = start(options={"decision_s": 0})
    assert RULES.pending(state.bout)[0].deadline is None


def test_several_deadlines_fire_in_order_each_from_the_previous():
    events, state, rng = start(options={"decision_s": 10})
    new = SERIES.decide(state, {"type": "timeout"}, Ctx(now=35.0, rng=rng, role="system"))
    timed = [e.data["at"] for e in new if e.type == "timed_out"]
    assert timed == [10.0, 20.0, 30.0]
    for e in new:
        state = SERIES.evolve(state, e)
    assert RULES.pending(state.bout)[0].deadline == 40.0


# ---- outcome and series -------------------------------------------------------------------------


def test_team_series_winners_and_ties_play_on():
    assert RULES.series_winners({"a": 310, "b": 20, "c": 310, "d": 20}, 300) == ("a", "c")
    assert RULES.series_winners({"a": 10, "b": 320, "c": 10, "d": 320}, 300) == ("b", "d")
    assert RULES.series_winners({"a": 299, "b": 20, "c": 299, "d": 20}, 300) == ()
    assert RULES.series_winners({"a": 330, "b": 330, "c": 330, "d": 330}, 300) == ()
    assert RULES.series_winners({"a": 330, "b": 300}, 300) == ("a",)
    assert RULES.series_winners({"a": 30, "b": 300}, 300) == ("b",)


def test_four_player_match_is_won_by_a_whole_team():
    seats = ["ana", "ben", "cid", "dan"]
    for seed in range(4):
        events, state = play_match(
            SERIES, seats, {s: "heuristic" for s in seats}, random.Random(seed)
        )
        assert state.finished
        winners = set(state.winners)
        assert winners in ({"ana", "cid"}, {"ben", "dan"})
        w = sorted(winners)[0]
        assert state.scores[w] >= 300
        assert (
            state.scores["ana"] == state.scores["cid"]
            and state.scores["ben"] == state.scores["dan"]
        )


def test_annulled_round_scores_nothing_and_replays():
    """A round ended by the empty pile: outcome with no winners, all zero."""
    rest = [c for c in DECK if c not in A1 + B1]
    events, state, rng = start(deck=A1 + B1 + rest)
    for k in range(34):
        seat = ("ana", "ben")[k % 2]
        state, events, _ = play(state, events, rng, seat, {"type": "draw"})
        state, events, _ = play(state, events, rng, seat, {"type": "discard", "card": rest[k]})
    assert state.bout.pile == ()
    assert [c["type"] for c in RULES.legal_commands(state.bout, "ana")][:2] == ["draw", "declare"]
    state, events, new = play(state, events, rng, "ana", {"type": "draw"})
    assert new[0].type == "round_annulled"
    out = RULES.outcome(state.last_bout)
    assert out.winners == () and set(out.points.values()) == {0}
    replay = SERIES.fold([Event.from_json(e.to_json()) for e in events])
    assert replay == state


def test_rules_page():
    from pathlib import Path

    page = Path(__file__).parents[3] / "templates" / RULES.rules_template
    text = page.read_text()
    assert text.startswith('{% extends "base.html" %}')
    assert "{% block title %}" in text and "{% block content %}" in text
    assert "<script" not in text and "http" not in text
    assert "<table" in text and "D gets 3X, R gets 0" in text
    for option in RULES.options:
        assert f"<code>{option}</code>" in text
