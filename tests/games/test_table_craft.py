"""Table craft, on the page the server renders: the cards of your hand are
the buttons, the last move and the last bout are shown, the history is a
labelled scroll box (oldest first), your turn is marked for the tab's title,
Doubting Love Letter's claim defaults to the card's own rank, and the
history reads as a person would write it ("You play first", "1 trick")."""

import random
import re
import time

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from games import services
from games.core.protocol import Viewer
from games.core.registry import series_for
from games.presenters.table import Line, describe_row, names_for, table_for, table_module


def _seated(client, game, options, seed=3, bots_move=True):
    user = User.objects.create_user("ana_user", password="pw-123456")
    match = services.create_match(
        game,
        ["ana", "ben"],
        options=options,
        holders={"ana": user.pk, "ben": "bot:random"},
        rng=random.Random(seed),
    )
    if bots_move:
        services.play_bots(match, rng=random.Random(seed))
    client.force_login(user)
    return match


def _my_turn(client, game, options):
    """A match where ana (a person) has a move to make, and its page."""
    for seed in range(1, 40):
        User.objects.filter(username="ana_user").delete()
        match = _seated(client, game, options, seed=seed)
        table = table_for(match, Viewer.of_seat("ana"))
        if table.controls:
            return match, table, client.get(f"/games/matches/{match.pk}/").content.decode()
    raise AssertionError("no seed gave ana a move")


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["love-letter", "doubting-love-letter", "love-me-not"])
def test_the_cards_of_your_hand_are_the_buttons_that_play_them(client, game):
    match, table, html = _my_turn(client, game, {"decision_s": 0})
    hand = re.search(
        r'<div class="hand cards" role="group" aria-label="your hand">(.*?)</div>', html, re.S
    )
    assert hand, "your hand is a labelled group"
    buttons = re.findall(
        r'<button type="button" class="card pick[^"]*" data-control="([^"]+)"', hand.group(1)
    )
    assert buttons, "at least one card of the hand is a button"
    keys = {c.key for c in table.controls}
    for key in buttons:
        assert key in keys and f'id="ctl-{key}"' in html  # each card names a form on the page
    assert re.search(r'data-key="([1-9])" aria-keyshortcuts="\1"', hand.group(1))
    assert 'data-your-turn="1"' in html and 'data-turn-title="Your turn"' in html
    assert "js/table_craft.js" in html and 'id="turn-sound"' in html


@pytest.mark.django_db
def test_the_opponents_hand_and_a_spectator_get_no_card_buttons(client):
    match, table, html = _my_turn(client, "love-letter", {"decision_s": 0})
    seats = re.findall(r'<article class="seat[^"]*">(.*?)</article>', html, re.S)
    ben = [a for a in seats if "as ben<" in a]  # a bot: "Bot, level 0", as ben
    assert len(ben) == 1 and "card pick" not in ben[0]
    client.logout()
    spectator = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert "card pick" not in spectator and "data-your-turn" not in spectator


@pytest.mark.django_db
def test_doubting_love_letter_claims_default_to_the_cards_own_rank(client):
    for seed in range(1, 25):
        User.objects.filter(username="ana_user").delete()
        match = _seated(client, "doubting-love-letter", {"decision_s": 0}, seed=seed)
        table = table_for(match, Viewer.of_seat("ana"))
        for control in table.controls:
            if control.type != "play":
                continue
            first = control.fields[0].choices[0]
            claim = (first.sets or {}).get("claim", first.value)
            assert str(claim) == control.fixed["card"], (control.key, first.label)
            assert "bluff" not in first.label


@pytest.mark.django_db
def test_the_last_move_is_highlighted_and_the_history_is_a_labelled_scroll_box(client):
    match, table, html = _my_turn(client, "love-letter", {"decision_s": 0})
    last = table.last_move
    assert last is not None and last.version == table.history[-1].version
    assert f'<p class="last-move" aria-live="polite">Last move ({last.version}):' in html
    assert re.search(rf'<li value="{last.version}" class="last" aria-current="true">', html)
    box = re.search(
        r'<div class="history-scroll" tabindex="0" role="region" aria-label="([^"]+)">\s*<ol>(.*?)</ol>',
        html,
        re.S,
    )
    assert box and box.group(1)
    versions = [int(v) for v in re.findall(r'<li value="(\d+)"', box.group(2))]
    assert versions == sorted(versions), "oldest first"


def test_the_last_bout_is_how_the_latest_bout_scored_ended():
    from games.presenters.table import Table

    lines = [
        Line(1, "set up", kind="match_created"),
        Line(9, "Bout 1 went to ben (last player in the round).", kind="bout_scored"),
        Line(10, "ana drew a card.", kind="card_drawn"),
    ]
    table = Table.__new__(Table)
    table.history = lines
    assert table.last_bout.text.startswith("Bout 1 went to ben")
    assert table.last_move.version == 10


def _words(game, kind, data, you="ana"):
    names = names_for(["ana", "ben"], you)
    return describe_row(table_module(game), {"type": kind, "data": data, "version": 3}, you, names)


