"""What the sweep (test_accessibility.py) checks besides axe: no internal name
on screen. Every page kind of the sweep (and the pages the demo adds: the
home, the finished show, the board and TV, each of player's tables), in English
and in French, shows no snake_case value (``death_match``, ``enter_ranking``,
``time_added``), no game slug, no item id and no card's stored code ("2S") in
its visible text. What people typed (usernames, show and match names,
entrants, reasons) is taken out first, and so is ``<code>``: the option names
a rules page gives for the API (and the API's docs page, whose field names are
what a client sends)."""

import re

from django.contrib.auth.models import User

from games.core.registry import available
from games.engine_words import ITEMS
from games.models import Match
from tournaments.demo import LIVE_DEMO
from tournaments.items import known_items
from tournaments.models import BracketRecord, ItemRecord, ShowEntrantRecord, ShowRecord

SNAKE = re.compile(r"(?<![\w/.@-])[a-z0-9]+(?:_[a-z0-9]+)+(?![\w/@-])")
CARD_CODE = re.compile(r"(?<![\w/])(?:10|[2-9JQKA])[CDHS](?![\w/])")
# a show's round by its id ("(r1)"), a dispute by its id ("d-3"): said by number
ROUND_ID = re.compile(r"(?<![\w/.@-])(?:r|d-)\d+(?![\w/@-])")


def internal_tokens() -> re.Pattern:
    slugs = [r.slug for r in available()] + list(ITEMS) + list(known_items())
    # an id that is a plain word ("insurance", "advantage") reads as one: not these
    slugs = [s for s in slugs if not s.isalpha() or s == "dmo"]
    words = sorted(set(slugs), key=len, reverse=True)
    alternatives = "|".join(map(re.escape, words))
    return re.compile(r"(?<![\w/.-])(?:" + alternatives + r")(?![\w/-])")


def typed_names() -> list[str]:
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


def more_pages() -> list[tuple[str | None, str]]:
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    finished = ShowRecord.objects.filter(status="finished").order_by("id").first()
    player = User.objects.get(username="player")
    tables = Match.objects.filter(holders__user=player, status="live").order_by("id")
    pages = [(None, f"/shows/{finished.pk}/"), (None, f"/shows/{show.pk}/board/")]
    pages += [(None, f"/shows/{show.pk}/tv/"), (None, "/players/head-to-head/?a=player&b=player2")]
    pages += [("player", "/home/"), ("player2", "/home/"), ("organizer", "/home/")]
    pages += [("moderator1", f"/shows/{show.pk}/dashboard/?kind=time_added")]
    return pages + [("player", f"/games/matches/{m.pk}/") for m in tables]


def visible_text(page) -> str:
    text = page.inner_text("body")
    for code in page.locator("code").all_inner_texts():
        text = text.replace(code, " ")
    return text


class InternalNames:
    """The check, made once the demo is seeded (it takes out what people typed)."""

    def __init__(self):
        self.internal, self.typed = internal_tokens(), typed_names()

    def found(self, page) -> list[str]:
        text = visible_text(page)
        for name in self.typed:
            text = text.replace(name, " ")
        found = SNAKE.findall(text) + self.internal.findall(text) + CARD_CODE.findall(text)
        found += ROUND_ID.findall(text)
        return sorted(set(found))
