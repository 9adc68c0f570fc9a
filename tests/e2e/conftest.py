"""Browser tests: Playwright driving the system's Chromium (never a
downloaded browser) against the app served by pytest-django's live_server.

Without /usr/bin/chromium (or the playwright package) these tests are
skipped and the run says so loudly; under CI=true that is a failure.
Screenshots go to var/screenshots/ (git-ignored); with SAVE_DOC_SCREENSHOTS=1
the README's walkthrough pictures are written to docs/screenshots/ too."""

import os
import socket
import threading
import time
from pathlib import Path

import pytest
import uvicorn
from channels.routing import ProtocolTypeRouter
from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler
from django.core.asgi import get_asgi_application
from django.db import connections

# the sync Playwright API runs an event loop in this thread for the whole
# session (the browser is session-wide), so every later test in this process
# too would be refused the ORM: the ORM calls are plain synchronous code all
# the same (nothing in the suite tests Django's async-safety check)
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
IN_CI = os.environ.get("CI", "").lower() == "true"
ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / "var" / "screenshots"
DOC_SCREENSHOTS = ROOT / "docs" / "screenshots"
SAVE_DOC_SCREENSHOTS = os.environ.get("SAVE_DOC_SCREENSHOTS", "") == "1"
PASSWORD = "pw-browser-123"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # the dev extras are not installed
    sync_playwright = None

MISSING = (
    "playwright is not installed (pip install -c constraints.txt -e '.[dev]')"
    if sync_playwright is None
    else f"{CHROMIUM} is missing (apt-get install chromium; .ci/run does)"
    if not CHROMIUM.exists()
    else ""
)


def pytest_collection_modifyitems(config, items):
    here = Path(__file__).parent
    for item in items:
        if here in Path(item.path).parents:
            item.add_marker(pytest.mark.browser)
            if MISSING and not IN_CI:
                item.add_marker(pytest.mark.skip(reason=f"browser test: {MISSING}"))


def pytest_terminal_summary(terminalreporter):
    skipped = [
        r for r in terminalreporter.stats.get("skipped", []) if "browser test:" in str(r.longrepr)
    ]
    if skipped:
        terminalreporter.section("SKIPPED: no browser", sep="!")
        terminalreporter.write_line(
            f"{len(skipped)} browser test(s) skipped: {MISSING}. `.ci/run` runs them all."
        )


@pytest.fixture(scope="module")
def browser():
    """One browser per test module: Playwright's sync API runs an event loop in
    this thread while it lives, and later tests in the same worker (Channels'
    async_to_sync) must not find one, so it stops when the module is done."""
    if MISSING:  # only reached under CI=true: a missing browser fails the run
        pytest.fail(f"CI=true but {MISSING}")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def site(live_server, settings, committed_db):
    """The app on 127.0.0.1 over plain http, as `make run` serves it."""
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    return live_server.url


@pytest.fixture(scope="module")
def demo_site(rows_kept_for_the_module):
    """`manage.py seed_demo` committed once for the whole module (it plays a
    show, a bracket and two leagues: tens of seconds, where a test of the
    module would spend it again), every account's password PASSWORD; kept
    between the module's tests and flushed after them. Every test of such a
    module uses it (``rows_kept_for_the_module``)."""
    import io

    from django.contrib.auth.models import User
    from django.core.management import call_command

    with rows_kept_for_the_module.unblock():
        call_command("seed_demo", stdout=io.StringIO(), stderr=io.StringIO())
        for user in User.objects.all():
            user.set_password(PASSWORD)
            user.save()


def session_cookie(user, site) -> dict:
    """A logged-in session for ``user`` made on the server, as the test client's
    ``force_login`` makes it (the session row, the user's backend), as the
    cookie a browser context takes: a login without the login page's two requests."""
    from django.conf import settings
    from django.test import Client

    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return {"name": name, "value": client.cookies[name].value, "url": site}


@pytest.fixture
def contexts(browser, site):
    """``open(user=None, through_form=False, **context_options)``: a fresh
    browser context (its own cookies), logged in as ``user`` and on the home
    page; returns its page. The session is made on the server and handed to
    the context as its cookie (``session_cookie``); with ``through_form`` the
    login page is used instead, by typing and clicking (the login's own
    browser test, test_login.py). Every context is closed after the test."""
    opened = []

    def open_(user=None, through_form=False, **options):
        context = browser.new_context(base_url=site, **options)
        context.set_default_timeout(10_000)
        opened.append(context)
        page = context.new_page()
        if user is not None:
            if through_form:
                page.goto("/accounts/login/")
                page.get_by_label("Username").fill(user.username)
                page.get_by_label("Password").fill(PASSWORD)
                page.get_by_role("button", name="Log in").click()
                page.wait_for_url(f"{site}/")
            else:
                context.add_cookies([session_cookie(user, site)])
                page.goto("/")
            assert page.get_by_role("button", name=f"Log out {user.username}").is_visible()
        return page

    yield open_
    for context in opened:
        context.close()


@pytest.fixture
def make_user(transactional_db):
    from django.contrib.auth.models import User

    def make(name):
        return User.objects.create_user(name, password=PASSWORD)

    return make


