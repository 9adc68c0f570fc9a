"""Two players, two browser contexts, one whole Doubting Love Letter bout
played with clicks only: a Guard named (wrongly), a bluff, a challenge."""

import random
import re

from playwright.sync_api import expect

from games import services
from games.models import Match

# ana holds a Guard and draws a Priest, ben holds a Handmaid and draws a King
DEAL = {"removed": ["3", "5", "7"], "deck": ["1", "4", "2", "6"], "first": "ana"}


def control(page, label):
    """The form of one control, found by its label as a player reads it."""
    return page.locator("form.control").filter(has=page.get_by_text(label, exact=True))


def test_a_whole_bout_with_a_guard_a_bluff_and_a_challenge(contexts, make_user, shot):
    users = {"ana": make_user("ana"), "ben": make_user("ben")}
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"first_to": 1, "decision_s": 0},
        holders={s: u.pk for s, u in users.items()},
        setup=DEAL,
        rng=random.Random(1),
    )
    ana, ben = contexts(users["ana"]), contexts(users["ben"])
    for page in (ana, ben):
        page.get_by_role("link", name="Games").click()
        page.goto(f"/games/matches/{match.pk}/")
    expect(ana.locator(".seat.you .hand")).to_contain_text("Guard")
    expect(ben.locator(".seat.you .hand")).to_contain_text("Handmaid")
    expect(ben.locator(".seat.you .hand")).not_to_contain_text("Guard")  # ana's card is hers
    shot(ana, "1-ana-to-play")

    # ana puts down her Guard, telling the truth
    guard = control(ana, "Put down Guard (1)")
    guard.get_by_label("Claim").select_option(label="Guard (1)")
    guard.get_by_role("button", name="Put down Guard (1)").click()
    expect(ana.locator(".actions")).to_have_count(0)

    # ben's table learns it by polling; he lets the claim pass
    ben.get_by_role("button", name="Let it pass").click()

    # ana names a card for the Guard: a Baron, wrong (ben holds a Handmaid)
    ana.get_by_role("group", name="Card").get_by_role("button", name="Baron (3)").click()
    expect(ana.locator(".history")).to_contain_text("named Baron (3): wrong")

    # ben drew the King and bluffs: he puts it down claiming a Priest
    expect(ben.locator(".seat.you .hand")).to_contain_text("King")
    king = control(ben, "Put down King (6)")
    king.get_by_label("Claim").select_option(label="Priest (2) (bluff)")
    shot(ben, "2-ben-bluffs")
    king.get_by_role("button", name="Put down King (6)").click()

    # ana does not believe him
    expect(ana.locator(".board")).to_contain_text("ben put down a card claiming Priest (2)")
    ana.get_by_role("button", name="Challenge").click()

    for page in (ana, ben):
        expect(page.locator(".result")).to_be_visible()
        expect(page.locator(".history")).to_contain_text("it was King (6), a bluff")
    expect(ana.locator(".result")).to_contain_text(re.compile("you", re.I))
    shot(ana, "3-ana-won")
    shot(ben, "3-ben-lost")
    match = Match.objects.get(pk=match.pk)
    assert match.status == "finished"
    assert list(services.load(match).state.winners) == ["ana"]
