"""What a delayed spectator's pages say: too early is a page that says when
it opens (never a 404), every delayed page states its delay, and clocks
stand where they stood at the cut (or at a replay's step)."""

import random
import re

import pytest
from django.contrib.auth.models import User
from django.test import Client

from eventlog.store import read
from games import services, visibility
from games.core.protocol import SPECTATOR_VIEW, Viewer
from games.presenters.table import table_for
from tournaments import show_services as ss
from tournaments.models import ShowRecord

pytestmark = pytest.mark.django_db

DELAY = 300
TITLE = "Death match: hal v gus"


def delayed_match(**kw):
    return services.create_match(
        "love-me-not",
        ["hal", "gus"],
        options={"decision_s": 60},
        holders={"hal": "bot:random", "gus": "bot:random"},
        rng=random.Random(3),
        spectator_delay_s=DELAY,
        title=TITLE,
        **kw,
    )


def started(match) -> float:
    return next(r for r in read(match.stream) if r.type != "match_created").recorded_at.timestamp()


def at_moment(monkeypatch, moment: float):
    monkeypatch.setattr(visibility, "clock", lambda: moment)


def test_a_match_opened_too_early_says_when_it_opens_and_not_who_plays(monkeypatch):
    match = delayed_match()
    opens = started(match) + DELAY
    at_moment(monkeypatch, opens - 42)
    page = Client().get(f"/games/matches/{match.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"Spectators see this match {DELAY} s late." in html
    assert float(re.search(r'data-opens-at="([^"]+)"', html)[1]) == pytest.approx(opens, abs=0.01)
    assert "js/opens.js" in html  # counts down and opens itself
    assert 'id="table"' not in html
    assert "hal" not in html and "gus" not in html  # the title names the players
    # once it opens, the same address is the table, and says how late it is
    at_moment(monkeypatch, opens + 1)
    html = Client().get(f"/games/matches/{match.pk}/").content.decode()
    assert 'id="table"' in html and f"{DELAY} s behind the live match" in html


def test_a_delayed_table_shows_its_clocks_as_they_stood_at_the_cut(monkeypatch):
    match = delayed_match()
    now = started(match) + DELAY + 5
    at_moment(monkeypatch, now)
    table = table_for(match, SPECTATOR_VIEW)
    assert table.server_now == pytest.approx(now - DELAY, abs=1e-3)
    deadlines = [s.deadline for s in table.seats if s.deadline]
    assert deadlines and all(d > table.server_now for d in deadlines)  # time left at the cut
    html = Client().get(f"/games/matches/{match.pk}/").content.decode()
    shown = float(re.search(r'data-server-now="([^"]+)"', html)[1])
    assert shown == pytest.approx(now - DELAY, abs=0.01)
    # a seat sees its clocks live
    assert table_for(match, Viewer.of_seat("hal")).server_now == pytest.approx(now, abs=1e-3)


def test_a_replay_step_shows_its_clocks_as_they_stood_then():
    match = delayed_match()
    services.play_bots(match, rng=random.Random(3))
    rows = read(match.stream)
    step = next(r for r in rows if r.version > 3 and r.type != "match_created")
    table = table_for(match, Viewer.of_seat("hal"), at=step.version)
    assert table.at == step.version
    assert table.server_now == pytest.approx(step.recorded_at.timestamp(), abs=1e-3)
    html = table_html(match, step.version)
    assert f'data-at="{step.version}"' in html


def table_html(match, at):
    user = User.objects.create_user("hal_user")
    match.holders.filter(seat="hal").update(user=user, bot="")
    c = Client()
    c.force_login(user)
    return c.get(f"/games/matches/{match.pk}/?at_version={at}").content.decode()


def test_the_show_page_lists_a_match_not_open_yet_with_when_it_opens(monkeypatch):
    olga, _ = User.objects.get_or_create(username="olga")
    stream = ss.create_show(
        name="Late night",
        organizer="olga",
        entrants=["hal", "gus", "cal", "dee"],
        options={"game_pool": ["love-me-not"], "spectator_delay_s": DELAY},
        holders={e: "bot:random" for e in ["hal", "gus", "cal", "dee"]},
        rng=random.Random(2),
    )
    match = delayed_match(show_stream=stream)
    show = ShowRecord.objects.get(stream=stream)
    at_moment(monkeypatch, started(match) + 10)
    html = Client().get(f"/shows/{show.pk}/").content.decode()
    assert f"Match {match.pk}" in html and "opens to spectators at" in html
    assert TITLE not in html
    assert 'data-refresh="5"' in html  # the page brings itself up to date
    assert f"Spectators see this show {DELAY} s late." in html
    # the organizer's console brings its status and log up to date by itself
    console = Client()
    console.force_login(olga)
    html = console.get(f"/console/shows/{show.pk}/").content.decode()
    assert 'id="console-live" data-refresh="5"' in html
    assert 'id="console-log" data-refresh="5"' in html and "js/refresh.js" in html
