"""The visibility policy, played: who sees which view of a match, and as of when."""

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services, visibility
from games.core.adapt import redact
from games.core.protocol import (
    EVERY_SEAT_VIEW,
    MODERATOR_VIEW,
    SEAT,
    SPECTATOR_VIEW,
    RuleError,
    Viewer,
)
from games.core.registry import series_for
from games.visibility import NotVisibleYet

from .helpers import bot_match, play_out, seated_match

pytestmark = pytest.mark.django_db


def users(*names, **kw):
    return [User.objects.create_user(n, password="pw-123456", **kw) for n in names]


def public_at(match, cut, viewer=SPECTATOR_VIEW):
    """What the policy must give a spectator: the fold of the rows recorded
    at or before ``cut``, seen as ``viewer``."""
    rows = [r for r in read(match.stream) if r.recorded_at.timestamp() <= cut]
    view = series_for(match.game).view(services.fold_rows(match.game, rows), viewer)
    return rows, view


def test_a_seated_player_sees_their_own_seat_live_and_spectators_wait(client, at):
    ana, ben = users("ana_user", "ben_user")
    match = seated_match([ana, ben], spectator_delay_s=300)
    rows = read(match.stream)
    assert services.viewer_for(match, ana) == Viewer.of_seat("ana")
    mine = services.view_for(match, Viewer.of_seat("ana"))
    state = services.load(match).state
    assert mine["version"] == rows[-1].version
    assert mine["bout"] == series_for(match.game).view(state, Viewer.of_seat("ana"))["bout"]
    assert mine["bout"] != series_for(match.game).view(state, MODERATOR_VIEW)["bout"]
    # a spectator, anonymous or not, sees nothing of it for five minutes
    with pytest.raises(NotVisibleYet):
        services.view_for(match, SPECTATOR_VIEW)
    resp = client.get(f"/api/matches/{match.pk}/")
    assert resp.status_code == 404 and "300 s late" in resp.json()["message"]
    client.force_login(ana)
    assert client.get(f"/api/matches/{match.pk}/").json()["version"] == rows[-1].version
    assert client.get("/api/matches/").json()[0]["stream"] == match.stream
    client.logout()
    assert client.get("/api/matches/").json() == []
    at(rows[-1].recorded_at.timestamp() + 300)
    assert [m["stream"] for m in client.get("/api/matches/").json()] == [match.stream]


def test_staff_alone_sees_and_moderates_nothing_more_than_a_spectator(client):
    (staff,) = users("staff", is_staff=True)
    match = bot_match(moves=6)
    client.force_login(staff)
    assert services.viewer_for(match, staff) == SPECTATOR_VIEW
    got = client.get(f"/api/matches/{match.pk}/").json()
    assert got == services.view_for(match, SPECTATOR_VIEW)
    assert got["bout"] != services.view_for(match, MODERATOR_VIEW)["bout"]
    resp = client.post(
        f"/api/matches/{match.pk}/moderate",
        {"type": "pause", "reason": "x"},
        content_type="application/json",
    )
    assert resp.status_code == 403 and "moderator of this match" in resp.json()["message"]


def test_moderators_named_at_creation_see_everything_live(client):
    mod, other = users("mod", "other")
    match = bot_match(moves=6, moderators=[mod.pk], spectator_delay_s=300)
    client.force_login(mod)
    got = client.get(f"/api/matches/{match.pk}/").json()
    assert got == services.view_for(match, MODERATOR_VIEW)
    assert got["version"] == read(match.stream)[-1].version
    client.force_login(other)
    assert client.get(f"/api/matches/{match.pk}/").status_code == 404


def test_a_deleted_and_reused_username_inherits_nothing(client):
    mia, pat, ben = users("mia", "pat", "ben_user")
    match = seated_match([pat, ben], moderators=[mia.pk], spectator_delay_s=300)
    assert services.viewer_for(match, mia) == MODERATOR_VIEW
    assert services.viewer_for(match, pat) == Viewer.of_seat("ana")
    mia.delete()
    pat.delete()
    new_mia, new_pat = users("mia", "pat")
    assert services.viewer_for(match, new_mia) == SPECTATOR_VIEW
    assert services.viewer_for(match, new_pat) == SPECTATOR_VIEW
    client.force_login(new_mia)
    assert client.get(f"/api/matches/{match.pk}/").status_code == 404
    resp = client.post(
        f"/api/matches/{match.pk}/moderate",
        {"type": "pause", "reason": "x"},
        content_type="application/json",
    )
    assert resp.status_code == 403


