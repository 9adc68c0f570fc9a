"""The moderator's dashboard, played through the Django client: who may open
it, items, clocks, disputes with the two-moderator rule, the audit log, and
a best-of-nine final run from it end to end."""

import random
import re
import time

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services as match_services
from games.core.registry import series_for
from games.models import Match
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee"]


@pytest.fixture
def people(db):
    names = ("olga", "mia", "max", "pat", "staff", "sam")
    u = {n: User.objects.create_user(n, password="pw-123456") for n in names}
    u["staff"].is_staff = u["staff"].is_superuser = True
    u["staff"].save()
    return u


def make_show(people, entrants=ENTRANTS, options=None, rng=None):
    """olga organizes, mia and max moderate, pat's account holds ana."""
    holders = {e: "bot:heuristic" for e in entrants}
    if "ana" in holders:
        holders["ana"] = people["pat"].pk
    stream = ss.create_show(
        name="Dashboard night",
        organizer="olga",
        entrants=entrants,
        options={"step_deadline_s": 0, **(options or {})},
        holders=holders,
        rng=rng or random.Random(1),
    )
    org = ss.Acting("olga", "organizer")
    for name in ("mia", "max"):
        ss.command(stream, {"type": "appoint_moderator", "username": name}, org)
    return ShowRecord.objects.get(stream=stream)


def as_user(client, people, name):
    client.logout()
    if name:
        client.force_login(people[name])
    return client


def act(client, show, **fields):
    return client.post(f"/shows/{show.pk}/dashboard/act", fields)


def state(show):
    return ss.load(show.stream)[0]


def text(resp):
    return resp.content.decode()


@pytest.mark.django_db
def test_only_the_shows_organizer_and_moderators_open_the_dashboard(client, people):
    show = make_show(people)
    url = f"/shows/{show.pk}/dashboard/"
    resp = client.get(url)
    assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    for name, role in (("pat", "player"), ("staff", "spectator"), ("sam", "spectator")):
        resp = as_user(client, people, name).get(url)
        assert resp.status_code == 403
        assert f"a {role} of Dashboard night" in text(resp)
        assert "organizer and moderators" in text(resp)
        # nor may they write through it, nor poll it
        assert (
            act(client, show, action="grant_item", entrant="ben", item="insurance").status_code
            == 403
        )
        assert client.get(url + "live").status_code == 403
    assert "item_granted" not in [ev.type for ev in state(show).log]
    for name in ("olga", "mia", "max"):
        resp = as_user(client, people, name).get(url)
        assert resp.status_code == 200 and "Dashboard night: dashboard" in text(resp)
        assert client.get(url + "live").status_code == 200


@pytest.mark.django_db
def test_a_moderator_grants_an_item_and_the_inventory_shows_it(client, people):
    show = make_show(people)
    as_user(client, people, "mia")
    resp = act(
        client,
        show,
        action="grant_item",
        entrant="ben",
        item="insurance",
        scope="death_match",
        given_by="Adalbert",
        reason="won the side quest",
    )
    assert resp.status_code == 302
    ev = state(show).log[-1]
    assert ev.type == "item_granted"
    assert ev.data["given_by"] == "Adalbert" and ev.data["reason"] == "won the side quest"
    assert ev.data["actor"] == "mia" and ev.data["entrant"] == "ben"
    page = text(client.get(resp["Location"]))
    assert "Insurance granted to ben. It applies from ben&#x27;s next match." in page
    row = re.search(r"<tr><td>ben</td>.*?</tr>", page, re.S).group(0)
    assert "<b>Insurance</b>" in row and "given by Adalbert" in row and "death matches only" in row
    # a refusal shows the service's words and writes nothing
    n = len(state(show).log)
    resp = act(client, show, action="grant_item", entrant="zed", item="insurance", reason="x")
    assert resp.status_code == 400 and "zed is not an active entrant" in text(resp)
    assert len(state(show).log) == n
    # transfer and revoke from the same panel
    item_id = ev.data["item_id"]
    act(
        client,
        show,
        action="transfer_item",
        item_id=item_id,
        **{"from": "ben", "to": "cal"},
        reason="swap",
    )
    assert state(show).items[item_id].holder == "cal"
    act(client, show, action="revoke_item", item_id=item_id, reason="cheating")
    assert state(show).items[item_id].status == "revoked"


