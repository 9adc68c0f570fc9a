"""No internal name on screen: every page kind of the accessibility sweep (and
the pages the demo adds: the home, the finished show, the board and TV, each of
player's tables), in English and in French, shows no snake_case value
(``death_match``, ``enter_ranking``, ``time_added``), no game slug, no item id
and no card's stored code ("2S") in its visible text. What people typed
(usernames, show and match names, entrants, reasons) is taken out first, and
so is ``<code>``: the option names a rules page gives for the API (and the
API's docs page, whose field names are what a client sends)."""

import io
import re

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command

from games.core.registry import available
from games.engine_words import ITEMS
from games.models import Match
from tournaments.demo import LIVE_DEMO
from tournaments.items import known_items
from tournaments.models import BracketRecord, ItemRecord, ShowEntrantRecord, ShowRecord

from .conftest import PASSWORD
from .test_accessibility import _a_pending_reminder_for, _pages

SNAKE = re.compile(r"(?<![\w/.@-])[a-z0-9]+(?:_[a-z0-9]+)+(?![\w/@-])")
CARD_CODE = re.compile(r"(?<![\w/])(?:10|[2-9JQKA])[CDHS](?![\w/])")


def _internal_tokens() -> re.Pattern:
    slugs = [r.slug for r in available()] + list(ITEMS) + list(known_items())
    # an id that is a plain word ("insurance", "advantage") reads as one: not these
    slugs = [s for s in slugs if not s.isalpha() or s == "dmo"]
    words = sorted(set(slugs), key=len, reverse=True)
    alternatives = "|".join(map(re.escape, words))
    return re.compile(r"(?<![\w/.-])(?:" + alternatives + r")(?![\w/-])")


def _typed() -> list[str]:
    """What people typed or chose as names: taken out of the text before the
    check (a username may well be snake_case)."""
    names = set(User.objects.values_list("username", flat=True))
    names |= set(ShowRecord.objects.values_list("name", flat=True))
    names |= set(BracketRecord.objects.values_list("name", flat=True))
    names |= set(ShowEntrantRecord.objects.values_list("name", flat=True))
    names |= set(ItemRecord.objects.values_list("given_by", flat=True))
    for title, seats in Match.objects.values_list("title", "seats"):
        names |= {title, *seats}
    return sorted((n for n in names if n), key=len, reverse=True)


def _more_pages() -> list[tuple[str | None, str]]:
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    finished = ShowRecord.objects.filter(status="finished").order_by("id").first()
    player = User.objects.get(username="player")
    tables = Match.objects.filter(holders__user=player, status="live").order_by("id")
    pages = [(None, f"/shows/{finished.pk}/"), (None, f"/shows/{show.pk}/board/")]
    pages += [(None, f"/shows/{show.pk}/tv/"), (None, "/players/head-to-head/?a=player&b=player2")]
    pages += [("player", "/home/"), ("player2", "/home/"), ("organizer", "/home/")]
    pages += [("moderator1", f"/shows/{show.pk}/dashboard/?kind=time_added")]
    return pages + [("player", f"/games/matches/{m.pk}/") for m in tables]


def _visible(page) -> str:
    text = page.inner_text("body")
    for code in page.locator("code").all_inner_texts():
        text = text.replace(code, " ")
    return text


def _walk(contexts, site, language) -> list[str]:
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    for user in User.objects.all():
        user.set_password(PASSWORD)
        user.save()
    _a_pending_reminder_for("player")
    internal, typed = _internal_tokens(), _typed()
    opened, failures = {}, []
    for who, path in _pages() + _more_pages():
        if path == "/api/docs/":
            continue  # the API's reference names its fields as a client sends them
        if who not in opened:
            opened[who] = contexts(User.objects.get(username=who) if who else None)
        page = opened[who]
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])
        page.goto(path)
        page.wait_for_load_state("networkidle")
        text = _visible(page)
        for name in typed:
            text = text.replace(name, " ")
        found = SNAKE.findall(text) + internal.findall(text) + CARD_CODE.findall(text)
        if found:
            failures.append(f"{language} {who or 'logged out'} {path}: {sorted(set(found))}")
    return failures


@pytest.mark.parametrize("language", ["en", "fr"])
def test_no_page_shows_an_internal_name(contexts, transactional_db, site, language):
    failures = _walk(contexts, site, language)
    assert not failures, "\n".join(failures)


def test_the_walk_sees_an_internal_name():
    """The patterns catch what the issue found on screen, and pass words."""
    internal = _internal_tokens()
    for shown in ("enter_ranking", "death_match · bleven", "round_robin", "time_added"):
        assert SNAKE.findall(shown), shown
    assert internal.findall("death match · higher-lower") == ["higher-lower"]
    assert internal.findall("Deck Rigging · deck_rigging · dmo") == ["deck_rigging", "dmo"]
    assert CARD_CODE.findall("Keep 2S, discard 10H") == ["2S", "10H"]
    words = "a death match · Higher or Lower · check-in · Keep 2♠ · Europe/Isle_of_Man"
    assert not SNAKE.findall(words) and not internal.findall(words)
    assert not CARD_CODE.findall(words)
