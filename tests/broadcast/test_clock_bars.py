"""Clocks as running bars (templates/_clock_bar.html, static/js/clock_bar.js):
every table the broadcast draws shows its deciding seats' clocks as bars that
stand at the spectators' cut, with the time in words beside them; a seat's
reserve is part of its bar and its words."""

import random
import re
import time
from types import SimpleNamespace

import pytest
from django.template import Context, Template

from games import services
from games.core.protocol import SPECTATOR_VIEW
from games.presenters.table import table_for
from games.templatetags.clock_bars import decision_span, time_words

pytestmark = pytest.mark.django_db

BAR = re.compile(
    r'<div class="clock clock-bar[^"]*" data-clock-deadline="([\d.]+)" data-clock-now="([\d.]+)"'
    r' data-clock-span="([\d.]+)"'
)


def bars(table) -> str:
    template = Template(
        "{% load clock_bars %}{% for s in table.seats %}{% clock_bar s table %}{% endfor %}"
    )
    return template.render(Context({"table": table}))


def test_the_span_is_the_games_time_per_decision_and_the_reserve():
    def match(**options):
        return SimpleNamespace(game="love-letter", options=options)

    assert decision_span(match(), None) == 120  # the game's default
    assert decision_span(match(decision_s=30), 60) == 90
    for no_clock in (0, -5, True, "60", None):
        assert decision_span(match(decision_s=no_clock), 0) is None
    assert [time_words(s) for s in (-3, 0, 9.9, 59, 60, 125)] == [
        "0 s",
        "0 s",
        "9 s",
        "59 s",
        "1:00",
        "2:05",
    ]


def test_the_board_and_tv_draw_the_clocks_at_the_cut(client, make_live_show, at):
    record, match, _olga, _t0 = make_live_show(delay=60)
    now = time.time() + 61
    at(now)
    for url in (f"/shows/{record.pk}/board/", f"/shows/{record.pk}/tv/"):
        page = client.get(url).content.decode()
        found = BAR.findall(page)
        assert found, url
        for deadline, clock_now, span in found:
            assert float(clock_now) == pytest.approx(now - 60, abs=1)  # the cut, not now
            assert 0 < float(deadline) - float(clock_now) <= float(span)
        assert 'role="timer"' in page and " left</span>" in page
        assert "js/clock_bar.js" in page


def test_a_reserve_runs_in_the_bar_and_its_words():
    match = services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        options={"decision_s": 60, "reserve_s": 60, "first_to": 1},
        rng=random.Random(2),
    )
    start = time.time()
    table = table_for(match, SPECTATOR_VIEW, now=start)
    html = bars(table)
    deadline, clock_now, span = BAR.search(html).groups()
    assert float(span) == pytest.approx(120) and 'data-clock-reserve="60.000"' in html
    assert "left, then 1:00 of reserve" in html and "fill-20" in html
    late = table_for(match, SPECTATOR_VIEW, now=float(deadline) - 30.5)
    html = bars(late)
    assert "on reserve: 30 s left" in html and "on-reserve" in html and "fill-5" in html
    html = bars(table_for(match, SPECTATOR_VIEW, now=float(deadline) + 1))
    assert "time is up" in html and "fill-0" in html
