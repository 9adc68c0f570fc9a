"""A dispute in the browser, over the app served with its sockets: the
table's "file a dispute" link follows the table as a move arrives by socket,
the form shows that move in words, and the moderator's dashboard hears of
the new dispute over its own socket (its title says it; the page is not
reloaded)."""

import random

import pytest
from playwright.sync_api import expect

from games import services
from games.core.playout import bot_command
from games.core.registry import series_for
from games.models import Match
from tests.e2e.test_live_socket import site  # noqa: F401 (the ASGI site, with sockets)
from tournaments import show_services as ss
from tournaments.models import ShowRecord

pytestmark = pytest.mark.browser


def _move(match) -> int:
    series = series_for(match.game)
    state = services.load(match).state
    seat = series.pending(state)[0].seat
    services.submit(match, seat, bot_command(series, state, seat, "random", random.Random(3)))
    match.refresh_from_db()
    return match.version


def test_a_dispute_points_at_the_move_seen_and_the_dashboard_hears_of_it(contexts, make_user, shot):
    olga, mia, pat, sam = (make_user(n) for n in ("olga", "mia", "pat", "sam"))
    stream = ss.create_show(
        name="Alert night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={"ana": pat.pk, "ben": sam.pk},
        rng=random.Random(2),
    )
    ss.command(
        stream, {"type": "appoint_moderator", "username": "mia"}, ss.Acting("olga", "organizer")
    )
    record = ShowRecord.objects.get(stream=stream)
    final = Match.objects.get(show_stream=stream, kind="final")

    moderator = contexts(mia)
    with moderator.expect_websocket(lambda ws: "/dashboard/" in ws.url):
        moderator.goto(f"/shows/{record.pk}/dashboard/")
    title = moderator.title()

    player = contexts(pat)
    with player.expect_websocket(lambda ws: f"/ws/matches/{final.pk}/" in ws.url):
        player.goto(f"/games/matches/{final.pk}/")
    link = player.locator(".dispute-link a")
    expect(link).to_have_attribute(
        "href", f"/shows/disputes/file/{final.pk}?version={final.version}"
    )
    version = _move(final)  # a move the page did not load with: it comes by socket
    expect(player.locator("#table")).to_have_attribute("data-version", str(version))
    expect(link).to_have_attribute("href", f"/shows/disputes/file/{final.pk}?version={version}")

    link.click()
    expect(player.locator(".disputed-move")).to_contain_text(f"Move {version}:")
    player.get_by_label("what went wrong").fill("that move came too fast")
    player.get_by_role("button", name="file the dispute").click()

    expect(moderator).to_have_title(f"(1) New dispute · {title}")
    expect(moderator.locator(".dispute-alert")).to_have_text("New dispute")
    shot(moderator, "dashboard-new-dispute")