def test_the_history_reads_as_a_person_writes_it():
    with translation.override("en"):
        assert (
            _words("love-letter", "first_player_chosen", {"seat": "ana", "how": "setup"})
            == "You play first."
        )
        assert (
            _words("love-letter", "first_player_chosen", {"seat": "ana", "how": "ana"})
            == "You chose to play first."
        )
        assert (
            _words("love-letter", "first_player_chosen", {"seat": "ben", "how": "setup"})
            == "ben plays first."
        )
        assert (
            _words("love-letter", "time_added", {"seat": "ana", "seconds": 30})
            == "A moderator added 30 seconds to your clock."
        )
        assert (
            _words("love-letter", "time_added", {"seat": "ben", "seconds": 1})
            == "A moderator added 1 second to ben's clock."
        )
        assert (
            _words("bleven", "round_dealt", {"bout": 2, "cutter": "ana"})
            == "Round 2 dealt; you cut."
        )
        assert _words("love-letter", "round_started", {"bout": 1, "first": "ana"}) == (
            "Round 1: you play first."
        )
        assert "you play first;" in _words(
            "doubting-love-letter", "bout_started", {"bout_no": 1, "first": "ana"}
        )
        assert _words("love-letter", "turn_started", {"seat": "ana"}).startswith("You drew")
        text = _words(
            "higher-lower",
            "auction_closed",
            {"how": "bid", "guesser": "ana", "dealer": "ben", "declared": 30},
        )
        assert "you guesses" not in text and "ben deals" not in text
    with translation.override("fr"):
        assert (
            _words("love-letter", "first_player_chosen", {"seat": "ana", "how": "setup"})
            == "Vous jouez en premier."
        )
        assert "votre" in _words("love-letter", "time_added", {"seat": "ana", "seconds": 30})


def test_engine_sentences_agree_with_you():
    from games.engine_words import in_words

    names = names_for(["ana", "ben"], "ana")
    with translation.override("en"):
        assert (
            in_words("ana is protected by a Handmaid", names) == "you are protected by a Handmaid"
        )
        assert in_words("ben is protected by a Handmaid", names) == "ben is protected by a Handmaid"


def test_bleven_trick_counts_are_plural_aware():
    from games.presenters.bleven import controls

    with translation.override("en"):
        labels = [c.label for c in controls({"pending": {"seat": "ana", "kind": "turn"}}, "ana")]
    assert "Declare 1 trick" in labels and "Declare 2 tricks" in labels
    assert "Declare 1 tricks" not in labels


@pytest.mark.django_db
def test_a_move_chosen_on_a_table_that_has_changed_gets_the_fresh_table_not_a_bare_422(client):
    match = _seated(
        client, "higher-lower", {"decision_s": 0, "auction_close_s": 3600}, bots_move=False
    )
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    shown = int(re.search(r'id="table"[^>]* data-version="(\d+)"', page).group(1))
    assert (
        f'name="table_version" value="{shown}"' in page
    )  # each form says which table it was made on
    lo = table_for(match, Viewer.of_seat("ana")).controls[0].fields[0].choices[0].value
    # ben outbids ana's lowest offer before her bid arrives: it is no longer legal
    services.submit(match, "ben", {"type": "bid", "amount": int(lo) + 100})
    now = services.load(match).version
    url = f"/games/matches/{match.pk}/command"
    resp = client.post(
        url, {"control": "bid", "amount": lo, "table_version": shown}, HTTP_HX_REQUEST="true"
    )
    html = resp.content.decode().replace("&#x27;", "'")
    assert resp.status_code == 200
    assert f'data-version="{now}"' in html
    assert "the table changed before your move arrived" in html
    assert services.load(match).version == now  # nothing was written
    # the same bid made on the table as it is now is the rules' own refusal
    resp = client.post(
        url, {"control": "bid", "amount": lo, "table_version": now}, HTTP_HX_REQUEST="true"
    )
    assert resp.status_code == 422
    assert "the table changed" not in resp.content.decode()
    assert services.load(match).version == now


@pytest.mark.django_db
def test_a_bid_after_the_auctions_silence_is_refused_in_words_and_writes_nothing(client):
    """The overdue close comes first (the series fires what is due before a
    command), so a bid that arrives late is the rules' refusal, not a bid;
    the browser tests tell this refusal from a broken move by it."""
    from tests.e2e.bids import too_late_to_bid

    match = _seated(
        client, "higher-lower", {"decision_s": 0, "auction_close_s": 1}, bots_move=False
    )
    services.submit(match, "ben", {"type": "bid", "amount": 10})
    now = services.load(match).version
    lo = table_for(match, Viewer.of_seat("ana")).controls[0].fields[0].choices[0].value
    url = f"/games/matches/{match.pk}/command"
    bid = {"control": "bid-quick", "amount": lo, "table_version": now}
    resp = client.post(url, bid, HTTP_HX_REQUEST="true")
    assert resp.status_code == 200  # in time: a bid
    after_ana = services.load(match).version
    assert after_ana > now

    services.submit(match, "ben", {"type": "bid", "amount": int(lo) + 10})
    shown = services.load(match).version
    lo = table_for(match, Viewer.of_seat("ana")).controls[0].fields[0].choices[0].value
    late = services.load(match).state  # the silence runs out before ana answers
    deadline = series_for(match.game).next_deadline(late)
    time.sleep(max(0.0, deadline - time.time()) + 0.05)
    bid = {"control": "bid-quick", "amount": lo, "table_version": shown}
    resp = client.post(url, bid, HTTP_HX_REQUEST="true")
    assert resp.status_code == 422
    assert "the auction is over" in resp.content.decode()
    assert services.load(match).version == shown  # nothing written, not even the close

    class Answer:  # what Playwright's response gives the browser tests
        status = resp.status_code

        def text(self):
            return resp.content.decode()

    assert too_late_to_bid(match, Answer())
    Answer.status = 200
    assert not too_late_to_bid(match, Answer())
