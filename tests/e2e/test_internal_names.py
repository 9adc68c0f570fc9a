"""The patterns of the internal-names check (tests/e2e/internal_names.py),
which the accessibility sweep runs on every page it visits, in English and
in French (test_accessibility.py, test_accessibility_fr.py)."""

from .internal_names import CARD_CODE, ROUND_ID, SNAKE, internal_tokens


def test_the_walk_sees_an_internal_name():
    """The patterns catch what the issue found on screen, and pass words."""
    internal = internal_tokens()
    for shown in ("enter_ranking", "death_match · bleven", "round_robin", "time_added"):
        assert SNAKE.findall(shown), shown
    assert internal.findall("death match · higher-lower") == ["higher-lower"]
    assert internal.findall("Deck Rigging · deck_rigging · dmo") == ["deck_rigging", "dmo"]
    assert CARD_CODE.findall("Keep 2S, discard 10H") == ["2S", "10H"]
    assert ROUND_ID.findall("Round 1 (r1) · planned; dispute d-3") == ["r1", "d-3"]
    words = "a death match · Higher or Lower · check-in · Keep 2♠ · Europe/Isle_of_Man"
    assert not SNAKE.findall(words) and not internal.findall(words)
    assert not CARD_CODE.findall(words)
    assert not ROUND_ID.findall("Round 1 (round 1) · R1 · dispute no. 3 · 12 r · /r1/ · ada_r1")
