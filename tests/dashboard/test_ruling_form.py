"""The ruling form, played through the Django client: each ruling asks only
for what it needs and offers only values it may take (a void's moves in
words, an award's seats); an impossible ruling is refused on the first post,
with words, before any confirm page and with nothing written; a valid one
reaches the confirm page and applies once, however often it is confirmed."""

import random
import re

import pytest
from django.contrib.auth.models import User

from eventlog.store import read
from games import services as match_services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowRecord
from tournaments.ruling_form import RULING_FIELDS


@pytest.fixture
def world(db):
    people = {n: User.objects.create_user(n) for n in ("olga", "mia", "max")}
    stream = ss.create_show(
        name="Ruling night",
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "final_first_to": 5},
        holders={"ana": "bot:heuristic", "ben": "bot:heuristic"},
        rng=random.Random(4),
    )
    for name in ("mia", "max"):
        ss.command(
            stream,
            {"type": "appoint_moderator", "username": name},
            ss.Acting("olga", shows.ORGANIZER),
        )
    record = ShowRecord.objects.get(stream=stream)
    final = Match.objects.get(show_stream=stream, kind="final")
    match_services.play_bots(final, max_moves=8, rng=random.Random(4))
    final.refresh_from_db()
    last = read(final.stream)[-1].version
    max_ = ss.Acting("max", shows.MODERATOR, people["max"].pk)
    ss.command(
        stream,
        {
            "type": "file_dispute",
            "target_stream": final.stream,
            "target_version": last,
            "text": "a card went missing",
        },
        max_,
    )
    ss.command(
        stream, {"type": "claim_dispute", "dispute_id": "d-1"}, ss.Acting("mia", shows.MODERATOR)
    )
    return {"people": people, "show": record, "final": final, "last": last}


def rule_url(world, ruling=None):
    url = f"/shows/{world['show'].pk}/disputes/1/rule"
    return f"{url}?ruling={ruling}" if ruling else url


def as_mia(client, world):
    client.force_login(world["people"]["mia"])
    return client


def fields_form(page):
    return page.split('id="ruling-fields"')[1].split("</form>")[0]


def field_names(form):
    return set(re.findall(r'<(?:input|select)[^>]* name="([^"]+)"', form))


def options(form, name):
    select = form.split(f'name="{name}"')[1].split("</select>")[0]
    return re.findall(r'<option value="([^"]*)"[^>]*>([^<]*)</option>', select)


def written(world):
    return (len(read(world["show"].stream)), len(read(world["final"].stream)))


@pytest.mark.parametrize("ruling", list(RULING_FIELDS))
def test_each_ruling_asks_only_for_what_it_needs(client, world, ruling):
    page = as_mia(client, world).get(rule_url(world, ruling)).content.decode()
    form = fields_form(page)
    assert field_names(form) == {
        "csrfmiddlewaretoken",
        "command_id",
        "ruling",
        "reason",
        *RULING_FIELDS[ruling],
    }
    # the chooser shows the ruling picked, among rulings that apply to a match
    chooser = page.split('<select name="ruling">')[1].split("</select>")[0]
    assert f'<option value="{ruling}" selected>' in chooser
    assert len(re.findall("<option", chooser)) == len(RULING_FIELDS)


def test_the_values_offered_are_the_matchs_own(client, world):
    as_mia(client, world)
    form = fields_form(client.get(rule_url(world, "void_to")).content.decode())
    versions = options(form, "version")
    assert versions, "void back to lists the match's moves"
    loaded = match_services.load(world["final"])
    for value, words in versions:
        assert int(value) < world["last"]
        match_services.state_at_boundary(loaded, int(value))  # a version a void may take
        assert words.startswith(f"move {value}: ") and "_" not in words
    form = fields_form(client.get(rule_url(world, "award_bout")).content.decode())
    assert [v for v, _w in options(form, "winner")] == ["ana", "ben"]
    # htmx swaps in the fields alone when the ruling changes
    fragment = client.get(rule_url(world, "adjust_clock"), HTTP_HX_REQUEST="true")
    text = fragment.content.decode()
    assert text.startswith("<form") and "<html" not in text
    assert field_names(text) >= {"seat", "seconds"} and "version" not in field_names(text)


