"""The Content-Security-Policy (django-csp, config/settings.py) is sent with
every kind of page and breaks none: no script or style runs inline, so the
browser reports no violation (``securitypolicyviolation`` events and its
console), htmx and the live socket still work, the API docs start, and the
overlays can still be framed by a streaming tool while other pages cannot."""

import io
import random

from django.contrib.auth.models import User
from django.core.management import call_command
from playwright.sync_api import expect

from broadcast import overlays
from games import services
from tournaments.demo import LIVE_DEMO
from tournaments.models import ShowRecord

from .conftest import PASSWORD
from .test_accessibility import _pages
from .test_games import click_a_control

WATCH = """
window.__csp = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__csp.push(e.effectiveDirective + " " + e.blockedURI + " " + e.sourceFile + ":" + e.lineNumber);
});
"""


def _seeded():
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    for user in User.objects.all():
        user.set_password(PASSWORD)
        user.save()
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    token = overlays.rotate(show, User.objects.get(username="organizer"))
    more = [(None, f"/shows/{show.pk}/board/"), (None, f"/shows/{show.pk}/tv/"), (None, "/tv/")]
    more += [(None, f"/overlay/{token}/{kind}/?panel=light&size=l") for kind in overlays.KINDS]
    return _pages() + more, token


def _watched(contexts, user, reported):
    page = contexts(user)
    page.context.add_init_script(WATCH)
    page.on(
        "console",
        lambda m: reported.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return page


def test_every_kind_of_page_keeps_the_policy_and_works_under_it(contexts, transactional_db, site):
    pages, token = _seeded()
    opened, failures = {}, []
    for who, path in pages:
        reported: list[str] = []
        if who not in opened:
            opened[who] = (
                reported,
                _watched(contexts, User.objects.filter(username=who).first(), reported),
            )
        reported, page = opened[who]
        reported.clear()
        response = page.goto(path)
        policy = response.headers.get("content-security-policy", "")
        if "script-src 'self'" not in policy or "unsafe-inline" in policy:
            failures.append(f"{path}: policy {policy!r}")
        if path == "/api/docs/":
            expect(page.locator(".swagger-ui .info .title")).to_be_visible(timeout=20_000)
        else:
            page.wait_for_load_state("networkidle")
            assert page.evaluate("typeof window.htmx") == "object", path
        seen = page.evaluate("window.__csp || []") + reported
        failures += [f"{who or 'logged out'} {path}: {v}" for v in seen]
    assert not failures, "\n".join(failures)


def test_an_overlay_may_be_framed_and_no_other_page(contexts, transactional_db, site):
    _pages_, token = _seeded()
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    page = contexts()
    page.set_content(
        f'<iframe title="overlay" src="{site}/overlay/{token}/scoreboard/"></iframe>'
        f'<iframe title="board" src="{site}/shows/{show.pk}/board/"></iframe>'
    )
    expect(page.frame_locator('iframe[title="overlay"]').locator("body.overlay")).to_be_attached()
    board = page.goto(f"{site}/shows/{show.pk}/board/")
    assert "frame-ancestors 'none'" in board.headers["content-security-policy"]
    overlay = page.goto(f"{site}/overlay/{token}/scoreboard/")
    assert "frame-ancestors" not in overlay.headers["content-security-policy"]


def test_the_dashboard_waits_while_a_moderator_types_in_it(contexts, transactional_db, site):
    """Its live part is fetched every 2 s, not while a field in it has the focus
    (a script file now: htmx's trigger filter was evaluated, which the CSP refuses)."""
    _seeded()
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    page = contexts(User.objects.get(username="organizer"))
    page.goto(f"/shows/{show.pk}/dashboard/")
    polls = []
    page.on("request", lambda r: polls.append(r.url) if "/live" in r.url else None)
    with page.expect_request(lambda r: "/live" in r.url):
        pass  # it polls while nobody is in it
    reason = page.locator("#dash-live input[name=reason]").first
    reason.fill("a typed reason")
    reason.focus()
    polls.clear()
    page.wait_for_timeout(5000)  # two and a half poll periods
    assert polls == [] and reason.input_value() == "a typed reason"
    with page.expect_request(lambda r: "/live" in r.url):
        reason.blur()


def test_the_stake_sliders_number_follows_it(contexts, make_user):
    """Higher-lower's stake: the number beside the slider follows it (a handler
    in table.js, not an inline one), and the table reports no violation."""
    rng = random.Random(3)
    ana = make_user("ana")
    match = services.create_match(
        "higher-lower",
        ["ana", "ben"],
        options={"decision_s": 0, "auction_close_s": 1},
        holders={"ana": ana.pk, "ben": "bot:random"},
        rng=random.Random(3),
    )
    reported: list[str] = []
    page = _watched(contexts, ana, reported)
    page.goto(f"/games/matches/{match.pk}/")
    slider = page.locator("form.control input[type=range]")
    for _ in range(100):
        services.play_bots(match, rng=rng)
        page.reload()
        if slider.count():
            break
        if page.locator("form.control").count():
            click_a_control(page, rng, match)
        else:  # nothing for ana to do: the auction's silence runs out
            page.wait_for_timeout(500)
    else:
        raise AssertionError("ana was never asked for a stake")
    top = slider.get_attribute("max")
    assert int(top) > 0  # a move to make
    slider.fill(top)
    expect(slider.locator("xpath=following-sibling::output")).to_have_text(top)
    assert page.evaluate("window.__csp") + reported == []
