"""An item granted while its holder plays a match of the show reaches that
match at once (an event in its log), and the game uses it from the match's
next bout: the bout in progress keeps the items it was dealt with. The grant
form and the confirmation say from which bout; played here bout by bout."""

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError, Viewer
from games.models import Match
from tournaments import show_services as ss
from tournaments import shows

from .test_dashboard import act, as_user, make_show, text


@pytest.fixture
def people(db):
    """olga organizes, mia and max moderate, pat's account holds ana (make_show)."""
    return {
        n: User.objects.create_user(n, password="pw-123456") for n in ("olga", "mia", "max", "pat")
    }


def _final(show):
    final = Match.objects.get(show_stream=show.stream, kind="final")
    assert final.status == "live"
    return final


def _state(match):
    return match_services.load(match).state


@pytest.mark.django_db
def test_an_item_granted_mid_match_is_used_from_the_next_bout(client, people):
    show = make_show(people, entrants=["ana", "ben"])
    final = _final(show)
    assert _state(final).bout_no == 0 and _state(final).bout is not None  # bout 1 is on
    as_user(client, people, "mia")
    # the grant form says when an item granted now applies
    page = text(client.get(f"/shows/{show.pk}/dashboard/"))
    assert f"bout 2 of {final} (ana, ben)" in page
    resp = act(
        client, show, action="grant_item", entrant="ana", item="insurance", reason="side quest"
    )
    assert resp.status_code == 302
    page = text(client.get(resp["Location"]))
    assert (
        f"Insurance granted to ana. It reaches {final}, being played now, and applies from "
        "its bout 2 (the bout in progress keeps its items)."
    ) in page
    received = [r for r in read(final.stream) if r.type == "item_received"]
    assert [(r.data["seat"], r.data["item"], r.data["from_bout"]) for r in received] == [
        ("ana", "insurance", 2)
    ]
    # which item it is stays ana's secret (and her moderators')
    lines = {
        h["type"]: h["data"]
        for h in match_services.history_for(final, Viewer.of_seat("ben"))
        if h["type"] == "item_received"
    }
    assert lines == {"item_received": {"seat": "ana", "from_bout": 2, "at": received[0].data["at"]}}

    # bout 1 keeps the items it was dealt with: ana cannot declare it yet
    with pytest.raises(RuleError, match="you do not hold Insurance"):
        match_services.submit(final, "ana", {"type": "use_item", "item": "insurance"})
    match_services.submit(
        final, None, {"type": "award_bout", "winner": "ben", "reason": "r"}, role="moderator"
    )
    state = _state(final)
    assert state.bout_no == 1 and state.bout.items["ana"] == ("insurance",)
    # bout 2: ana declares it; the show records the use and her inventory is empty
    assert state.bout.plays == 0
    match_services.submit(final, "ana", {"type": "use_item", "item": "insurance"})
    assert "ana" in _state(final).bout.insurance
    show_state = ss.load(show.stream)[0]
    assert shows.inventory(show_state, "ana") == ()
    assert [e.type for e in show_state.log].count("item_used") == 1


@pytest.mark.django_db
def test_an_item_the_live_match_may_not_use_waits_for_the_next_match(client, people):
    show = make_show(people, entrants=["ana", "ben"])
    final = _final(show)
    as_user(client, people, "mia")
    resp = act(
        client,
        show,
        action="grant_item",
        entrant="ana",
        item="insurance",
        scope="death_match",
        reason="r",
    )
    page = text(client.get(resp["Location"]))
    assert (
        "Insurance granted to ana. It applies from ana&#x27;s next match: it is for death "
        f"matches only, and {final}, being played now, is not."
    ) in page
    assert "item_received" not in [r.type for r in read(final.stream)]
    assert "insurance" not in _state(final).items["ana"]


@pytest.mark.django_db
def test_the_grant_forms_note_follows_the_bouts(client, people):
    """The live part the dashboard polls carries the grant form's note out of band."""
    show = make_show(people, entrants=["ana", "ben"])
    final = _final(show)
    as_user(client, people, "mia")
    live = text(client.get(f"/shows/{show.pk}/dashboard/live"))
    assert 'id="grant-when" class="muted" hx-swap-oob="true"' in live
    assert f"bout 2 of {final} (ana, ben)" in live
    match_services.submit(
        final, None, {"type": "award_bout", "winner": "ben", "reason": "r"}, role="moderator"
    )
    live = text(client.get(f"/shows/{show.pk}/dashboard/live"))
    assert f"bout 3 of {final} (ana, ben)" in live
