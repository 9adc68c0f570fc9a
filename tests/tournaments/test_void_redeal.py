"""A dispute ruled void_to on a show's finished final, carried out after a
second moderator's approval: its players had read every card at the end, so
the bout the ruling goes back into is dealt afresh, never played on with
the deck they saw."""

import random
import time

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services as match_services
from games.core.protocol import MODERATOR_VIEW, RuleError, Viewer
from games.models import Match
from ratings.demo import play_out
from tournaments import show_services as ss


def _last_bout_version(final) -> int:
    """The first version a void may go back to in the final's last bout."""
    loaded = match_services.load(final)
    last = loaded.state.bout_no - 1
    for v in range(2, loaded.version):
        try:
            state = match_services.state_at_boundary(loaded, v)
        except RuleError:
            continue
        if state.bout is not None and state.bout_no == last:
            return v
    raise AssertionError("no version to go back to in the last bout")


@pytest.mark.django_db
def test_a_ruled_void_of_a_finished_final_deals_the_reopened_bout_afresh():
    users = {n: User.objects.create_user(n) for n in ("ana", "ben", "olga", "mia", "max")}
    stream = ss.create_show(
        name="Final night",
        organizer="olga",
        organizer_id=users["olga"].pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "final_game": "love-me-not", "final_first_to": 2},
        holders={"ana": users["ana"].pk, "ben": users["ben"].pk},
        rng=random.Random(4),
    )
    olga = ss.acting_for(stream, users["olga"])
    for name in ("mia", "max"):
        ss.command(stream, {"type": "appoint_moderator", "username": name}, olga)
    final = Match.objects.get(show_stream=stream, kind="final")
    play_out(final, random.Random(5), now=time.time())
    # the end: ana reads every card, each deal's order among them
    assert match_services.view_for(final, Viewer.of_seat("ana"))["replay"] is True
    seen = {
        e["data"]["commitment"]: e["data"]["order"]
        for e in match_services.history_for(final, Viewer.of_seat("ana"))
        if e["type"] == "deal_revealed"
    }
    v = _last_bout_version(final)
    file = {"target_stream": final.stream, "target_version": v + 1, "text": "misread"}
    ss.command(stream, {"type": "file_dispute", **file}, ss.acting_for(stream, users["ben"]))
    (did,) = ss.load(stream)[0].disputes
    mia, max_ = (ss.acting_for(stream, users[n]) for n in ("mia", "max"))
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, mia)
    ruling = {"ruling": "void_to", "params": {"version": v}, "reason": "misread"}
    ss.command(stream, {"type": "rule_dispute", "dispute_id": did, **ruling}, mia)
    ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, max_)
    final.refresh_from_db()
    assert final.status == "live"
    bout = match_services.view_for(final, MODERATOR_VIEW)["bout"]
    assert bout["commitment"] not in seen
    rest = bout["deck"]
    assert all(rest != order[len(order) - len(rest) :] for order in seen.values())
    types = [r.type for r in read(final.stream)]
    assert types[types.index("match_voided") + 1] == "bout_replayed"
