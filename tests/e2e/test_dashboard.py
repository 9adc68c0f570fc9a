"""The moderators' dashboard in the browser: an item granted there is used
at the player's table; a dispute filed by a player is ruled an overturn by
one moderator and approved by a second, and the bracket replays what
depended on it; a player is refused the dashboard with the site's 403 page.
The show and the bracket are set up by their services; the subject is
clicked."""

import random
import re
import time

from playwright.sync_api import expect

from eventlog.store import read
from games import services as match_services
from games.models import Match
from tournaments import bracket_services, show_services, shows
from tournaments.models import BracketRecord, ShowRecord

DOC_VIEWPORT = {"width": 1000, "height": 700}  # the README's pictures: small PNGs
ENTRANTS = ["ana", "bot-1", "bot-2", "bot-3"]


def make_show(organizer, player, moderators):
    """A four-entrant show: ``player`` holds ana, bots the rest, two moderators."""
    holders = {e: "bot:heuristic" for e in ENTRANTS}
    holders["ana"] = player.pk
    stream = show_services.create_show(
        name="Saturday Show",
        organizer=organizer.username,
        organizer_id=organizer.pk,
        entrants=ENTRANTS,
        holders=holders,
        options={
            "step_deadline_s": 0,
            "spectator_delay_s": 0,
            "game_pool": ["love-letter", "love-me-not", "higher-lower"],
            "death_match_first_to": 1,
            "final_first_to": 1,
        },
        rng=random.Random(3),
    )
    acting = show_services.Acting(organizer.username, shows.ORGANIZER)
    for m in moderators:
        show_services.command(stream, {"type": "appoint_moderator", "username": m.username}, acting)
    return stream


def open_dashboard(page):
    """From anywhere, as a moderator finds it: Moderate, then the show."""
    page.get_by_role("link", name="Moderate").click()
    page.get_by_role("link", name="Saturday Show").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Saturday Show: dashboard")


def test_a_moderator_grants_an_item_and_the_player_uses_it_at_the_table(
    contexts, make_user, run_show, doc_shot
):
    olga, mod, pat = make_user("olga"), make_user("moderator1"), make_user("pat")
    stream = make_show(olga, pat, [mod])
    moderator = contexts(mod, viewport=DOC_VIEWPORT)
    open_dashboard(moderator)
    grant = moderator.get_by_role("group", name="Grant an item")
    grant.get_by_label("to").select_option("ana")
    grant.get_by_label("item").select_option("insurance")
    grant.get_by_label("scope").select_option(label="the final only")
    grant.get_by_label("reason", exact=True).fill("won the quiz night")
    grant.get_by_role("button", name="grant").click()
    expect(moderator.locator(".messages")).to_contain_text("Insurance granted to ana")
    row = moderator.locator("#items tr").filter(has_text=re.compile(r"^ana"))
    expect(row).to_contain_text("Insurance")  # the item's name, never its id
    expect(row).to_contain_text("the final only · given by moderator1")
    (item,) = shows.inventory(show_services.load(stream)[0], "ana")

    def organizer_by_service(decision, state):
        """Not the subject here: ana first and alone, so bots play the death matches."""
        if decision.kind == "enter_ranking":
            cmd = {"type": "enter_ranking", "ranking": [[e] for e in shows.active(state)]}
        else:
            duel = next(d for d in shows.current_round(state).duels if d.dmo and not d.game)
            cmd = {"type": "pick_game", "candidate": duel.candidate, "game": "love-letter"}
        show_services.command(stream, cmd, show_services.Acting(olga.username, shows.ORGANIZER))

    state = run_show(
        stream,
        {"ana": pat},
        organizer_by_service,
        random.Random(5),
        until=lambda s: s.final is not None and s.final.match_stream,
    )
    assert "ana" in state.final.players and state.final.game == "doubting-love-letter"

    player = contexts(pat, viewport=DOC_VIEWPORT)
    player.get_by_role("link", name="Shows").click()
    player.get_by_role("link", name="Saturday Show").click()
    player.get_by_role("link", name="Saturday Show: the final").click()
    expect(player.locator(".seat.you .items")).to_contain_text("Insurance")  # by its name
    player.get_by_role("button", name="Declare Insurance").click()
    expect(player.get_by_role("button", name="Declare Insurance")).to_have_count(0)
    expect(player.locator(".history")).to_contain_text("Insurance")
    doc_shot(player, "6-table-item-used")

    final = Match.objects.get(stream=state.final.match_stream)
    assert [r.data["item"] for r in read(final.stream) if r.type == "item_used"] == ["insurance"]
    # the use came back to the show: the inventory (a fold of the log) is empty
    state = show_services.load(stream)[0]
    assert state.items[item.id].status == "used" and not shows.inventory(state, "ana")
    moderator.reload()
    expect(row).to_contain_text("nothing")


