"""Shows on the platform: a whole show by bots, items used in matches,
disputes carried out on matches and brackets, roles refused."""

import random
import time

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from games.visibility import NotVisibleYet
from tournaments import autopilot, shows
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.models import DisputeRecord, ItemRecord, ShowEntrantRecord, ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay", "gus", "hal"]
ORG = ss.Acting("olga", shows.ORGANIZER)
MOD1 = ss.Acting("mia", shows.MODERATOR)
MOD2 = ss.Acting("max", shows.MODERATOR)
T0 = 1_000_000.0


def show(options=None, entrants=ENTRANTS, rng=None, holders=None):
    rng = rng or random.Random(1)
    stream = ss.create_show(
        name="Demo night",
        organizer="olga",
        entrants=entrants,
        options={
            "death_match_first_to": 1,
            "final_first_to": 1,
            "step_deadline_s": 0,
            "game_pool": ["doubting-love-letter", "love-me-not", "higher-lower"],
            **(options or {}),
        },
        holders=holders if holders is not None else {e: "bot:heuristic" for e in entrants},
        now=T0,
        rng=rng,
    )
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, ORG, now=T0)
    ss.command(stream, {"type": "appoint_moderator", "username": "max"}, ORG, now=T0)
    return stream


def state_of(stream):
    return ss.load(stream)[0]


def dispute_and_rule(stream, target_stream, version, text, ruling, params, reason):
    """A moderator files a dispute against a match event, claims it, rules."""
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": target_stream,
            "target_version": version,
            "text": text,
        },
        MOD1,
        now=T0,
    )
    did = next(iter(state_of(stream).disputes))
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, MOD1, now=T0)
    ss.command(
        stream,
        {
            "type": "rule_dispute",
            "dispute_id": did,
            "ruling": ruling,
            "params": params,
            "reason": reason,
        },
        MOD1,
        now=T0,
    )
    return did


def read_models():
    return (
        list(
            ShowRecord.objects.values(
                "stream", "status", "champion", "round_no", "moderators"
            ).order_by("stream")
        ),
        list(
            ShowEntrantRecord.objects.values("show__stream", "name", "status").order_by(
                "show__stream", "position"
            )
        ),
        list(
            ItemRecord.objects.values(
                "show__stream", "item_id", "holder", "status", "used_in"
            ).order_by("show__stream", "item_id")
        ),
        list(
            DisputeRecord.objects.values("show__stream", "dispute_id", "status", "ruling").order_by(
                "show__stream", "dispute_id"
            )
        ),
        list(Match.objects.values("stream", "status", "winners", "scores").order_by("stream")),
    )


def assert_rebuild_equal():
    before = read_models()
    call_command("rebuild_read_models", stdout=open("/dev/null", "w"))
    assert read_models() == before


@pytest.mark.django_db
def test_eight_entrant_show_runs_by_bots_to_a_champion():
    rng = random.Random(3)
    stream = show(rng=rng)
    autopilot.run(stream, rng, start=T0)
    state = state_of(stream)
    assert state.champion in ENTRANTS
    assert len(shows.eliminated(state)) == 7  # six death matches and the final
    record = ShowRecord.objects.get(stream=stream)
    assert record.status == "finished" and record.champion == state.champion
    # every death match and the final were played as matches on the platform
    matches = Match.objects.filter(show_stream=stream)
    assert matches.filter(kind="death_match").count() == 6
    assert matches.filter(kind="final").count() == 1
    assert not matches.filter(status="live").exists()
    final = matches.get(kind="final")
    assert final.winners == [state.champion]
    assert_rebuild_equal()


@pytest.mark.django_db
def test_items_granted_transferred_used_in_a_match_and_revoked():
    rng = random.Random(5)
    stream = show(rng=rng, options={"game_pool": ["doubting-love-letter"]})

    def inv():
        st = state_of(stream)
        rows = {
            r.item_id: (r.holder, r.status) for r in ItemRecord.objects.filter(show__stream=stream)
        }
        folded = {it.id: (it.holder, it.status) for it in st.items.values()}
        assert rows == folded  # the read model is the fold, after every step
        return st

    def g(who, item, scope="any"):
        return {
            "type": "grant_item",
            "entrant": who,
            "item": item,
            "scope": scope,
            "given_by": "Adalbert",
            "reason": "prize",
        }

    for e in ENTRANTS:
        ss.command(stream, g(e, "insurance", "death_match"), MOD1, now=T0)
    ss.command(stream, g("ana", "plus_one", "final"), MOD1, now=T0)
    with pytest.raises(RuleError):
        ss.command(stream, g("ana", "magic_wand"), MOD1, now=T0)
    with pytest.raises(RuleError, match="moderator"):
        ss.command(stream, g("ana", "plus_one"), ss.Acting("ben", shows.PLAYER), now=T0)
    st = inv()
    ana_items = [it.id for it in shows.inventory(st, "ana")]
    ss.command(
        stream,
        {
            "type": "transfer_item",
            "from": "ana",
            "to": "ben",
            "item_id": ana_items[0],
            "reason": "gift",
        },
        ss.Acting("ana", shows.PLAYER),
        now=T0,
    )
    with pytest.raises(RuleError):
        ss.command(
            stream,
            {"type": "transfer_item", "from": "ben", "to": "cal", "item_id": ana_items[0]},
            ss.Acting("cal", shows.PLAYER),
            now=T0,
        )
    st = inv()
    ss.command(
        stream,
        {"type": "revoke_item", "item_id": ana_items[1], "reason": "rules breach"},
        MOD2,
        now=T0,
    )
    inv()
    # play the show: death matches get the insurance items; uses come back from the matches
    autopilot.run(stream, rng, start=T0)
    st = inv()
    used = [it for it in st.items.values() if it.status == "used"]
    dm_streams = set(
        Match.objects.filter(show_stream=stream, kind="death_match").values_list(
            "stream", flat=True
        )
    )
    assert all(it.used_in in dm_streams for it in used)
    for it in used:  # each use is an item_used event in that match's stream
        assert any(r.type == "item_used" and r.data["seat"] == it.holder for r in read(it.used_in))
    assert_rebuild_equal()