@pytest.mark.django_db
def test_pause_resume_and_add_time_need_a_reason(client, people):
    show = make_show(people, entrants=["ana", "ben"], options={"final_first_to": 5})
    final = Match.objects.get(show_stream=show.stream, kind="final")
    as_user(client, people, "max")
    page = text(client.get(f"/shows/{show.pk}/dashboard/live"))
    assert "ana <b>0</b>" in page and "first to 5" in page
    resp = act(client, show, action="pause", match=final.pk, reason="")
    assert resp.status_code == 400 and "give a reason" in text(resp)
    assert not match_services.load(final).state.paused_since
    act(client, show, action="pause", match=final.pk, reason="dispute being looked at")
    assert match_services.load(final).state.paused_since is not None
    assert "clocks paused" in text(client.get(f"/shows/{show.pk}/dashboard/live"))
    resp = act(client, show, action="pause", match=final.pk, reason="again")
    assert resp.status_code == 400 and "the clocks are already paused" in text(resp)
    act(client, show, action="resume", match=final.pk, reason="ruled")
    act(client, show, action="add_time", match=final.pk, seconds="90", reason="network trouble")
    rows = [r for r in read(final.stream) if r.metadata.get("role") == "moderator"]
    assert [(r.type, r.data["reason"]) for r in rows] == [
        ("clock_paused", "dispute being looked at"),
        ("clock_resumed", "ruled"),
        ("time_added", "network trouble"),
    ]
    assert rows[-1].data["seconds"] == 90 and rows[0].metadata["actor"] == "max"
    # a match of another show is not this dashboard's
    other = make_show(people, entrants=["cal", "dee"])
    elsewhere = Match.objects.get(show_stream=other.stream)
    resp = act(client, show, action="pause", match=elsewhere.pk, reason="x")
    assert resp.status_code == 400 and "not a match of this show" in text(resp)


@pytest.mark.django_db
def test_add_time_to_one_seat_from_the_seat_picker(client, people):
    show = make_show(people, entrants=["ana", "ben"], options={"final_first_to": 5})
    final = Match.objects.get(show_stream=show.stream, kind="final")
    as_user(client, people, "mia")
    page = text(client.get(f"/shows/{show.pk}/dashboard/live"))
    assert re.search(r'<select name="seat"[^>]*><option value="">every clock</option>', page)
    assert '<option value="ana">ana</option><option value="ben">ben</option>' in page

    def deadlines():
        state = match_services.load(final).state
        return {d.seat: d.deadline for d in series_for(final.game).pending(state)}

    before = deadlines()
    (deciding,) = before
    waiting = "ben" if deciding == "ana" else "ana"
    act(client, show, action="add_time", match=final.pk, seat=waiting, seconds="90", reason="x")
    assert deadlines() == before  # not the waiting seat's turn: no deadline moves
    act(client, show, action="add_time", match=final.pk, seat=deciding, seconds="45", reason="y")
    assert deadlines()[deciding] == pytest.approx(before[deciding] + 45)
    added = [r.data for r in read(final.stream) if r.type == "time_added"]
    assert [(d["seat"], d["seconds"]) for d in added] == [(waiting, 90), (deciding, 45)]
    resp = act(client, show, action="add_time", match=final.pk, seat="zed", seconds="5", reason="z")
    assert resp.status_code == 400
    assert "zed" in text(resp) and "not seated in this match" in text(resp)
    assert len([r for r in read(final.stream) if r.type == "time_added"]) == 2


@pytest.mark.django_db
def test_a_player_files_a_dispute_from_the_link_on_their_table(client, people):
    show = make_show(people, entrants=["ana", "ben"])
    final = Match.objects.get(show_stream=show.stream, kind="final")
    as_user(client, people, "pat")  # pat holds ana
    page = text(client.get(f"/games/matches/{final.pk}/"))
    link = re.search(r'<a href="(/shows/disputes/file/\d+\?version=(\d+))">Something wrong', page)
    assert link and int(link.group(2)) == final.version
    resp = client.get(link.group(1))
    assert resp.status_code == 302
    assert resp["Location"] == (
        f"/shows/{show.pk}/disputes/file?match={final.pk}&version={final.version}"
    )
    form = text(client.get(resp["Location"]))
    assert f'name="version" min="1" value="{final.version}"' in form
    client.post(resp["Location"], {"match": final.pk, "version": 1, "text": "odd deal"})
    d = state(show).disputes["d-1"]
    assert (d.filed_by, d.target_stream, d.target_version) == ("ana", final.stream, 1)
    # a match outside any show has no such link, and the address says why
    alone = match_services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": people["pat"].pk}
    )
    assert "File a dispute" not in text(client.get(f"/games/matches/{alone.pk}/"))
    resp = client.get(f"/shows/disputes/file/{alone.pk}")
    assert resp.status_code == 404


