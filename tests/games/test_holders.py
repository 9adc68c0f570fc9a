"""One home for "is this holder a bot" and the player keys (games.holders):
the games, the tournaments and the ratings ask it, none keeps a copy."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from games.holders import bot_kind, holder_key, is_bot, row_key
from ratings import identity


@pytest.mark.parametrize(
    ("holder", "bot", "kind", "key"),
    [
        ("bot:level:2", True, "level:2", "bot:level:2"),
        ("bot:heuristic", True, "heuristic", "bot:heuristic"),
        ("bot:", True, "", None),  # a bot of no kind keys nobody
        (7, False, "", "u:7"),
        (True, False, "", None),  # a bool is no user id
        ("ana", False, "", None),
        (None, False, "", None),
        (["bot:x"], False, "", None),
    ],
)
def test_a_holder_is_a_bot_and_keyed_in_one_place(holder, bot, kind, key):
    assert is_bot(holder) is bot
    assert bot_kind(holder) == kind
    assert holder_key(holder) == key


def test_a_holder_row_keys_as_its_log_value():
    assert row_key(SimpleNamespace(bot="level:1", user_id=None)) == "bot:level:1"
    assert row_key(SimpleNamespace(bot="", user_id=3)) == "u:3"
    assert row_key(SimpleNamespace(bot="", user_id=None)) == ""


def test_the_ratings_keys_are_the_games_own():
    assert identity.holder_key is holder_key and identity.is_bot is is_bot
