"""Every kind of page in French, logged out and as each role of the demo:
the words a page shows (its text, not its data: names, titles people
typed, game names) hold none of the English words the catalogs should
have replaced, and no plain space before ":;?!" (French wants a no-break one)."""

import html as htmllib
import io
import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core.management import call_command

from games.core.registry import available
from games.models import Match
from tournaments import show_services as ss
from tournaments.demo import LIVE_DEMO
from tournaments.models import BracketRecord, ShowRecord

from .test_french_typography import page_text, plain_spaces

# English words that no French page should show outside of data
ENGLISH = {
    "the",
    "and",
    "you",
    "your",
    "matches",
    "round",
    "rounds",
    "player",
    "players",
    "waiting",
    "finished",
    "death",
    "played",
    "being",
    "history",
    "move",
    "won",
    "wins",
    "bout",
    "turn",
    "none",
    "nobody",
    "yet",
    "dispute",
    "moderator",
    "organizer",
    "entrants",
    "status",
    "opens",
    "running",
    "planned",
    "started",
    "eliminated",
    "live",
}
# names and brands that read the same in French
ALLOWED = {"bot", "bots", "heuristic", "random", "api", "token", "tokens", "swagger", "dmo"}


def _visible_text(page: str, data: list[str]) -> str:
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    page = re.sub(r"<title>.*?</title>", " ", page, flags=re.S)
    text = htmllib.unescape(re.sub(r"<[^>]+>", " ", page))
    for value in sorted(data, key=len, reverse=True):  # people's names and titles
        text = re.sub(rf"(?<![\w]){re.escape(value)}(?![\w])", " ", text)
    return text


def _english_in(text: str) -> list[str]:
    """Each English word found, with the words around it."""
    out = []
    for m in re.finditer(r"[A-Za-z_]+", text):
        word = m.group(0).lower()  # an identifier (a filter's event kind) is no English
        if word in ENGLISH and word not in ALLOWED:
            around = " ".join(text[max(0, m.start() - 40) : m.end() + 40].split())
            out.append(f"{word!r} in «{around}»")
    return out


def _pages():
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    bracket = BracketRecord.objects.order_by("id").first()
    player = User.objects.get(username="player")
    theirs = Match.objects.filter(holders__user=player, status="live").order_by("id").first()
    public = [
        "/",
        "/games/",
        "/shows/",
        f"/shows/{show.pk}/",
        f"/shows/brackets/{bracket.pk}/",
        f"/games/matches/{theirs.pk}/",
        "/accounts/login/",
    ]
    pages = [(None, p) for p in public]
    pages += [("player", p) for p in ("/", f"/games/matches/{theirs.pk}/", f"/shows/{show.pk}/")]
    pages += [("organizer", p) for p in ("/console/", f"/console/shows/{show.pk}/")]
    pages += [("moderator1", p) for p in (f"/shows/{show.pk}/dashboard/", "/shows/dashboards/")]
    pages += [("spectator", f"/shows/{show.pk}/")]
    if ss.load(show.stream)[0].disputes:  # the ruling form, each ruling's fields
        rule = f"/shows/{show.pk}/disputes/1/rule?ruling="
        pages += [("moderator1", rule + r) for r in ("void_to", "adjust_clock", "disqualify")]
    return pages


@pytest.mark.django_db
def test_no_english_left_on_any_french_page(client):
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    data = [u.username for u in User.objects.all()]
    # titles people typed are data; a title the system made is said in words
    typed = [m for m in Match.objects.all() if not m.title_words]
    data += [str(m) for m in typed] + [m.title for m in typed if m.title]
    data += list(ShowRecord.objects.values_list("name", flat=True))
    data += list(BracketRecord.objects.values_list("name", flat=True))
    data += [r.name for r in available()] + [r.slug for r in available()]
    for m in Match.objects.all():
        data += list(m.seats)
    for show in ShowRecord.objects.all():  # what people typed: dispute texts, reasons
        for ev in ss.load(show.stream)[0].log:
            data += [str(ev.data.get(k)) for k in ("text", "reason") if ev.data.get(k)]
    found = []
    for who, path in _pages():
        client.logout()
        if who:
            client.force_login(User.objects.get(username=who))
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
        resp = client.get(path)
        assert resp.status_code == 200, path
        for line in _english_in(_visible_text(resp.content.decode(), data)):
            found.append(f"{who or 'logged out'} {path}: {line}")
        # French typography: log lines, notes, titles space their colon without a break
        for x in plain_spaces(page_text(resp.content.decode())):
            found.append(f"{who or 'logged out'} {path}: a plain space before a sign in {x!r}")
    assert not found, "\n".join(found)
