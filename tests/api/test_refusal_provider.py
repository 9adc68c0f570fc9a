"""The error handler knows the rules' refusals only through what the games
app registers at start-up (api.exceptions.register_refusals): a RuleError is
a 422 and a RoleRequired a 403, in the reader's words; without the games
registered, nothing is a refusal of the rules."""

from api import exceptions
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal


def test_the_games_app_registers_its_refusals_and_their_words():
    registered = exceptions._refusals
    assert registered.rule == (RuleError,) and registered.role == (RoleRequired,)
    assert registered.words is refusal
    role = exceptions.handle(RoleRequired("only a seated player can play"), {})
    assert (role.status_code, role.data["code"]) == (403, "permission_denied")
    rule = exceptions.handle(RuleError("the match is over"), {})
    assert rule.status_code == 422
    assert rule.data == {"code": "rule", "message": "the match is over"}


def test_without_the_games_a_rule_error_is_left_to_django():
    previous = exceptions.register_refusals(exceptions.Refusals(rule=(), role=(), words=str))
    try:
        assert exceptions.handle(RuleError("the match is over"), {}) is None
    finally:
        exceptions.register_refusals(previous)
