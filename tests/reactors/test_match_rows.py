"""The match rows a batch's reactors share (reactors.follow.MatchRows) come
from the model the games app registers at start-up: the followers of the log
import nothing of the games."""

import random

import pytest

from games import services
from games.models import Match
from reactors import follow
from reactors.follow import MatchRows


class _Row:
    def __init__(self, stream):
        self.stream = stream


def test_the_games_app_registers_the_match_model():
    assert follow._match_model is Match


@pytest.mark.django_db
def test_the_match_rows_of_a_batch_are_read_from_the_registered_model():
    match = services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(4))
    rows = MatchRows([_Row(match.stream), _Row("show-elsewhere")])
    assert [m.pk for m in rows.of([match.stream, "match-unknown"])] == [match.pk]


def test_without_a_registered_model_a_batch_has_no_match_rows():
    previous = follow.register_match_model(None)
    try:
        assert MatchRows([_Row("match-abc")]).of(["match-abc"]) == []
    finally:
        follow.register_match_model(previous)
