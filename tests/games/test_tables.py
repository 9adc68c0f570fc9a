"""The game tables: every game played to the end with clicks on the page's
own controls; the controls offer exactly the legal moves; the history in
words never shows a card its viewer may not see."""

import json
import random
import time

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.store import as_game_event, read
from games import services
from games.core.protocol import SPECTATOR_VIEW, Ctx, Viewer
from games.core.registry import series_for
from games.love_letter_family.cards import NAMES
from games.tables import describe_row, names_for, table_for, table_module

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


def _play_through_page(game, seats, options, seed, check_every=1):
    rng = random.Random(seed)
    users = {s: User.objects.create_user(f"u_{s}", password="pw-123456") for s in seats}
    match = services.create_match(
        game,
        seats,
        options=options,
        holders={s: u.pk for s, u in users.items()},
        rng=random.Random(seed),
    )
    clients = {}
    for s, u in users.items():
        clients[s] = Client()
        clients[s].force_login(u)
    url = f"/games/matches/{match.pk}/"
    series = series_for(game)
    types = set()
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
        control = rng.choice(controls)
        form = rng.choice(list(control.form_values()))
        before = services.load(match).version
        resp = clients[seat].post(
            f"/games/matches/{match.pk}/command",
            {"control": control.key, **form},
            HTTP_HX_REQUEST="true",
        )
        assert resp.status_code == 200, (control, form, resp.content[-400:])
        assert b'id="table"' in resp.content
        assert services.load(match).version > before, (control, form)
    else:
        raise AssertionError("the match did not end")
    match.refresh_from_db()
    assert match.status == "finished"
    for r in read(match.stream):
        types.add(r.type)
    page = clients[seats[0]].get(url)
    assert page.status_code == 200 and b"History" in page.content
    return match, types


@pytest.mark.django_db
@pytest.mark.parametrize("game,seats,options", GAMES, ids=IDS)
def test_a_whole_match_is_played_with_the_tables_controls(game, seats, options):
    match, types = _play_through_page(game, seats, options, seed=7)
    # the finished match: its replay is open to its players, all in words
    _check_words(match, {})


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dll_controls_stay_legal_over_random_matches(seed):
    _play_through_page("doubting-love-letter", ["ana", "ben"], {"decision_s": 0}, seed)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_bleven_controls_stay_legal_over_random_matches(seed):
    _play_through_page("bleven", ["ana", "ben"], {"decision_s": 0, "first_to": 30}, seed)
