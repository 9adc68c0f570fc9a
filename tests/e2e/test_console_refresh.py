"""The console brings itself up to date without a reload, through one
refresher (js/refresh.js): a step that becomes due appears by itself, and
no second poll (htmx's) fetches the console as well."""

from playwright.sync_api import expect

from tournaments import show_services
from tournaments.models import ShowRecord


def test_a_step_that_becomes_due_appears_without_a_reload(contexts, make_organizer, make_user):
    olga, alice = make_organizer("olga"), make_user("alice")
    make_user("mo")
    entrants = ["alice", "bot-1", "bot-2", "bot-3"]
    stream = show_services.create_show(
        name="Friday Night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=entrants,
        options={"step_deadline_s": 0},
        holders={"alice": alice.pk} | {e: "bot:heuristic" for e in entrants[1:]},
    )
    record = ShowRecord.objects.get(stream=stream)
    path = f"/console/shows/{record.pk}/"
    page = contexts(olga)
    fetched = []
    page.on("request", lambda r: fetched.append(r.headers) if r.url.endswith(path) else None)
    page.goto(path)
    page.evaluate("window.stayed = true")  # gone if the page reloads
    expect(page.locator("form#step-remove")).to_have_count(0)  # no moderator to remove

    acting = show_services.acting_for(stream, olga)
    show_services.command(stream, {"type": "appoint_moderator", "username": "mo"}, acting)

    expect(page.locator("form#step-remove")).to_be_visible(timeout=20_000)
    expect(page.locator("#console-live")).to_contain_text("Moderators: mo")
    assert page.evaluate("window.stayed") is True
    refreshes = fetched[1:]  # after the page's own load
    assert refreshes and all(h.get("x-refresh") == "1" for h in refreshes), refreshes
    assert not any("hx-request" in h for h in fetched)
