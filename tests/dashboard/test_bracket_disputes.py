"""Disputes about a bracket's match, played through the Django client: a
player of the bracket (no entrant of the show that hosts it) files one from
the link on their table, by account; a moderator of the host show finds the
same link on the match; anyone else finds none and is refused, nothing
written. What the filer reads afterwards names the dispute and the match in
words (never "d-1" or a stream), in English and in French."""

import json
import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User

from eventlog.store import read
from tournaments import show_services as ss


@pytest.fixture
def world(db, hosted_bracket):
    people = {n: User.objects.create_user(n) for n in ("olga", "mia", "sam", "eve")}
    show, match = hosted_bracket(people["olga"], people["mia"], people["sam"])
    return {"people": people, "show": show, "match": match}


def login(client, world, name):
    client.logout()
    client.force_login(world["people"][name])
    return client


def disputes(world):
    return [r for r in read(world["show"].stream) if r.type == "dispute_filed"]


def table_link(client, world):
    page = client.get(f"/games/matches/{world['match'].pk}/").content.decode()
    found = re.search(r'<a href="([^"]+)">Something wrong\? File a dispute', page)
    return found and found.group(1).replace("&amp;", "&")


def test_a_bracket_player_files_from_their_table(client, world):
    match = world["match"]
    link = table_link(login(client, world, "sam"), world)
    assert link, "sam, who holds zoe by account, sees the link on the table"
    form_url = client.get(link)["Location"]
    version = match.version
    assert form_url == (
        f"/shows/{world['show'].pk}/disputes/file?match={match.pk}&version={version}"
    )
    form = client.get(form_url).content.decode()
    assert f'name="version" min="1" value="{version}"' in form
    resp = client.post(
        form_url, {"match": match.pk, "version": version, "text": "yan took two turns"}
    )
    page = resp.content.decode()
    assert resp.status_code == 200, page
    assert f"Dispute 1 about {match} (move {version}) filed" in page
    assert "d-1" not in page and match.stream not in page
    d = ss.load(world["show"].stream)[0].disputes["d-1"]
    assert (d.filed_by, d.target_stream, d.target_version) == ("zoe", match.stream, version)
    # the host show's log names the match in words
    public = client.get(f"/shows/{world['show'].pk}/").content.decode()
    assert f"dispute no. 1 filed about {match}, move {version}" in public


def test_a_moderator_of_the_host_show_has_the_same_link(client, world):
    link = table_link(login(client, world, "mia"), world)
    assert link
    form = client.get(client.get(link)["Location"])
    assert form.status_code == 200 and "File a dispute" in form.content.decode()


def test_nobody_else_has_the_link_or_may_file(client, world):
    match = world["match"]
    assert table_link(login(client, world, "eve"), world) is None
    url = f"/shows/{world['show'].pk}/disputes/file?match={match.pk}"
    resp = client.post(url, {"match": match.pk, "version": 1, "text": "x"})
    assert resp.status_code == 403 and "spectator" in resp.content.decode()
    assert disputes(world) == []


def test_a_bracket_player_files_through_the_api_too(client, world):
    match = world["match"]
    cmd = {
        "type": "file_dispute",
        "target_stream": match.stream,
        "target_version": match.version,
        "text": "x",
        "seated": True,  # the body's word counts for nothing
    }

    def send(who):
        login(client, world, who)
        return client.post(
            f"/api/shows/{world['show'].pk}/commands",
            json.dumps({"command": cmd}),
            content_type="application/json",
        )

    assert send("eve").status_code == 403 and disputes(world) == []
    assert send("sam").status_code == 201
    assert [r.data["filed_by"] for r in disputes(world)] == ["zoe"]


def test_the_filed_page_speaks_french(client, world):
    match = world["match"]
    login(client, world, "sam").cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    url = f"/shows/{world['show'].pk}/disputes/file"
    resp = client.post(url, {"match": match.pk, "version": match.version, "text": "x"})
    page = resp.content.decode()
    assert f"Litige 1 concernant {match} (coup {match.version}) déposé" in page
    assert "filed" not in page and "d-1" not in page
