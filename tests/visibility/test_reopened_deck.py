"""A void never lets play go on with a deck the players have seen: at a
match's end its players see every card (each deal's order revealed), so a
ruling that reopens a bout they saw whole replays that bout from a fresh
deal; a void inside a bout nobody has seen the end of keeps its deal."""

import random

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, RuleError, Viewer

from .helpers import play_out, seated_match

pytestmark = pytest.mark.django_db


def _players():
    return [User.objects.create_user(n, password="pw-123456") for n in ("ana_user", "ben_user")]


def _seen_deals(match, seat="ana") -> dict[str, list]:
    """commitment -> order of every deal revealed in what ``seat`` may read now."""
    return {
        e["data"]["commitment"]: e["data"]["order"]
        for e in services.history_for(match, Viewer.of_seat(seat))
        if e["type"] == "deal_revealed"
    }


def _back_into(match, bout_no: int) -> int:
    """The first version a void may go back to in bout ``bout_no`` (0: the first)."""
    loaded = services.load(match)
    for v in range(2, loaded.version):
        try:
            state = services.state_at_boundary(loaded, v)
        except RuleError:
            continue
        if state.bout is not None and state.bout_no == bout_no:
            return v
    raise AssertionError(f"no version to go back to in bout {bout_no}")


def _is_fresh(bout: dict, seen: dict[str, list]) -> bool:
    """The live deal is none that was seen, nor is its undealt rest the end of one."""
    rest = bout["deck"]
    return bout["commitment"] not in seen and all(
        rest != order[len(order) - len(rest) :] for order in seen.values()
    )


def test_a_void_after_the_end_replays_the_bout_its_players_saw_from_a_fresh_deal():
    match = seated_match(_players(), seed=5)
    play_out(match)
    # the end: each player reads every card, every deal's order among them
    end = services.view_for(match, Viewer.of_seat("ana"))
    assert end["replay"] is True and end["bout"]["deck"] is not None
    seen = _seen_deals(match)
    last = services.load(match).state
    assert end["bout"]["revealed_deal"]["commitment"] in seen and len(seen) == last.bout_no
    # a ruling goes back into the last bout
    v = _back_into(match, last.bout_no - 1)
    at_v = services.state_at_boundary(services.load(match), v)
    services.void_to(match, v, actor="mia", reason="ruling", rng=random.Random(9))
    match.refresh_from_db()
    assert match.status == "live"
    live = services.view_for(match, MODERATOR_VIEW)
    assert live["scores"] == dict(at_v.scores)  # the bouts before it stand
    assert live["bout"]["turn"] == 1 and _is_fresh(live["bout"], seen)
    mine = services.view_for(match, Viewer.of_seat("ana"))
    assert mine["replay"] is False and mine["bout"]["deck"] is None
    rows = read(match.stream)
    void = max(i for i, r in enumerate(rows) if r.type == "match_voided")
    assert rows[void].data["redeal"] is True and rows[void + 1].type == "bout_replayed"


def test_a_void_into_a_bout_whose_end_was_revealed_redeals_it_and_no_other():
    match = seated_match(_players(), seed=6)
    play_out(match, until=lambda s: s.bout_no == 1 and s.bout is not None and s.bout.turn > 1)
    seen = _seen_deals(match)
    assert len(seen) == 1 and match.status == "live"
    # back into the bout in progress: nobody has seen its end, its deal stands
    current = services.view_for(match, MODERATOR_VIEW)["bout"]["commitment"]
    services.void_to(match, _back_into(match, 1), actor="mia", reason="ruling")
    assert services.view_for(match, MODERATOR_VIEW)["bout"]["commitment"] == current
    assert "redeal" not in read(match.stream)[-1].data
    # back into the first bout, whose deal its end revealed: dealt afresh
    services.void_to(match, _back_into(match, 0), actor="mia", reason="ruling")
    live = services.view_for(match, MODERATOR_VIEW)
    assert live["scores"] == {"ana": 0, "ben": 0} and _is_fresh(live["bout"], seen)
