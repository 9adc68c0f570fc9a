"""The show board and TV, driven through their pages: what spectators see
at the show's delay (the policy's cut, for everyone), stated; the small
tables are the spectators' own; TV holds its match until another is clearly
more at stake."""

import re
import time
from collections import Counter
from types import SimpleNamespace

import pytest

from broadcast import tv
from broadcast.board import featured
from games import services
from games.core.protocol import SPECTATOR_VIEW

pytestmark = pytest.mark.django_db

# a card as drawn (games/tables/_card.html): its look and its name in words
CARD = re.compile(r'<span class="card([^"]*)" role="img" aria-label="([^"]*)">')


def text(resp) -> str:
    return re.sub(r"\s+", " ", resp.content.decode())


def cards(html: str) -> Counter:
    return Counter(CARD.findall(html))


def test_the_board_states_its_delay_and_shows_nothing_newer_than_the_cut(
    client, make_live_show, at
):
    record, match, olga, _t0 = make_live_show(delay=60)
    now = time.time()

    at(now)  # every move is younger than the delay
    page = text(client.get(f"/shows/{record.pk}/board/"))
    assert "Broadcast on a delay: what you see happened 60 s ago." in page
    assert f'data-match="{match.pk}"' not in page
    assert "elimination candidate" not in page  # the show's steps are behind the cut too
    assert f"Match {match.pk}</a> · opens to spectators at" in page  # by its number only
    assert "fay" not in page.split("Who is still in")[1].split("</section>")[1]

    at(now + 61)
    page = text(client.get(f"/shows/{record.pk}/board/"))
    seen = services.view_for(match, SPECTATOR_VIEW, now=now + 61)["version"]
    assert f'data-match="{match.pk}" data-version="{seen}"' in page
    assert "elimination candidate" in page and "♥" in page
    assert "1 match being played ends" in page


def test_the_organizer_is_shown_the_broadcast_too(client, make_live_show, at):
    record, match, olga, _t0 = make_live_show(delay=60)
    client.force_login(olga)
    at(time.time())
    assert "elimination candidate" in text(client.get(f"/shows/{record.pk}/"))  # live there
    board = text(client.get(f"/shows/{record.pk}/board/"))
    assert "elimination candidate" not in board and f'data-match="{match.pk}"' not in board


@pytest.mark.parametrize("policy", ["public", "everything"])
def test_the_small_tables_show_no_card_the_spectators_table_hides(
    client, make_live_show, at, policy
):
    record, match, olga, _t0 = make_live_show(delay=60, policy=policy)
    at(time.time() + 61)
    spectators = client.get(
        f"/games/matches/{match.pk}/", headers={"HX-Request": "true"}
    ).content.decode()
    client.force_login(olga)  # the organizer, who sees every card live elsewhere
    board = client.get(f"/shows/{record.pk}/board/").content.decode()
    tv_page = client.get(f"/shows/{record.pk}/tv/").content.decode()
    if policy == "public":  # the organizer's own table, once opened, shows the hands
        assert client.post(f"/games/matches/{match.pk}/open").status_code == 302
        assert cards(client.get(f"/games/matches/{match.pk}/").content.decode()) - cards(spectators)
    mine = re.search(r'<article class="mini-table".*?</article>', board, re.S).group(0)
    assert not cards(mine) - cards(spectators)
    assert not cards(tv_page) - cards(spectators)


def test_the_board_updates_itself(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=0)
    fragment = client.get(f"/shows/{record.pk}/board/", headers={"HX-Request": "true"})
    body = fragment.content.decode()
    assert body.startswith('<div id="board"') and 'hx-trigger="every 3s"' in body
    assert "<html" not in body
    before = re.search(r'data-version="(\d+)"', body).group(1)
    services.play_bots(match, max_moves=2)
    after = client.get(f"/shows/{record.pk}/board/", headers={"HX-Request": "true"})
    assert re.search(r'data-version="(\d+)"', after.content.decode()).group(1) != before


def test_no_such_show_is_a_404(client):
    assert client.get("/shows/999999/board/").status_code == 404
    assert client.get("/shows/999999/tv/").status_code == 404


def test_tv_shows_the_match_at_stake(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=0)
    page = text(client.get(f"/shows/{record.pk}/tv/"))
    assert f'data-featured="{match.pk}"' in page and "Broadcast live, without a delay." in page
    # its poll says what it shows, so the server keeps no choice of its own
    assert f'hx-get="/shows/{record.pk}/tv/?on={match.pk}"' in page
    for on in (str(match.pk), "", "x", "-1", "9" * 40):
        poll = client.get(f"/shows/{record.pk}/tv/", {"on": on}, headers={"HX-Request": "true"})
        assert poll.status_code == 200 and f'data-featured="{match.pk}"' in text(poll)


def live(pk, stake):
    return SimpleNamespace(summary=SimpleNamespace(pk=pk), stake=stake)


def test_tv_switches_only_when_another_match_is_clearly_better():
    shown, on = [], None
    for live_now in (
        [live(1, 30.0), live(2, 25.0)],
        [live(1, 30.0), live(2, 30.0 + tv.SWITCH_BY - 1)],
        [live(1, 31.0), live(2, 31.0 + tv.SWITCH_BY)],
        [live(1, 50.0), live(2, 41.5)],
        [live(1, 50.0)],
    ):
        on = featured(live_now, on).summary.pk
        shown.append(on)
    assert shown == [1, 1, 2, 2, 1]
    assert featured([], on) is None
