"""Filing a dispute, played through the Django client: the table offers a
"Dispute" link per history line to the seat's own holder only; filing goes
by account, never by a seat's name (an attacker holding a same-named seat
in another show is refused with a 403, page and API, and nothing is
written); a ruling's parameters read as words, in English and in French;
items at the table read by their names."""

import json
import random
import re

import pytest
from django.contrib.auth.models import User
from django.utils import translation

from eventlog.store import read
from games import services as match_services
from games.models import Match
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.models import ShowRecord
from tournaments.ruling_words import ruling_params_words


@pytest.fixture
def people(db):
    names = ("olga", "mia", "pat", "eve", "sam")
    return {n: User.objects.create_user(n, password="pw-123456") for n in names}


def make_show(people, name, ana_holder, moderator=None):
    """A two-entrant show: its final opens at once, ``ana_holder`` holds ana."""
    stream = ss.create_show(
        name=name,
        organizer="olga",
        organizer_id=people["olga"].pk,
        entrants=["ana", "ben"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
        holders={"ana": people[ana_holder].pk, "ben": "bot:heuristic"},
        rng=random.Random(2),
    )
    if moderator:
        ss.command(
            stream,
            {"type": "appoint_moderator", "username": moderator},
            ss.Acting("olga", "organizer"),
        )
    record = ShowRecord.objects.get(stream=stream)
    return record, Match.objects.get(show_stream=stream, kind="final")


def page(client, url):
    resp = client.get(url)
    return resp, resp.content.decode()


def disputes_written(*records):
    return [r.type for rec in records for r in read(rec.stream) if r.type.startswith("dispute")]


def api_file(client, record, match, version):
    cmd = {
        "type": "file_dispute",
        "target_stream": match.stream,
        "target_version": version,
        "text": "x",
        # a body cannot vouch for itself: the service decides these
        "seated": True,
        "foreign": False,
    }
    return client.post(
        f"/api/shows/{record.pk}/commands",
        json.dumps({"command": cmd}),
        content_type="application/json",
    )


@pytest.mark.django_db
def test_the_seated_player_clicks_dispute_on_a_history_line_and_the_form_is_filled(client, people):
    show, final = make_show(people, "Link night", "pat")
    client.force_login(people["pat"])
    resp, html = page(client, f"/games/matches/{final.pk}/")
    links = re.findall(r'<a class="dispute-link" href="([^"]+)"', html)
    versions = re.findall(r'<li value="(\d+)"', html)
    assert links and len(links) == len(versions)
    last = versions[-1]
    want = f"/shows/{show.pk}/disputes/file?match={final.pk}&amp;version={last}"
    assert links[-1] == want
    resp, form = page(client, want.replace("&amp;", "&"))
    assert resp.status_code == 200
    assert f'name="version" min="1" value="{last}"' in form
    resp = client.post(
        want.replace("&amp;", "&"), {"match": final.pk, "version": last, "text": "t"}
    )
    assert f"Dispute 1 about {final} (move {last}) filed" in resp.content.decode()
    # the htmx fragment carries the links too
    frag = client.get(f"/games/matches/{final.pk}/", headers={"HX-Request": "true"})
    assert 'class="dispute-link"' in frag.content.decode()
    # a spectator and a stranger see no link
    client.force_login(people["sam"])
    assert 'class="dispute-link"' not in page(client, f"/games/matches/{final.pk}/")[1]
    client.logout()
    assert 'class="dispute-link"' not in page(client, f"/games/matches/{final.pk}/")[1]


@pytest.mark.django_db
def test_a_player_of_show_a_cannot_dispute_show_bs_match_through_a_same_named_seat(client, people):
    show_a, _final_a = make_show(people, "Show A", "pat", moderator="mia")
    show_b, final_b = make_show(people, "Show B", "eve")
    version = read(final_b.stream)[-1].version
    assert "ana" in final_b.seats  # the same seat name as pat's entrant in show A
    client.force_login(people["pat"])
    url = f"/shows/{show_a.pk}/disputes/file?match={final_b.pk}&version={version}"
    resp, html = page(client, url)
    assert resp.status_code == 403 and "is not a match of Show A or of a bracket it hosts" in html
    resp = client.post(url, {"match": final_b.pk, "version": version, "text": "mine now"})
    assert resp.status_code == 403
    resp = api_file(client, show_a, final_b, version)
    assert (
        resp.status_code == 403 and "only a player seated in that match" in resp.json()["message"]
    )
    # nor in show B, where pat is nobody
    resp = client.post(
        f"/shows/{show_b.pk}/disputes/file",
        {"match": final_b.pk, "version": version, "text": "x"},
    )
    assert resp.status_code == 403
    assert api_file(client, show_b, final_b, version).status_code == 403
    # show A's moderator may not file about show B's match either
    client.force_login(people["mia"])
    resp, html = page(client, url)
    assert resp.status_code == 403 and "Show A takes no dispute about it" in html
    resp = api_file(client, show_a, final_b, version)
    assert resp.status_code == 403 and "not a match of this show" in resp.json()["message"]
    # and no table link for pat on show B's match
    client.force_login(people["pat"])
    assert 'class="dispute-link"' not in page(client, f"/games/matches/{final_b.pk}/")[1]
    assert disputes_written(show_a, show_b) == []
    # eve, who holds that seat, may
    client.force_login(people["eve"])
    assert api_file(client, show_b, final_b, version).status_code == 201
    assert disputes_written(show_a, show_b) == ["dispute_filed"]


@pytest.mark.django_db
def test_a_bracket_seat_held_by_a_bot_is_not_the_players_though_the_name_matches(client, people):
    show, _final = make_show(people, "Cup night", "pat")
    cup = bs.create_bracket(
        host_show=show.stream,
        organizer_id=people["olga"].pk,
        name="Side cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben"],
        holders={"ana": "bot:heuristic", "ben": "bot:heuristic"},
        rng=random.Random(4),
    )
    match = Match.objects.get(show_stream=cup)
    client.force_login(people["pat"])
    resp = api_file(client, show, match, 1)
    assert resp.status_code == 403
    url = f"/shows/{show.pk}/disputes/file?match={match.pk}&version=1"
    assert client.get(url).status_code == 403
    assert disputes_written(show) == []
    # once pat's account holds that seat, the table links to the show's form
    match.holders.filter(seat="ana").update(user=people["pat"], bot="")
    html = page(client, f"/games/matches/{match.pk}/")[1]
    assert f'href="/shows/{show.pk}/disputes/file?match={match.pk}&amp;version=1"' in html
    assert api_file(client, show, match, 1).status_code == 201