def test_an_overturn_ruled_by_one_moderator_and_approved_by_another_resets_the_bracket(
    contexts, make_user, doc_shot
):
    olga, pat = make_user("olga"), make_user("pat")
    mod1, mod2 = make_user("moderator1"), make_user("moderator2")
    host = make_show(olga, pat, [mod1, mod2])
    names = ["ben", "cal", "dee", "ana"]  # ana the lowest seed: a bot chooses who starts
    cup = bracket_services.create_bracket(
        host_show=host,
        organizer_id=olga.pk,
        name="Side Cup",
        game="love-letter",
        format="single",
        entrants=names,
        holders={**{n: "bot:heuristic" for n in names}, "ana": pat.pk},
        first_to=1,
        rng=random.Random(11),
    )
    rng, t = random.Random(11), time.time()
    for _ in range(10):  # bots play; pat's seat by its clock's timeouts
        live = list(Match.objects.filter(show_stream=cup, status="live"))
        if not live:
            break
        for match in live:
            t = match_services.run_bots(match, start=t, rng=rng)
    out = bracket_services.bracket_output(cup)
    assert out["champion"]
    first = next(s for s in out["series"] if "ana" in (s["a"], s["b"]))
    loser = first["b"] if first["winner"] == first["a"] else first["a"]

    # pat opens the series from the bracket and disputes its last event
    player = contexts(pat)
    player.get_by_role("link", name="Shows").click()
    player.get_by_role("link", name=re.compile("Side Cup")).click()
    ana_series = player.locator(".bracket-first .bracket-match").filter(has_text="ana")
    ana_series.get_by_role("link").click()
    expect(player.locator(".result")).to_be_visible()
    last = player.locator(".history li").last
    event = last.get_attribute("value")
    # the last history line's Dispute link opens the form filled with that event
    last.get_by_role("link", name="Dispute").click()
    expect(player.get_by_role("heading", level=1)).to_have_text("File a dispute")
    expect(player.get_by_label("event (version)")).to_have_value(event)
    player.get_by_label("what went wrong").fill("the other seat's bot played out of turn")
    player.get_by_role("button", name="file the dispute").click()
    title = str(Match.objects.get(stream=first["match_stream"]))
    about = f"dispute 1 about {title} (move {event})"
    expect(player.get_by_role("heading", level=1)).to_have_text(f"D{about[1:]} filed")

    # moderator1 claims it and rules an overturn: confirmed, then it waits
    one = contexts(mod1, viewport=DOC_VIEWPORT)
    open_dashboard(one)
    dispute = one.locator("article.dash-dispute").filter(has_text="Dispute 1")
    expect(dispute).to_contain_text(f"filed by ana about {title}, move {event}")
    dispute.get_by_role("button", name="claim").click()
    rule = one.get_by_role("group", name="Rule on dispute 1")
    rule.get_by_label("ruling").select_option("overturn_series")
    rule.get_by_role("button", name="rule…").click()
    # the ruling's own page: only the winner and the reason are asked
    expect(one.get_by_role("heading", level=1)).to_have_text(f"Rule on {about}")
    fields = one.locator("#ruling-fields")
    expect(fields.get_by_label("void back to")).to_have_count(0)
    # another ruling swaps in its own fields (htmx; without JS a button does)
    one.locator("select[name=ruling]").select_option("void_to")
    expect(fields.get_by_label("void back to")).to_be_visible()
    expect(fields.get_by_label("winner")).to_have_count(0)
    one.locator("select[name=ruling]").select_option("overturn_series")
    fields.get_by_label("winner").select_option(loser)
    fields.get_by_label("reason", exact=True).fill("the bot played out of turn")
    fields.get_by_role("button", name="rule…").click()
    expect(one.get_by_role("heading", level=1)).to_have_text(f"Confirm the ruling on {about}")
    one.get_by_role("button", name="Submit the ruling").click()
    expect(one.locator(".messages")).to_contain_text("waiting for a second moderator")
    expect(dispute).to_contain_text("Waiting for a second moderator: moderator1 proposes")
    expect(dispute).to_contain_text(f"the winner: {loser}")  # in words, not a dict
    expect(dispute.get_by_role("button", name="approve")).to_have_count(0)  # not their own
    doc_shot(one, "3-dashboard-ruling-waits")
    assert Match.objects.get(stream=first["match_stream"]).winners == [first["winner"]]

    # moderator2, in a second browser context, approves it
    two = contexts(mod2)
    open_dashboard(two)
    dispute = two.locator("article.dash-dispute").filter(has_text="Dispute 1")
    dispute.get_by_label("reason", exact=True).fill("agreed")
    dispute.get_by_role("button", name="approve").click()
    expect(two.locator(".messages")).to_contain_text("approve ruling done")
    expect(dispute).to_contain_text("Ruled: overturn the series result")

    # the bracket: the overturned series has its new winner, the final is replayed
    two.goto(f"/shows/brackets/{BracketRecord.objects.get(stream=cup).pk}/")
    rounds = two.locator(".bracket-round")
    expect(rounds).to_have_count(2)
    overturned = rounds.nth(0).locator(".bracket-match").filter(has_text="ana")
    expect(overturned.locator(".bracket-won")).to_contain_text(loser)
    final = rounds.nth(1).locator(".bracket-match")
    expect(final).to_contain_text(loser)
    expect(final).to_have_class(re.compile("bracket-live"))
    expect(final.locator(".bracket-won")).to_have_count(0)
    assert Match.objects.get(stream=first["match_stream"]).winners == [loser]
    assert not BracketRecord.objects.get(stream=cup).champion


def test_a_player_opening_the_dashboard_gets_the_403_page(contexts, make_user):
    olga, pat, mod = make_user("olga"), make_user("pat"), make_user("moderator1")
    stream = make_show(olga, pat, [mod])
    record = ShowRecord.objects.get(stream=stream)
    player = contexts(pat)
    expect(player.get_by_role("link", name="Moderate")).to_have_count(0)  # staff only
    player.goto("/shows/dashboards/")
    expect(player.locator("main")).to_contain_text("You organize or moderate no show.")
    answer = player.goto(f"/shows/{record.pk}/dashboard/")
    assert answer.status == 403
    expect(player.get_by_role("heading", level=1)).to_have_text("Not allowed")
    expect(player.locator("main")).to_contain_text(
        "You are pat, a player of Saturday Show: only its organizer and moderators"
    )
    expect(player.get_by_role("link", name="Showtable")).to_be_visible()  # the site's look
    expect(player.locator("#dash-live")).to_have_count(0)
    assert "Traceback" not in player.content()
