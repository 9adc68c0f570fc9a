"""The bracket drawn as a bracket: rounds as columns, lines, byes, future
slots, winners and live scores; standings tables with their tie-breakers."""

import random
import re

import pytest

from games import services as match_services
from games.models import Match
from tournaments import bracket_services as bs
from tournaments.models import BracketRecord


def bracket(entrants, fmt="single", **kw):
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format=fmt,
        entrants=entrants,
        holders={e: "bot:heuristic" for e in entrants},
        rng=random.Random(4),
        **kw,
    )
    return stream, BracketRecord.objects.get(stream=stream)


def column_html(html):
    """The html of each column of the tree, in order."""
    tree = html.split('class="bracket-tree"')[1].split("<h2>Standings")[0]
    return tree.split('<div class="bracket-round')[1:]


def columns(html):
    """The matches drawn in each column of the tree, in order."""
    return [len(re.findall(r'<div class="bracket-match', c)) for c in column_html(html)]


@pytest.mark.django_db
def test_a_single_elimination_of_eight_is_three_columns_joined_by_lines(client):
    names = [f"p{i}" for i in range(1, 9)]
    stream, record = bracket(names)
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    assert columns(html) == [4, 2, 1]
    # lines: out of every match but the final's, into every match but round 1's,
    # and one join per pair of matches feeding the next round
    assert html.count("bracket-line bracket-out") == 6
    assert html.count("bracket-line bracket-in") == 3
    assert html.count("bracket-line bracket-join") == 3
    # the seeds in bracket order, the later rounds drawn as future slots
    first = column_html(html)[0]
    seeds = re.findall(r'<span class="bracket-seed">(\d+)</span> (p\d)', first)
    assert [int(s) for s, _ in seeds] == [1, 8, 4, 5, 2, 7, 3, 6]
    assert html.count("bracket-future") == 3
    # play one series: its winner is highlighted and moves on
    m = Match.objects.filter(show_stream=stream, status="live").order_by("id").first()
    match_services.run_bots(m, start=1_000_000.0, rng=random.Random(1))
    m.refresh_from_db()
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    won = re.findall(
        r'class="bracket-side bracket-won"><span class="bracket-seed">\d+</span> (p\d)', html
    )
    assert won == m.winners
    assert f"</span> {m.winners[0]}</div>" in column_html(html)[1]  # it waits in the semi-final
    assert html.count("bracket-future") == 3  # the semi-final waits for its other side
    assert columns(html) == [4, 2, 1]


@pytest.mark.django_db
def test_six_entrants_give_two_byes_and_live_scores(client):
    stream, record = bracket([f"p{i}" for i in range(1, 7)])
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    assert columns(html) == [4, 2, 1]
    assert html.count("bracket-match bracket-bye") == 2 and html.count("(bye)") == 2
    # seeds 1 and 2 go through their byes: they stand in the semi-finals already
    semis = column_html(html)[1]
    assert "p1" in semis and "p2" in semis
    # a live series shows its score
    assert html.count("bracket-live") == 2
    assert re.search(r'class="bracket-score">0</b>', html)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "fmt,heads",
    [
        ("round_robin", ["series won", "won among the tied", "bout difference", "bouts won"]),
        ("swiss", ["series won", "Buchholz", "median Buchholz", "bout difference"]),
    ],
)
def test_round_robin_and_swiss_show_standings_with_tie_breakers(client, fmt, heads):
    names = ["ana", "ben", "cal", "dee"]
    stream, record = bracket(names, fmt=fmt)
    rng = random.Random(2)
    t = 1_000_000.0
    for _ in range(20):
        live = list(Match.objects.filter(show_stream=stream, status="live"))
        if not live:
            break
        for m in live:
            t = match_services.run_bots(m, start=t, rng=rng)
    out = bs.bracket_output(stream)
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    table = html.split('class="bracket-standings"')[1].split("</table>")[0]
    for h in heads:
        assert f"<th>{h}</th>" in table
    order = re.findall(r"<tr[^>]*><td>\d+</td><td>(\w+)</td>", table)
    assert order == out["standings"]
    won = {n: sum(1 for s in out["series"] if s["winner"] == n and s["b"]) for n in names}
    first = re.search(r"<td>1</td><td>\w+</td><td>(\d+)</td>", table).group(1)
    assert int(first) == won[out["standings"][0]] + (
        1
        if fmt == "swiss"
        and any(s["b"] is None and s["a"] == out["standings"][0] for s in out["series"])
        else 0
    )


def section_columns(html, kind):
    """The html of each column of one section (losers, final) of a double elimination."""
    part = html.split(f'class="bracket-tree bracket-{kind}"')[1].split("</section>")[0]
    part = part.split('class="bracket-tree bracket-')[0]
    return part.split('<div class="bracket-round')[1:]


@pytest.mark.django_db
def test_a_double_elimination_draws_its_losers_rounds_and_grand_final_with_lines(client):
    names = [f"p{i}" for i in range(1, 9)]
    stream, record = bracket(names, fmt="double", first_to=1)
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    assert columns(html.split("bracket-section-title")[0]) == [4, 2, 1]  # the winners bracket
    losers = section_columns(html, "losers")
    assert [len(re.findall(r'<div class="bracket-match', c)) for c in losers] == [2, 2, 1, 1]
    assert [re.search(r"<h3>(.*?)</h3>", c).group(1) for c in losers] == [
        "losers round 1",
        "losers round 2",
        "losers round 3",
        "losers final",
    ]
    # lines: out of every losers match but the final's, into every one but round 1's;
    # L1 runs straight into L2 (a newcomer joins each), L2's winners meet pairwise in L3
    lines = [
        (c.count("bracket-line bracket-in"), c.count("bracket-out"), c.count("bracket-join"))
        for c in losers
    ]
    assert lines == [(0, 2, 0), (2, 2, 1), (1, 1, 0), (1, 0, 0)]
    final = section_columns(html, "final")
    assert [re.search(r"<h3>(.*?)</h3>", c).group(1) for c in final] == [
        "grand final",
        "grand final reset (if the losers&#x27; side wins)",
    ]
    assert "bracket-out" in final[0] and "bracket-in" in final[1]
    # the first round played: its losers stand in losers round 1, by bracket slot
    for m in Match.objects.filter(show_stream=stream, status="live").order_by("id"):
        match_services.run_bots(m, start=1_000_000.0, rng=random.Random(m.pk))
    lost = {
        s for m in Match.objects.filter(show_stream=stream, status="finished") for s in m.seats
    } - {w for m in Match.objects.filter(show_stream=stream, status="finished") for w in m.winners}
    html = client.get(f"/shows/brackets/{record.pk}/").content.decode()
    first = section_columns(html, "losers")[0]
    assert set(re.findall(r'<span class="bracket-seed">\d+</span> (p\d)', first)) == lost
    assert len(lost) == 4 and "bracket-live" in first