def test_a_rulings_parameters_read_as_words():
    assert ruling_params_words({"winner": "ana"}) == "the winner: ana"
    assert ruling_params_words({"version": 7}) == "back to version 7"
    assert ruling_params_words({"seat": "ben", "seconds": 30}) == "the seat: ben, 30 seconds more"
    assert ruling_params_words({"entrant": "cal"}) == "the entrant: cal"
    assert ruling_params_words({"new_rule": 1}) == "new rule: 1"
    assert ruling_params_words({}) == "" and ruling_params_words(None) == ""
    with translation.override("fr"):
        assert ruling_params_words({"winner": "ana"}) == "vainqueur\u00a0: ana"
        assert ruling_params_words({"seat": "ben", "seconds": 30}) == (
            "siège\u00a0: ben, 30 secondes de plus"
        )


@pytest.mark.django_db
def test_an_item_reads_by_its_name_at_the_table(client, people):
    match = match_services.create_match(
        "doubting-love-letter",
        ["ana", "ben"],
        items={"ana": ["insurance"]},
        holders={"ana": people["pat"].pk, "ben": "bot:heuristic"},
        rng=random.Random(3),
    )
    client.force_login(people["pat"])
    html = page(client, f"/games/matches/{match.pk}/")[1]
    assert "items: Insurance" in html and "items: insurance" not in html
    # a match of no show and no bracket: no show takes a dispute about it
    assert 'class="dispute-link"' not in html
