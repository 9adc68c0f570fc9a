"""The organizer runs a show from the browser: created by the form, run round
by round through the console's POSTs to a champion (bots hold three seats and
play the matches; the one person's own steps go through the show service)."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from eventlog.models import StoredEvent as Event
from games import services as match_services
from games.models import Match
from tournaments import autopilot, show_services, shows
from tournaments.models import ShowRecord

FAST = ["higher-lower", "love-letter", "love-me-not"]


def _show_form(players, **over):
    data = {
        "name": "Friday Night",
        "players": [p.pk for p in players],
        "bots": 3,
        "bot_kind": "level:1",
        "rounds": "",
        "game_pool": FAST,
        "game_pick": "organizer",
        "death_match_first_to": 1,
        "final_game": "higher-lower",
        "final_first_to": 1,
        "candidates_per_round": 1,
        "candidate_rule": "last",
        "step_deadline_s": 0,
        "spectator_delay_s": 0,
        "spectator_policy": "public",
    }
    data.update(over)
    return data


def _persons_step(stream, user, decision, rng):
    """What the one person decides (as a player would on the show page)."""
    state, _, _ = show_services.load(stream)
    rnd = shows.current_round(state)
    if decision.kind == "give_token":
        cmd = {"type": "give_token", "to": shows.gift_options(state, rnd)[0]}
    elif decision.kind == "nominate":
        cmd = {"type": "nominate", "dmo": shows.dmo_options(state, rnd, decision.seat)[0]}
    elif decision.kind == "choose_candidate":
        _forced, pool, n = shows.candidate_split(state, rnd)
        cmd = {"type": "choose_candidate", "candidates": list(pool)[:n]}
    else:
        duel = next(d for d in rnd.duels if decision.seat in (d.candidate, d.dmo))
        cmd = {"type": "ban_game", "game": shows.ban_options(state, duel)[0]}
    show_services.command(stream, cmd, show_services.acting_for(stream, user))


def _post_step(client, record, kind, data):
    url = reverse("console:step", args=[record.pk, kind])
    return client.post(url, {f"{kind}-{k}": v for k, v in data.items()})


def test_the_organizer_runs_a_four_entrant_show_to_a_champion(org_client, organizer, alice):
    resp = org_client.post(reverse("console:show_new"), _show_form([alice]))
    assert resp.status_code == 302
    record = ShowRecord.objects.get()
    assert resp["Location"] == reverse("console:show", args=[record.pk])
    stream = record.stream
    state, _, holders = show_services.load(stream)
    assert state.entrants == ("alice", "bot-1", "bot-2", "bot-3") or list(state.entrants) == [
        "alice",
        "bot-1",
        "bot-2",
        "bot-3",
    ]
    assert holders == {
        "alice": alice.pk,
        "bot-1": "bot:level:1",
        "bot-2": "bot:level:1",
        "bot-3": "bot:level:1",
    }
    assert state.organizer_id == organizer.pk
    assert org_client.get(reverse("console:show", args=[record.pk])).status_code == 200

    rng = random.Random(7)
    t = 1_000.0
    rankings = pickings = 0
    for _ in range(200):
        state, _, _ = show_services.load(stream)
        if state.champion:
            break
        pending = shows.pending(state)
        mine = [d for d in pending if d.seat == state.organizer]
        person = [d for d in pending if d.seat == "alice"]
        if mine:
            d = mine[0]
            if d.kind == "enter_ranking":
                page = org_client.get(reverse("console:show", args=[record.pk]))
                assert b"enter the ranking" in page.content  # the console says who is waited on
                ranking = places(shows.active(state))  # alice first: alone on top
                resp = _post_step(org_client, record, "ranking", {**ranking, "confirm": "on"})
                rankings += 1
            elif d.kind == "pick_game":
                rnd = shows.current_round(state)
                duel = next(x for x in rnd.duels if x.dmo and not x.game)
                resp = _post_step(
                    org_client,
                    record,
                    "pick_game",
                    {"candidate": duel.candidate, "game": "higher-lower"},
                )
                pickings += 1
            else:
                resp = _post_step(org_client, record, "add_round", {"round_title": "Extra"})
            assert resp.status_code == 302, resp.content.decode()[:2000]
        elif person:
            _persons_step(stream, alice, person[0], rng)
        elif autopilot.step(stream, rng, organizer=False, now=t):
            pass
        else:
            live = Match.objects.filter(show_stream=stream, status="live")
            assert live.exists(), f"the show waits on nothing: {pending}"
            for match in live:
                t = match_services.run_bots(match, start=t, rng=rng)
    state, _, _ = show_services.load(stream)
    assert state.champion in state.entrants
    assert rankings >= 1 and pickings >= 1
    record.refresh_from_db()
    assert record.status == "finished" and record.champion == state.champion
    page = org_client.get(reverse("console:show", args=[record.pk]))
    assert f"Champion: <b>{state.champion}</b>".encode() in page.content
    assert Match.objects.filter(show_stream=stream, kind="final").count() == 1


@pytest.mark.parametrize(
    "over, field, words",
    [
        ({"spectator_delay_s": -5}, "spectator_delay_s", "greater than or equal to 0"),
        ({"game_pool": []}, "game_pool", "game_pool must be a non-empty list"),
        ({"bots": 0}, "players", "a show needs at least two entrants"),
        (
            {"game_pick": "pool_with_bans", "game_pool": ["love-letter"]},
            "game_pool",
            "needs at least three games",
        ),
    ],
)
def test_show_form_errors_show_the_services_words_and_write_nothing(
    org_client, alice, over, field, words
):
    before = Event.objects.count()
    resp = org_client.post(reverse("console:show_new"), _show_form([alice], **over))
    assert resp.status_code == 400
    assert words in " ".join(resp.context["form"].errors.get(field, []))
    assert words.encode() in resp.content
    assert Event.objects.count() == before and not ShowRecord.objects.exists()


def _created(org_client, alice):
    org_client.post(reverse("console:show_new"), _show_form([alice]))
    return ShowRecord.objects.get()


def places(entrants, chosen=None):
    """The ranking form's fields: the entrants it was drawn for and a place each."""
    chosen = chosen or range(1, len(entrants) + 1)
    return {"drawn_for": json.dumps(list(entrants))} | {
        f"place_{n}": str(p) for n, p in enumerate(chosen, 1)
    }


