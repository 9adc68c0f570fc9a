"""Suite-wide fixtures and the database/broker policy.

Tests marked ``postgres`` need DATABASE_URL (PostgreSQL); ``redis`` needs
REDIS_URL. Without them they are skipped and the run says so loudly; under
CI=true a missing service fails the run instead."""

import os
from pathlib import Path

import pytest

HAS_PG = os.environ.get("DATABASE_URL", "").startswith(("postgres://", "postgresql://"))
HAS_REDIS = bool(os.environ.get("REDIS_URL"))
IN_CI = os.environ.get("CI", "").lower() == "true"


def pytest_configure(config):
    if IN_CI and not (HAS_PG and HAS_REDIS):
        raise pytest.UsageError(
            "CI=true but DATABASE_URL (PostgreSQL) or REDIS_URL is not set: "
            "CI must test on PostgreSQL and Redis"
        )
    if not hasattr(config, "workerinput"):  # once, before any xdist worker starts
        _compile_stale_catalogs()


def _compile_stale_catalogs():
    """The tests see the site in French too: a .mo missing or older than its
    .po (locale/, games/locale/) is compiled here, in pure Python (fast)."""
    from config.management.commands.compile_catalogs import catalogs, compile_with_babel, stale

    for po in catalogs(Path(__file__).resolve().parents[1]):
        if stale(po):
            compile_with_babel(po)


# the longest browser files (about half a minute or more each), handed out
# first among the browser tests so that the two workers end together
# (--dist loadfile gives files out in the order collected)
LONG_BROWSER_FILES = (  # longest first; seconds with the other worker busy, load 5-8 (6 Dec 2026)
    "test_accessibility.py",  # 115 s: seeds the demo, walks every page (axe, CSP, names)
    "test_accessibility_fr.py",  # 100 s: the same in French
    "test_home.py",  # 50 s: seeds the demo once for its four tests
    "test_table_craft.py",  # 45 s: a bout of each game
    "test_live_socket.py",  # 35 s
    "test_broadcast.py",  # 30 s
    "test_schedule.py",  # 30 s
    "test_delayed_spectator.py",  # 30 s
    "test_watching.py",  # 30 s
    "test_chat.py",  # 30 s
)


def _run_order(item) -> tuple[bool, int]:
    # the browser tests last: Playwright's event loop never precedes a test of
    # Channels (async_to_sync) in the same worker
    if "e2e" not in item.path.parts:
        return (False, 0)
    name = item.path.name
    long = name in LONG_BROWSER_FILES
    return (True, LONG_BROWSER_FILES.index(name) if long else len(LONG_BROWSER_FILES))


def pytest_collection_modifyitems(config, items):
    items.sort(key=_run_order)
    for item in items:
        if "postgres" in item.keywords and not HAS_PG:
            item.add_marker(pytest.mark.skip(reason="needs PostgreSQL: set DATABASE_URL"))
        if "redis" in item.keywords and not HAS_REDIS:
            item.add_marker(pytest.mark.skip(reason="needs Redis: set REDIS_URL"))


def pytest_terminal_summary(terminalreporter):
    skipped = [
        r
        for r in terminalreporter.stats.get("skipped", [])
        if "needs PostgreSQL" in str(r.longrepr) or "needs Redis" in str(r.longrepr)
    ]
    if skipped and not (HAS_PG and HAS_REDIS):
        terminalreporter.section("SKIPPED: services missing", sep="!")
        terminalreporter.write_line(
            f"{len(skipped)} test(s) skipped because PostgreSQL and/or Redis were not "
            "configured (DATABASE_URL, REDIS_URL). `.ci/run` runs them all."
        )


@pytest.fixture(autouse=True)
def _own_rate_limit_counts(monkeypatch):
    """Each test counts its own API commands (ids repeat across tests)."""
    from django.core.cache.backends.locmem import LocMemCache
    from rest_framework.throttling import SimpleRateThrottle

    counts = LocMemCache("test-rate-limits", {})
    counts.clear()
    monkeypatch.setattr(SimpleRateThrottle, "cache", counts)


@pytest.fixture(autouse=True)
def _a_channel_layer_of_its_own():
    """Each test gets a fresh channel layer: nothing an earlier test's server or
    communicator left subscribed or receiving (its loop gone) reaches a later
    test's sockets."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture(autouse=True)
def _own_chat_flood_counts(monkeypatch):
    """Each test counts its own chat messages (chat.limits)."""
    from django.core.cache.backends.locmem import LocMemCache

    from chat import limits

    counts = LocMemCache("test-chat-floods", {})
    counts.clear()
    monkeypatch.setattr(limits, "counts", lambda: counts)


@pytest.fixture(autouse=True)
def _no_ready_check_unless_asked():
    """Matches between people open with a ready-check (games/ready_check.py);
    the tests that play such matches at once start them without one, and the
    ready-check's own tests (tests/games/test_ready_check.py) set it."""
    from django.conf import settings

    before = settings.MATCH_READY_CHECK_S
    settings.MATCH_READY_CHECK_S = 0
    yield
    settings.MATCH_READY_CHECK_S = before