@pytest.fixture
def show_of_two(make_user):
    """olga's show "Two left" of two entrants, ana (pat's) and ben (sam's): its
    final is live at once; moderator1 moderates it. (its record, olga, moderator1)."""
    from tournaments import show_services, shows
    from tournaments.models import ShowRecord

    olga, mod, pat, sam = (make_user(n) for n in ("olga", "moderator1", "pat", "sam"))
    stream = show_services.create_show(
        name="Two left",
        organizer="olga",
        organizer_id=olga.pk,
        entrants=["ana", "ben"],
        holders={"ana": pat.pk, "ben": sam.pk},
        options={"step_deadline_s": 0, "spectator_delay_s": 0},
    )
    acting = show_services.Acting("olga", shows.ORGANIZER)
    show_services.command(stream, {"type": "appoint_moderator", "username": mod.username}, acting)
    return ShowRecord.objects.get(stream=stream), olga, mod


@pytest.fixture
def shot(request):
    """``shot(page, name)``: a full-page screenshot in var/screenshots/."""

    def take(page, name):
        page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}-{name}.png"), full_page=True)

    return take


@pytest.fixture
def doc_shot(shot):
    """``doc_shot(page, name)``: as ``shot``, and with SAVE_DOC_SCREENSHOTS=1
    also the visible part of the page as docs/screenshots/NAME.png."""

    def take(page, name):
        shot(page, name)
        if SAVE_DOC_SCREENSHOTS:
            DOC_SCREENSHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(DOC_SCREENSHOTS / f"{name}.png"))

    return take


@pytest.fixture
def make_organizer(make_user):
    """An account with the organizer's permission (games.add_match)."""
    from django.contrib.auth.models import Permission

    def make(name):
        user = make_user(name)
        user.user_permissions.add(Permission.objects.get(codename="add_match"))
        return user

    return make


@pytest.fixture
def run_show():
    """``run_show(stream, people, organizer_step, rng, until=...)``: drive a show as its
    entrants would between the organizer's steps. ``people`` maps an entrant
    to its account (its steps go through the show service as that person's:
    a token to the first allowed, the first DMO allowed); bots make theirs
    (at once, tournaments.bot_steps; the autopilot here too, which finds
    nothing left) and play their matches, people's seats by their clocks'
    timeouts (a simulated clock). Each time the organizer owes a step,
    ``organizer_step(decision, state)`` is called and must make it. Stops,
    returning the show's state, when ``until(state)`` holds (default: a champion)."""
    import time

    from games import services as match_services
    from games.models import Match
    from tournaments import autopilot, show_services, shows

    def person_step(stream, user, decision):
        state, _, _ = show_services.load(stream)
        rnd = shows.current_round(state)
        if decision.kind == "give_token":
            cmd = {"type": "give_token", "to": shows.gift_options(state, rnd)[0]}
        elif decision.kind == "nominate":
            cmd = {"type": "nominate", "dmo": shows.dmo_options(state, rnd, decision.seat)[0]}
        elif decision.kind == "choose_candidate":
            _forced, pool, n = shows.candidate_split(state, rnd)
            cmd = {"type": "choose_candidate", "candidates": list(pool)[:n]}
        else:
            duel = next(d for d in rnd.duels if decision.seat in (d.candidate, d.dmo))
            cmd = {"type": "ban_game", "game": shows.ban_options(state, duel)[0]}
        show_services.command(stream, cmd, show_services.acting_for(stream, user))

    def run(stream, people, organizer_step, rng, *, until=None, max_steps=200):
        until = until or (lambda state: state.champion)
        t = time.time()
        for _ in range(max_steps):
            state, _, _ = show_services.load(stream)
            if until(state):
                return state
            t = max(t, time.time())
            pending = shows.pending(state)
            theirs = [d for d in pending if d.seat in people]
            if any(d.seat == state.organizer for d in pending):
                organizer_step(next(d for d in pending if d.seat == state.organizer), state)
            elif theirs:
                person_step(stream, people[theirs[0].seat], theirs[0])
            elif not autopilot.step(stream, rng, organizer=False, now=t):
                live = Match.objects.filter(show_stream=stream, status="live")
                assert live.exists(), f"the show waits on nothing: {pending}"
                for match in live:
                    t = match_services.run_bots(match, start=t, rng=rng)
        raise AssertionError(f"the show did not get there in {max_steps} steps")

    return run


# ---- the whole ASGI application (pages and websockets) -------------------------
SERVER_START_S = 10


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def asgi_site(settings, committed_db, monkeypatch):
    """The whole ASGI application (static files, pages and websockets) on a
    loopback port, served by uvicorn in a thread of this process (so it sees
    this test's database)."""
    from config.asgi import application

    # the server's threads close their connections after each request, as
    # production's ASGI web processes do (DB_CONN_MAX_AGE=0)
    monkeypatch.setitem(connections.settings["default"], "CONN_MAX_AGE", 0)
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    app = ProtocolTypeRouter(
        {
            "http": ASGIStaticFilesHandler(get_asgi_application()),
            "websocket": application.application_mapping["websocket"],
        }
    )
    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, lifespan="off", log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + SERVER_START_S
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(SERVER_START_S)
    if thread.is_alive():  # a socket still open: stop without waiting for it
        server.force_exit = True
        thread.join(SERVER_START_S)
