"""The game tables: every game played to the end with clicks on the page's
own controls; the controls offer exactly the legal moves; the history in
words never shows a card its viewer may not see."""

import json
import random
import re
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.store import read
from games import services
from games.core.adapt import as_game_event
from games.core.protocol import SPECTATOR_VIEW, Ctx, Viewer
from games.core.registry import GAME_MODULES, series_for
from games.love_letter_family.cards import NAMES
from games.presenters.base import BadForm, Choice, Control, Field
from games.presenters.table import (
    GAME_PRESENTERS,
    describe_row,
    names_for,
    table_for,
    table_module,
)

GAMES = [
    ("doubting-love-letter", ["ana", "ben"], {"decision_s": 0, "first_to": 2}),
    ("love-letter", ["ana", "ben", "cal"], {"decision_s": 0, "first_to": 2}),
    ("love-letter", ["ana", "ben"], {"decision_s": 0, "first_to": 1}),
    ("love-me-not", ["ana", "ben"], {"decision_s": 0, "first_to": 1}),
    ("higher-lower", ["ana", "ben"], {"decision_s": 0, "auction_close_s": 3600}),
    ("bleven", ["ana", "ben"], {"decision_s": 0, "first_to": 60}),
    ("bleven", ["ana", "ben", "cal", "dee"], {"decision_s": 0, "first_to": 60}),
]
IDS = [f"{g}-{len(s)}" for g, s, _ in GAMES]
# legal_commands samples bids and stakes for bots; the table offers all of
# them, so a sampled one must be offered, and HL's no-op pass is not offered
NOT_OFFERED = {"higher-lower": {"pass"}}


@pytest.fixture(autouse=True)
def _no_move_rate_limit(monkeypatch):
    """These tests play whole matches through the form faster than a person
    could; the form's rate limit is tested in test_move_form_rate.py."""
    monkeypatch.setattr("games.views.wait_before_next", lambda request: None)


def _norm(command) -> str:
    return json.dumps({k: v for k, v in command.items()}, sort_keys=True, default=str)


def offers(controls, command) -> bool:
    """Is ``command`` one of the combinations some control offers?"""
    for c in controls:
        if command.get("type") != c.type:
            continue
        rest = {k: v for k, v in command.items() if k != "type"}
        if any(str(rest.pop(k, None)) != str(v) for k, v in c.fixed.items()):
            continue
        ok = True
        for f in c.fields:
            if f.choices:
                best = None
                for ch in f.choices:
                    sets = ch.sets if ch.sets is not None else {f.name: ch.value}
                    if all(k in rest and str(rest[k]) == str(v) for k, v in sets.items()):
                        if best is None or len(sets) > len(best):
                            best = sets
                if best is None:
                    ok = False
                    break
                for k in best:
                    rest.pop(k)
            else:
                v = rest.pop(f.name, None)
                if v is None or int(v) < f.lo or (f.hi is not None and int(v) > f.hi):
                    ok = False
                    break
                if (int(v) - f.lo) % f.step:
                    ok = False
                    break
        if ok and not rest:
            return True
    return False


def _check_controls(match, seat, controls, now, rng):
    """Every offered combination is accepted by decide (nothing appended),
    and every legal command is offered."""
    loaded = services.load(match)
    series = series_for(match.game)
    offered = [cmd for c in controls for cmd in c.commands(sample=4)]
    for cmd in rng.sample(offered, min(len(offered), 60)):
        series.decide(loaded.state, cmd, Ctx(now=now, rng=random.Random(0), seat=seat))
    if loaded.state.bout is None:
        return
    skip = NOT_OFFERED.get(match.game, set())
    for cmd in series.rules.legal_commands(loaded.state.bout, seat):
        if cmd["type"] in skip:
            continue
        assert offers(controls, cmd), f"legal {cmd} is not offered by the table"


