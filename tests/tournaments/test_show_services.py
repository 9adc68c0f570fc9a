"""Shows on the platform: a whole show by bots, items used in matches,
disputes carried out on matches and brackets, roles refused."""

import random

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import autopilot, shows
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.bot_steps import held
from tournaments.models import DisputeRecord, ItemRecord, ShowEntrantRecord, ShowRecord
from tournaments.selectors import is_show_moderator

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay", "gus", "hal"]
ORG = ss.Acting("olga", shows.ORGANIZER)
MOD1 = ss.Acting("mia", shows.MODERATOR)
MOD2 = ss.Acting("max", shows.MODERATOR)
T0 = 1_000_000.0


def show(options=None, entrants=ENTRANTS, rng=None, holders=None):
    """A show organized by olga's account, with mia and max (accounts) moderating."""
    rng = rng or random.Random(1)
    for name in ("olga", "mia", "max"):
        User.objects.get_or_create(username=name)
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
    dispute = {
        "type": "file_dispute",
        "target_stream": dm.stream,
        "target_version": v + 1,
        "text": "my move was misread",
    }
    # a bot holds that seat: an entrant's name alone files nothing
    with pytest.raises(RuleError, match="only a player seated in that match"):
        ss.command(stream, dispute, ss.Acting(seat, shows.PLAYER), now=T0)
    assert not state_of(stream).disputes
    ss.command(stream, dispute, MOD1, now=T0)
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
        host_show=stream,
        organizer_id=User.objects.get(username="olga").pk,
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
def test_a_void_that_reopens_a_bracket_series_reopens_it_in_the_bracket():
    rng = random.Random(13)
    stream = show(rng=rng)
    names = ["ana", "ben", "cal", "dee"]
    cup = bs.create_bracket(
        host_show=stream,
        organizer_id=User.objects.get(username="olga").pk,
        name="Side cup",
        game="higher-lower",
        format="single",
        entrants=names,
        holders={e: "bot:heuristic" for e in names},
        rng=rng,
    )
    t = play_bracket(cup, rng, T0)
    out = bs.bracket_output(cup)
    assert out["champion"] is not None
    r1 = next(s for s in out["series"] if s["id"] == "R1-1")
    final_before = next(s for s in out["series"] if s["round"] == "R2")
    target = Match.objects.get(stream=r1["match_stream"])
    rows = read(target.stream)
    first_move = next(r.version for r in rows if r.data.get("seat"))
    did = dispute_and_rule(
        stream,
        target.stream,
        rows[-1].version,
        "the bouts after the first move were dealt from a bad deck",
        "void_to",
        {"version": first_move},
        "bad deck",
    )
    ss.command(stream, {"type": "approve_ruling", "dispute_id": did}, MOD2, now=T0)
    target.refresh_from_db()
    assert target.status == "live"
    # the bracket takes the result back: the series is pending on the same match,
    # and the final that depended on it is reset and its match taken out of play
    out2 = bs.bracket_output(cup)
    assert out2["champion"] is None
    r1_after = next(s for s in out2["series"] if s["id"] == "R1-1")
    assert r1_after["winner"] is None and r1_after["match_stream"] == target.stream
    assert not any(s["round"] == "R2" for s in out2["series"])
    assert Match.objects.get(stream=final_before["match_stream"]).status == "void"
    # the reopened series plays on and the bracket runs to a champion again
    play_bracket(cup, rng, t)
    out3 = bs.bracket_output(cup)
    assert out3["champion"] is not None
    final_after = next(s for s in out3["series"] if s["round"] == "R2")
    assert final_after["match_stream"] != final_before["match_stream"]
    assert_rebuild_equal()


def play_bracket(cup, rng, t):
    for _ in range(20):
        live = list(Match.objects.filter(show_stream=cup, status="live"))
        if not live:
            return t
        for m in live:
            t = match_services.run_bots(m, start=t, rng=rng)
    raise AssertionError("the bracket did not finish")


@pytest.mark.django_db
def test_every_role_is_refused_what_it_may_not_do():
    stream = show()
    spectator = ss.Acting("sam", shows.SPECTATOR)
    player = ss.Acting("ana", shows.PLAYER)
    refused = [
        (
            player,
            {"type": "enter_ranking", "ranking": [[e] for e in ENTRANTS]},
            "only the organizer may enter a main-match ranking",
        ),
        (
            MOD1,
            {"type": "appoint_moderator", "username": "zed"},
            "only the organizer may appoint a moderator",
        ),
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
            "spectators may only watch: grant an item is not for them",
        ),
        (
            player,
            {"type": "claim_dispute", "dispute_id": "d-1"},
            "only a moderator of this show may claim a dispute",
        ),
        (
            player,
            {"type": "death_match_result", "candidate": "ana", "winner": "ana"},
            "only the system may record a death-match result: it is recorded from the match",
        ),
    ]
    version = len(read(stream))
    for acting, cmd, words in refused:
        with pytest.raises(RuleError) as err:
            ss.command(stream, cmd, acting, now=T0)
        assert str(err.value) == words
    assert len(read(stream)) == version  # nothing was written
    # a user who is no one in this show is a spectator
    user = User.objects.create_user("sam", password="pw-123456")
    assert ss.acting_for(stream, user).role == shows.SPECTATOR
    assert ss.acting_for(stream, User.objects.get(username="olga")) == ORG


