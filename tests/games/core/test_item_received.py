"""An item granted during a match reaches it as ``item_received``, a system
command: it applies from the next bout to start, which item it is stays the
holder's secret, and it changes nobody's right to choose bout 1's first player."""

import random

import pytest

from games.core.protocol import Ctx, RuleError, Viewer

from .test_series import make, play, start


def receive(series, state, seat, item, role="system"):
    ctx = Ctx(now=2.0, rng=random.Random(0), role=role)
    events = series.decide(state, {"type": "receive_item", "seat": seat, "item": item}, ctx)
    for e in events:
        state = series.evolve(state, e)
    return state, events


def test_an_item_received_mid_bout_applies_from_the_next_bout():
    s = make()
    state, _ = start(s, setup={"first": "ana"})
    assert state.bout is not None and state.bout_no == 0  # bout 1 is on
    state, (event,) = receive(s, state, "ben", "boost")
    assert event.type == "item_received" and event.data["from_bout"] == 2
    assert event.visible_to == ("ben",) and "item" not in event.public
    assert state.items["ben"] == ("boost",)
    assert s.view(state, Viewer.of_seat("ana"))["items"] == {"ana": []}


def test_only_the_platform_hands_a_match_a_known_item_for_a_seated_player():
    s = make()
    state, _ = start(s, setup={"first": "ana"})
    with pytest.raises(RuleError, match="only the platform"):
        receive(s, state, "ben", "boost", role="player")
    with pytest.raises(RuleError, match="'zed' is not seated"):
        receive(s, state, "zed", "boost")
    with pytest.raises(RuleError, match="Duel has no item called 'wand'"):
        receive(s, state, "ben", "wand")


def test_an_advantage_received_while_bout_1_waits_for_its_chooser_changes_no_chooser():
    s = make()
    state, _ = start(s, items={"ben": ["advantage"]})
    assert s.pending(state)[0].seat == "ben"  # ben chooses who starts
    state, (event,) = receive(s, state, "ana", "advantage")
    assert event.data["from_bout"] == 1
    assert [(d.seat, d.kind) for d in s.pending(state)] == [("ben", "choose_first")]
    with pytest.raises(RuleError, match="holder of the advantage"):
        play(s, state, "ana", {"type": "choose_first", "seat": "ana"})
    state, _ = play(s, state, "ben", {"type": "choose_first", "seat": "ana"})
    assert state.bout.order == ("ana", "ben") and state.items["ana"] == ("advantage",)
