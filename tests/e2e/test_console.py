"""The organizer's console in the browser: a four-entrant show created by its
form and run round by round to a champion with the organizer's clicks, and
a single-elimination bracket of eight created and drawn with its lines."""

import random

from playwright.sync_api import expect

from tournaments import show_services
from tournaments.models import BracketRecord, ShowRecord
from tournaments.words import STORED_WORDS

DOC_VIEWPORT = {"width": 1000, "height": 700}  # the README's pictures: small PNGs
FAST_GAMES = ("higher-lower", "love-letter", "love-me-not")


def step_form(page, kind):
    """One step's form on the console's show page (its id names the step)."""
    return page.locator(f"form#step-{kind}")


def test_the_organizer_runs_a_four_entrant_show_to_a_champion(
    contexts, make_user, make_organizer, run_show, doc_shot
):
    olga, alice = make_organizer("olga"), make_user("alice")
    page = contexts(olga, viewport=DOC_VIEWPORT)
    page.get_by_role("link", name="Console").click()
    page.get_by_role("link", name="New show").click()

    page.get_by_label("Name", exact=True).fill("Friday Night")
    page.get_by_label("alice", exact=True).check()
    page.get_by_label("Bots", exact=True).fill("3")
    for game in ("doubting-love-letter", "bleven"):  # short matches only
        page.get_by_label(game, exact=True).uncheck()
    page.get_by_label("Death match first to", exact=True).fill("1")
    page.get_by_label("Final game", exact=True).select_option("love-letter")
    page.get_by_label("Final first to", exact=True).fill("1")
    page.get_by_label("Step deadline s", exact=True).fill("0")
    page.get_by_label("Spectator delay s", exact=True).fill("0")
    page.get_by_label("Name", exact=True).focus()
    doc_shot(page, "1-console-new-show")
    page.get_by_role("button", name="Create the show").click()
    expect(page.locator(".messages")).to_contain_text("Friday Night is created.")

    record = ShowRecord.objects.get(name="Friday Night")
    state, _, holders = show_services.load(record.stream)
    assert list(state.entrants) == ["alice", "bot-1", "bot-2", "bot-3"]
    assert holders["alice"] == alice.pk and holders["bot-3"] == "bot:level:1"  # the default level
    assert set(state.options["game_pool"]) == set(FAST_GAMES)
    clicks = []

    def organizer_clicks(decision, state):
        """The organizer's step, made on the console page by typing and clicking."""
        page.reload()
        expect(page.locator(".console-pending")).to_contain_text(
            f"{state.organizer} (you): {STORED_WORDS[decision.kind]}"  # in words, not the id
        )
        if decision.kind == "enter_ranking":
            form = step_form(page, "ranking")
            # the places offered follow the entrants still in: alice first and alone,
            # so she gives a token and bots play the death matches
            active = show_services.shows.active(state)
            for n, name in enumerate(active, 1):
                expect(form.get_by_label(name, exact=True)).to_have_value(str(n))
            form.get_by_label("I understand this cannot be undone").check()
            if len(clicks) == 2:
                doc_shot(page, "2-console-show-running")
            form.get_by_role("button", name="Enter the main match's ranking").click()
        else:
            assert decision.kind == "pick_game", decision
            rnd = show_services.shows.current_round(state)
            duel = next(d for d in rnd.duels if d.dmo and not d.game)
            form = step_form(page, "pick_game")
            form.get_by_label("Candidate").fill(duel.candidate)
            form.get_by_label("Game").select_option("love-letter")
            form.get_by_role("button", name="Pick a death match's game").click()
        expect(page.locator(".messages")).to_contain_text("Done:")
        clicks.append(decision.kind)

    state = run_show(record.stream, {"alice": alice}, organizer_clicks, random.Random(7))
    # two rounds of four, then three: a ranking and a death match's game each
    assert clicks == ["enter_ranking", "pick_game", "enter_ranking", "pick_game"]
    assert state.champion in state.entrants

    page.reload()
    expect(page.locator(".console-champion")).to_have_text(f"Champion: {state.champion}")
    expect(page.locator(".console-pending")).to_contain_text("The show is over.")
    expect(step_form(page, "ranking")).to_have_count(0)  # nothing more to run
    doc_shot(page, "5-console-champion")
    # the show's public page crowns the same champion
    page.get_by_role("link", name="Its public page").click()
    expect(page.locator("main")).to_contain_text(state.champion)
    record.refresh_from_db()
    assert record.status == "finished" and record.champion == state.champion


def test_a_single_elimination_bracket_of_eight_is_drawn_with_lines(
    contexts, make_organizer, doc_shot
):
    olga = make_organizer("olga")
    page = contexts(olga, viewport=DOC_VIEWPORT)
    page.goto("/console/")
    page.get_by_role("link", name="New bracket").click()
    page.get_by_label("Name", exact=True).fill("Winter Cup")
    page.get_by_label("Game", exact=True).select_option("love-letter")
    page.get_by_label("Format", exact=True).select_option("single")
    names = [f"p{i}" for i in range(1, 9)]
    page.get_by_label("Entrants", exact=True).fill("\n".join(f"{n} = bot:heuristic" for n in names))
    page.get_by_role("button", name="Create and start").click()
    expect(page.locator(".messages")).to_contain_text("Winter Cup is created")
    record = BracketRecord.objects.get(name="Winter Cup")
    assert page.url.endswith(f"/shows/brackets/{record.pk}/")

    tree = page.get_by_role("group", name="the bracket")
    rounds = tree.locator(".bracket-round")
    expect(rounds).to_have_count(3)
    expect(tree.locator(".bracket-match")).to_have_count(7)
    expect(rounds.locator("h3")).to_have_text(["quarter-finals", "semi-finals", "final"])
    for i, n in enumerate((4, 2, 1)):
        expect(rounds.nth(i).locator(".bracket-match")).to_have_count(n)
    # seeds in bracket order, every first-round series open
    expect(rounds.nth(0).locator(".bracket-seed")).to_have_text(
        ["1", "8", "4", "5", "2", "7", "3", "6"]
    )
    expect(rounds.nth(0).locator(".bracket-live")).to_have_count(4)
    expect(rounds.nth(1).locator(".bracket-future")).to_have_count(2)

    # the lines are drawn: out of each match before the final, into each after
    # round one, and a join down each pair that feeds the next round
    box = {r: rounds.nth(r).bounding_box() for r in range(3)}
    assert box[0]["x"] < box[1]["x"] < box[2]["x"]  # rounds as columns, left to right
    outs, ins, joins = (tree.locator(f".bracket-{k}") for k in ("out", "in", "join"))
    expect(outs).to_have_count(6)
    expect(ins).to_have_count(3)
    expect(joins).to_have_count(3)
    for line in outs.all() + ins.all():
        b = line.bounding_box()
        assert b["width"] > 5 and b["height"] >= 1, b  # a horizontal stroke
    pairs = tree.locator(".bracket-pair").filter(has=page.locator(".bracket-join"))
    for pair in pairs.all():
        join = pair.locator(".bracket-join").bounding_box()
        first, second = (m.bounding_box() for m in pair.locator(".bracket-match").all())
        # the vertical stroke runs from the first match's middle to the second's
        middle = lambda b: b["y"] + b["height"] / 2  # noqa: E731
        assert join["height"] > 10
        assert abs(join["y"] - middle(first)) < 12, (join, first)
        assert abs(join["y"] + join["height"] - middle(second)) < 12, (join, second)
    doc_shot(page, "4-bracket-drawn")
