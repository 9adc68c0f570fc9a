"""Property: random matches played by bots, random viewers who moderate
nothing, random moments. Through every entry point (the API's view, history
and list, the match page, the home page) such a viewer gets nothing recorded
after now - delay, and nothing the public view hides (a hand, a deck order, a
salt before its reveal, a secret pick or keep, a user's primary key) unless
the full replay is open."""

import json
import re

import pytest
from django.contrib.auth.models import User
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW
from games.core.registry import series_for

from .helpers import bot_match

GAMES = [  # short series, so that many examples run
    ("love-me-not", ["ana", "ben"], {}),
    ("higher-lower", ["ana", "ben"], {}),
    ("doubting-love-letter", ["ana", "ben"], {"first_to": 1}),
    ("bleven", ["ana", "ben"], {}),
]
VIEWERS = ["anonymous", "user", "staff", "superuser", "player_elsewhere", "moderator_elsewhere"]


def _viewer(client, kind, fake_shows):
    client.logout()
    if kind == "anonymous":
        return
    user = User.objects.create_user(
        f"{kind}-{User.objects.count()}",
        password="pw-123456",
        is_staff=kind in ("staff", "superuser"),
        is_superuser=kind == "superuser",
    )
    if kind == "player_elsewhere":
        # seats named apart from the watched match's: the header lists this
        # viewer's own match by its seats ("Your turn: Love Me Not: cleo v dan")
        services.create_match("love-me-not", ["cleo", "dan"], holders={"cleo": user.pk})
    if kind == "moderator_elsewhere":
        fake_shows.add(f"fake-show-{user.pk}", moderators=[user.pk])
    client.force_login(user)


def _check_events(events, rows, cut):
    by_version = {r.version: r for r in rows}
    for e in events:
        row = by_version[e["version"]]
        assert row.recorded_at.timestamp() <= cut, "an event newer than the delay"
        hidden_to = row.metadata["visibility"]["to"]
        if hidden_to is not None:
            assert e["data"] == (row.metadata["visibility"]["public"] or {}), row.type


@pytest.mark.django_db
@settings(
    max_examples=12,
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a DB test is slow
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    game=st.sampled_from(GAMES),
    seed=st.integers(0, 10_000),
    moves=st.one_of(st.none(), st.integers(0, 25)),
    delay=st.sampled_from([0, 5, 60, 300]),
    in_show=st.booleans(),
    viewer=st.sampled_from(VIEWERS),
    moment=st.floats(0, 1),
    jitter=st.sampled_from([-0.0005, 0.0, 0.0005]),
)
def test_nothing_newer_than_the_delay_nor_hidden_reaches_a_spectator(
    client, fake_shows, at, game, seed, moves, delay, in_show, viewer, moment, jitter
):
    name, seats, options = game
    where = {"show_stream": fake_shows.add(f"fake-show-{seed}", delay=delay)} if in_show else {}
    match = bot_match(
        name,
        seats,
        seed,
        moves or 100_000,
        bot="bot:random",
        options=options,
        spectator_delay_s=delay,
        **where,
    )
    rows = read(match.stream)
    cut = rows[int(moment * (len(rows) - 1))].recorded_at.timestamp() + jitter
    at(cut + delay)
    _viewer(client, viewer, fake_shows)
    seen = [r for r in rows if r.recorded_at.timestamp() <= cut]
    visible = any(r.type != "match_created" for r in seen)

    view = client.get(f"/api/matches/{match.pk}/")
    history = client.get(f"/api/matches/{match.pk}/history")
    page = client.get(f"/games/matches/{match.pk}/")
    listed = [m for m in client.get("/api/matches/").json() if m["stream"] == match.stream]
    home = client.get("/").content.decode()
    if not visible:
        assert view.status_code == history.status_code == 404
        # the page says when it opens, by the match's number only: nobody's name
        text = page.content.decode()
        assert page.status_code == 200 and 'class="too-early"' in text
        assert not any(f">{seat}<" in text or f" {seat} " in text for seat in seats)
        assert page.status_code == 200 and 'id="table"' not in page.content.decode()
        assert str(match) not in page.content.decode()
        assert listed == []
        assert f"/games/matches/{match.pk}/" not in home
        return
    assert view.status_code == history.status_code == page.status_code == 200
    got, events = view.json(), history.json()["events"]
    state = services.fold_rows(name, seen)
    replay = state.finished and match.status == "finished"
    expected = series_for(name).view(state, MODERATOR_VIEW if replay else SPECTATOR_VIEW)
    assert got["version"] == seen[-1].version and got["replay"] == replay
    assert {k: got[k] for k in expected} == expected
    if not replay:
        _check_events(events, rows, cut)
    assert max(e["version"] for e in events) <= seen[-1].version
    for payload in (got, events, listed):
        text = json.dumps(payload)
        assert '"holders"' not in text and '"moderators"' not in text
    assert [(m["version"], m["scores"]) for m in listed] == [(seen[-1].version, state.scores)]
    assert listed[0]["status"] == ("finished" if state.finished else "live")
    if not in_show:
        status = "finished" if state.finished else "live"
        line = re.search(rf'href="/games/matches/{match.pk}/">[^<]*</a> · (\w+)', home)
        assert line is not None and line.group(1) == status, home