def ranked(record, best_first):
    """The ranking form's fields for one entrant a place, best first."""
    live = list(shows.active(show_services.load(record.stream)[0]))
    return places(live, [best_first.index(name) + 1 for name in live])


def test_a_refused_step_shows_the_rule_and_writes_nothing(org_client, alice):
    record = _created(org_client, alice)
    version = record.version
    # drawn for entrants who are not the ones still in: refused before the rules
    stale = places(["alice", "nobody"])
    resp = _post_step(org_client, record, "ranking", {**stale, "confirm": "on"})
    assert resp.status_code == 400
    assert "changed since this form was shown" in str(resp.context["steps"]["ranking"].errors)
    # a place that is not offered
    live = list(shows.active(show_services.load(record.stream)[0]))
    bad = places(live, [1, 2, 3, 99])
    resp = _post_step(org_client, record, "ranking", {**bad, "confirm": "on"})
    assert resp.status_code == 400 and resp.context["steps"]["ranking"].errors
    record.refresh_from_db()
    assert record.version == version


def test_the_ranking_is_picked_from_the_entrants_still_in_with_ties(org_client, alice):
    record = _created(org_client, alice)
    page = org_client.get(reverse("console:show", args=[record.pk])).content.decode()
    live = list(shows.active(show_services.load(record.stream)[0]))
    for n, name in enumerate(live, 1):
        assert f'for="id_ranking-place_{n}">{name}</label>' in page
    assert 'name="ranking-ranking"' not in page  # no free text
    resp = _post_step(
        org_client, record, "ranking", {**places(live, [2, 1, 2, 3]), "confirm": "on"}
    )
    assert resp.status_code == 302
    entered = Event.objects.filter(stream=record.stream, type="ranking_entered").last()
    assert entered is not None and entered.data["ranking"] == [
        [live[1]],
        [live[0], live[2]],
        [live[3]],
    ]


