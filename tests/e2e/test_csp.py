"""The Content-Security-Policy (django-csp, config/settings.py) where the
accessibility sweep's walk cannot show it (the walk checks the policy on
every page it visits: csp.py, test_accessibility.py): the overlays can be
framed by a streaming tool while other pages cannot, and work under the
policy with their settings; the dashboard's poll waits while a moderator
types (a script file, not an htmx filter the policy refuses); the stake
slider's number follows it (a handler in table.js, not an inline one)."""

import random

from playwright.sync_api import expect

from broadcast import overlays
from games import services

from .csp import PolicyWatch, policy_problems
from .test_games import click_a_control


def test_an_overlay_may_be_framed_and_no_other_page(contexts, show_of_two, site):
    show, olga, _mod = show_of_two
    token = overlays.rotate(show, olga)
    page = contexts()
    watch = PolicyWatch(page.context)
    page.set_content(
        f'<iframe title="overlay" src="{site}/overlay/{token}/scoreboard/"></iframe>'
        f'<iframe title="board" src="{site}/shows/{show.pk}/board/"></iframe>'
    )
    expect(page.frame_locator('iframe[title="overlay"]').locator("body.overlay")).to_be_attached()
    board = page.goto(f"{site}/shows/{show.pk}/board/")
    assert "frame-ancestors 'none'" in board.headers["content-security-policy"]
    overlay = page.goto(f"{site}/overlay/{token}/scoreboard/")
    assert "frame-ancestors" not in overlay.headers["content-security-policy"]
    watch.violations(page)  # the board's refused framing is reported: expected
    # every overlay, with settings as a streaming tool's link gives them
    failures = []
    for kind in overlays.KINDS:
        path = f"/overlay/{token}/{kind}/?panel=light&size=l"
        response = page.goto(path)
        page.wait_for_load_state("networkidle")
        failures += [f"{path}: {p}" for p in policy_problems(response, page, path)]
        failures += [f"{path}: {v}" for v in watch.violations(page)]
    assert not failures, "\n".join(failures)


def test_the_dashboard_waits_while_a_moderator_types_in_it(contexts, show_of_two):
    """Its live part is fetched every 2 s, not while a field in it has the focus
    (a script file now: htmx's trigger filter was evaluated, which the CSP refuses)."""
    show, _olga, mod = show_of_two
    page = contexts(mod)
    watch = PolicyWatch(page.context)
    page.clock.install()  # runs as the real one; the focused stretch is run on it
    page.goto(f"/shows/{show.pk}/dashboard/")
    polls = []
    page.on("request", lambda r: polls.append(r.url) if "/live" in r.url else None)
    with page.expect_request(lambda r: "/live" in r.url):
        pass  # it polls while nobody is in it
    reason = page.locator("#dash-live input[name=reason]").first
    reason.fill("a typed reason")
    reason.focus()
    polls.clear()
    page.clock.run_for(5000)  # two and a half poll periods, their timers fired
    assert polls == [] and reason.input_value() == "a typed reason"
    with page.expect_request(lambda r: "/live" in r.url):
        reason.blur()
    assert watch.violations(page) == []


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
    page = contexts(ana)
    watch = PolicyWatch(page.context)
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
    assert watch.violations(page) == []