CARD_KEYS = {"card", "cards", "hidden", "deck", "order", "keep", "discard", "take", "deny"}
CARD_KEYS |= {"hands", "fields", "direction", "stake", "pick", "salt"}


PUBLIC_CARD_KEYS = CARD_KEYS | {"removed", "claim", "guess"}


def _leaves(data, keys=CARD_KEYS, inside=False):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, keys, inside or k in keys)
    elif isinstance(data, (list, tuple)):
        for v in data:
            yield from _leaves(v, keys, inside)
    elif inside and not isinstance(data, (bool, float)) and data is not None:
        yield str(data)


def _spelled(game, token):
    """How a description would print a card (or a secret)."""
    if game in ("doubting-love-letter", "love-letter") and token in {str(r) for r in NAMES}:
        return [f"{NAMES[int(token)]} ({token})"]
    if game == "higher-lower":
        return [f"picked {token} ", f"guessed {token}", f"staking {token}"]
    return [token] if len(token) >= 2 else []


def _check_words(match, seen_upto):
    """Each seat's and a spectator's history in words: a sentence for every
    event, and no card or secret the viewer was not shown."""
    raw = {r.version: r for r in read(match.stream)}
    module = table_module(match.game)
    viewers = [Viewer.of_seat(s) for s in match.seats] + [SPECTATOR_VIEW]
    for viewer in viewers:
        names = names_for(match.seats, viewer.seat)
        after = seen_upto.get(viewer, 0)
        for row in services.history_for(match, viewer, after=after):
            text = describe_row(module, row, viewer.seat, names)
            assert text and text != row["type"].replace("_", " "), row["type"]
            full = as_game_event(raw[row["version"]]).data
            if dict(full) != row["data"]:
                shown = set(_leaves(row["data"], PUBLIC_CARD_KEYS))
                for token in set(_leaves(full)) - shown:
                    for spelled in _spelled(match.game, token):
                        assert spelled not in text, (viewer, row, text)
            seen_upto[viewer] = row["version"]


def _play_through_page(game, seats, options, seed, check_every=1, items=None, prefer=None):
    rng = random.Random(seed)
    users = {s: User.objects.create_user(f"u_{s}_{seed}", password="pw-123456") for s in seats}
    match = services.create_match(
        game,
        seats,
        options=options,
        holders={s: u.pk for s, u in users.items()},
        items=items,
        rng=random.Random(seed),
    )
    clients = {}
    for s, u in users.items():
        clients[s] = Client()
        clients[s].force_login(u)
    url = f"/games/matches/{match.pk}/"
    series = series_for(game)
    clock = time.time()
    seen_upto: dict = {}
    for step in range(3000):
        state = services.load(match).state
        if state.finished:
            break
        _check_words(match, seen_upto)
        tables = {s: table_for(match, Viewer.of_seat(s)) for s in seats}
        actors = [s for s in seats if tables[s].controls]
        nd = series.next_deadline(state)
        if not actors or (nd is not None and rng.random() < 0.3):
            # nobody can act now: only time can move it (the auction closes)
            assert nd is not None, "stuck: no control and no deadline"
            clock = max(clock, nd) + 1
            services.submit(match, None, {"type": "timeout"}, role="system", now=clock)
            continue
        seat = rng.choice(actors)
        controls = tables[seat].controls
        if step % check_every == 0:
            _check_controls(match, seat, controls, time.time(), rng)
        if prefer:  # a rank: the best ranked controls are picked from
            best = max(prefer(c) for c in controls)
            controls = [c for c in controls if prefer(c) == best]
        control = rng.choice(controls)
        form = rng.choice(list(control.form_values()))
        before = services.load(match).version
        resp = clients[seat].post(
            f"/games/matches/{match.pk}/command",
            {"control": control.key, **form},
            HTTP_HX_REQUEST="true",
        )
        refusal = re.findall(rb'class="error" role="alert">([^<]*)', resp.content)
        assert resp.status_code == 200, (control.key, form, refusal)
        assert b'id="table"' in resp.content
        assert services.load(match).version > before, (control, form)
    else:
        raise AssertionError("the match did not end")
    match.refresh_from_db()
    assert match.status == "finished"
    page = clients[seats[0]].get(url)
    assert page.status_code == 200 and b"History" in page.content
    return match


