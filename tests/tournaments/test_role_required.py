"""A command refused for the caller's role is a RoleRequired, still a
RuleError for every existing caller: the API answers 403, the pages their
403 page; any other refusal stays a 422 or a form error."""

import random

import pytest
from django.urls import reverse

from games.core.protocol import Ctx, RoleRequired, RuleError
from tournaments import dashboard, shows
from tournaments import show_services as ss


def test_the_engine_raises_role_required_for_a_missing_role_only():
    ctx = Ctx(now=0.0, rng=random.Random(1), role="system")
    state = shows.fold(shows.create_show(ctx, "S", "olga", ["ana", "ben", "cal"], {}))
    for command, words in [
        ({"type": "add_round", "actor": "ana", "role": "player"}, "only the organizer may"),
        ({"type": "add_round", "actor": "zed", "role": "spectator"}, "spectators may only watch"),
        (
            {"type": "claim_dispute", "actor": "ana", "role": "player", "dispute_id": "d"},
            "only a moderator",
        ),
        (
            {"type": "give_token", "actor": "olga", "role": "organizer", "to": "ben"},
            "only an entrant",
        ),
        ({"type": "final_linked", "actor": "olga", "role": "organizer"}, "only the system may"),
    ]:
        with pytest.raises(RoleRequired, match=words):
            shows.decide(state, command, ctx)
    assert issubclass(RoleRequired, RuleError)
    # a refusal by a rule, not a role, stays a plain RuleError
    with pytest.raises(RuleError) as refused:
        shows.decide(
            state, {"type": "add_round", "actor": "olga", "role": "organizer", "title": 3}, ctx
        )
    assert not isinstance(refused.value, RoleRequired)


def _refuse_role(*args, **kwargs):
    raise RoleRequired("only the organizer may do this")


def test_the_console_answers_a_role_refusal_with_its_403_page(client, olgas_show, monkeypatch):
    olga, record = olgas_show
    client.force_login(olga)
    monkeypatch.setattr(ss, "command", _refuse_role)
    resp = client.post(
        reverse("console:step", args=[record.pk, "add_round"]), {"add_round-round_title": "R"}
    )
    assert resp.status_code == 403 and "only the organizer may do this" in resp.content.decode()


def test_the_dashboard_answers_a_role_refusal_with_its_403_page(client, olgas_show, monkeypatch):
    olga, record = olgas_show
    client.force_login(olga)
    monkeypatch.setattr(dashboard, "command", _refuse_role)
    resp = client.post(
        f"/shows/{record.pk}/dashboard/act",
        {"action": "revoke_item", "item_id": "item-1", "reason": "x"},
    )
    assert resp.status_code == 403 and "only the organizer may do this" in resp.content.decode()