def test_a_spectator_sees_the_match_exactly_as_of_now_minus_the_delay(client, at):
    match = bot_match(spectator_delay_s=60)
    rows = read(match.stream)
    # the last moment before the end (one command's events share a time on PostgreSQL)
    before_end = [r for r in rows if r.recorded_at < rows[-1].recorded_at][-1]
    for row in (rows[1], rows[len(rows) // 2], before_end):
        cut = row.recorded_at.timestamp()
        at(cut + 60)
        seen, expected = public_at(match, cut)
        got = client.get(f"/api/matches/{match.pk}/").json()
        assert got["version"] == seen[-1].version < rows[-1].version
        assert got["replay"] is False and got["delayed_s"] == 60
        assert {k: got[k] for k in expected} == expected
        history = client.get(f"/api/matches/{match.pk}/history").json()["events"]
        assert [e["version"] for e in history] == [
            r.version for r in seen if redact(r, SPECTATOR_VIEW) is not None
        ]
        assert "holders" not in history[0]["data"] and "moderators" not in history[0]["data"]
        (line,) = client.get("/api/matches/").json()
        assert line["version"] == seen[-1].version and line["status"] == "live"
        assert line["scores"] == expected["scores"]


def test_the_replay_opens_to_players_at_the_end_and_to_spectators_after_the_delay():
    ana, ben = users("ana_user", "ben_user")
    match = seated_match([ana, ben], spectator_delay_s=60)
    play_out(match)
    rows = read(match.stream)
    end = rows[-1].recorded_at.timestamp()
    # a cut inside the match (a whole match can be played within 0.1 s)
    middle = rows[len(rows) // 2].recorded_at.timestamp()
    assert middle < end
    full = services.view_for(match, MODERATOR_VIEW)
    mine = services.view_for(match, services.viewer_for(match, ana))
    assert mine["replay"] is True and mine["bout"] == full["bout"]
    assert services.history_for(match, Viewer.of_seat("ana")) == services.history_for(
        match, MODERATOR_VIEW
    )
    early = services.view_for(match, SPECTATOR_VIEW, now=middle + 60)
    assert early["replay"] is False and early["bout"] != full["bout"]
    late = services.view_for(match, SPECTATOR_VIEW, now=end + 60)
    assert late["replay"] is True and late["bout"] == full["bout"]
    assert services.history_for(match, SPECTATOR_VIEW, now=end + 60) == services.history_for(
        match, MODERATOR_VIEW
    )


def test_a_reopened_series_closes_the_replay_again():
    ana, ben = users("ana_user", "ben_user")
    match = seated_match([ana, ben])
    play_out(match)
    rows = read(match.stream)
    scored = max(r.version for r in rows if r.type == "bout_scored")
    services.record_platform_event(
        match,
        "match_voided",
        {"from_version": scored, "to_version": rows[-1].version, "reason": "ruling"},
        actor="mia",
        role="moderator",
    )
    match.refresh_from_db()
    assert match.status == "live"
    later = rows[-1].recorded_at.timestamp() + 3600
    for viewer in (SPECTATOR_VIEW, Viewer.of_seat("ana")):
        view = services.view_for(match, viewer, now=later)
        assert view["replay"] is False
        assert view["bout"] != services.view_for(match, MODERATOR_VIEW)["bout"]


def test_a_show_match_replay_waits_for_a_settled_result(fake_shows):
    show = fake_shows.add("fake-show-x", delay=0)
    match = bot_match(show_stream=show)
    fake_shows.unsettled.add(match.stream)
    assert services.view_for(match, SPECTATOR_VIEW)["replay"] is False
    fake_shows.unsettled.clear()
    assert services.view_for(match, SPECTATOR_VIEW)["replay"] is True


def test_show_policy_everything_gives_spectators_every_seats_view_as_of_the_delay(
    fake_shows,
):
    show = fake_shows.add("fake-show-x", delay=30, policy="everything")
    match = bot_match(show_stream=show, moves=8)
    rows = read(match.stream)
    cut = rows[len(rows) // 2].recorded_at.timestamp()
    seen, expected = public_at(match, cut, EVERY_SEAT_VIEW)
    got = services.view_for(match, SPECTATOR_VIEW, now=cut + 30)
    assert got["version"] == seen[-1].version and got["bout"] == expected["bout"]
    # every hand, but not the moderators' deck
    assert None not in got["bout"]["hands"].values() and got["bout"]["deck"] is None


def test_a_moderator_sees_a_live_show_match_as_a_spectator_until_they_open_it(client, fake_shows):
    olga, mia, sam = users("olga", "mia", "sam")
    show = fake_shows.add("fake-show-x", organizer=[olga.pk], moderators=[mia.pk], delay=0)
    match = bot_match(show_stream=show, moves=4)
    hidden = services.view_for(match, SPECTATOR_VIEW)
    for who in (sam, mia, olga):
        client.force_login(who)
        assert client.get(f"/api/matches/{match.pk}/").json() == hidden
        client.get(f"/api/matches/{match.pk}/history")
    assert fake_shows.opened == []  # a read writes nothing
    client.force_login(sam)
    assert (
        client.post(f"/api/matches/{match.pk}/open", content_type="application/json").status_code
        == 403
    )
    client.force_login(mia)
    assert (
        client.post(f"/api/matches/{match.pk}/open", content_type="application/json").status_code
        == 201
    )
    assert fake_shows.opened == [(show, mia.pk, match.stream)]
    assert client.get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "moderator"
    client.force_login(olga)  # mia's opening is hers alone
    assert client.get(f"/api/matches/{match.pk}/").json()["viewer"]["kind"] == "spectator"
    # a finished match is a replay, open to its moderators without an opening
    finished = bot_match(show_stream=show)
    assert client.get(f"/api/matches/{finished.pk}/").json()["viewer"]["kind"] == "moderator"
    assert (
        client.post(f"/api/matches/{finished.pk}/open", content_type="application/json").status_code
        == 200
    )
    assert len(fake_shows.opened) == 1


def test_a_match_outside_any_show_defaults_to_no_delay():
    match = bot_match(moves=3)
    assert visibility.match_facts(match).spectator_delay_s == 0
    assert services.view_for(match, SPECTATOR_VIEW)["version"] == read(match.stream)[-1].version


def test_spectator_view_kind_is_never_a_seat_for_a_logged_in_stranger():
    (sam,) = users("sam")
    match = bot_match(moves=3)
    assert services.viewer_for(match, sam).kind != SEAT


def test_a_bad_spectator_delay_is_refused_and_writes_nothing():
    with pytest.raises(RuleError, match="spectator_delay_s"):
        services.create_match("love-me-not", ["ana", "ben"], spectator_delay_s=-1)
    assert not services.Match.objects.exists()
