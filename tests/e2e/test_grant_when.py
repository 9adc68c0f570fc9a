"""The dashboard's grant form says from which bout of each match being played
an item granted now applies, and keeps saying it as the bouts go by (the
live part's poll carries it), without a reload."""

import re

from playwright.sync_api import expect

from games import services as match_services
from games.models import Match


def test_the_grant_form_follows_the_bouts_of_the_match_being_played(contexts, show_of_two):
    show, _olga, mod = show_of_two
    final = Match.objects.get(show_stream=show.stream, kind="final")

    page = contexts(mod)
    page.get_by_role("link", name="Moderate").click()
    page.get_by_role("link", name="Two left").click()
    note = page.locator("#grant-when")
    expect(note).to_contain_text(f"bout 2 of {final} (ana, ben)")
    page.evaluate("window.stayed = true")  # gone if the page reloads

    match_services.submit(
        final, None, {"type": "award_bout", "winner": "ben", "reason": "r"}, role="moderator"
    )
    expect(note).to_contain_text(f"bout 3 of {final} (ana, ben)")
    assert page.evaluate("window.stayed") is True
    # the note is still the grant form's own, not a copy in the live part
    grant = page.get_by_role("group", name="Grant an item")
    expect(grant.locator("#grant-when")).to_have_count(1)
    expect(page.locator("#dash-live #grant-when")).to_have_count(0)
    assert re.search(r"bout 3 of", grant.inner_text())
