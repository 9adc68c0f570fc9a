"""A move's body is validated by one CommandSerializer's fields, bound once
(games.api.command_body): the same answers as a serializer built per move,
without a deep copy of its fields each time."""

import json

import pytest
from rest_framework import exceptions

from games import api
from games.api import CommandSerializer, command_body

BODIES = [
    {"command": {"type": "play", "card": "1"}, "command_id": "a-1"},
    {"command": {"type": "pass"}},
    {"command": {"type": "play", "cards": ["1", "2"]}, "command_id": ""},
    {"command": {"card": "1"}},  # no type
    {"command": {"type": 7}},
    {"command": "play"},
    {"command": None},
    {"command": {"type": "x", "deep": {"a": {"b": 1}}}},
    {"command": {"type": "x", "n": 1e308}},
    {"command": {"type": "x", "n": "١٢٣"}},  # Unicode digits: a string, bounded
    {"command": {"type": "x" * 10_000}},
    {"command": {"type": "x"}, "command_id": "no spaces allowed"},
    {"command": {"type": "x"}, "command_id": "x" * 65},
    {"command": {"type": "x"}, "command_id": 12},
    {"command_id": "only-an-id"},
    {},
    [],
    "a string",
    None,
]


def _by_a_new_serializer(data):
    body = CommandSerializer(data=data)
    try:
        body.is_valid(raise_exception=True)
    except exceptions.ValidationError as exc:
        return "refused", json.loads(json.dumps(exc.detail))
    return "valid", dict(body.validated_data)


def _by_command_body(data):
    try:
        return "valid", dict(command_body(data))
    except exceptions.ValidationError as exc:
        return "refused", json.loads(json.dumps(exc.detail))


@pytest.mark.parametrize("data", BODIES, ids=range(len(BODIES)))
def test_the_same_answer_as_a_serializer_made_for_the_move(data):
    assert _by_command_body(data) == _by_a_new_serializer(data)


def test_no_field_is_made_again_for_a_move(monkeypatch):
    made = []
    real = CommandSerializer.get_fields
    monkeypatch.setattr(CommandSerializer, "get_fields", lambda self: made.append(1) or real(self))
    assert command_body(BODIES[0])["command"] == {"type": "play", "card": "1"}
    assert made == []
    assert api._COMMAND_BODY.fields["command"].parent is api._COMMAND_BODY