@pytest.mark.django_db
def test_dispute_void_back_to_a_version_and_play_on():
    rng = random.Random(8)
    stream = show(rng=rng, options={"game_pool": ["love-me-not"]})
    for _ in range(40):  # up to the first death match
        if not autopilot.step(stream, rng, now=T0):
            break
    dm = Match.objects.get(show_stream=stream, kind="death_match")
    match_services.run_bots(dm, start=T0, rng=rng, max_moves=3)
    rows = read(dm.stream)
    v = rows[-1].version
    match_services.run_bots(dm, start=T0 + 100, rng=rng, max_moves=2)
    assert read(dm.stream)[-1].version > v
    seat = dm.seats[0]
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": dm.stream,
            "target_version": v + 1,
            "text": "my move was misread",
        },
        ss.Acting(seat, shows.PLAYER),
        now=T0,
    )
    st = state_of(stream)
    did = next(iter(st.disputes))
    with pytest.raises(RuleError):
        ss.command(
            stream,
            {"type": "claim_dispute", "dispute_id": did},
            ss.Acting(seat, shows.PLAYER),
            now=T0,
        )
    ss.command(stream, {"type": "claim_dispute", "dispute_id": did}, MOD1, now=T0)
    with pytest.raises(RuleError):
        ss.command(
            stream,
            {
                "type": "rule_dispute",
                "dispute_id": did,
                "ruling": "void_to",
                "params": {"version": v},
                "reason": "x",
            },
            MOD2,
            now=T0,
        )
    ss.command(
        stream,
        {
            "type": "rule_dispute",
            "dispute_id": did,
            "ruling": "void_to",
            "params": {"version": v},
            "reason": "misread move",
        },
        MOD1,
        now=T0,
    )
    history = match_services.history_for(dm, match_services.MODERATOR_VIEW)
    assert any(e.get("void") for e in history)
    assert any(e["type"] == "match_voided" for e in history)
    # the fold now equals the state at version v, and play goes on from there
    at_v = match_services.fold_rows(dm.game, [r for r in read(dm.stream) if r.version <= v])
    assert match_services.load(dm).state == at_v
    match_services.run_bots(dm, start=T0 + 200, rng=rng)
    dm.refresh_from_db()
    assert dm.status == "finished"
    assert DisputeRecord.objects.get(show__stream=stream, dispute_id=did).status == "ruled"
    assert_rebuild_equal()


@pytest.mark.django_db
def test_overturn_needs_a_second_moderator_and_resets_dependent_bracket_series():
    rng = random.Random(13)
    stream = show(rng=rng)
    cup = bs.create_bracket(
        name="Side cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben", "cal", "dee"],
        holders={e: "bot:heuristic" for e in ["ana", "ben", "cal", "dee"]},
        rng=rng,
    )
    t = T0
    for _ in range(20):
        live = list(Match.objects.filter(show_stream=cup, status="live"))
        if not live:
            break
        for m in live:
            t = match_services.run_bots(m, start=t, rng=rng)
    out = bs.bracket_output(cup)
    r1 = next(s for s in out["series"] if s["id"] == "R1-1")
    final_before = next(s for s in out["series"] if s["round"] == "R2")
    loser = r1["b"] if r1["winner"] == r1["a"] else r1["a"]
    target = Match.objects.get(stream=r1["match_stream"])
    did = dispute_and_rule(
        stream,
        target.stream,
        read(target.stream)[-1].version,
        "the winner's bot misbehaved",
        "overturn_series",
        {"winner": loser},
        "bot misbehaved",
    )
    # nothing changed yet: the new winner awaits a second moderator
    assert Match.objects.get(pk=target.pk).winners == [r1["winner"]]
    assert (
        DisputeRecord.objects.get(show__stream=stream, dispute_id=did).status == "awaiting_approval"
    )
    with pytest.raises(RuleError):
        ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD1, now=T0)
    ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD2, now=T0)
    target.refresh_from_db()
    assert target.winners == [loser]
    out2 = bs.bracket_output(cup)
    assert next(s for s in out2["series"] if s["id"] == "R1-1")["winner"] == loser
    final_after = next(s for s in out2["series"] if s["round"] == "R2")
    assert final_after["winner"] is None and loser in (final_after["a"], final_after["b"])
    assert final_after["match_stream"] != final_before["match_stream"]
    assert Match.objects.get(stream=final_before["match_stream"]).status == "void"
    with pytest.raises(RuleError, match="out of play"):
        old = Match.objects.get(stream=final_before["match_stream"])
        match_services.submit(old, old.seats[0], {"type": "pass"})
    assert_rebuild_equal()


