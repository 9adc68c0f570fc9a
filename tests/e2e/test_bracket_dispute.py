"""A bracket's player files a dispute from their table, in the browser: the
bracket is hosted by a show whose entrants they are not; the link under the
table opens the filing form with their match and its last move filled in,
and what they read afterwards names the dispute and the match in words."""

import random

from playwright.sync_api import expect

from games.models import Match
from tournaments import bracket_services, show_services, shows
from tournaments.models import ShowRecord


def test_a_bracket_player_files_a_dispute_from_their_table(contexts, make_user):
    olga, mia, sam = make_user("olga"), make_user("mia"), make_user("sam")
    host = show_services.create_show(
        name="Host Night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={"ana": "bot:heuristic", "ben": "bot:heuristic"},
        rng=random.Random(1),
    )
    show_services.command(
        host,
        {"type": "appoint_moderator", "username": "mia"},
        show_services.Acting("olga", shows.ORGANIZER),
    )
    cup = bracket_services.create_bracket(
        name="Side Cup",
        game="love-me-not",
        format="single",
        entrants=["zoe", "yan"],
        holders={"zoe": sam.pk, "yan": "bot:random"},
        host_show=host,
        organizer_id=olga.pk,
        rng=random.Random(2),
    )
    match = Match.objects.get(show_stream=cup)
    player = contexts(sam)
    player.goto(f"/games/matches/{match.pk}/")
    expect(player.locator(".muted").filter(has_text="you play")).to_contain_text("zoe")
    version = player.locator(".history li").last.get_attribute("value")
    player.get_by_role("link", name="Something wrong? File a dispute").click()
    expect(player.get_by_role("heading", level=1)).to_have_text("File a dispute")
    expect(player.get_by_label("event (version)")).to_have_value(version)
    player.get_by_label("what went wrong").fill("yan played twice in a row")
    player.get_by_role("button", name="file the dispute").click()
    expect(player.get_by_role("heading", level=1)).to_have_text(
        f"Dispute 1 about {match} (move {version}) filed"
    )
    expect(player.locator("main")).not_to_contain_text("d-1")
    d = show_services.load(host)[0].disputes["d-1"]
    assert (d.filed_by, d.target_stream, d.target_version) == ("zoe", match.stream, int(version))
    # the host show's moderator sees it on the dashboard, in words
    moderator = contexts(mia)
    moderator.goto(f"/shows/{ShowRecord.objects.get(stream=host).pk}/dashboard/")
    expect(moderator.locator("article.dash-dispute")).to_contain_text(
        f"filed by zoe about {match}, move {version}"
    )
