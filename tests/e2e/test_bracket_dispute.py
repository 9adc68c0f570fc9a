"""A bracket's player files a dispute from their table, in the browser: the
bracket is hosted by a show whose entrants they are not; the link under the
table opens the filing form with their match and its last move filled in,
and what they read afterwards names the dispute and the match in words."""

from playwright.sync_api import expect

from tournaments import show_services


def test_a_bracket_player_files_a_dispute_from_their_table(contexts, make_user, hosted_bracket):
    olga, mia, sam = make_user("olga"), make_user("mia"), make_user("sam")
    record, match = hosted_bracket(olga, mia, sam)
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
    d = show_services.load(record.stream)[0].disputes["d-1"]
    assert (d.filed_by, d.target_stream, d.target_version) == ("zoe", match.stream, int(version))
    # the host show's moderator sees it on the dashboard, in words
    moderator = contexts(mia)
    moderator.goto(f"/shows/{record.pk}/dashboard/")
    expect(moderator.locator("article.dash-dispute")).to_contain_text(
        f"filed by zoe about {match}, move {version}"
    )
