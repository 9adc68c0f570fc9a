"""Show policy "everything": a delayed spectator sees every hand and every
past move as of the cut, never the deck (a card not dealt yet), nor a
deal's order or salt before the bout reveals them."""

import json

import pytest

from eventlog.store import read
from games import services
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW

from .helpers import bot_match
from .leaks import assert_no_undealt, hidden_salts, undealt_fields

pytestmark = pytest.mark.django_db

GAMES = [
    ("love-letter", ["ana", "ben"], {}),
    ("love-me-not", ["ana", "ben"], {}),
    ("higher-lower", ["ana", "ben"], {}),
    ("doubting-love-letter", ["ana", "ben"], {}),
    ("bleven", ["ana", "ben"], {}),
]


def _live_match(fake_shows, game, seats, options, *, policy="everything", moves=4, seed=3):
    show = fake_shows.add(f"fake-show-{game}-{policy}", delay=60, policy=policy)
    match = bot_match(game, seats, seed, moves, bot="bot:random", options=options, show_stream=show)
    assert match.status == "live"
    return match


@pytest.mark.parametrize("game,seats,options", GAMES, ids=[g[0] for g in GAMES])
def test_everything_is_every_hand_but_never_the_deck_nor_the_salt(
    client, fake_shows, at, game, seats, options
):
    match = _live_match(fake_shows, game, seats, options)
    cut = read(match.stream)[-1].recorded_at.timestamp()
    if game != "higher-lower":  # the one game without a shuffled deck
        moderators = services.view_for(match, MODERATOR_VIEW)
        assert undealt_fields(moderators), "the moderators' view holds the deck (the premise)"
        assert hidden_salts(match.stream, cut)

    at(cut + 60.5)
    view = client.get(f"/api/matches/{match.pk}/")
    history = client.get(f"/api/matches/{match.pk}/history")
    page = client.get(f"/games/matches/{match.pk}/")
    assert view.status_code == history.status_code == page.status_code == 200
    got = view.json()
    assert got["version"] == match.version
    assert_no_undealt(got, match.stream, cut)
    assert_no_undealt(history.json(), match.stream, cut, text=page.content.decode())
    # everything a seat knows, the spectator knows: each seat's own view is in it
    for seat in seats:
        own = services.view_for(match, services.Viewer.of_seat(seat))
        for key in ("hand", "pick", "guess"):
            mine = (own.get("bout") or {}).get(key)
            if mine:
                assert json.dumps(mine) in json.dumps(got), (seat, key)


@pytest.mark.parametrize("game,seats,options", GAMES[:2], ids=[g[0] for g in GAMES[:2]])
def test_the_public_policy_shows_no_hand(client, fake_shows, at, game, seats, options):
    match = _live_match(fake_shows, game, seats, options, policy="public")
    cut = read(match.stream)[-1].recorded_at.timestamp()
    at(cut + 60.5)
    got = client.get(f"/api/matches/{match.pk}/").json()
    assert_no_undealt(got, match.stream, cut)
    assert all(h is None for h in got["bout"]["hands"].values())


def test_the_socket_fragment_under_everything_holds_no_deck(fake_shows, at):
    from live.render import fragment

    match = _live_match(fake_shows, *GAMES[0])
    cut = read(match.stream)[-1].recorded_at.timestamp()
    at(cut + 60.5)
    version, html = fragment(match, SPECTATOR_VIEW)
    assert version == match.version
    for salt in hidden_salts(match.stream, cut):
        assert salt not in html