@pytest.mark.parametrize(
    "fields, words",
    [
        ({"ruling": "void_to", "version": "999"}, "choose one of the values offered"),
        ({"ruling": "award_bout", "winner": "zed"}, "choose one of the values offered"),
        ({"ruling": "adjust_clock", "seat": "ana", "seconds": "-5"}, "whole number of seconds"),
        # 5,000 digits: past int()'s limit, once a 500
        (
            {"ruling": "adjust_clock", "seat": "ana", "seconds": "9" * 5000},
            "whole number of seconds",
        ),
        ({"ruling": "overturn_series", "winner": "ana"}, "no result to overturn yet"),
    ],
)
def test_an_impossible_ruling_is_refused_before_the_confirm_page(client, world, fields, words):
    before = written(world)
    resp = as_mia(client, world).post(rule_url(world), {**fields, "reason": "seen on the table"})
    page = resp.content.decode()
    assert resp.status_code == 400
    assert "Refused:" in page and words in page
    assert "Confirm the ruling" not in page and 'name="confirmed"' not in page
    assert written(world) == before
    assert ss.load(world["show"].stream)[0].disputes["d-1"].status == shows.CLAIMED


def test_a_refusal_of_the_shows_rules_reads_in_french_on_a_french_page(client, world):
    before = written(world)
    resp = as_mia(client, world).post(
        rule_url(world),
        {"ruling": "overturn_series", "winner": "ana", "reason": "vu à la table"},
        HTTP_ACCEPT_LANGUAGE="fr",
    )
    page = resp.content.decode()
    assert resp.status_code == 400
    assert "ce match n'a pas encore de résultat à renverser" in page.replace("&#x27;", "'")
    assert "no result to overturn yet" not in page
    assert written(world) == before


def test_the_dashboards_own_post_is_checked_before_confirming_too(client, world):
    before = written(world)
    resp = as_mia(client, world).post(
        f"/shows/{world['show'].pk}/dashboard/act",
        {
            "action": "rule_dispute",
            "dispute_id": "d-1",
            "ruling": "overturn_series",
            "winner": "ana",
            "reason": "x",
        },
    )
    assert resp.status_code == 400 and "no result to overturn yet" in resp.content.decode()
    assert "Confirm the ruling" not in resp.content.decode()
    assert written(world) == before


def test_a_valid_ruling_reaches_confirm_and_applies_once(client, world):
    as_mia(client, world)
    form = fields_form(client.get(rule_url(world, "void_to")).content.decode())
    version = options(form, "version")[0][0]
    command_id = re.search(r'name="command_id" value="([^"]+)"', form).group(1)
    resp = client.post(
        rule_url(world),
        {
            "ruling": "void_to",
            "version": version,
            "reason": "a card went missing",
            "command_id": command_id,
        },
    )
    page = resp.content.decode()
    assert resp.status_code == 200
    assert f"Confirm the ruling on dispute 1 about {world['final']} (move {world['last']})" in page
    assert "d-1" not in page.split("<form")[0] and "match-" not in page
    assert ss.load(world["show"].stream)[0].disputes["d-1"].status == shows.CLAIMED
    confirm = page.split('action="/shows/')[1].split("</form>")[0]
    hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', confirm))
    assert hidden["confirmed"] == "yes" and hidden["command_id"] == command_id
    body = {**hidden, "action": "rule_dispute"}
    done = client.post(f"/shows/{world['show'].pk}/dashboard/act", body)
    assert done.status_code == 302
    after = written(world)
    again = client.post(f"/shows/{world['show'].pk}/dashboard/act", body)  # a double click
    assert again.status_code == 302 and written(world) == after
    assert ss.load(world["show"].stream)[0].disputes["d-1"].status == shows.RULED
    voids = [r for r in read(world["final"].stream) if r.type == "match_voided"]
    assert len(voids) == 1
    flash = client.get(done["Location"]).content.decode()
    assert f"ruling on dispute 1 about {world['final']} (move {world['last']}) applied" in flash


