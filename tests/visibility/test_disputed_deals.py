"""A finished match whose result is not settled (a dispute open against it)
keeps its full replay closed to spectators, and with it every deal's order
and salt: its view, history and exports say no more than the closed replay.
Once the dispute is ruled, all of it opens."""

import random
import time

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games.models import Match
from ratings.demo import play_out
from tournaments import show_services as ss
from tournaments.models import ShowRecord

pytestmark = pytest.mark.django_db


def _final_played():
    """A two-entrant show (no delay) whose final is over: (show stream, final, users)."""
    users = {n: User.objects.create_user(n, password="pw-123456") for n in ("ana", "ben", "olga")}
    stream = ss.create_show(
        name="Final night",
        organizer="olga",
        organizer_id=users["olga"].pk,
        entrants=["ana", "ben"],
        options={
            "step_deadline_s": 0,
            "spectator_delay_s": 0,
            "final_game": "love-me-not",
            "final_first_to": 2,
            "game_pool": ["love-me-not", "higher-lower", "bleven"],
        },
        holders={"ana": users["ana"].pk, "ben": users["ben"].pk},
        rng=random.Random(2),
    )
    final = Match.objects.get(show_stream=stream, kind="final")
    play_out(final, random.Random(3), now=time.time())
    final.refresh_from_db()
    assert final.status == "finished"
    return stream, final, users


def _spectator_reads(client, final) -> tuple[dict, str]:
    """What an anonymous visitor gets of the final: its view, and every body
    (view, history, the match's and the show's exports, its page) as text."""
    record = ShowRecord.objects.get(stream=final.show_stream)
    urls = [
        f"/api/matches/{final.pk}/",
        f"/api/matches/{final.pk}/history",
        f"/api/matches/{final.pk}/export",
        f"/api/shows/{record.pk}/export",
        f"/games/matches/{final.pk}/",
    ]
    bodies = [client.get(u) for u in urls]
    assert all(b.status_code == 200 for b in bodies)
    return bodies[0].json(), "\n".join(b.content.decode() for b in bodies)


def test_a_disputed_final_holds_back_its_deals_as_its_replay(client):
    stream, final, users = _final_played()
    deals = [r.data for r in read(final.stream) if r.type == "deal_revealed"]
    assert len(deals) >= 2  # a bout's reveal before the last one's
    ss.command(
        stream,
        {"type": "file_dispute", "target_stream": final.stream, "target_version": 3, "text": "?"},
        ss.acting_for(stream, users["ben"]),
    )
    assert client.get(f"/games/matches/{final.pk}/replay/").status_code == 403
    view, seen = _spectator_reads(client, final)
    assert view["replay"] is False and view["bout"]["revealed_deal"] is None
    assert '"deal_revealed"' not in seen
    for deal in deals:
        assert deal["salt"] not in seen
    # ruled (dismissed): the result settles, the replay opens, and the deals with it
    olga = ss.acting_for(stream, users["olga"])
    (did,) = ss.load(stream)[0].disputes
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, olga)
    ss.command(
        stream,
        {
            "type": "rule_dispute",
            "dispute_id": did,
            "ruling": "dismiss",
            "params": {},
            "reason": "ok",
        },
        olga,
    )
    assert client.get(f"/games/matches/{final.pk}/replay/").status_code == 200
    view, opened = _spectator_reads(client, final)
    assert view["replay"] is True and view["bout"]["revealed_deal"] == deals[-1]
    for deal in deals:
        assert deal["salt"] in opened
