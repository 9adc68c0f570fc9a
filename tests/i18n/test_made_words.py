"""Words the system makes (a death match's or the final's title, a "your
turn" note, a reminder, the audit's kinds) are stored as their parts or in
English and said in the reader's language when a page shows them: a French
page holds none of their English."""

import random

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.utils import translation

from games import services
from games.core.protocol import Viewer
from games.models import Match, Notification
from games.presenters.notes import note_words
from reminders.models import MATCH_READY, YOUR_TURN
from reminders.words import text as reminder_text
from tournaments import autopilot
from tournaments import show_services as ss
from tournaments.models import ShowRecord
from tournaments.shows.evolve import _EVOLVERS
from tournaments.words import audit_kind_words

ENGLISH = ("death match", "the final", "Round ", "Your turn", "waits for you", "bout ", "play card")


def _french(client, user=None):
    client.logout()
    if user is not None:
        client.force_login(user)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    return client


def _show_to_a_death_match(user):
    rng = random.Random(3)
    stream = ss.create_show(
        name="Soirée",
        organizer="olga",
        entrants=["ada", "bea", "cid", "dan"],
        options={"step_deadline_s": 0, "spectator_delay_s": 0, "game_pool": ["love-me-not"]},
        holders={"ada": user.pk, **{e: "bot:heuristic" for e in ("bea", "cid", "dan")}},
        rng=rng,
    )
    for _ in range(40):
        if Match.objects.filter(show_stream=stream, kind="death_match").exists():
            break
        if not autopilot.step(stream, rng, now=1_000_000.0):
            break
    return stream, Match.objects.get(show_stream=stream, kind="death_match")


@pytest.mark.django_db
def test_a_death_match_is_titled_in_the_readers_language(client):
    ada = User.objects.create_user("ada_p", password="pw-123456")
    stream, dm = _show_to_a_death_match(ada)
    assert dm.title_words["made"] == "death_match" and dm.title_words["seats"] == dm.seats
    assert dm.title.endswith(f": death match {dm.seats[0]} v {dm.seats[1]}")  # the API's
    with translation.override("en"):
        assert str(dm) == dm.title
    with translation.override("fr"):
        said = str(dm)
    assert "death match" not in said and "Round" not in said and dm.seats[0] in said
    show = ShowRecord.objects.get(stream=stream)
    for path in (show.get_absolute_url(), f"/games/matches/{dm.pk}/"):
        page = _french(client, ada).get(path).content.decode()
        assert said in page, path
        assert dm.title not in page, path


@pytest.mark.django_db
def test_a_stored_english_title_still_renders_and_in_french():
    old = Match(
        game="love-me-not",
        title="Round 3: death match ada v player",
        title_words={},
        kind="death_match",
        seats=["ada", "player"],
    )
    final = Match(game="love-me-not", title="Big night: the final", kind="final", seats=["a", "b"])
    typed = Match(game="love-me-not", title="Round 3: death match ada v player", seats=["x", "y"])
    with translation.override("en"):
        assert str(old) == old.title and str(final) == final.title
    with translation.override("fr"):
        for made in (str(old), str(final)):
            assert not any(w in made for w in ENGLISH), made
        assert "ada" in str(old) and "player" in str(old) and "Big night" in str(final)
        assert str(typed) == typed.title  # not a made title: its seats differ


@pytest.mark.django_db
def test_your_turn_notes_are_said_in_french_on_the_home_page(client, seated_match):
    ana = User.objects.create_user("ana", password="pw-123456")
    ben = User.objects.create_user("ben", password="pw-123456")
    match = seated_match(ana, ben, decision_s=0)
    _, legal = services.legal_for(match, Viewer.of_seat("ana"))
    services.submit(match, "ana", legal[0], rng=random.Random(1))
    note = Notification.objects.get(match=match, user=ben, text__startswith="Your turn")
    assert "waits for you" in note.text
    with translation.override("en"):
        assert note_words(note) == note.text
    with translation.override("fr"):
        said = note_words(note)
    assert said != note.text and "ben" in said
    page = _french(client, ben).get("/").content.decode()
    assert said in page
    for words in ENGLISH:
        assert words not in page.split("<main", 1)[-1], words


@pytest.mark.django_db
def test_a_note_written_under_french_is_stored_in_english(seated_match):
    ana = User.objects.create_user("ana", password="pw-123456")
    ben = User.objects.create_user("ben", password="pw-123456")
    with translation.override("fr"):
        match = seated_match(ana, ben, decision_s=0)
        _, legal = services.legal_for(match, Viewer.of_seat("ana"))
        services.submit(match, "ana", legal[0], rng=random.Random(1))
    note = Notification.objects.get(match=match, user=ben, text__startswith="Your turn")
    assert "waits for you" in note.text


def test_reminders_say_the_match_in_the_readers_language():
    params = {"show": "Soirée", "match": "death match ada v bea", "made": "death_match"}
    params["seats"] = ["ada", "bea"]
    final = {"show": "Soirée", "match": "the final ada v bea", "made": "final", "seats": ["a", "b"]}
    with translation.override("en"):
        assert "death match ada v bea" in reminder_text(MATCH_READY, params)
    with translation.override("fr"):
        for p in (params, final):
            said = reminder_text(MATCH_READY, p)
            assert not any(w in said for w in ENGLISH) and " v " not in said, said
        old = reminder_text(YOUR_TURN, {"match": "Love Me Not: a v b"})  # an older reminder
        assert "Love Me Not: a v b" in old and "waits for you" not in old


def test_every_kind_of_the_shows_audit_is_in_french():
    missing = []
    with translation.override("fr"):
        for kind in sorted(_EVOLVERS):
            if audit_kind_words(kind) == kind.replace("_", " "):
                missing.append(kind)
    assert not missing


@pytest.mark.django_db
def test_a_ready_check_note_says_what_to_do_in_words(client):
    from tests.clocks.test_ready_check import bracket_of_two

    ana = User.objects.create_user("ana", password="pw-123456")
    ben = User.objects.create_user("ben", password="pw-123456")
    _stream, match = bracket_of_two((ana, ben), now=None, ready_s=600)
    note = Notification.objects.get(match=match, user=ana, text__startswith="Your turn")
    assert note.text.endswith("(ana: say you are here)")  # stored in words, not its kind
    with translation.override("en"):
        assert note_words(note) == note.text
    with translation.override("fr"):
        assert note_words(note).endswith("(ana\u00a0: dites que vous êtes là)")
    old = Notification(match=match, text=note.text.replace("say you are here", "ready"))
    with translation.override("fr"):  # a note stored before: its kind read back in words
        assert note_words(old) == note_words(note)
    page = _french(client, ana).get("/").content.decode()
    assert "(ana\u00a0: dites que vous êtes là)" in page and ": ready)" not in page