@pytest.mark.django_db
def test_the_audit_log_filters_by_kind_and_actor(client, people):
    show = make_show(people)
    as_user(client, people, "mia")
    act(client, show, action="grant_item", entrant="ben", item="insurance", reason="quest")
    as_user(client, people, "max")
    act(client, show, action="grant_item", entrant="cal", item="insurance", reason="bounty")
    url = f"/shows/{show.pk}/dashboard/"
    page = text(client.get(url))
    assert "quest" in page and "bounty" in page and "moderator_appointed" in page
    page = text(client.get(url, {"kind": "item_granted", "actor": "max"}))
    audit = page.split('id="audit"')[1]
    assert "bounty" in audit and "quest" not in audit and "moderates the show" not in audit
    audit = text(client.get(url, {"kind": "moderator_appointed"})).split('id="audit"')[1]
    assert "mia moderates the show" in audit and "bounty" not in audit


def seat_account(cup, seat, user):
    """``user``'s account takes ``seat`` in every match of the bracket (the bots
    played it out; the account is what a dispute is filed by)."""
    for m in Match.objects.filter(show_stream=cup):
        m.holders.filter(seat=seat).update(user=user, bot="")


def play_bracket(cup, rng):
    t = time.time()
    for _ in range(20):
        live = list(Match.objects.filter(show_stream=cup, status="live"))
        if not live:
            return
        for m in live:
            t = match_services.run_bots(m, start=t, rng=rng)
    raise AssertionError("the bracket did not finish")


@pytest.mark.django_db
def test_a_player_files_a_dispute_and_an_overturn_waits_for_a_second_moderator(client, people):
    rng = random.Random(13)
    show = make_show(people, rng=rng)
    cup = bs.create_bracket(
        host_show=show.stream,
        organizer_id=show.organizer_id,
        name="Side cup",
        game="higher-lower",
        format="single",
        entrants=ENTRANTS,
        holders={e: "bot:heuristic" for e in ENTRANTS},
        rng=rng,
    )
    play_bracket(cup, rng)
    seat_account(cup, "ana", people["pat"])
    out = bs.bracket_output(cup)
    r1 = next(s for s in out["series"] if s["id"] == "R1-1")  # ana's series
    old_final = next(s for s in out["series"] if s["round"] == "R2")
    loser = r1["b"] if r1["winner"] == r1["a"] else r1["a"]
    target = Match.objects.get(stream=r1["match_stream"])
    last = read(target.stream)[-1].version
    # pat, who holds ana, files from the table's link
    as_user(client, people, "pat")
    url = f"/shows/{show.pk}/disputes/file?match={target.pk}&version={last}"
    assert "File a dispute" in text(client.get(url))
    resp = client.post(url, {"match": target.pk, "version": last, "text": "the bot misbehaved"})
    assert resp.status_code == 200
    assert f"Dispute 1 about {target} (move {last}) filed" in text(resp)
    d = state(show).disputes["d-1"]
    assert (d.filed_by, d.target_stream, d.target_version) == ("ana", target.stream, last)
    # someone not seated and no moderator is refused with the role named
    resp = as_user(client, people, "sam").get(url)
    assert resp.status_code == 403 and "spectator" in text(resp)
    # mia claims and proposes an overturn: confirmed first, then it waits
    as_user(client, people, "mia")
    act(client, show, action="claim_dispute", dispute_id="d-1")
    ruling = {
        "action": "rule_dispute",
        "dispute_id": "d-1",
        "ruling": "overturn_series",
        "winner": loser,
        "reason": "bot misbehaved",
    }
    resp = act(client, show, **ruling)
    assert resp.status_code == 200
    assert f"Confirm the ruling on dispute 1 about {target} (move {last})" in text(resp)
    assert state(show).disputes["d-1"].status == "claimed"  # nothing submitted yet
    resp = act(client, show, **ruling, confirmed="yes")
    assert state(show).disputes["d-1"].status == "awaiting_approval"
    page = text(client.get(resp["Location"]))
    assert "waiting for a second moderator" in page
    # the ruling's parameters in words, never as a Python dict
    assert f"the winner: {loser}" in page and "{&#x27;winner" not in page
    assert Match.objects.get(pk=target.pk).winners == [r1["winner"]]
    resp = act(client, show, action="approve_ruling", dispute_id="d-1")
    assert resp.status_code == 400 and "cannot approve your own ruling" in text(resp)
    # max approves: the series result changes and the bracket's final resets
    as_user(client, people, "max")
    act(client, show, action="approve_ruling", dispute_id="d-1", reason="agreed")
    assert state(show).disputes["d-1"].status == "ruled"
    assert Match.objects.get(pk=target.pk).winners == [loser]
    out2 = bs.bracket_output(cup)
    assert next(s for s in out2["series"] if s["id"] == "R1-1")["winner"] == loser
    new_final = next(s for s in out2["series"] if s["round"] == "R2")
    assert new_final["winner"] is None and loser in (new_final["a"], new_final["b"])
    assert Match.objects.get(stream=old_final["match_stream"]).status == "void"


