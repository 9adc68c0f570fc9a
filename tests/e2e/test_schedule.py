"""A scheduled show in Chromium: a player registers and checks in with clicks,
the show starts on its time (the clocks' sweep, its time passed in), and when
her death match's ready-check opens she gets "your match is ready" in the
header and on the show page, confirms with a click, and the match opens.
Then the same pages in French on a 390 px phone, never scrolling sideways.
And the scheduling form takes the browser's time zone while the show page
counts its entrants and says check-in is open (English and French)."""

import time

from playwright.sync_api import expect

from clocks.enforce import sweep
from games.models import Match
from tests.tournaments.test_schedule_words import _register as register
from tests.tournaments.test_schedule_words import _scheduled as scheduled
from tournaments import show_services, shows
from tournaments.models import ShowRecord

PHONE = {"width": 390, "height": 844}


def test_register_check_in_and_get_your_match_is_ready(contexts, make_user, shot):
    ana = make_user("ana")
    olga = make_user("olga")
    now = time.time()
    stream = show_services.create_show(
        name="Friday night",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["bot-a", "bot-b"],
        holders={"bot-a": "bot:random", "bot-b": "bot:random"},
        options={
            "registration": "open",
            "check_in_s": 3600,
            "ready_check_s": 600,
            "absentees": "bot",
            "step_deadline_s": 0,
            "spectator_delay_s": 0,
            "game_pool": ["love-me-not", "higher-lower", "love-letter"],
        },
        now=now,
        starts_at=now + 1800,
    )
    record = ShowRecord.objects.get(stream=stream)

    page = contexts(ana)
    page.goto(record.get_absolute_url())
    expect(page.locator("#schedule")).to_contain_text("Registration is open")
    # the start in the browser's own time zone and words (static/js/localtime.js)
    expect(page.locator("#schedule time").first).not_to_have_attribute("data-local", "")
    page.get_by_role("button", name="Register").click()
    expect(page.locator(".messages")).to_contain_text("You are registered.")
    expect(page.locator("#my-registration")).to_contain_text("You are registered as ana")

    sweep(now=now + 1)  # the check-in window has begun: the clock opens it
    page.reload()
    expect(page.locator("#check-in-open")).to_be_visible()
    expect(page.locator("#reminders")).to_contain_text("Check-in is open for Friday night")
    page.get_by_role("button", name="Check in").click()
    expect(page.locator(".messages")).to_contain_text("You are checked in.")

    sweep(now=now + 1800)  # its start time: it starts by itself
    state = show_services.load(stream)[0]
    assert state.phase == shows.RUNNING and "ana" in shows.active(state)
    organizer = show_services.Acting("olga", shows.ORGANIZER)
    show_services.command(
        stream,
        {"type": "enter_ranking", "ranking": [["bot-a"], ["bot-b"], ["ana"]]},
        organizer,
    )
    page.reload()
    page.locator("#your-decisions").get_by_role("button", name="bot-b").click()
    show_services.command(stream, {"type": "pick_game", "game": "love-me-not"}, organizer)

    # the notice comes to the header by itself (its 15 s poll), and the show page asks
    expect(page.locator("#reminders")).to_contain_text("Your match is ready", timeout=25_000)
    page.reload()
    ready = page.locator("#ready-check")
    expect(ready).to_contain_text("Your match is ready")
    shot(page, "ready-check")
    assert not Match.objects.filter(show_stream=stream).exists()
    ready.get_by_role("button", name="I am here").click()
    expect(page.locator(".messages")).to_contain_text("You are there")
    match = Match.objects.get(show_stream=stream)
    assert sorted(match.seats) == ["ana", "bot-b"]

    # French, on a phone: the show and the reminders pages fit 390 px
    phone = contexts(ana, viewport=PHONE, is_mobile=True, has_touch=True)
    phone.goto(record.get_absolute_url())
    phone.get_by_role("button", name="Français").click()
    expect(phone.locator("html")).to_have_attribute("lang", "fr")
    for path, name, words in [
        (record.get_absolute_url(), "phone-show", "Programme"),
        ("/account/reminders/", "phone-reminders", "Rappels"),
    ]:
        phone.goto(path)
        expect(phone.locator("main")).to_contain_text(words)
        shot(phone, name)
        assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], name


SCHEDULING = {
    "en": {
        "zone": "Time zone",
        "count": "5 of 8 registered: ana, ben, cal, dee, eve",
        "open": "check-in is open",
    },
    "fr": {
        "zone": "Fuseau horaire",
        "count": "5 inscrits sur 8\u00a0: ana, ben, cal, dee, eve",
        "open": "la confirmation de présence est ouverte",
    },
}


def test_the_form_takes_the_browsers_zone_and_the_show_counts_its_entrants(
    contexts, make_organizer, site
):
    """Issue 43, point 9: the scheduling form offers the browser's own time
    zone (static/js/browser_zone.js), and the show page says how many of its
    seats are taken, by whom, and that check-in is open once it opened."""
    olga = make_organizer("olga")
    now = time.time()
    record = scheduled(now, cap=8)  # starts in an hour, check-in 10 minutes before
    register(record, ["ana", "ben", "cal", "dee", "eve"], now + 1)
    sweep(now=now + 3600 - 600)  # the check-in opens, on its clock
    for (language, w), zone in zip(SCHEDULING.items(), ("Europe/Paris", "Asia/Tokyo"), strict=True):
        page = contexts(olga, timezone_id=zone)
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])
        page.goto("/console/shows/scheduled/new/")
        expect(page.get_by_label(w["zone"])).to_have_value(zone)
        page.goto(record.get_absolute_url())
        count = page.locator("#registered-count")
        expect(count).to_have_text(w["count"])  # Playwright takes any space for a space:
        assert count.text_content() == w["count"]  # French wants a non-breaking one
        expect(page.locator("#schedule")).to_contain_text(w["open"])