def test_steps_that_cannot_be_undone_ask_for_confirmation(org_client, alice):
    record = _created(org_client, alice)
    User.objects.create_user("mo", password="pw-mo-12345")
    assert _post_step(org_client, record, "appoint", {"username": "mo"}).status_code == 302
    state, _, _ = show_services.load(record.stream)
    assert "mo" in state.moderators
    resp = _post_step(org_client, record, "remove", {"username": "mo", "reason": "rota"})
    assert resp.status_code == 400 and b"tick the box to confirm" in resp.content
    assert "mo" in show_services.load(record.stream)[0].moderators
    resp = _post_step(
        org_client, record, "remove", {"username": "mo", "reason": "rota", "confirm": "on"}
    )
    assert resp.status_code == 302
    assert "mo" not in show_services.load(record.stream)[0].moderators


def test_substitute_add_and_reorder_rounds_from_the_console(org_client, alice):
    record = _created(org_client, alice)
    resp = _post_step(
        org_client,
        record,
        "substitute",
        {"out": "bot-3", "new": "zoe", "reason": "no show", "confirm": "on"},
    )
    assert resp.status_code == 302
    state, _, _ = show_services.load(record.stream)
    assert "zoe" in shows.active(state) and "bot-3" not in shows.active(state)
    assert _post_step(org_client, record, "add_round", {"round_title": "Bonus"}).status_code == 302
    state, _, _ = show_services.load(record.stream)
    ids = [r.id for r in state.rounds]
    assert ids == ["r1", "r2", "r3"]
    page = org_client.get(reverse("console:show", args=[record.pk])).content.decode()
    # the page says a round by its number, and the organizer types that number
    assert "Bonus (round 3)" in page and "(r3)" not in page and "r3, r2" not in page
    resp = _post_step(org_client, record, "reorder", {"order": "3, ٢, 1", "reason": "tv slot"})
    assert resp.status_code == 302
    assert [r.id for r in show_services.load(record.stream)[0].rounds] == list(reversed(ids))
    org_client.cookies["django_language"] = "fr"
    page = org_client.get(reverse("console:show", args=[record.pk])).content.decode()
    assert "Bonus (manche 3)" in page and "(r3)" not in page


def test_a_reorder_of_rounds_that_do_not_exist_is_refused_and_writes_nothing(org_client, alice):
    record = _created(org_client, alice)
    before = Event.objects.filter(stream=record.stream).count()
    for order in ("9, 1", "1e308", "r1, r1", "-1", "1" * 400):
        resp = _post_step(org_client, record, "reorder", {"order": order, "reason": "x"})
        assert resp.status_code == 400, (order, resp.status_code)
    assert Event.objects.filter(stream=record.stream).count() == before


def test_players_and_anonymous_may_not_use_the_console(client, alice, org_client):
    record = _created(org_client, alice)
    org_client.logout()
    urls = [
        reverse("console:index"),
        reverse("console:show_new"),
        reverse("console:bracket_new"),
        reverse("console:match_new"),
        reverse("console:show", args=[record.pk]),
    ]
    for url in urls:
        resp = client.get(url)
        assert resp.status_code == 302 and resp["Location"].startswith("/accounts/login/")
    client.force_login(alice)
    for url in urls:
        resp = client.get(url)
        assert resp.status_code == 403
    resp = client.get(reverse("console:show", args=[record.pk]))
    assert b"you are a player of this show" in resp.content
    before = Event.objects.count()
    resp = client.post(
        reverse("console:step", args=[record.pk, "add_round"]), {"add_round-round_title": "x"}
    )
    assert resp.status_code == 403 and Event.objects.count() == before
    resp = client.post(reverse("console:show_new"), _show_form([alice]))
    assert resp.status_code == 403 and b"games.add_match" in resp.content


def test_the_console_shows_who_is_waited_on_and_extends_their_deadline(org_client, alice):
    org_client.post(reverse("console:show_new"), _show_form([alice], step_deadline_s=3600))
    record = ShowRecord.objects.get()
    ranking = ranked(record, ["alice", "bot-1", "bot-2", "bot-3"])  # alice alone: owes a gift
    assert (
        _post_step(org_client, record, "ranking", {**ranking, "confirm": "on"}).status_code == 302
    )
    state, _, _ = show_services.load(record.stream)
    owed = [d for d in shows.pending(state) if d.seat == "alice"]
    assert [d.kind for d in owed] == ["give_token"] and owed[0].deadline
    page = org_client.get(reverse("console:show", args=[record.pk]))
    assert b"<b>alice</b>: give the token" in page.content
    assert f'data-deadline="{owed[0].deadline:.3f}"'.encode() in page.content

    resp = _post_step(
        org_client,
        record,
        "extend",
        {"step": "give_token", "seconds": 600, "entrant": "alice", "reason": "network trouble"},
    )
    assert resp.status_code == 302
    state, _, _ = show_services.load(record.stream)
    after = next(d for d in shows.pending(state) if d.seat == "alice")
    assert after.deadline == owed[0].deadline + 600
    # a step no one owes is refused in the service's words
    resp = _post_step(
        org_client, record, "extend", {"step": "nominate", "seconds": 60, "reason": "x"}
    )
    assert resp.status_code == 400 and b"no deadline for nominate is running" in resp.content


