"""runbots plays the token's seats through the HTTP API, bounded in moves
and time: over Django's test client on SQLite, and over real HTTP against a
live server on loopback (PostgreSQL: a live server needs a transactional
database, and SQLite's append-only triggers refuse its flush)."""

import json
import random

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.test import Client

from api.models import ApiToken
from eventlog.models import StoredEvent
from games import services
from games.management.commands import runbots
from games.management.commands.runbots import Api, play
from games.models import Match


class ClientApi(Api):
    """runbots' HTTP calls, sent through Django's test client instead."""

    def __init__(self, token):
        super().__init__("", token)
        self.client = Client(HTTP_AUTHORIZATION=f"Token {token}")

    def call(self, method, path, body=None):
        if method == "GET":
            resp = self.client.get(path)
        else:
            resp = self.client.post(path, json.dumps(body), content_type="application/json")
        return resp.status_code, resp.json()


def make_players():
    ana, ben = User.objects.create_user("ana_user"), User.objects.create_user("ben_user")
    _, ana_secret = ApiToken.issue(ana, "bots")
    _, ben_secret = ApiToken.issue(ben, "bots")
    match = services.create_match(
        "love-me-not", ["ana", "ben"], holders={"ana": ana.pk, "ben": ben.pk}
    )
    return match, ana_secret, ben_secret


def moves_by(match, seat):
    """The commands runbots sent for ``seat`` (one per distinct command id)."""
    rows = StoredEvent.objects.filter(
        stream=match.stream, command_id__contains=f"bot-{match.pk}-{seat}-"
    )
    return rows.values("command_id").distinct().count()


def play_to_the_end(match, apis, rng):
    total = 0
    for _ in range(300):
        for api in apis:
            total += play(api, max_moves=5, seconds=0.2, rng=rng, poll_s=0.01)
        match.refresh_from_db()
        if match.status == "finished":
            break
    return total


@pytest.mark.django_db
def test_mine_lists_only_the_callers_live_matches(client):
    match, ana_secret, _ = make_players()
    services.create_match("love-me-not", ["x", "y"])  # nobody's
    mine = client.get("/api/matches/?mine=1", HTTP_AUTHORIZATION=f"Token {ana_secret}")
    assert [m["id"] for m in mine.json()] == [match.pk]
    assert client.get("/api/matches/?mine=1").status_code == 401
    assert client.get("/api/matches/?mine=maybe").status_code == 400
    assert len(client.get("/api/matches/").json()) == 2


@pytest.mark.django_db
def test_two_bot_accounts_play_a_match_to_its_end():
    match, ana_secret, ben_secret = make_players()
    total = play_to_the_end(match, [ClientApi(ana_secret), ClientApi(ben_secret)], random.Random(3))
    assert match.status == "finished" and match.winners
    assert total == moves_by(match, "ana") + moves_by(match, "ben") > 0


@pytest.mark.django_db
def test_the_command_is_bounded_in_moves_and_time(monkeypatch, capsys):
    match, ana_secret, _ = make_players()
    monkeypatch.setattr(runbots, "Api", lambda url, token: ClientApi(token))
    call_command("runbots", token=ana_secret, max_moves=1, seconds=10, over="http")
    assert capsys.readouterr().out.splitlines()[-1] == "1 moves made"
    assert moves_by(match, "ana") == 1 and moves_by(match, "ben") == 0
    # ana waits for ben now: the time bound ends the run
    call_command("runbots", token=ana_secret, seconds=0.3, poll=0.05, over="http")
    assert capsys.readouterr().out.splitlines()[-1] == "0 moves made"


@pytest.mark.django_db
def test_a_bad_token_stops_the_command_with_words(monkeypatch):
    monkeypatch.setattr(runbots, "Api", lambda url, token: ClientApi(token))
    with pytest.raises(CommandError, match="401"):
        call_command("runbots", token="nope", seconds=1, over="http")


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_over_real_http_against_a_live_server(live_server, capsys):
    match, ana_secret, ben_secret = make_players()
    call_command(
        "runbots", url=live_server.url, token=ana_secret, max_moves=1, seconds=10, over="http"
    )
    assert capsys.readouterr().out.splitlines()[-1] == "1 moves made"
    apis = [Api(live_server.url, ana_secret), Api(live_server.url, ben_secret)]
    play_to_the_end(match, apis, random.Random(5))
    assert Match.objects.get(pk=match.pk).status == "finished"
    with pytest.raises(CommandError, match="401"):
        call_command("runbots", url=live_server.url, token="nope", seconds=1, over="http")


@pytest.mark.django_db
def test_no_secret_reads_as_an_option_on_a_command_line(monkeypatch):
    """token_urlsafe starts one secret in 64 with '-', which `--token SECRET`
    (and call_command) read as an option: such a secret is never issued."""
    drawn = iter(["-starts-with-a-dash", "--two-dashes", "plain-secret"])
    monkeypatch.setattr("api.models.secrets.token_urlsafe", lambda n: next(drawn))
    _, secret = ApiToken.issue(User.objects.create_user("dash"), "bots")
    assert secret == "plain-secret"
