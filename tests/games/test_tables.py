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
from games.core.protocol import Ctx, RuleError, Viewer
from games.core.registry import series_for
from games.models import Match
from games.tables import describe_row, names_for, table_for, table_module

GAMES = [
    ("doubting-love-letter", ["ana", "ben"], {"decision_s": 0, "first_to": 2}),
    ("love-letter", ["ana", "ben", "cal"], {"decision_s": 0, "first_to": 2}),
    ("love-letter", ["ana", "ben"], {"decision_s": 0, "first_to": 1}),
    ("love-me-not", ["ana", "ben"], {"decision_s": 0, "first_to": 1}),
    ("higher-lower", ["ana", "ben"], {"decision_s": 0, "auction_close_s": 3600}),
    ("bleven", ["ana", "ben"], {"decision_s": 0}),
    ("bleven", ["ana", "ben", "cal", "dee"], {"decision_s": 0}),
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
    for step in range(3000):
        state = services.load(match).state
        if state.finished:
            break
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
    # every event in words, for each seat and a spectator, and never a hidden card
    module = table_module(game)
    for viewer in [Viewer.of_seat(s) for s in seats]:
        names = names_for(seats, viewer.seat)
        for row in services.history_for(match, viewer):
            text = describe_row(module, row, viewer.seat, names)
            assert text and text != row["type"].replace("_", " "), row["type"]


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_dll_controls_stay_legal_over_random_matches(seed):
    _play_through_page("doubting-love-letter", ["ana", "ben"], {"decision_s": 0}, seed)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", [1, 2])
def test_bleven_controls_stay_legal_over_random_matches(seed):
    _play_through_page("bleven", ["ana", "ben"], {"decision_s": 0}, seed, check_every=3)
