"""Practice against a bot at a level (issue #46): the games page's picker, the
match it opens, and how the bot then moves: from the clock worker after a
person-like pause, never in the person's request, never closing a window a
person may act in faster than a person could."""

from __future__ import annotations

import random

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from eventlog.store import read
from games import bot_levels, services
from games.models import Match
from games.practice import MAX_LIVE

pytestmark = pytest.mark.django_db
PW = "pw-123456"


@pytest.fixture
def ana(client):
    user = User.objects.create_user("ana", password=PW)
    client.force_login(user)
    return user


@pytest.fixture
def quick(settings):
    """A pause of exactly one second, no window: the tests set the clock."""
    settings.BOT_PAUSE_MIN_S = settings.BOT_PAUSE_MAX_S = 1.0
    settings.BOT_PERSON_WINDOW_S = 0.0
    return settings


def test_the_games_page_offers_every_level_of_every_game_with_its_words(client, ana):
    page = client.get(reverse("games:index")).content.decode()
    for level in bot_levels.levels():
        assert str(level.words) in page
    for game in ("doubting-love-letter", "love-letter", "bleven"):
        for n in range(5):
            assert f'value="{game} level:{n}"' in page
    assert "new" in page  # no level has a rating yet


def test_anonymous_visitors_are_asked_to_log_in(client):
    assert "Log in to practise" in client.get(reverse("games:index")).content.decode()
    resp = client.post(reverse("games:practice"), {"choice": "love-letter level:2"})
    assert resp.status_code == 302 and "/accounts/login/" in resp["Location"]
    assert not Match.objects.exists()


def test_one_click_opens_a_match_against_the_chosen_level(client, ana):
    resp = client.post(reverse("games:practice"), {"choice": "love-letter level:3"})
    match = Match.objects.get()
    assert resp.status_code == 302 and resp["Location"] == reverse("games:match", args=[match.pk])
    assert match.kind == "practice" and match.game == "love-letter"
    holders = {h.seat: (h.user_id, h.bot) for h in match.holders.all()}
    assert holders == {"ana": (ana.pk, ""), "bot-L3": (None, "level:3")}
    assert read(match.stream)[0].data["rated"] is False
    client.post(reverse("games:practice"), {"choice": "bleven level:0", "rated": "on"})
    assert read(Match.objects.get(game="bleven").stream)[0].data["rated"] is True


NONSENSE = [
    "love-letter level:9",
    "love-letter level:1e308",
    "love-letter level:\u0663",  # an Arabic-Indic three: int() would take it
    "love-letter level:２",  # a full-width two
    "love-letter level:-1",
    "love-letter heuristic",
    "love-letter random",
    "love-letter",
    "chess level:2",
    "x" * 10_000 + " level:2",
    "",
]


@pytest.mark.parametrize("choice", NONSENSE, ids=range(len(NONSENSE)))
def test_nonsense_is_refused_in_words_and_opens_nothing(client, ana, choice):
    resp = client.post(reverse("games:practice"), {"choice": choice})
    assert resp.status_code == 400
    assert "practice-pick" in resp.content.decode()  # the picker again, with the refusal
    assert not Match.objects.exists()


def test_a_player_has_a_few_practice_matches_at_once_not_more(client, ana):
    for _ in range(MAX_LIVE):
        client.post(reverse("games:practice"), {"choice": "love-letter level:0"})
    resp = client.post(reverse("games:practice"), {"choice": "love-letter level:0"})
    assert resp.status_code == 400 and "finish one" in resp.content.decode()
    assert Match.objects.count() == MAX_LIVE


def test_a_retried_click_opens_one_match(client, ana):
    body = {"choice": "love-me-not level:1", "command_id": "practice-1"}
    first = client.post(reverse("games:practice"), body)
    again = client.post(reverse("games:practice"), body)
    assert first["Location"] == again["Location"] and Match.objects.count() == 1


def _bots_turn_match(ana, level="level:2", game="love-letter"):
    """A practice match whose first move is the bot's."""
    for seed in range(50):
        match = services.create_match(
            game,
            ["ana", "bot-L2"],
            holders={"ana": ana.pk, "bot-L2": f"bot:{level}"},
            rng=random.Random(seed),
            kind="practice",
        )
        match.refresh_from_db()
        if match.waiting_on == ["bot-L2"]:
            return match
    raise AssertionError("no seed gave the bot the first move")


def test_the_person_s_move_is_answered_by_the_clock_worker_not_the_request(client, ana, quick):
    match = _bots_turn_match(ana)
    last = match.updated_at.timestamp()
    services.move_bots_due(now=last + 1.5)  # as the clock worker would
    match.refresh_from_db()
    assert match.waiting_on == ["ana"]
    moved = [r for r in read(match.stream) if r.metadata.get("actor") == "bot:level:2"]
    assert moved, "the bot moved as level 2"
    # ana moves: the answer comes back before the bot has thought
    _, legal = services.legal_for(match, services.viewer_for(match, ana))
    resp = client.post(
        f"/api/matches/{match.pk}/commands", {"command": legal[0]}, content_type="application/json"
    )
    assert resp.status_code == 201, resp.content
    match.refresh_from_db()
    assert match.status == "finished" or match.waiting_on == ["bot-L2"]
    assert [r for r in read(match.stream) if r.metadata.get("actor") == "bot:level:2"] == moved


