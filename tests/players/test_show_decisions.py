"""A player's show decisions as buttons on the show page: each shown to the
player it waits on, with its legal options and deadline, made by a POST
from that player and refused, in words, for anyone else."""

import random
import re

import pytest
from django.contrib.auth.models import User

from tournaments import show_services as ss
from tournaments import shows
from tournaments.models import ShowRecord

ENTRANTS = ["ana", "ben", "cal", "dee", "eve", "fay", "gus", "hal"]
ORG = ss.Acting("olga", shows.ORGANIZER)


def _show(options=None):
    """A show whose entrants are held by accounts of the same names."""
    users = {e: User.objects.create_user(e, password="pw-123456") for e in ENTRANTS}
    User.objects.create_user("olga", password="pw-123456")
    stream = ss.create_show(
        name="Night",
        organizer="olga",
        entrants=ENTRANTS,
        options={"game_pool": ["love-me-not", "higher-lower", "bleven"], **(options or {})},
        holders={e: u.pk for e, u in users.items()},
        rng=random.Random(1),
    )
    return stream, ShowRecord.objects.get(stream=stream), users


def _rank(stream, ranking):
    ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, ORG)


def _buttons(body: str, field: str) -> list[str]:
    return re.findall(rf'<button type="submit" name="{field}" value="([^"]+)"', body)


def _state(stream):
    return ss.load(stream)[0]


def _decide(client, record, data):
    return client.post(f"/shows/{record.pk}/decide/", data)


@pytest.mark.django_db
def test_the_sole_winner_gives_the_token_from_the_show_page(client):
    stream, record, users = _show()
    _rank(stream, [[e] for e in ENTRANTS])  # ana wins alone, hal is last
    rnd = shows.current_round(_state(stream))
    client.force_login(users["ana"])
    body = client.get(record.get_absolute_url()).content.decode()
    assert "Give the second token of life to" in body
    assert _buttons(body, "to") == list(shows.gift_options(_state(stream), rnd))
    assert "hal" not in _buttons(body, "to")  # the candidate may not get it
    # the deadline, counted down by the page's script
    deadline = _state(stream).deadlines[(rnd.id, "give_token", "ana")]
    assert f'data-deadline="{deadline:.3f}"' in body and "data-server-now" in body
    # nobody else is asked, and nobody else may answer
    client.force_login(users["ben"])
    assert "Give the second token" not in client.get(record.get_absolute_url()).content.decode()
    resp = _decide(client, record, {"type": "give_token", "to": "cal"})
    assert resp.status_code == 400
    assert "only the sole winner ana may give the second token of life" in resp.content.decode()
    client.force_login(User.objects.create_user("stranger", password="pw-123456"))
    resp = _decide(client, record, {"type": "give_token", "to": "cal"})
    assert resp.status_code == 403
    assert "only an entrant of this show" in resp.content.decode()
    client.logout()
    assert _decide(client, record, {"type": "give_token", "to": "cal"}).status_code == 403
    assert shows.current_round(_state(stream)).gift_to is None  # nothing was written
    # a refusal of the rules, in its words, and nothing written
    client.force_login(users["ana"])
    resp = _decide(client, record, {"type": "give_token", "to": "hal"})
    assert resp.status_code == 400
    assert "hal is the elimination candidate and cannot receive a token of life" in (
        resp.content.decode()
    )
    resp = _decide(client, record, {"type": "give_token", "to": "cal"})
    assert resp.status_code == 302
    assert shows.current_round(_state(stream)).gift_to == "cal"
    assert "Give the second token" not in client.get(record.get_absolute_url()).content.decode()


