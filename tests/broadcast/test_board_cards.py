"""The board as a broadcast: the entrants as cards with their tokens and
items (counts only), the rounds drawn as a bracket, the matches as cards with
their start times; all at the spectators' cut."""

import re
import time

import pytest

from tests.broadcast.test_board import text

pytestmark = pytest.mark.django_db


def test_the_entrants_are_cards_with_their_tokens_and_items(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=60)
    now = time.time()
    at(now)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    before = {
        name: cls
        for cls, name in re.findall(r'class="entrant-card ([^"]*)" data-entrant="(\w+)"', page)
    }
    assert len(before) == 6 and not any("candidate" in c for c in before.values())  # behind the cut
    at(now + 61)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    after = {
        name: cls
        for cls, name in re.findall(r'class="entrant-card ([^"]*)" data-entrant="(\w+)"', page)
    }
    assert any("candidate" in c for c in after.values())
    assert re.search(
        r'data-tokens="1"><span aria-hidden="true">♥</span> <span class="visually-hidden">1 token of life</span>',
        page,
    )
    assert re.search(r'data-items="\d+">\d+ items?</span>', page)
    assert "<table" not in page.split("Who is still in")[1].split("</section>")[0]


def test_the_rounds_are_drawn_as_a_bracket(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=60)
    now = time.time()
    at(now)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    assert '<ol class="show-path bracket">' in page and "death match: fay vs" not in page
    at(now + 61)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    duel = re.search(r'<div class="bracket-match duel">.*?</div>', page).group(0)
    assert "death match: fay vs" in duel and '<span class="side' in duel


def test_the_matches_are_cards_with_their_start_times(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=60)
    at(time.time() + 61)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    card = re.search(
        rf'<article class="mini-table" data-match="{match.pk}".*?</article>', page
    ).group(0)
    started = match.created_at.isoformat()
    assert f'started <time data-local datetime="{started}">' in card