@pytest.mark.django_db
def test_roles_hold_by_account_not_by_username():
    stream = show()
    olga, mia, max_ = (User.objects.get(username=n) for n in ("olga", "mia", "max"))
    assert ss.acting_for(stream, olga) == ORG
    assert ss.acting_for(stream, mia) == MOD1 and ss.acting_for(stream, max_) == MOD2
    assert is_show_moderator(stream, mia) and is_show_moderator(stream, olga)
    # a deleted account's name, taken by a new account, carries no rights
    mia.delete()
    new_mia = User.objects.create_user("mia", password="pw-123456")
    assert ss.acting_for(stream, new_mia).role == shows.SPECTATOR
    assert not is_show_moderator(stream, new_mia)
    olga.delete()
    new_olga = User.objects.create_user("olga", password="pw-123456")
    assert ss.acting_for(stream, new_olga).role == shows.SPECTATOR
    assert not is_show_moderator(stream, new_olga)
    # only an account can be appointed
    with pytest.raises(RuleError, match="zed has no account"):
        ss.command(stream, {"type": "appoint_moderator", "username": "zed"}, ORG, now=T0)


@pytest.mark.django_db
def test_the_organizer_removes_a_moderator_with_a_reason():
    stream = show()
    max_ = User.objects.get(username="max")
    remove = {"type": "remove_moderator", "username": "max"}
    with pytest.raises(RuleError, match="a reason for removing a moderator is required"):
        ss.command(stream, remove, ORG, now=T0)
    with pytest.raises(RuleError, match="only the organizer may remove a moderator"):
        ss.command(stream, {**remove, "reason": "x"}, MOD1, now=T0)
    with pytest.raises(RuleError, match="sam is not a moderator of this show"):
        ss.command(stream, {**remove, "username": "sam", "reason": "x"}, ORG, now=T0)
    ss.command(stream, {**remove, "reason": "left the crew"}, ORG, now=T0)
    event = read(stream)[-1]
    assert event.type == "moderator_removed"
    assert event.data["user_id"] == max_.pk and event.data["reason"] == "left the crew"
    assert ss.acting_for(stream, max_).role == shows.SPECTATOR
    assert not is_show_moderator(stream, max_)
    assert state_of(stream).moderators == ("mia",)
    with pytest.raises(RuleError, match="only a moderator of this show may claim a dispute"):
        ss.command(stream, {"type": "claim_dispute", "dispute_id": "d-1"}, MOD2, now=T0)
    # appointed again, the same account moderates again
    ss.command(stream, {"type": "appoint_moderator", "username": "max"}, ORG, now=T0)
    assert ss.acting_for(stream, max_) == MOD2


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
    # a lone moderator's disqualification waits for a second moderator
    st = state_of(stream)
    assert st.disputes[did].status == shows.AWAITING
    dm.refresh_from_db()
    assert dm.status == "live" and st.status[cheat] == shows.ACTIVE
    approve = {"type": "approve_ruling", "dispute_id": did}
    with pytest.raises(RuleError, match="you cannot approve your own ruling"):
        ss.command(stream, approve, MOD1, now=T0)
    dm.refresh_from_db()
    assert dm.status == "live"
    ss.command(stream, approve, MOD2, now=T0)
    st = state_of(stream)
    assert st.disputes[did].status == shows.RULED
    assert st.disputes[did].ruling["moderators"] == ["mia", "max"]
    dm.refresh_from_db()
    assert dm.status == "finished" and cheat not in dm.winners
    assert st.status[cheat] == shows.ELIMINATED
    assert_rebuild_equal()


@pytest.mark.django_db
def test_a_bleven_death_match_is_as_long_as_the_shows_crowns():
    stream = show(
        options={
            "death_match_first_to": {"bleven": 2},
            "game_pool": ["bleven", "love-me-not", "higher-lower"],
        }
    )
    ranking = [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]]
    with held():  # the test makes hal's (a bot's) nomination itself
        ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, ORG, now=T0)
        ss.command(
            stream, {"type": "nominate", "dmo": "gus"}, ss.Acting("hal", shows.PLAYER), now=T0
        )
    ss.command(stream, {"type": "pick_game", "game": "bleven"}, ORG, now=T0)
    match = Match.objects.get(show_stream=stream, kind="death_match")
    assert match.game == "bleven" and match.options["crowns"] == 2
    # two crowns of 300 stones, not two stones
    assert match_services.load(match).state.target == 600
    duel = shows.view(state_of(stream), shows.SPECTATOR)["rounds"][0]["duels"][0]
    assert duel["first_to"] == 2 and duel["length_option"] == "crowns"


@pytest.mark.django_db
def test_a_death_match_runs_on_the_shows_match_clock():
    stream = show(options={"match_clock": {"decision_s": 7, "reserve_s": 0}})
    ranking = [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]]
    with held():  # the test makes hal's (a bot's) nomination itself
        ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, ORG, now=T0)
        ss.command(
            stream, {"type": "nominate", "dmo": "gus"}, ss.Acting("hal", shows.PLAYER), now=T0
        )
    ss.command(stream, {"type": "pick_game", "game": "doubting-love-letter"}, ORG, now=T0)
    match = Match.objects.get(show_stream=stream, kind="death_match")
    assert match.options["decision_s"] == 7 and match.options["reserve_s"] == 0
    # gus (the death-match opponent) starts; the first decision is due seven seconds on
    match_services.submit(match, "gus", {"type": "choose_first", "seat": "gus"}, now=T0)
    match.refresh_from_db()
    assert match.next_deadline.timestamp() == T0 + 7