@pytest.mark.django_db
def test_the_candidate_nominates_and_both_ban_games_from_the_show_page(client):
    stream, record, users = _show({"game_pick": "pool_with_bans"})
    _rank(stream, [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus"], ["hal"]])
    client.force_login(users["hal"])
    body = client.get(record.get_absolute_url()).content.decode()
    rnd = shows.current_round(_state(stream))
    assert "Nominate your death-match opponent" in body
    assert _buttons(body, "dmo") == list(shows.dmo_options(_state(stream), rnd, "hal"))
    assert "ana" not in _buttons(body, "dmo")  # a winner holds a token of life
    client.force_login(users["gus"])
    resp = _decide(client, record, {"type": "nominate", "dmo": "fay"})
    assert resp.status_code == 400 and "gus is not one in round" in resp.content.decode()
    client.force_login(users["hal"])
    assert _decide(client, record, {"type": "nominate", "dmo": "gus"}).status_code == 302
    assert shows.current_round(_state(stream)).duels[0].dmo == "gus"
    # now both duellists ban a game, each with their own buttons
    for who, banned in (("hal", "bleven"), ("gus", "love-me-not")):
        client.force_login(users[who])
        body = client.get(record.get_absolute_url()).content.decode()
        assert "Ban a game from your death match" in body
        duel = shows.current_round(_state(stream)).duels[0]
        assert _buttons(body, "game") == list(shows.ban_options(_state(stream), duel))
        assert _decide(client, record, {"type": "ban_game", "game": banned}).status_code == 302
    client.force_login(users["cal"])
    resp = _decide(client, record, {"type": "ban_game", "game": "higher-lower"})
    assert resp.status_code == 400
    assert "only an elimination candidate or their death-match opponent" in resp.content.decode()
    duel = shows.current_round(_state(stream)).duels[0]
    assert dict(duel.bans) == {"hal": "bleven", "gus": "love-me-not"}


@pytest.mark.django_db
def test_the_winners_choose_the_candidate_from_the_show_page(client):
    stream, record, users = _show()
    # gus and hal share the last place and one candidate is needed: the winners choose
    _rank(stream, [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay"], ["gus", "hal"]])
    client.force_login(users["ben"])
    body = client.get(record.get_absolute_url()).content.decode()
    assert "Choose 1 elimination candidate among" in body
    assert _buttons(body, "candidates") == ["gus", "hal"]
    client.force_login(users["gus"])
    resp = _decide(client, record, {"type": "choose_candidate", "candidates": "hal"})
    assert resp.status_code == 400
    assert "only the winners of the main match (ana, ben) may choose" in resp.content.decode()
    client.force_login(users["ben"])
    resp = _decide(client, record, {"type": "choose_candidate", "candidates": "cal"})
    assert resp.status_code == 400 and "choose among gus, hal" in resp.content.decode()
    resp = _decide(client, record, {"type": "no_such_decision"})
    assert resp.status_code == 400 and "decide here one of" in resp.content.decode()
    assert (
        _decide(client, record, {"type": "choose_candidate", "candidates": "hal"}).status_code
        == 302
    )
    assert shows.current_round(_state(stream)).candidates == ("hal",)
    # and now hal is asked to nominate
    client.force_login(users["hal"])
    assert (
        "Nominate your death-match opponent"
        in client.get(record.get_absolute_url()).content.decode()
    )


@pytest.mark.django_db
def test_two_candidates_are_chosen_with_boxes(client):
    stream, record, users = _show({"candidates_per_round": 2})
    _rank(stream, [["ana", "ben"], ["cal"], ["dee"], ["eve"], ["fay", "gus", "hal"]])
    client.force_login(users["ana"])
    body = client.get(record.get_absolute_url()).content.decode()
    assert "Choose 2 elimination candidates among" in body
    boxes = re.findall(r'<input type="checkbox" name="candidates" value="([^"]+)"', body)
    assert boxes == ["fay", "gus", "hal"]
    resp = _decide(client, record, {"type": "choose_candidate", "candidates": ["fay"]})
    assert resp.status_code == 400 and "choose exactly 2 candidate(s)" in resp.content.decode()
    resp = _decide(client, record, {"type": "choose_candidate", "candidates": ["fay", "hal"]})
    assert resp.status_code == 302
    assert shows.current_round(_state(stream)).candidates == ("fay", "hal")