@pytest.fixture(autouse=True)
def _the_sites_language_after_each_test():
    """A test that reads a page in French (tests/i18n, the form fuzz) leaves its
    thread's language as it found it: the tests after it read English words."""
    from django.utils import translation

    before = translation.get_language()
    yield
    translation.activate(before) if before else translation.deactivate()


@pytest.fixture(scope="session", autouse=True)
def _flush_past_the_truncate_guard():
    """The event log refuses to be emptied (eventlog migrations 0002 to 0004),
    which pytest-django does after each transactional test. PostgreSQL: the
    flush runs with ``session_replication_role = replica``, which skips
    triggers and which only a superuser may set (the suite's role is one).
    SQLite: its append-only triggers are lifted for the flush alone. The
    flush is held while a module keeps its rows between its tests
    (``rows_kept_for_the_module``)."""
    from importlib import import_module
    from types import SimpleNamespace
    from unittest import mock

    from django.core.management.commands import flush as flush_command
    from django.db import connections
    from django.test.testcases import TransactionTestCase

    triggers = import_module("eventlog.migrations.0002_append_only_triggers")
    real = TransactionTestCase._fixture_teardown
    flush = SimpleNamespace(held=False)

    def each(found, statements):
        for connection in found:
            with connection.cursor() as cur:
                for sql in statements:
                    cur.execute(sql)

    def only_the_written(style, connection, reset_sequences=True, allow_cascade=False):
        """Django's ``sql_flush`` for the tables that hold a row: an empty one
        needs no TRUNCATE (PostgreSQL: one statement for all the tables, some
        0.1 s, not 0.75 s, for a test that wrote a few; CASCADE, as a table
        left out may refer to one emptied). The same empty database after."""
        tables = connection.introspection.django_table_names(
            only_existing=True, include_views=False
        )
        if connection.vendor == "postgresql" and tables:
            qn = connection.ops.quote_name
            probe = " UNION ALL ".join(
                f"SELECT %s WHERE EXISTS (SELECT 1 FROM {qn(t)})" for t in tables
            )
            with connection.cursor() as cur:
                cur.execute(probe, list(tables))
                written = {row[0] for row in cur.fetchall()}
            tables = [t for t in tables if t in written]
            allow_cascade = True
        return connection.ops.sql_flush(
            style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )

    def teardown(self):
        if flush.held:
            return
        used = [connections[a] for a in self._databases_names(include_mirrors=False)]
        pg = [c for c in used if c.vendor == "postgresql"]
        sqlite = [c for c in used if c.vendor == "sqlite"]
        each(pg, ["SET session_replication_role = replica"])
        each(sqlite, triggers.SQLITE_DOWN)
        try:
            with mock.patch.object(flush_command, "sql_flush", only_the_written):
                real(self)
        finally:
            each(pg, ["RESET session_replication_role"])
            each(sqlite, triggers.SQLITE_UP)

    flush.now = lambda: teardown(TransactionTestCase())
    TransactionTestCase._fixture_teardown = teardown
    yield flush
    TransactionTestCase._fixture_teardown = real


@pytest.fixture(scope="module")
def rows_kept_for_the_module(_flush_past_the_truncate_guard, django_db_setup, django_db_blocker):
    """Rows a module commits once for all its tests (``demo_site`` in
    tests/e2e: the demo takes tens of seconds to seed): the flush after each
    of its transactional tests is held, and made once after the module.
    Every test of such a module must use it, and they see each other's
    writes (none may count on another's). Gives django_db_blocker: write the
    rows in ``with blocker.unblock():``."""
    flush = _flush_past_the_truncate_guard
    flush.held = True
    try:
        yield django_db_blocker
    finally:
        flush.held = False
        with django_db_blocker.unblock():
            flush.now()


@pytest.fixture
def committed_db(transactional_db):
    """A database whose commits other threads see (live servers, sockets) and
    whose after-commit hooks run; emptied after the test as every
    transactional test's is (``_flush_past_the_truncate_guard``)."""
    return


def _rate_as_the_reactor_would() -> None:
    """The ``ratings`` reactor over what the seeding wrote: it runs after a
    commit, and the seeding's transaction never commits."""
    from eventlog.models import StoredEvent
    from ratings.readmodels import rate_changes

    rate_changes(list(StoredEvent.objects.filter(stream__startswith="match-").order_by("id")))


@pytest.fixture(scope="module")
def seeded_demo(django_db_setup, django_db_blocker):
    """`manage.py seed_demo` run once for the whole test module (it plays a
    show, a bracket and two leagues: tens of seconds): its printed output. It runs in a
    transaction left open while the module's tests run, each test in a
    savepoint of its own (``db``), and is rolled back after the module. Every
    test of such a module must use it (a transactional test would flush it)."""
    import io

    from django.core.management import call_command
    from django.db import transaction

    with django_db_blocker.unblock():
        seeding = transaction.atomic()
        seeding.__enter__()
        try:
            out = io.StringIO()
            call_command("seed_demo", stdout=out, stderr=io.StringIO())
            _rate_as_the_reactor_would()
            yield out.getvalue()
        finally:
            transaction.set_rollback(True)
            seeding.__exit__(None, None, None)