def test_a_ruled_bout_reads_in_words_at_the_table_and_in_the_audit(client, world):
    as_mia(client, world)
    resp = client.post(
        rule_url(world), {"ruling": "award_bout", "winner": "ben", "reason": "ana's card fell"}
    )
    assert resp.status_code == 200, resp.content.decode()
    confirm = resp.content.decode().split('action="/shows/')[1].split("</form>")[0]
    hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', confirm))
    client.post(f"/shows/{world['show'].pk}/dashboard/act", {**hidden, "action": "rule_dispute"})
    scored = [r for r in read(world["final"].stream) if r.type == "bout_scored"][-1]
    assert scored.data["reason"] == "dispute d-1: award_bout"  # as recorded
    client.post(f"/games/matches/{world['final'].pk}/open")  # the live table, every card shown
    table = client.get(f"/games/matches/{world['final'].pk}/").content.decode()
    assert "went to ben (ruling on dispute 1)" in table and "d-1" not in table
    audit = client.get(f"/shows/{world['show'].pk}/dashboard/").content.decode()
    assert "ruling on dispute 1" in audit.split('id="audit"')[1]
    assert "d-1" not in audit.split('id="audit"')[1]


def test_the_dashboard_names_a_ruling_in_words(client, world):
    as_mia(client, world)
    resp = client.post(
        rule_url(world), {"ruling": "adjust_clock", "seat": "ana", "seconds": "30", "reason": "lag"}
    )
    confirm = resp.content.decode().split('action="/shows/')[1].split("</form>")[0]
    hidden = dict(re.findall(r'type="hidden" name="([^"]+)" value="([^"]*)"', confirm))
    client.post(f"/shows/{world['show'].pk}/dashboard/act", {**hidden, "action": "rule_dispute"})
    live = client.get(f"/shows/{world['show'].pk}/dashboard/live").content.decode()
    assert "Ruled: <b>add time to the clock</b> the seat: ana, 30 seconds more" in live
    assert "adjust_clock" not in live


def test_void_back_to_folds_a_long_match_once(client, world, counted):
    """The list of a long match is built in one pass over its log: the full
    folds stay a handful, not one per move, and it offers exactly the
    versions a void may go back to (a void in the middle of the log included)."""
    final = world["final"]
    back_to = int(
        options(
            fields_form(as_mia(client, world).get(rule_url(world, "void_to")).content.decode()),
            "version",
        )[1][0]
    )
    void = {"dispute_id": "d-1", "ruling": "void_to", "params": {"version": back_to}}
    mia = ss.Acting("mia", shows.MODERATOR, world["people"]["mia"].pk)
    ss.command(world["show"].stream, {"type": "rule_dispute", **void, "reason": "x"}, mia)
    assert any(r.type == "match_voided" for r in read(final.stream))
    match_services.play_bots(final, max_moves=120, rng=random.Random(5))
    final.refresh_from_db()
    last = read(final.stream)[-1].version
    about_the_tip = {
        "type": "file_dispute",
        "target_stream": final.stream,
        "target_version": last,
        "text": "the last move",
    }
    ss.command(world["show"].stream, about_the_tip, ss.Acting("max", shows.MODERATOR))
    ss.command(
        world["show"].stream,
        {"type": "claim_dispute", "dispute_id": "d-2"},
        ss.Acting("mia", shows.MODERATOR),
    )
    as_mia(client, world)
    counted["folds"] = 0
    page = client.get(f"/shows/{world['show'].pk}/disputes/2/rule?ruling=void_to")
    assert page.status_code == 200
    folds = counted["folds"]
    offered = [int(v) for v, _words in options(fields_form(page.content.decode()), "version")]

    loaded = match_services.load(final)
    takes = []
    for v in range(1, last):
        try:
            match_services.state_at_boundary(loaded, v)
        except RuleError:
            continue
        takes.append(v)
    assert last > 60 and len(takes) > 20, (last, takes)
    assert back_to in takes and back_to + 1 not in takes  # what the void took back is not offered
    assert offered == takes
    assert folds <= 2, f"{folds} full folds for {last} versions"