@pytest.mark.django_db
def test_every_role_is_refused_what_it_may_not_do():
    stream = show()
    spectator = ss.Acting("sam", shows.SPECTATOR)
    player = ss.Acting("ana", shows.PLAYER)
    refused = [
        (player, {"type": "enter_ranking", "ranking": [[e] for e in ENTRANTS]}, "organizer"),
        (MOD1, {"type": "appoint_moderator", "username": "zed"}, "organizer"),
        (
            spectator,
            {
                "type": "grant_item",
                "entrant": "ana",
                "item": "insurance",
                "scope": "any",
                "given_by": "x",
                "reason": "x",
            },
            "spectators may only watch",
        ),
        (player, {"type": "claim_dispute", "dispute_id": "d-1"}, "only a moderator"),
        (
            player,
            {"type": "death_match_result", "candidate": "ana", "winner": "ana"},
            "only the system",
        ),
    ]
    for acting, cmd, words in refused:
        with pytest.raises(RuleError, match=words) as err:
            ss.command(stream, cmd, acting, now=T0)
        assert str(err.value)
    # a user who is no one in this show is a spectator
    user = User.objects.create_user("sam", password="pw-123456")
    assert ss.acting_for(stream, user).role == shows.SPECTATOR
    org_user = User.objects.create_user("olga", password="pw-123456")
    assert ss.acting_for(stream, org_user).role == shows.ORGANIZER


@pytest.mark.django_db
def test_show_and_bracket_pages_render(client):
    rng = random.Random(2)
    stream = show(rng=rng)
    autopilot.run(stream, rng, start=T0)
    record = ShowRecord.objects.get(stream=stream)
    resp = client.get(f"/shows/{record.pk}/")
    assert resp.status_code == 200
    assert record.champion.encode() in resp.content
    assert client.get("/shows/").status_code == 200
    assert client.get("/").status_code == 200
    cup = bs.create_bracket(
        name="Cup",
        game="love-me-not",
        format="single",
        entrants=["ana", "ben", "cal"],
        holders={e: "bot:random" for e in ["ana", "ben", "cal"]},
        rng=rng,
    )
    from tournaments.models import BracketRecord

    resp = client.get(f"/shows/brackets/{BracketRecord.objects.get(stream=cup).pk}/")
    assert resp.status_code == 200 and b"(bye)" in resp.content


@pytest.mark.django_db
def test_seed_demo_builds_a_living_show():
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    finished = ShowRecord.objects.get(name__contains="finished")
    assert finished.status == "finished" and finished.champion
    final = Match.objects.get(show_stream=finished.stream, kind="final")
    # the finished final's replay opens to anyone once its end is older than
    # the show's delay (5 minutes), every card revealed; before that, nothing
    with pytest.raises(NotVisibleYet):
        match_services.history_for(final, match_services.SPECTATOR_VIEW)
    later = time.time() + 301
    replay = match_services.history_for(final, match_services.SPECTATOR_VIEW, now=later)
    full = match_services.history_for(final, match_services.MODERATOR_VIEW)
    assert replay == full
    live = ShowRecord.objects.get(name__contains="live")
    assert Match.objects.filter(show_stream=live.stream, kind="death_match", status="live").exists()
    # running it again changes nothing
    n = Match.objects.count()
    call_command("seed_demo", stdout=open("/dev/null", "w"))
    assert Match.objects.count() == n


@pytest.mark.django_db
def test_disqualifying_a_player_in_a_live_death_match():
    rng = random.Random(21)
    stream = show(rng=rng, options={"game_pool": ["love-me-not"]})
    for _ in range(40):
        if not autopilot.step(stream, rng, now=T0):
            break
    dm = Match.objects.get(show_stream=stream, kind="death_match", status="live")
    cheat = dm.seats[0]
    did = dispute_and_rule(
        stream, dm.stream, 3, "collusion", "disqualify", {"entrant": cheat}, "collusion"
    )
    st = state_of(stream)
    if st.disputes[did].status == "awaiting_approval":
        ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD2, now=T0)
        st = state_of(stream)
    dm.refresh_from_db()
    assert dm.status == "finished" and cheat not in dm.winners
    assert st.status[cheat] != "active"
    assert_rebuild_equal()
