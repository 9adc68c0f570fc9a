"""A player cannot freeze another match's clock by sending a move under the
command id the clock will use for that match's timeout."""

import random

import pytest
from django.contrib.auth.models import User

from clocks.enforce import enforce_match
from eventlog.store import read
from games import services
from games.core.registry import series_for

FAST_DLL = {"decision_s": 1, "reserve_s": 2, "reserve_step_s": 1, "first_to": 1}


@pytest.mark.django_db
def test_a_forged_timeout_id_from_another_match_does_not_stop_the_clock(client):
    t0 = 1_000_000.0
    victim = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options=FAST_DLL,
        setup={"first": "ana"},
        rng=random.Random(1),
        now=t0,
    )
    deadline = victim.next_deadline.timestamp()
    mallory = User.objects.create_user("mallory", password="pw-123456")
    own = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": mallory.pk}, rng=random.Random(4)
    )
    client.force_login(mallory)
    forged = [f"timeout:{victim.stream}:{deadline:.3f}", f"s:timeout:{deadline:.3f}"]
    for cid in forged:
        state = services.load(own).state
        seat = next(d.seat for d in series_for(own.game).pending(state))
        if seat != "ana":
            break
        command = series_for(own.game).rules.legal_commands(state.bout, "ana")[0]
        resp = client.post(
            f"/api/matches/{own.pk}/commands",
            {"command": command, "command_id": cid},
            content_type="application/json",
        )
        assert resp.status_code in (201, 400), resp.content
    assert enforce_match(victim.pk, now=deadline + 0.5) >= 1
    assert [r.type for r in read(victim.stream)].count("timed_out") == 1
    victim.refresh_from_db()
    assert victim.status == "finished"
    # the same deadline enforced again (the sweep after the armed task) writes nothing
    assert enforce_match(victim.pk, now=deadline + 1) == 0


@pytest.mark.django_db
def test_a_timeout_enforced_twice_counts_as_written_once(caplog):
    """The armed task and the sweep both fire one deadline: the second one
    replays the first's command id, writes nothing and says so (returns 0),
    so the clock loop never logs events it did not write."""
    from games.models import Match

    t0 = 1_000_000.0
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options=FAST_DLL,
        setup={"first": "ana"},
        rng=random.Random(1),
        now=t0,
    )
    stale = Match.objects.filter(pk=match.pk).values("status", "next_deadline").get()
    assert enforce_match(match.pk, now=t0 + 5) >= 1
    # the second enforcer read the match before the first one committed
    Match.objects.filter(pk=match.pk).update(**stale)
    with caplog.at_level("ERROR", logger="clocks.enforce"):
        assert enforce_match(match.pk, now=t0 + 5) == 0
    assert [r.type for r in read(match.stream)].count("timed_out") == 1
    assert "still due" in caplog.text  # the stale read model is reported, not hidden
