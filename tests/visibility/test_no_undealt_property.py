"""Property, under both show policies ("public" and "everything"): random
matches of a show played by bots, a random moment, an anonymous spectator.
No delayed payload (the API's view, history and export, the match page, the
socket's table, the webhook bodies due by then) holds a card not dealt at
the cut, nor a deal's order or salt before the bout reveals it."""

import json
import uuid
from datetime import UTC, datetime

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from eventlog.store import read
from games.core.protocol import SPECTATOR_VIEW
from games.visibility import NotVisibleYet
from hooks.models import WebhookDelivery, WebhookEndpoint
from live.render import fragment

from .helpers import bot_match
from .leaks import assert_no_undealt

GAMES = [
    ("love-letter", ["ana", "ben"], {}),
    ("love-me-not", ["ana", "ben"], {}),
    ("higher-lower", ["ana", "ben"], {}),
    ("doubting-love-letter", ["ana", "ben"], {}),
    ("bleven", ["ana", "ben"], {}),
]


@pytest.mark.django_db
@settings(
    max_examples=5,  # a few seconds
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],  # shrinking a DB test is slow
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    game=st.sampled_from(GAMES),
    policy=st.sampled_from(["public", "everything"]),
    seed=st.integers(0, 10_000),
    moves=st.integers(1, 20),
    delay=st.sampled_from([5, 60, 300]),
    moment=st.floats(0, 1),
)
def test_no_delayed_payload_holds_an_undealt_card_an_order_or_a_salt(
    client,
    fake_shows,
    at,
    game,
    policy,
    seed,
    moves,
    delay,
    moment,
    django_capture_on_commit_callbacks,
):
    name, seats, options = game
    show = fake_shows.add(f"fake-show-{uuid.uuid4().hex}", delay=delay, policy=policy)
    WebhookEndpoint.objects.create(
        show_stream=show, url="http://127.0.0.1:9/", kinds=["your_turn"], secret="s" * 64
    )
    # the reactors (webhook deliveries) run once the appends commit
    with django_capture_on_commit_callbacks(execute=True):
        match = bot_match(
            name, seats, seed, moves, bot="bot:random", options=options, show_stream=show
        )
    rows = read(match.stream)
    cut = rows[int(moment * (len(rows) - 1))].recorded_at.timestamp()
    at(cut + delay)

    view = client.get(f"/api/matches/{match.pk}/")
    if view.status_code == 404:  # nothing old enough yet
        with pytest.raises(NotVisibleYet):
            fragment(match, SPECTATOR_VIEW)
        return
    got = view.json()
    if got["replay"]:  # the full replay is open: every deal is revealed by design
        return
    history = client.get(f"/api/matches/{match.pk}/history").json()
    export = [
        json.loads(line)
        for line in client.get(f"/api/matches/{match.pk}/export").content.decode().splitlines()
    ]
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    version, table = fragment(match, SPECTATOR_VIEW)
    assert version == got["version"]
    due = datetime.fromtimestamp(cut + delay, tz=UTC)
    bodies = [
        json.loads(d.body)
        for d in WebhookDelivery.objects.filter(stream=match.stream, due_at__lte=due)
    ]
    assert all(b["version"] <= got["version"] for b in bodies)
    assert_no_undealt([got, history, export, bodies], match.stream, cut, text=page + table)