def test_every_game_of_the_registry_has_a_presenter():
    """The pure registry lists the rules, the presenters the tables: the same games."""
    assert set(GAME_PRESENTERS) == set(GAME_MODULES)


@pytest.mark.django_db
@pytest.mark.parametrize("game,seats,options", GAMES, ids=IDS)
def test_a_whole_match_is_played_with_the_tables_controls(game, seats, options):
    match = _play_through_page(game, seats, options, seed=7)
    # the finished match: its replay is open to its players, all in words
    _check_words(match, {})


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_dll_controls_stay_legal_over_random_matches(seed):
    _play_through_page("doubting-love-letter", ["ana", "ben"], {"decision_s": 0}, seed)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "items",
    [
        {"ana": ["advantage", "deck_rigging", "plus_one"], "ben": ["insurance"]},
        {"ana": ["dmo", "insurance"], "ben": ["deck_rigging", "plus_one"]},
    ],
)
def test_dll_items_are_played_with_the_tables_controls(items):
    """Choose-first, the Deck Rigging and Plus One windows, Insurance and
    the DMO mulligan: each is a control, and each is used at least once."""
    # real deals are shuffled by the OS; play bouts until every item was used
    held = {i for its in items.values() for i in its} - {"advantage"}
    used = set()
    for seed in range(10):
        match = _play_through_page(
            "doubting-love-letter",
            ["ana", "ben"],
            {"decision_s": 0, "first_to": 1},
            seed,
            items=items,
            # use every item offered; let claims pass so that bouts reach the showdown
            prefer=lambda c: (
                2 if c.type in ("use_item", "mulligan", "choose_first") else c.type == "pass"
            ),
        )
        for r in read(match.stream):
            if r.type == "item_used":
                used.add(r.data["item"])
            if r.type == "first_player_chosen":
                used.add(r.data["how"])
        if held <= used and "ana" in used:
            break
    assert held <= used
    assert "ana" in used  # ana chose who plays first with a click


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1])
def test_bleven_controls_stay_legal_over_random_matches(seed):
    _play_through_page("bleven", ["ana", "ben"], {"decision_s": 0, "first_to": 30}, seed)


def _seated(client, game="doubting-love-letter", options=None, seed=3, bots_move=True):
    user = User.objects.create_user("ana_user", password="pw-123456")
    match = services.create_match(
        game,
        ["ana", "ben"],
        options=options or {"decision_s": 0},
        holders={"ana": user.pk, "ben": "bot:random"},
        rng=random.Random(seed),
    )
    if bots_move:
        services.play_bots(match, rng=random.Random(seed))
    client.force_login(user)
    return match


@pytest.mark.django_db
def test_the_page_shows_cards_and_buttons_never_a_json_box(client):
    match = _seated(client)
    resp = client.get(f"/games/matches/{match.pk}/")
    html = resp.content.decode()
    assert resp.status_code == 200
    assert 'name="control"' in html and 'class="card' in html
    assert "JSON" not in html and "<textarea" not in html
    assert f'href="/games/rules/{match.game}/"' in html


