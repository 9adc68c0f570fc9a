"""Browser tests: Playwright driving the system's Chromium (never a
downloaded browser) against the app served by pytest-django's live_server.

Without /usr/bin/chromium (or the playwright package) these tests are
skipped and the run says so loudly; under CI=true that is a failure.
Screenshots go to var/screenshots/ (git-ignored)."""

import os
from pathlib import Path

import pytest

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
SCREENSHOTS = Path(__file__).resolve().parents[2] / "var" / "screenshots"
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


@pytest.fixture
def contexts(browser, site):
    """``open(user=None, **context_options)``: a fresh browser context (its own
    cookies), logged in as ``user`` through the login page, by typing and
    clicking; returns its page. Every context is closed after the test."""
    opened = []

    def open_(user=None, **options):
        context = browser.new_context(base_url=site, **options)
        context.set_default_timeout(10_000)
        opened.append(context)
        page = context.new_page()
        if user is not None:
            page.goto("/accounts/login/")
            page.get_by_label("Username").fill(user.username)
            page.get_by_label("Password").fill(PASSWORD)
            page.get_by_role("button", name="Log in").click()
            page.wait_for_url(f"{site}/")
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
def shot(request):
    """``shot(page, name)``: a full-page screenshot in var/screenshots/."""

    def take(page, name):
        page.screenshot(path=str(SCREENSHOTS / f"{request.node.name}-{name}.png"), full_page=True)

    return take