def test_the_pause_is_a_jittered_share_of_the_clock_within_its_bounds(ana, settings):
    settings.BOT_PAUSE_SHARE, settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S = 0.05, 1, 6
    settings.BOT_PERSON_WINDOW_S = 0
    pauses = []
    for seed in range(12):
        match = services.create_match(
            "love-letter",
            ["a", "b"],
            options={"decision_s": 60},
            holders={"a": "bot:level:1", "b": "bot:level:1"},
            rng=random.Random(seed),
        )
        match.refresh_from_db()
        state = services.load(match).state
        pause = services.bot_pause(match, state, {"a", "b"})
        assert pause == services.bot_pause(match, state, {"a", "b"})  # every look agrees
        pauses.append(pause)
    # 5 % of 60 s is 3 s, jittered by half either way
    assert all(1.5 <= p <= 4.5 for p in pauses), pauses
    assert len({round(p, 3) for p in pauses}) > 6, "jittered, not one fixed time"
    settings.BOT_PAUSE_MAX_S = 2
    assert services.bot_pause(match, state, {"a", "b"}) <= 2  # capped


def test_bots_move_after_their_pause_not_before(ana, settings):
    settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S, settings.BOT_PERSON_WINDOW_S = 3, 3, 0
    match = _bots_turn_match(ana, "level:1")
    last = match.updated_at.timestamp()
    assert services.move_bots_due(now=last + 2.5) == 0
    assert services.move_bots_due(now=last + 3.5) == 1


def _insured_person_vs_bot_first(ana):
    """Doubting Love Letter: ana holds Insurance, the bot plays first: its
    first play closes ana's window to declare it."""
    return services.create_match(
        "doubting-love-letter",
        ["ana", "robo"],
        holders={"ana": ana.pk, "robo": "bot:level:1"},
        items={"ana": ["insurance"]},
        setup={"first": "robo"},
        rng=random.Random(4),
    )


def test_a_bot_does_not_close_a_person_s_window_faster_than_a_person_could(ana, settings):
    settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S = 1, 1
    settings.BOT_PERSON_WINDOW_S = 15
    match = _insured_person_vs_bot_first(ana)
    match.refresh_from_db()
    last = match.updated_at.timestamp()
    assert "robo" in match.waiting_on
    assert services.move_bots_due(now=last + 5) == 0  # ana may still declare her Insurance
    services.submit(match, "ana", {"type": "use_item", "item": "insurance"}, actor="ana")
    match.refresh_from_db()
    # declared: nothing of ana's is open any more, the bot's usual pause again
    assert services.move_bots_due(now=match.updated_at.timestamp() + 1.5) == 1


def test_an_undeclared_window_closes_once_a_person_had_the_time(ana, settings):
    settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S = 1, 1
    settings.BOT_PERSON_WINDOW_S, settings.BOT_ITEM_WINDOW_S = 15, 50
    match = _insured_person_vs_bot_first(ana)
    match.refresh_from_db()
    # an item's window waits longer than any other move a person may make
    assert services.move_bots_due(now=match.updated_at.timestamp() + 16) == 0
    assert services.move_bots_due(now=match.updated_at.timestamp() + 51) == 1


def test_a_person_holding_insurance_who_comes_late_still_declares_it(client, ana, settings):
    """Issue 43: the window closed before the person reached the table
    because the bot had already played. Now the bot waits its turn: the
    person comes after several of the bot's usual pauses, finds the window
    open on the table, declares, and the bot plays after its usual pause."""
    settings.BOT_PAUSE_MIN_S, settings.BOT_PAUSE_MAX_S = 1, 1
    settings.BOT_PERSON_WINDOW_S, settings.BOT_ITEM_WINDOW_S = 15, 50
    match = _insured_person_vs_bot_first(ana)
    match.refresh_from_db()
    opened = match.updated_at.timestamp()
    for late in (2, 16, 30, 45):  # the clock worker looks every second
        assert services.move_bots_due(now=opened + late) == 0
    page = client.get(reverse("games:match", args=[match.pk])).content.decode()
    assert "Declare Insurance" in page
    _, legal = services.legal_for(match, services.viewer_for(match, ana))
    assert {"type": "use_item", "item": "insurance"} in legal
    resp = client.post(
        f"/api/matches/{match.pk}/commands",
        {"command": {"type": "use_item", "item": "insurance"}},
        content_type="application/json",
    )
    assert resp.status_code == 201, resp.content
    match.refresh_from_db()
    assert services.load(match).state.bout.insurance == frozenset({"ana"})
    assert services.move_bots_due(now=match.updated_at.timestamp() + 1.5) == 1
