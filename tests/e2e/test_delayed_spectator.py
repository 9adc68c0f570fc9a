"""A spectator watches a show match on a delay, in Chromium, over the real
ASGI server (pages and websockets): opened too early, the page counts down
and opens itself; opened mid-match, the table advances through every
released version, each within 1.5 s of its due time (recorded + delay) and
never before; and no clock reads "time is up" while the match at the cut
still had time (each decision has 4 s, moves come every second, the delay
is 6 s: a clock counted against the wall clock would be up). They are
watched until enough versions were due in each one's time, not for a set
time."""

import random
import threading
import time

from django.db import connection
from playwright.sync_api import expect

from eventlog.store import ConcurrencyError, read
from games import services
from games.core.playout import bot_command
from games.core.protocol import RuleError
from games.core.registry import series_for
from tests.e2e.test_live_socket import site  # noqa: F401  (the ASGI server: pages and sockets)
from tournaments import show_services

DELAY_S = 6
DECISION_S = 4  # under the delay: a clock counted against the wall clock would be up
MOVE_EVERY_S = 1.0  # well inside the clocks
MIDWAY_AFTER_S = 4  # the second spectator comes once versions pile up in the window
SEEN_AT_LEAST = {"early": 15, "midway": 10}  # versions due while each one watches
WATCH_AT_MOST_S = 90
# the benchmark measures how late (spectators: p99 under 0.5 s); here, a version
# shown without a reload soon after it is due, on a loaded CI machine (one was
# 1.07 s late there under a 1 s bound, 2026-12-07)
LATE_AT_MOST_S = 1.5

# every version the page shows and when (the browser's clock: this machine's),
# and every moment a clock read "time is up"
WATCHER = """
window.__shown = [];
window.__timeUp = [];
new MutationObserver(function () {
  var table = document.getElementById("table");
  if (!table) return;
  var v = parseInt(table.getAttribute("data-version"), 10);
  var last = window.__shown[window.__shown.length - 1];
  if (!last || last[0] !== v) window.__shown.push([v, Date.now() / 1000]);
  table.querySelectorAll(".deadline").forEach(function (el) {
    if (el.classList.contains("late")) {
      var now = table.querySelector("[data-server-now]");
      window.__timeUp.push([v, el.textContent, el.getAttribute("data-deadline"),
        now && now.getAttribute("data-server-now"), Date.now() / 1000]);
    }
  });
}).observe(document, { childList: true, subtree: true, characterData: true });
"""


def a_show_match(make_user):
    make_user("olga")  # the organizer
    ana, ben = make_user("ana"), make_user("ben")
    stream = show_services.create_show(
        name="Delay night",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"game_pool": ["love-me-not"], "spectator_delay_s": DELAY_S},
        holders={"ana": ana.pk, "ben": ben.pk, "cal": "bot:random", "dee": "bot:random"},
        rng=random.Random(1),
    )
    return services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": DECISION_S, "first_to": 4},
        holders={"ana": ana.pk, "ben": ben.pk},
        show_stream=stream,
        rng=random.Random(1),
    )


def keep_moving(match, stop: threading.Event, refused: list):
    """The players move every MOVE_EVERY_S (well inside their clocks) until told."""
    series, rng = series_for(match.game), random.Random(7)
    try:
        while True:
            match.refresh_from_db()
            state = services.load(match).state
            if state.finished:
                return
            for seat in dict.fromkeys(d.seat for d in series.pending(state)):
                try:  # the first seat with a move still to make (both choose at once)
                    services.submit(match, seat, bot_command(series, state, seat, "random", rng))
                    break
                except (RuleError, ConcurrencyError) as exc:
                    refused.append(repr(exc))
            if stop.wait(MOVE_EVERY_S):
                return
    finally:
        connection.close()


def watched(page) -> tuple[list, list, float]:
    return (*page.evaluate("[window.__shown, window.__timeUp]"), page.evaluate("Date.now() / 1000"))


def releases(match) -> list[tuple[int, float]]:
    """Each append's last version (an append's rows number themselves from
    command_seq 1), with when spectators are due to see it."""
    rows = read(match.stream)
    return [
        (row.version, row.recorded_at.timestamp() + DELAY_S)
        for row, after in zip(rows, [*rows[1:], None], strict=True)
        if after is None or after.command_seq == 1
    ]


def enough_seen(match, opened: dict[str, float]) -> bool:
    """Whether each spectator has had its SEEN_AT_LEAST versions come due (a
    second past due: LATE_AT_MOST_S) since it opened."""
    due = [at for _, at in releases(match) if at < time.time() - LATE_AT_MOST_S - 0.5]
    return all(sum(at > opened[n] + 1 for at in due) >= k for n, k in SEEN_AT_LEAST.items())


def test_a_delayed_spectator_sees_every_version_on_time(contexts, make_user, shot):
    match = a_show_match(make_user)
    stop, refused = threading.Event(), []
    mover = threading.Thread(target=keep_moving, args=(match, stop, refused), daemon=True)
    mover.start()
    try:
        early = contexts()  # a spectator, before the first deal is DELAY_S old
        early.add_init_script(WATCHER)
        answer = early.goto(f"/games/matches/{match.pk}/")
        assert answer.status == 200
        expect(early.locator(".opens-in")).to_contain_text("opens in")
        expect(early.locator("#table")).to_have_count(0)
        shot(early, "1-too-early")
        # it opens itself when the time comes, and says it is delayed
        expect(early.locator("#table")).to_be_visible(timeout=(DELAY_S + 5) * 1000)
        expect(early.locator("main")).to_contain_text(f"{DELAY_S} s behind the live match")
        opened = {"early": time.time()}

        early.wait_for_timeout(MIDWAY_AFTER_S * 1000)  # the match goes on
        midway = contexts()  # a second spectator, mid-match
        midway.add_init_script(WATCHER)
        midway.goto(f"/games/matches/{match.pk}/")
        expect(midway.locator("#table")).to_be_visible()
        opened["midway"] = time.time()
        for _ in range(WATCH_AT_MOST_S * 2):
            if enough_seen(match, opened):
                break
            early.wait_for_timeout(500)
        shot(early, "2-watched")
        pages = {"early": watched(early), "midway": watched(midway)}
    finally:
        stop.set()
        mover.join(10)

    rows = read(match.stream)
    due_of = {row.version: row.recorded_at.timestamp() + DELAY_S for row in rows}
    for name, (shown, time_up, until) in pages.items():
        assert time_up == [], f"{name}: 'time is up' at the cut: {time_up[:2]} ({refused})"
        assert len(shown) > 1, f"{name}: the table never moved"
        start = shown[0][1]
        for version, seen_at in shown:  # never before its time
            assert seen_at >= due_of[version] - 0.05, f"{name}: v{version} shown early"
        seen = dict(shown)
        expected = [
            (v, at) for v, at in releases(match) if start + 0.5 < at < until - LATE_AT_MOST_S
        ]
        assert len(expected) >= SEEN_AT_LEAST[name], f"{name}: {len(expected)} versions due"
        missed = [v for v, _ in expected if v not in seen]
        assert not missed, f"{name}: versions never shown: {missed}"
        late = [(v, round(seen[v] - at, 2)) for v, at in expected if seen[v] - at > LATE_AT_MOST_S]
        assert not late, f"{name}: shown more than {LATE_AT_MOST_S} s after due: {late}"