@pytest.fixture
def hosted_bracket():
    """``hosted_bracket(olga, mia, sam)``: olga's show (ana and ben, bots; mia
    appointed its moderator) hosting a bracket of one match whose seat zoe
    sam's account holds (yan a bot): (the show's record, that match)."""
    import random

    from games.models import Match
    from tournaments import bracket_services, show_services, shows
    from tournaments.models import ShowRecord

    def build(olga, mia, sam):
        host = show_services.create_show(
            name="Host night",
            organizer=olga.username,
            organizer_id=olga.pk,
            entrants=["ana", "ben"],
            options={"step_deadline_s": 0, "spectator_delay_s": 0},
            holders={"ana": "bot:heuristic", "ben": "bot:heuristic"},
            rng=random.Random(1),
        )
        show_services.command(
            host,
            {"type": "appoint_moderator", "username": mia.username},
            show_services.Acting(olga.username, shows.ORGANIZER),
        )
        cup = bracket_services.create_bracket(
            name="Side cup",
            game="love-me-not",
            format="single",
            entrants=["zoe", "yan"],
            holders={"zoe": sam.pk, "yan": "bot:random"},
            host_show=host,
            organizer_id=olga.pk,
            rng=random.Random(2),
        )
        return ShowRecord.objects.get(stream=host), Match.objects.get(show_stream=cup)

    return build


@pytest.fixture
def counted(monkeypatch):
    """The rows each read of games.services fetched and the full folds it
    made: proof that a poll, a push or a command did not reread the stream."""
    from games import services

    seen = {"rows": [], "folds": 0}
    real_read, real_fold = services.read, services.fold_rows

    def read_(stream, after=0):
        rows = real_read(stream, after)
        seen["rows"].append(len(rows))
        return rows

    def fold_(game, rows):
        seen["folds"] += 1
        return real_fold(game, rows)

    monkeypatch.setattr(services, "read", read_)
    monkeypatch.setattr(services, "fold_rows", fold_)
    return seen


@pytest.fixture
def wait_for():
    """``wait_for(pred, timeout)``: polls ``pred`` (every 50 ms) until it holds
    or ``timeout`` seconds pass; whether it held. For real threads and workers."""
    import time

    def wait(pred, timeout: float = 10.0) -> bool:
        end = time.time() + timeout
        while time.time() < end:
            if pred():
                return True
            time.sleep(0.05)
        return False

    return wait


@pytest.fixture
def olgas_show(db):
    """olga's account and the record of a show she organizes (ana, ben, cal)."""
    from django.contrib.auth.models import User

    from tournaments import show_services
    from tournaments.models import ShowRecord

    olga = User.objects.create_user("olga")
    stream = show_services.create_show(
        name="Olga's show", organizer="olga", entrants=["ana", "ben", "cal"], organizer_id=olga.pk
    )
    return olga, ShowRecord.objects.get(stream=stream)


@pytest.fixture
def next_bot_move():
    """``next_bot_move(match, rng)``: the seat whose decision comes first and a
    random bot's command for it, as of the match's current state."""
    from games import services
    from games.core.playout import bot_command
    from games.core.registry import series_for

    def next_move(match, rng):
        series = series_for(match.game)
        state = services.load(match).state
        seat = series.pending(state)[0].seat
        return seat, bot_command(series, state, seat, "random", rng)

    return next_move


@pytest.fixture
def every_version_shared(monkeypatch):
    """A match's every state shared with the other processes (as before
    games.states.SHARE_EVERY), for tests of what the shared tier holds."""
    from games import states

    monkeypatch.setattr(states.KEPT, "share_every", 1)


@pytest.fixture
def bot_moves(next_bot_move):
    """``bot_moves(match, rng, n=1)``: n random bot moves, each by the seat it is up to."""
    from games import services

    def moves(match, rng, n: int = 1) -> None:
        for _ in range(n):
            seat, command = next_bot_move(match, rng)
            services.submit(match, seat, command, actor=seat)

    return moves


@pytest.fixture
def seated_match():
    """``seated_match(ana, ben, show_stream="", decision_s=30)``: a Love Me Not
    match (first to 2) whose two seats are held by the users ``ana`` and ``ben``."""
    import random

    from games import services

    def make(ana, ben, show_stream: str = "", decision_s: float = 30):
        return services.create_match(
            "love-me-not",
            ["ana", "ben"],
            holders={"ana": ana.pk, "ben": ben.pk},
            options={"decision_s": decision_s, "first_to": 2},
            rng=random.Random(5),
            show_stream=show_stream,
        )

    return make
