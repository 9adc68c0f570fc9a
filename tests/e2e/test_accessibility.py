"""axe-core (axe-playwright-python; its axe.js ships inside the package, no
CDN) on every kind of page, logged out and as each role: no serious or
critical violation. English here, French in test_accessibility_fr.py (two
files, so the two workers share them). The same walk checks the
Content-Security-Policy (csp.py) and that no internal name shows
(internal_names.py) on every page it visits."""

import io

from axe_playwright_python.sync_playwright import Axe
from django.contrib.auth.models import User
from django.core.management import call_command

from broadcast import overlays
from games.models import Match
from reminders.models import Reminder
from tests.helpers.brackets import checking_in
from tournaments.demo import LIVE_DEMO
from tournaments.models import BracketRecord, ShowRecord

from .conftest import PASSWORD
from .csp import PolicyWatch, policy_problems
from .internal_names import InternalNames, more_pages

GRAVE = ("serious", "critical")


def _pages():
    """(who, path) for every kind of page; None: logged out."""
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    bracket = BracketRecord.objects.order_by("id").first()
    player = User.objects.get(username="player")
    theirs = Match.objects.filter(holders__user=player, status="live").order_by("id").first()
    anyone = Match.objects.filter(show_stream="").order_by("id").first() or theirs
    finished = Match.objects.filter(holders__user=player, status="finished").order_by("id").first()
    public = [
        "/",
        "/games/",
        "/games/rules/love-letter/",
        "/shows/",
        f"/shows/{show.pk}/",
        f"/shows/brackets/{bracket.pk}/",
        "/players/",
        "/players/leaderboards/love-letter/",
        "/players/seasons/",
        f"/games/matches/{anyone.pk}/",
        f"/shows/{show.pk}/board/",
        f"/shows/{show.pk}/tv/",
        "/tv/",
        "/tv/games/love-letter/",
        "/api/docs/",
    ]
    pages = [(None, p) for p in public + ["/accounts/login/", "/accounts/password_reset/"]]
    pages += [
        ("player", "/"),
        ("player", f"/games/matches/{theirs.pk}/"),
        ("player", f"/shows/{show.pk}/"),
        ("player", "/account/tokens/"),
        ("player", "/account/reminders/"),
        ("player", "/players/player/"),
        ("player", "/home/"),  # live, finished matches and shows of theirs
        ("player", "/players/head-to-head/?a=player&b=player2"),
        ("organizer", "/home/"),
        ("organizer", "/console/"),
        ("organizer", f"/console/shows/{show.pk}/"),
        ("organizer", "/shows/dashboards/"),
        ("organizer", f"/shows/{show.pk}/dashboard/"),
        ("organizer", f"/shows/{show.pk}/overlays/?kind=featured&panel=light&position=bottom"),
        ("moderator1", f"/shows/{show.pk}/dashboard/"),
        ("moderator1", f"/shows/{show.pk}/disputes/file?match={theirs.pk}"),
        ("moderator1", f"/shows/{show.pk}/disputes/1/rule?ruling=adjust_clock"),
        ("moderator1", f"/games/matches/{theirs.pk}/"),
        ("moderator1", f"/shows/{show.pk}/"),  # the chat's controls and the word list
        ("spectator", f"/shows/{show.pk}/"),
        ("player", f"/games/matches/{finished.pk}/"),  # one's own seat on a finished match
    ]
    checking = _bracket_checking_in(player)  # its check-in before the draw: both forms
    pages += [("player", checking), ("organizer", checking)]
    return pages


def _bracket_checking_in(player) -> str:
    """A bracket of the organizer's waiting on its check-in, player holding an entrant."""
    organizer = User.objects.get(username="organizer")
    record = checking_in(player, organizer.pk, entrant="player", game="love-letter")
    return f"/shows/brackets/{record.pk}/"


def _overlays() -> list[tuple[None, str]]:
    """Every stream overlay, as a streaming tool opens it (logged out); a new
    link (the one before stops working)."""
    show = ShowRecord.objects.get(name=LIVE_DEMO)
    token = overlays.rotate(show, User.objects.get(username="organizer"))
    return [(None, f"/overlay/{token}/{kind}/") for kind in overlays.KINDS]


def _a_pending_reminder_for(username: str) -> None:
    """The header's Reminders list shows only while one is pending: the sweep
    sees it as a player with one does (it held a link inside its button)."""
    Reminder.objects.create(
        user=User.objects.get(username=username),
        kind="check_in_open",
        channel="site",
        key="a11y-sweep",
        text="Check-in is open",
        params={"show": "Demo"},
        url="/shows/",
    )


def _grave(results) -> list[str]:
    out = []
    for v in results.response["violations"]:
        if v["impact"] in GRAVE:
            targets = ", ".join(str(n["target"]) for n in v["nodes"][:3])
            out.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])}): {targets}")
    return out


def check_every_page(contexts, site, language: str) -> None:
    """One seeding (it plays a whole show) and one login per role; the
    language cookie is set before every visit. Each page gets the policy's
    check, axe and, but for the overlays and the API's docs, the internal-names
    check (one walk for the three)."""
    call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
    for user in User.objects.all():
        user.set_password(PASSWORD)
        user.save()
    _a_pending_reminder_for("player")
    axe, names = Axe(), InternalNames()
    kinds = _pages()
    swept = kinds + _overlays()
    named = [p for p in kinds if p[1] != "/api/docs/"] + more_pages()
    pages, watches = {}, {}
    failures = []
    for who, path in dict.fromkeys(swept + named):
        if who not in pages:
            user = User.objects.get(username=who) if who else None
            pages[who] = contexts(user)  # logged in through the English form
            watches[who] = PolicyWatch(pages[who].context)
        page = pages[who]
        page.context.add_cookies([{"name": "django_language", "value": language, "url": site}])
        watches[who].next_page()
        response = page.goto(path)
        page.wait_for_load_state("networkidle")
        assert page.evaluate("document.documentElement.lang") == language, (language, path)
        # the policy first: axe's own script is not the page's
        for line in policy_problems(response, page, path) + watches[who].violations(page):
            failures.append(f"{language} {who or 'logged out'} {path}: CSP {line}")
        if (who, path) in swept:
            for line in _grave(axe.run(page)):
                failures.append(f"{language} {who or 'logged out'} {path}: {line}")
        if (who, path) in named and (found := names.found(page)):
            failures.append(f"{language} {who or 'logged out'} {path}: internal names {found}")
    assert not failures, "\n".join(failures)


def test_no_serious_or_critical_violation_on_any_page_in_english(contexts, transactional_db, site):
    check_every_page(contexts, site, "en")
