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


@pytest.mark.django_db
def test_the_first_reactor_to_ask_gets_the_matches_it_asked_for_not_the_whole_batch():
    """A batch holds appends of two matches; the live reactor, handed one
    append, asks first: it gets that match only (it used to get the batch's
    every match and fail on the other's stream: "could not announce versions",
    a KeyError, and that append went unannounced)."""
    one, two = (
        services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(i)) for i in (4, 5)
    )
    rows = MatchRows([_Row(one.stream), _Row(two.stream)])
    assert [m.pk for m in rows.of([two.stream])] == [two.pk]
    assert [m.pk for m in rows.of([one.stream])] == [one.pk]  # the batch read once, kept
    assert sorted(m.pk for m in rows.of([one.stream, two.stream])) == sorted([one.pk, two.pk])


@pytest.mark.django_db
def test_one_append_of_a_batch_of_two_matches_is_announced_without_an_error(monkeypatch, caplog):
    from eventlog.store import read
    from live import publisher

    one, two = (
        services.create_match("love-me-not", ["ana", "ben"], rng=random.Random(i)) for i in (6, 7)
    )
    sent = []
    monkeypatch.setattr(publisher, "get_channel_layer", lambda: object())
    monkeypatch.setattr(publisher, "send", lambda layer, sends: sent.extend(sends))
    batch = read(one.stream) + read(two.stream)
    publisher.announce_after_append(read(one.stream), MatchRows(batch))
    assert "could not announce" not in caplog.text
    assert sent and {group.split(".")[0] for group, _ in sent} == {f"match-{one.pk}"}
