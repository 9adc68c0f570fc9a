"""Bots at levels as seat holders and entrants through the API (issue #46):
``bot:level:<n>`` is taken everywhere a holder is asked for; anything else
named like a bot is a 400 in words, and nothing is written."""

import pytest
from django.contrib.auth.models import Permission, User

from eventlog.models import StoredEvent
from games.models import Match
from tournaments.models import BracketRecord, ShowRecord

# what an attacker sends as a bot: unknown kinds, huge or odd numbers, digits
# int() would take (Arabic-Indic, full-width, superscript), spaces, the old
# spelling without the colon, a NUL, a very long name, not a string at all
NONSENSE = [
    "bot:x:9",
    "bot:love-letter:1e308",
    "bot:level:1e308",
    "bot:level:9",
    "bot:level:-1",
    "bot:level:01",
    "bot:level:+2",
    "bot:level: 2",
    "bot:level:2 ",
    "bot:level:\u0663",
    "bot:level:\uff12",
    "bot:level:\u00b2",
    "bot:level:2\x00",
    "bot:level3",
    "bot:level",
    "bot:",
    "bot:heuristic:2",
    "bot:" + "9" * 5000,
    ["bot:level:2"],
    {"bot": "level:2"},
]


def organizer(*perms):
    user = User.objects.create_user("olga")
    user.user_permissions.add(*Permission.objects.filter(codename__in=perms))
    return User.objects.get(pk=user.pk)


def _nothing_written():
    assert not Match.objects.exists() and not BracketRecord.objects.exists()
    assert not ShowRecord.objects.exists() and not StoredEvent.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize("holder", NONSENSE, ids=range(len(NONSENSE)))
def test_a_match_with_a_nonsense_bot_is_a_400_in_words(as_user, post, holder):
    client = as_user(organizer("add_match"))
    body = {"game": "love-letter", "seats": ["a", "b"], "holders": {"a": holder}}
    resp = post(client, "/api/matches/", body)
    assert resp.status_code == 400, resp.content
    message = resp.json()["message"]
    assert "bot:level:0 to bot:level:4" in message or "holder" in message, message
    assert len(resp.content) < 2000  # a 5,000-digit name is not echoed back
    _nothing_written()


@pytest.mark.django_db
@pytest.mark.parametrize("holder", NONSENSE[:6], ids=range(6))
def test_bracket_and_show_entrants_refuse_nonsense_bots(as_user, post, holder):
    client = as_user(organizer("add_bracketrecord", "add_showrecord"))
    bracket = {
        "name": "Cup",
        "game": "love-letter",
        "format": "single",
        "entrants": ["a", "b"],
        "holders": {"a": holder, "b": "bot:level:1"},
    }
    assert post(client, "/api/brackets/", bracket).status_code == 400
    show = {"name": "Show", "entrants": ["a", "b"], "holders": {"a": holder}}
    assert post(client, "/api/shows/", show).status_code == 400
    _nothing_written()


@pytest.mark.django_db
def test_every_level_is_taken_and_plays_as_that_level(as_user, post):
    client = as_user(organizer("add_match", "add_bracketrecord"))
    for n in range(5):
        body = {"game": "love-letter", "seats": ["a", "b"], "holders": {"a": f"bot:level:{n}"}}
        resp = post(client, "/api/matches/", body)
        assert resp.status_code == 201, resp.content
        bots = {h.bot for h in Match.objects.get(pk=resp.json()["id"]).holders.all()}
        assert bots == {f"level:{n}", ""}
    bracket = {
        "name": "Levels",
        "game": "love-me-not",
        "format": "single",
        "entrants": ["L0", "L4"],
        "first_to": 1,
        "holders": {"L0": "bot:level:0", "L4": "bot:level:4"},
    }
    resp = post(client, "/api/brackets/", bracket)
    assert resp.status_code == 201, resp.content
    (match,) = Match.objects.filter(show_stream=resp.json()["stream"])
    assert {h.seat: h.bot for h in match.holders.all()} == {"L0": "level:0", "L4": "level:4"}