@pytest.mark.django_db
def test_a_poll_at_the_shown_version_gets_204_and_a_new_version_the_fragment(client):
    match = _seated(client)
    version = services.load(match).version
    url = f"/games/matches/{match.pk}/"
    assert client.get(url, {"v": version}, HTTP_HX_REQUEST="true").status_code == 204
    resp = client.get(url, {"v": version - 1}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 200
    assert resp.content.lstrip().startswith(b'<div id="table"') and b"<html" not in resp.content


@pytest.mark.django_db
def test_a_refused_action_shows_the_rules_words_beside_it_and_changes_nothing(client):
    match = _seated(client)
    table = table_for(match, Viewer.of_seat("ana"))
    play = next(c for c in table.controls if c.type == "play")
    before = services.load(match).version
    url = f"/games/matches/{match.pk}/command"
    # a value the control never offered: refused by the form check
    resp = client.post(url, {"control": play.key, "claim": "8"}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 422
    assert b"is not one of the choices" in resp.content and b'class="error"' in resp.content
    # a control that is not on the table
    resp = client.post(url, {"control": "challenge"}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 409 and b"not open to you now" in resp.content
    assert services.load(match).version == before
    # a legal one: the fragment comes back with the move made
    claim = play.fields[0].choices[0].value
    resp = client.post(url, {"control": play.key, "claim": claim}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 200 and services.load(match).version > before


@pytest.mark.django_db
def test_the_rule_refuses_what_a_stale_page_offers(client):
    """Two tabs: the second sends a move the first already made; it is
    refused in words and nothing is written."""
    match = _seated(client, game="love-me-not", options={"decision_s": 0})
    url = f"/games/matches/{match.pk}/command"
    table = table_for(match, Viewer.of_seat("ana"))
    choose = table.controls[0]
    keep = choose.fields[0].choices[0].value
    assert client.post(url, {"control": "choose", "keep": keep}).status_code == 302
    before = services.load(match).version
    resp = client.post(url, {"control": "choose", "keep": keep}, HTTP_HX_REQUEST="true")
    # ben (a bot) chose first, so turn 2 is on: the old card is no choice now
    assert services.load(match).state.bout.turn == 2
    assert resp.status_code == 422 and b"is not one of the choices" in resp.content
    assert services.load(match).version == before


@pytest.mark.django_db
def test_a_plain_post_redirects_and_a_spectator_may_not_move(client):
    match = _seated(client, game="love-me-not", options={"decision_s": 0})
    url = f"/games/matches/{match.pk}/command"
    keep = table_for(match, Viewer.of_seat("ana")).controls[0].fields[0].choices[1].value
    resp = client.post(url, {"control": "choose", "keep": keep})
    assert resp.status_code == 302 and resp["Location"] == f"/games/matches/{match.pk}/"
    other = Client()
    version = services.load(match).version
    resp = other.post(url, {"control": "choose", "keep": keep}, HTTP_HX_REQUEST="true")
    assert resp.status_code == 403 and b"only a seated player" in resp.content
    page = other.get(f"/games/matches/{match.pk}/").content.decode()
    assert 'name="control"' not in page
    # ana's kept card is hers alone until it is revealed: neither its code (outside
    # the random CSRF token, which may hold any two characters) nor its face
    from games.presenters.love_me_not import face

    shown = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", page)
    assert keep not in shown and f"<b>{face(keep).text}</b>" not in shown
    assert services.load(match).version == version


@pytest.mark.django_db
def test_a_finished_match_replays_step_by_step(client):
    match = _seated(client, game="love-letter", options={"decision_s": 0, "first_to": 1})
    holders = {h.seat: h for h in match.holders.all()}
    holders["ana"].bot = "random"
    holders["ana"].save()
    services.play_bots(match, rng=random.Random(5))
    match.refresh_from_db()
    assert match.status == "finished"
    url = f"/games/matches/{match.pk}/"
    last = services.load(match).version
    page = client.get(url).content.decode()
    assert 'name="at_version"' in page and f'max="{last}"' in page
    early = client.get(url, {"at_version": 3})
    assert early.status_code == 200
    html = early.content.decode()
    assert "replay at move 3 of" in html and "forward" in html
    assert html.count("<li value=") == 3  # the history as it stood then
    assert client.get(url, {"at_version": "x"}).status_code == 400
    first = client.get(url, {"at_version": 0}).content.decode()  # before any table: the first
    assert "replay at move 2 of" in first and "◀ back" not in first


@pytest.mark.django_db
def test_numbers_past_ints_limit_are_refused_not_a_server_error(client):
    """5,000 digits: int() raises ValueError past 4,300 (once a 500 each)."""
    match = _seated(client)
    url = f"/games/matches/{match.pk}/"
    assert client.get(url, {"at_version": "9" * 5000}).status_code == 400
    table = table_for(match, Viewer.of_seat("ana"))
    play = next(c for c in table.controls if c.type == "play")
    before = services.load(match).version
    claim = play.fields[0].choices[0].value
    resp = client.post(
        f"{url}command",
        {"control": play.key, "claim": claim, "table_version": "9" * 5000},
        HTTP_HX_REQUEST="true",
    )
    assert resp.status_code == 200 and services.load(match).version > before


def test_a_control_refuses_a_number_past_ints_limit_in_words():
    guess = Control("guess", "guess", "Guess", fields=(Field("stake", "Stake", lo=0, hi=25),))
    with pytest.raises(BadForm, match="whole number"):
        guess.command({"stake": "9" * 5000})


@pytest.mark.django_db
def test_a_live_match_has_no_replay(client):
    match = _seated(client)
    resp = client.get(f"/games/matches/{match.pk}/", {"at_version": 2})
    assert resp.status_code == 403


@pytest.mark.django_db
def test_a_bid_after_the_auction_closed_gets_the_rules_words(client):
    match = _seated(
        client,
        game="higher-lower",
        options={"decision_s": 0, "auction_close_s": 1},
        bots_move=False,
    )
    table = table_for(match, Viewer.of_seat("ana"))
    bid = next(c for c in table.controls if c.key == "bid")
    before = services.load(match).version
    time.sleep(1.1)  # the auction's 1 s of silence runs out
    url = f"/games/matches/{match.pk}/command"
    resp = client.post(
        url, {"control": "bid", "amount": str(bid.fields[0].lo)}, HTTP_HX_REQUEST="true"
    )
    assert resp.status_code == 422 and b"the auction is over" in resp.content
    assert services.load(match).version == before


@pytest.mark.django_db
@pytest.mark.parametrize("game,seats,options", GAMES, ids=IDS)
def test_timeouts_are_told_in_words_too(game, seats, options):
    """Time running out (and what the platform then played) is described."""
    opts = {**options, "decision_s": 5}
    match = services.create_match(game, seats, options=opts, rng=random.Random(2))
    series = series_for(game)
    for _ in range(8):
        state = services.load(match).state
        nd = series.next_deadline(state)
        if state.finished or nd is None:
            break
        services.submit(match, None, {"type": "timeout"}, role="system", now=nd + 0.5)
    module = table_module(game)
    for viewer in [Viewer.of_seat(seats[0]), SPECTATOR_VIEW]:
        names = names_for(seats, viewer.seat)
        for row in services.history_for(match, viewer):
            text = describe_row(module, row, viewer.seat, names)
            assert text and text != row["type"].replace("_", " "), row


def test_a_control_builds_only_what_it_offers():
    stake = Field("stake", "Stake", lo=0, hi=25)
    bid = Field("amount", "Bid", lo=120, step=10)
    guess = Control("guess", "guess", "Guess", fields=(stake,), fixed={"direction": "higher"})
    assert guess.command({"stake": "7"}) == {"type": "guess", "direction": "higher", "stake": 7}
    for bad, words in [("x", "whole number"), ("26", "from 0 to 25"), ("-1", "whole number")]:
        with pytest.raises(BadForm, match=words):
            guess.command({"stake": bad})
    with pytest.raises(BadForm, match="choose stake"):
        guess.command({})
    bidding = Control("bid", "bid", "Bid", fields=(bid,))
    assert bidding.command({"amount": "150"}) == {"type": "bid", "amount": 150}
    with pytest.raises(BadForm, match="steps of 10"):
        bidding.command({"amount": "155"})
    with pytest.raises(BadForm, match="from 120 or more"):
        bidding.command({"amount": "110"})
    claim = Field(
        "claim",
        "Claim",
        (Choice("3", "Baron"), Choice("5-self", "Prince", {"claim": "5", "target": "self"})),
    )
    play = Control("play-3", "play", "Put down", {"card": "3"}, (claim,))
    assert play.command({"claim": "5-self"}) == {
        "type": "play",
        "card": "3",
        "claim": "5",
        "target": "self",
    }
    with pytest.raises(BadForm, match="not one of the choices"):
        play.command({"claim": "8", "card": "8"})
    assert sorted(c["claim"] for c in play.commands()) == ["3", "5"]
    # an offered empty choice ("nobody") is a choice; an empty value elsewhere is not
    deny = Field("deny", "Deny", (Choice("", "nobody", {}), Choice("8", "Princess")))
    rig = Control("rig", "use_item", "Rig", {"item": "deck_rigging"}, (deny,))
    assert rig.command({"deny": ""}) == {"type": "use_item", "item": "deck_rigging"}
    with pytest.raises(BadForm, match="choose claim"):
        play.command({"claim": ""})


def _spelled_on_page(card):
    from games.presenters.bleven import face as bleven_face

    return f"<b>{bleven_face(card).text}</b>"


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["bleven", "love-me-not"])
def test_a_seats_cards_are_on_its_own_page_only(game):
    users = {s: User.objects.create_user(f"p_{s}", password="pw-123456") for s in ("ana", "ben")}
    match = services.create_match(
        game,
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={s: u.pk for s, u in users.items()},
        rng=random.Random(9),
    )
    hand = services.view_for(match, Viewer.of_seat("ana"))["bout"]["hand"]
    assert hand
    pages = {}
    for seat, user in users.items():
        c = Client()
        c.force_login(user)
        pages[seat] = c.get(f"/games/matches/{match.pk}/").content.decode()
    pages["spectator"] = Client().get(f"/games/matches/{match.pk}/").content.decode()
    for card in hand:
        assert _spelled_on_page(card) in pages["ana"]
        assert _spelled_on_page(card) not in pages["ben"]
        assert _spelled_on_page(card) not in pages["spectator"]


@pytest.mark.django_db
def test_the_dealers_secret_pick_is_not_on_the_guessers_page():
    users = {s: User.objects.create_user(f"h_{s}", password="pw-123456") for s in ("ana", "ben")}
    match = services.create_match(
        "higher-lower",
        ["ana", "ben"],
        options={"decision_s": 0, "auction_close_s": 1},
        holders={s: u.pk for s, u in users.items()},
        rng=random.Random(9),
    )
    services.submit(match, None, {"type": "timeout"}, role="system", now=time.time() + 5)
    state = services.load(match).state.bout
    dealer, guesser = state.dealer, state.guesser
    clients = {}
    for seat, user in users.items():
        clients[seat] = Client()
        clients[seat].force_login(user)
    url = f"/games/matches/{match.pk}/command"
    remaining = list(state.remaining)
    assert (
        clients[dealer].post(url, {"control": "show", "card": str(remaining[0])}).status_code == 302
    )
    secret = remaining[-1]
    assert clients[dealer].post(url, {"control": "pick", "card": str(secret)}).status_code == 302
    dealer_page = clients[dealer].get(f"/games/matches/{match.pk}/").content.decode()
    guesser_page = clients[guesser].get(f"/games/matches/{match.pk}/").content.decode()
    assert f"picked {secret} " in dealer_page and "your secret pick" in dealer_page
    assert "your secret pick" not in guesser_page and f"picked {secret} " not in guesser_page
    assert f"<b>{secret}</b>" not in guesser_page.split('class="board"')[0]
    assert "has picked" in guesser_page