def test_a_substitute_is_played_by_the_account_or_bot_the_organizer_names(
    org_client, organizer, alice
):
    record = _created(org_client, alice)
    zed = User.objects.create_user("zed")
    before = Event.objects.count()
    for holder, words in (
        ("nobody", "nobody may not play in this show"),
        ("olga", "olga may not play in this show"),
    ):
        resp = _post_step(
            org_client,
            record,
            "substitute",
            {"out": "bot-3", "new": "zed", "holder": holder, "reason": "r", "confirm": "on"},
        )
        assert resp.status_code == 400 and words in resp.content.decode()
    assert Event.objects.count() == before
    resp = _post_step(
        org_client,
        record,
        "substitute",
        {"out": "bot-3", "new": "zed", "reason": "no show", "confirm": "on"},
    )
    assert resp.status_code == 302
    # zed's account plays the substitute: a player of the show, as zed
    acting = show_services.acting_for(record.stream, zed)
    assert (acting.role, acting.actor) == (shows.PLAYER, "zed")
    resp = _post_step(
        org_client,
        record,
        "substitute",
        {"out": "bot-2", "new": "robo", "holder": "bot:level:0", "reason": "r", "confirm": "on"},
    )
    assert resp.status_code == 302
    holders = show_services.load(record.stream)[2]
    assert holders["zed"] == zed.pk and holders["robo"] == "bot:level:0"
    # zed wins alone and gives the token from his account; robo, last, nominates as a bot
    ranking = ranked(record, ["zed", "alice", "bot-1", "robo"])
    resp = _post_step(org_client, record, "ranking", {**ranking, "confirm": "on"})
    assert resp.status_code == 302
    show_services.command(record.stream, {"type": "give_token", "to": "alice"}, acting)
    # robo's nomination, a bot's step, is made at once after the gift
    state = show_services.load(record.stream)[0]
    assert shows.current_round(state).duel("robo").dmo in ("alice", "bot-1", "zed")
    assert autopilot.step(record.stream, random.Random(2), organizer=False) is False


def test_the_console_shows_only_the_steps_that_are_due_and_updates_itself(org_client, alice):
    record = _created(org_client, alice)
    html = org_client.get(reverse("console:show", args=[record.pk])).content.decode()
    state, _, _ = show_services.load(record.stream)
    owed = {d.kind for d in shows.pending(state) if d.seat == state.organizer}
    assert owed == {"enter_ranking"}
    assert 'id="step-ranking"' in html
    # nothing to pick, no moderator to remove, no deadline running
    for kind in ("pick_game", "remove", "extend"):
        assert f'id="step-{kind}"' not in html, kind
    # one refresher: the parts js/refresh.js brings up to date, steps included, and
    # no second poll of the whole console (tests/e2e/test_console_refresh.py watches it)
    assert 'id="console-steps" data-refresh="5"' in html and "js/refresh.js" in html
    console = html.split('id="console"', 1)[1].split("</main>", 1)[0]
    assert "hx-get" not in html.split('id="console"', 1)[0].rsplit("<", 1)[1]
    assert "hx-get" not in console and "hx-trigger" not in console
    # a moderator appointed: removing one is due now
    User.objects.create_user("mo", password="pw-mo-12345")
    assert _post_step(org_client, record, "appoint", {"username": "mo"}).status_code == 302
    html = org_client.get(reverse("console:show", args=[record.pk])).content.decode()
    assert 'id="step-remove"' in html
    # a refused step's form stays shown with its words, due or not
    resp = _post_step(org_client, record, "pick_game", {})
    assert resp.status_code == 400 and 'id="step-pick_game"' in resp.content.decode()