@pytest.mark.django_db
def test_a_best_of_nine_final_run_from_the_dashboard(client, people):
    rng = random.Random(5)
    show = make_show(people, entrants=["ana", "ben"], options={"final_first_to": 5}, rng=rng)
    final = Match.objects.get(show_stream=show.stream, kind="final")
    for h in final.holders.all():  # bots on both seats: the moderators run it
        h.user_id, h.bot = None, "heuristic"
        h.save()
    as_user(client, people, "mia")
    dash = f"/shows/{show.pk}/dashboard/"
    assert f'href="/games/matches/{final.pk}/"' in text(client.get(dash))
    # the page offers the opening; its button shows every card, and that is recorded
    assert f'action="/games/matches/{final.pk}/open"' in text(
        client.get(f"/games/matches/{final.pk}/")
    )
    assert not any(ev.type == "match_viewed_omnisciently" for ev in state(show).log)
    assert client.post(f"/games/matches/{final.pk}/open").status_code == 302
    assert any(ev.type == "match_viewed_omnisciently" for ev in state(show).log)
    match_services.play_bots(final, max_moves=6, rng=rng)
    act(client, show, action="pause", match=final.pk, reason="ana disputes a reveal")
    version = read(final.stream)[-1].version
    resp = client.post(
        f"/shows/{show.pk}/disputes/file",
        {"match": final.pk, "version": version, "text": "the reveal looked wrong"},
    )
    assert f"Dispute 1 about {final} (move {version}) filed" in text(resp)
    act(client, show, action="claim_dispute", dispute_id="d-1")
    act(
        client,
        show,
        action="rule_dispute",
        dispute_id="d-1",
        ruling="replay_bout",
        reason="replay from a new deal",
        confirmed="yes",
    )
    assert state(show).disputes["d-1"].status == "ruled"
    assert any(r.type == "bout_replayed" for r in read(final.stream))
    act(client, show, action="resume", match=final.pk, reason="ruled: replay")
    match_services.run_bots(final, start=time.time(), rng=rng)
    final.refresh_from_db()
    assert final.status == "finished" and max(final.scores.values()) == 5
    champion = state(show).champion
    assert champion == final.winners[0]
    live = text(client.get(dash + "live"))
    assert (
        f"Champion: <b>{champion}</b>" in live and "No match of this show is being played" in live
    )
    audit = text(client.get(dash)).split('id="audit"')[1]
    for kind in ("match_viewed_omnisciently", "clock_paused", "ruling_applied", "clock_resumed"):
        assert kind in audit


@pytest.mark.django_db
def test_the_moderate_link_lists_only_the_shows_one_moderates(client, people):
    show = make_show(people)
    assert client.get("/shows/dashboards/").status_code == 302
    page = as_user(client, people, "max").get("/shows/dashboards/").content.decode()
    assert f'href="/shows/{show.pk}/dashboard/"' in page and 'href="/shows/dashboards/"' in page
    page = as_user(client, people, "staff").get("/shows/dashboards/").content.decode()
    assert "Dashboard night" not in page and "You organize or moderate no show" in page


@pytest.mark.django_db
def test_an_item_granted_during_a_match_says_when_it_applies(client, people):
    """The match being played gets it from its next bout: the moderator is
    told which (tests/dashboard/test_items_mid_match.py plays it)."""
    show = make_show(people, entrants=["ana", "ben"])
    final = Match.objects.get(show_stream=show.stream, kind="final")
    assert final.status == "live"
    as_user(client, people, "mia")
    resp = act(
        client, show, action="grant_item", entrant="ana", item="insurance", reason="side quest"
    )
    page = text(client.get(resp["Location"]))
    assert (
        f"Insurance granted to ana. It reaches {final}, being played now, and applies from "
        "its bout 2 (the bout in progress keeps its items)."
    ) in page


@pytest.mark.django_db
def test_a_moderator_reaches_dispute_filing_by_a_link(client, people):
    show = make_show(people, entrants=["ana", "ben"])
    final = Match.objects.get(show_stream=show.stream, kind="final")
    as_user(client, people, "mia")
    page = text(client.get(f"/shows/{show.pk}/dashboard/"))
    link = f"/shows/{show.pk}/disputes/file?match={final.pk}"
    assert f'href="{link}"' in page
    assert client.get(link).status_code == 200
