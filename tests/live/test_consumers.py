"""The live table over Channels, played: each socket carries its own
viewer's table only, spectators never ahead of the delay, a reconnect
catches up, and a socket with nothing to see is closed with a reason."""

import asyncio
import os
import random
import re
import threading
import time

import pytest
from asgiref.sync import async_to_sync
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.contrib.auth.models import User
from django.db import OperationalError
from django.test import Client

from eventlog.store import read
from games import services, visibility
from games.core.playout import bot_command
from games.core.protocol import SPECTATOR_VIEW, Viewer
from games.core.registry import series_for
from games.presenters.love_me_not import face
from live import consumers as live_consumers
from live import publisher
from live.consumers import NO_SUCH_MATCH, NOT_VISIBLE_YET, VIEWER_CHANGED
from live.groups import groups_of
from tests.helpers.sockets import count_trips, opened, seated, session, socket, users

pytestmark = pytest.mark.usefixtures("live_db")


def spelled(card) -> str:
    return f"<b>{face(card).text}</b>"


def hand_of(match, seat) -> list:
    return services.view_for(match, Viewer.of_seat(seat))["bout"]["hand"]


def move_now(match, seed=3):
    """The first seat that must decide makes a move (as a bot would)."""
    series = series_for(match.game)
    state = services.load(match).state
    seat = series.pending(state)[0].seat
    services.submit(match, seat, bot_command(series, state, seat, "random", random.Random(seed)))
    match.refresh_from_db()
    return match.version


move = database_sync_to_async(move_now)


def page_fragment(match, user) -> str:
    """What a fresh htmx load of the page gives ``user`` now."""
    c = Client()
    if user is not None:
        c.force_login(user)
    return c.get(f"/games/matches/{match.pk}/", headers={"HX-Request": "true"}).content.decode()


def without_clock(html: str) -> str:
    """A table minus the server's clock reading, a form's CSRF token and its
    fresh command id: what two renderings of one version may differ in."""
    html = re.sub(r'data-server-now="[^"]*"', "", html)
    html = re.sub(r'name="command_id" value="[^"]*"', "", html)
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)


async def closed_with(comm) -> int:
    """The code a socket is closed with right after it is accepted."""
    connected, _ = await comm.connect()
    assert connected
    closing = await comm.receive_output(timeout=5)
    assert closing["type"] == "websocket.close", closing
    return closing["code"]


def test_each_seat_socket_carries_its_own_table_and_no_other_seats_cards():
    ana, ben = users("ana_u", "ben_u")
    match = seated(ana, ben)
    cookies = {"ana": session(ana, match), "ben": session(ben, match)}
    dealt = {s: hand_of(match, s) for s in ("ana", "ben")}
    assert dealt["ana"] and dealt["ben"]

    async def body():
        sockets = {seat: socket(match.pk, cookie) for seat, cookie in cookies.items()}
        first = {seat: await opened(comm) for seat, comm in sockets.items()}
        version = await move(match)
        pushed = {seat: await comm.receive_json_from(timeout=5) for seat, comm in sockets.items()}
        for comm in sockets.values():
            assert await comm.receive_nothing(timeout=0.2)  # one push per move
            await comm.disconnect()
        return first, version, pushed

    first, version, pushed = async_to_sync(body)()
    for seat, other in (("ana", "ben"), ("ben", "ana")):
        assert first[seat]["version"] == version - 1
        assert all(spelled(c) in first[seat]["html"] for c in dealt[seat])
        assert not any(spelled(c) in first[seat]["html"] for c in dealt[other])
        assert pushed[seat]["version"] == version
    # the seat that has not moved yet still holds its cards, seen by itself only
    waiting = next(s for s in ("ana", "ben") if hand_of(match, s))
    mover = "ben" if waiting == "ana" else "ana"
    assert all(spelled(c) in pushed[waiting]["html"] for c in hand_of(match, waiting))
    assert not any(spelled(c) in pushed[mover]["html"] for c in hand_of(match, waiting))
    # the push is the page: a fresh load of the table at that version
    assert without_clock(pushed["ana"]["html"]) == without_clock(page_fragment(match, ana))
    assert without_clock(pushed["ben"]["html"]) == without_clock(page_fragment(match, ben))


def test_the_moderators_socket_sees_every_hand_and_the_seats_do_not():
    ana, ben, mod = users("ana_m", "ben_m", "mod_m")
    match = seated(ana, ben, moderators=[mod.pk])
    cookie = session(mod, match)

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        version = await move(match)
        pushed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return version, pushed

    version, pushed = async_to_sync(body)()
    assert pushed["version"] == version
    for seat in ("ana", "ben"):
        assert all(spelled(c) in pushed["html"] for c in hand_of(match, seat))
    assert without_clock(pushed["html"]) == without_clock(page_fragment(match, mod))


def test_a_spectator_socket_is_never_ahead_of_the_delay():
    ana, ben = users("ana_s", "ben_s")
    delay = 0.8
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)  # the deal is old enough to be watched

    async def body():
        comm = socket(match.pk)  # anonymous
        first = await opened(comm)
        version = await move(match)
        pushed = await comm.receive_json_from(timeout=5)  # never early: checked below
        received = time.time()
        await comm.disconnect()
        return first, version, pushed, received

    first, version, pushed, received = async_to_sync(body)()
    times = {r.version: r.recorded_at.timestamp() for r in read(match.stream)}
    assert first["version"] < version
    assert pushed["version"] == version
    # the version carried was recorded at least the delay before it was sent
    assert times[pushed["version"]] <= received - delay
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert not any(spelled(c) in pushed["html"] for c in hands)


def test_a_reconnect_names_its_version_and_gets_what_it_missed():
    ana, ben = users("ana_r", "ben_r")
    match = seated(ana, ben)
    browser = Client(enforce_csrf_checks=True)
    cookie = session(ana, match, browser)

    async def body():
        comm = socket(match.pk, cookie)
        shown = (await opened(comm))["version"]
        await comm.disconnect()
        await move(match, seed=1)
        last = await move(match, seed=2)  # two moves missed: a gap
        again = socket(match.pk, cookie)
        caught_up = await opened(again, since=shown)
        await again.send_json_to({"since": caught_up["version"]})
        up_to_date = await again.receive_json_from(timeout=5)
        await again.send_json_to({"since": "soon"})
        refused = await again.receive_json_from(timeout=5)
        await again.send_to(text_data="{not json")
        assert "since" in (await again.receive_json_from(timeout=5))["error"]
        await again.disconnect()
        return shown, last, caught_up, up_to_date, refused

    shown, last, caught_up, up_to_date, refused = async_to_sync(body)()
    assert shown < last and caught_up["version"] == last
    assert without_clock(caught_up["html"]) == without_clock(page_fragment(match, ana))
    assert up_to_date == {"version": last}  # nothing newer: no table resent
    assert "since" in refused["error"]
    # the pushed table's forms carry this browser's CSRF token: they post
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', caught_up["html"])[1]
    url = f"/games/matches/{match.pk}/command"
    assert browser.post(url, {"control": "x", "csrfmiddlewaretoken": token}).status_code == 302
    assert browser.post(url, {"control": "x", "csrfmiddlewaretoken": "x" * 32}).status_code == 403


def test_a_socket_with_nothing_to_see_is_closed_with_the_reason():
    ana, ben = users("ana_c", "ben_c")
    match = seated(ana, ben, spectator_delay_s=300)
    cookie = session(ana, match)

    async def body():
        # accepted, then closed with the code: a browser sees it (a close before
        # the accept reaches it as 1006, and live.js would retry forever)
        unknown = socket(match.pk + 1000)
        assert await closed_with(unknown) == NO_SUCH_MATCH
        too_soon = socket(match.pk)
        assert await closed_with(too_soon) == NOT_VISIBLE_YET
        elsewhere = socket(match.pk, cookie, origin=b"http://evil.example")
        connected, _ = await elsewhere.connect()
        assert not connected
        # the seated player of that match is live, delay or not
        mine = socket(match.pk, cookie)
        assert (await opened(mine))["version"] == match.version
        await mine.disconnect()

    async_to_sync(body)()


@pytest.mark.redis
def test_on_channels_redis_a_seat_socket_gets_its_table_after_each_move(settings):
    settings.CHANNEL_LAYERS = {
        "default": {
            "BACKEND": "channels_redis.pubsub.RedisPubSubChannelLayer",  # production's
            "CONFIG": {"hosts": [os.environ["REDIS_URL"]]},
        }
    }
    ana, ben = users("ana_x", "ben_x")
    match = seated(ana, ben)
    cookie = session(ben, match)

    async def body():
        from channels.layers import get_channel_layer

        assert type(get_channel_layer()).__name__ == "RedisPubSubChannelLayer"
        comm = socket(match.pk, cookie)
        await opened(comm)
        versions = [await move(match, seed=1), await move(match, seed=2)]
        pushed = [await comm.receive_json_from(timeout=5)]
        while pushed[-1]["version"] < versions[-1]:
            pushed.append(await comm.receive_json_from(timeout=5))
        assert await comm.receive_nothing(timeout=0.3)
        await comm.disconnect()
        return versions, pushed

    versions, pushed = async_to_sync(body)()
    # a push is a whole table: one that already shows both moves covers both
    shown = [p["version"] for p in pushed]
    assert shown == sorted(set(shown)) and set(shown) <= set(versions)
    assert without_clock(pushed[-1]["html"]) == without_clock(page_fragment(match, ben))


def test_a_move_from_a_thread_of_its_own_reaches_the_sockets_at_once():
    """The embedded clock and bots move from a plain thread, outside the
    server's event loop: their pushes wake the sockets all the same."""
    ana, ben = users("ana_t", "ben_t")
    match = seated(ana, ben)
    cookie = session(ana, match)
    moved = {}

    def move_in_a_thread():
        from django.db import connection

        try:
            moved["version"] = move_now(match)
            moved["at"] = time.monotonic()
        finally:
            connection.close()

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        mover = threading.Thread(target=move_in_a_thread)
        mover.start()  # nothing of this loop waits on it
        pushed = await comm.receive_json_from(timeout=5)
        arrived = time.monotonic()
        await comm.disconnect()
        mover.join()
        return pushed, arrived

    pushed, arrived = async_to_sync(body)()
    assert pushed["version"] == moved["version"]
    assert arrived - moved["at"] < 1.0


# ---- spectators share one render; the publisher sends once per append ------
def counting_spectator_renders(monkeypatch) -> list:
    """Every spectator table the consumers render (thread-safe: list.append)."""
    counted = []
    real = live_consumers.fragment

    def fragment(match, viewer, **kw):
        if viewer == SPECTATOR_VIEW:
            counted.append(match.pk)
        return real(match, viewer, **kw)

    monkeypatch.setattr(live_consumers, "fragment", fragment)
    return counted


def test_spectators_at_the_same_cut_get_one_table_rendered_once(monkeypatch):
    ana, ben = users("ana_n", "ben_n")
    delay, watching = 0.8, 6
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)
    renders = counting_spectator_renders(monkeypatch)

    async def body():
        sockets = [socket(match.pk) for _ in range(watching)]
        first = [await opened(comm) for comm in sockets]
        renders.clear()
        version = await move(match)
        pushed = [await comm.receive_json_from(timeout=5) for comm in sockets]
        received = time.time()
        for comm in sockets:
            assert await comm.receive_nothing(timeout=0.1)  # one push per move
            await comm.disconnect()
        return first, version, pushed, received

    first, version, pushed, received = async_to_sync(body)()
    assert {f["version"] for f in first} == {version - 1}
    assert [p["version"] for p in pushed] == [version] * watching
    assert len({p["html"] for p in pushed}) == 1  # the very same table
    assert renders == [match.pk]  # rendered once for all six sockets
    recorded_at = {r.version: r.recorded_at.timestamp() for r in read(match.stream)}
    assert recorded_at[version] <= received - delay
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert not any(spelled(c) in pushed[0]["html"] for c in hands)
    assert "csrfmiddlewaretoken" not in pushed[0]["html"]


def counting_renders(monkeypatch) -> list:
    """The viewer of every table the consumers render (list.append: thread-safe)."""
    counted = []
    real = live_consumers.fragment

    def fragment(match, viewer, **kw):
        counted.append(viewer)
        return real(match, viewer, **kw)

    monkeypatch.setattr(live_consumers, "fragment", fragment)
    return counted


def test_a_version_is_rendered_once_per_kind_of_viewer_and_each_seat_gets_its_own(monkeypatch):
    """Three tabs of ana, two of ben and three spectators: one move costs one
    render per kind of viewer (ana's, ben's, the spectators'), not one per
    socket; each seat's sockets get its table, with no card of the other's,
    each with its own browser's CSRF token and command ids."""
    ana, ben = users("ana_f", "ben_f")
    match = seated(ana, ben, spectator_delay_s=0)
    cookies = {
        "ana": [session(ana, match) for _ in range(3)],
        "ben": [session(ben, match) for _ in range(2)],
    }
    renders = counting_renders(monkeypatch)

    async def body():
        seats = {seat: [socket(match.pk, c) for c in cs] for seat, cs in cookies.items()}
        watching = [socket(match.pk) for _ in range(3)]
        every = [*seats["ana"], *seats["ben"], *watching]
        for comm in every:
            await opened(comm)
        renders.clear()
        version = await move(match)
        pushed = {
            seat: [await c.receive_json_from(timeout=5) for c in cs] for seat, cs in seats.items()
        }
        seen = [await c.receive_json_from(timeout=5) for c in watching]
        for comm in every:
            assert await comm.receive_nothing(timeout=0.2)  # one push per move
            await comm.disconnect()
        return version, pushed, seen

    version, pushed, seen = async_to_sync(body)()
    forms = 0
    assert sorted(map(repr, renders)) == sorted(
        map(repr, [Viewer.of_seat("ana"), Viewer.of_seat("ben"), SPECTATOR_VIEW])
    )
    assert {p["version"] for ps in pushed.values() for p in ps} | {p["version"] for p in seen} == {
        version
    }
    for seat, other in (("ana", "ben"), ("ben", "ana")):
        tables = [p["html"] for p in pushed[seat]]
        assert len({without_clock(t) for t in tables}) == 1  # the same table for every tab
        assert all(spelled(c) in tables[0] for c in hand_of(match, seat))
        assert not any(spelled(c) in t for t in tables for c in hand_of(match, other))
        assert without_clock(tables[0]) == without_clock(
            page_fragment(match, {"ana": ana, "ben": ben}[seat])
        )
        assert not any(live_consumers.CSRF_SLOT in t for t in tables)
        for found in (
            r'name="csrfmiddlewaretoken" value="([^"]+)"',
            r'name="command_id" value="([^"]+)"',
        ):
            mine = [tuple(re.findall(found, t)) for t in tables]
            forms += sum(map(len, mine))
            assert len(set(mine)) == len(tables) or not any(mine)  # each tab its own
    assert forms  # the seat to move has a form in each of its tabs
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert len({p["html"] for p in seen}) == 1
    assert not any(spelled(c) in seen[0]["html"] for c in hands)


def test_the_next_release_is_rendered_before_it_is_due_and_sent_when_due(monkeypatch):
    """The table of a held version is rendered ahead (its cut is fixed), so
    the release only sends it; still never before the version is due."""
    ana, ben = users("ana_r", "ben_r")
    delay = 1.2
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)
    rendered_at = []
    real = live_consumers.fragment

    def fragment(match, viewer, **kw):
        if viewer == SPECTATOR_VIEW:
            rendered_at.append(time.time())
        return real(match, viewer, **kw)

    async def body():
        sockets = [socket(match.pk) for _ in range(3)]
        for comm in sockets:
            await opened(comm)
        monkeypatch.setattr(live_consumers, "fragment", fragment)
        version = await move(match)
        pushed = []
        for comm in sockets:
            pushed.append((await comm.receive_json_from(timeout=5), time.time()))
            await comm.disconnect()
        return version, pushed

    version, pushed = async_to_sync(body)()
    due = versions_due(match, delay)[version]
    assert len(rendered_at) == 1  # once for the three sockets, ahead of time
    assert rendered_at[0] < due
    for message, received in pushed:
        assert message["version"] == version and due <= received
        assert message["clock"] <= received - delay + 0.01  # the clocks run from the cut
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert not any(spelled(c) in pushed[0][0]["html"] for c in hands)


def test_a_spectator_gets_each_version_when_its_delay_has_passed():
    """Moves closer together than the delay (however close): each is
    released on its own, none skipped for the newest, none early."""
    ana, ben = users("ana_e", "ben_e")
    delay = 1.5
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)

    async def body():
        comm = socket(match.pk)
        await opened(comm)
        versions = [await move(match, seed=seed) for seed in (1, 2, 3)]
        pushed = []
        while not pushed or pushed[-1][0]["version"] < versions[-1]:
            pushed.append((await comm.receive_json_from(timeout=5), time.time()))
        await comm.disconnect()
        return versions, pushed

    versions, pushed = async_to_sync(body)()
    assert_each_move_shown([p["version"] for p, _ in pushed], versions)
    recorded_at = {r.version: r.recorded_at.timestamp() for r in read(match.stream)}
    for p, received in pushed:
        assert recorded_at[p["version"]] <= received - delay


def test_one_append_is_announced_to_every_group_from_one_loop(monkeypatch):
    """One coroutine per append (not one event loop per group), and the
    message carries what a spectator's consumer needs: time and delay."""
    ana, ben = users("ana_p", "ben_p")
    match = seated(ana, ben, spectator_delay_s=7)
    monkeypatch.setattr(publisher, "_sockets_loop", None)  # no socket in this process
    assert publisher.flush()  # the match's creation told before counting
    layer = get_channel_layer()
    sent = []

    async def group_send(group, message):
        sent.append((group, message, id(asyncio.get_running_loop())))

    monkeypatch.setattr(layer, "group_send", group_send)
    version = move_now(match)
    assert publisher.flush()  # sent without the writer waiting: done soon after
    assert sorted(g for g, _, _ in sent) == sorted(groups_of(match))
    assert len({loop for _, _, loop in sent}) == 1
    recorded_at = {r.version: r.recorded_at.timestamp() for r in read(match.stream)}
    for _, message, _ in sent:
        assert message["version"] == version
        assert message["at"] == recorded_at[version]
        assert message["delay"] == 7 and message["policy"] == "public"


def test_a_thread_running_another_loop_still_publishes(caplog, monkeypatch):
    """A browser test's driver runs its own loop in the thread that moves:
    the message goes out from a short-lived thread, with no error logged."""
    layer = get_channel_layer()
    monkeypatch.setattr(publisher, "_sockets_loop", None)

    async def body():
        channel = await layer.new_channel()
        await layer.group_add("match-1.spectators", channel)
        message = {"type": "table.update", "version": 5, "at": 0.0, "delay": 0.0}
        publisher.send(layer, [("match-1.spectators", message)])  # sync, in a running loop
        assert publisher.flush()
        return await asyncio.wait_for(layer.receive(channel), timeout=5)

    with caplog.at_level("WARNING"):
        received = asyncio.run(body())
    assert received["version"] == 5
    assert not [r for r in caplog.records if r.levelno >= 30]


def test_a_socket_that_lost_its_group_rejoins_and_catches_up(settings, monkeypatch):
    """A Redis restart empties the layer's groups while the sockets stay open:
    each socket joins again within LIVE_REJOIN_S and gets what it missed."""
    settings.LIVE_REJOIN_S = 0.3
    ana, ben = users("ana_g", "ben_g")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        joins = []
        join = layer.group_add

        async def group_add(group, channel):
            joins.append((group, channel))
            await join(group, channel)

        monkeypatch.setattr(layer, "group_add", group_add)
        comm = socket(match.pk, cookie)
        await opened(comm)
        group, channel = joins[0]
        # counted before the discard: the socket's own rejoin may run while it is awaited
        before = len(joins)
        await layer.group_discard(group, channel)  # the restart: the group is gone, not the socket
        version = await move(match)
        pushed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return version, pushed, joins[before:]

    version, pushed, rejoined = async_to_sync(body)()
    assert rejoined and len(set(rejoined)) == 1
    assert pushed["version"] == version
    assert without_clock(pushed["html"]) == without_clock(page_fragment(match, ana))


def test_a_socket_opened_while_the_layer_is_away_joins_once_it_is_back(settings, monkeypatch):
    settings.LIVE_REJOIN_S = 0.3
    ana, ben = users("ana_w", "ben_w")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        from channels.layers import get_channel_layer

        layer = get_channel_layer()
        join = layer.group_add
        away = True

        async def group_add(group, channel):
            if away:
                raise ConnectionError("Redis is restarting")
            await join(group, channel)

        monkeypatch.setattr(layer, "group_add", group_add)
        comm = socket(match.pk, cookie)
        first = await opened(comm)  # accepted, with the table, not refused with a 500
        away = False
        version = await move(match)
        pushed = await comm.receive_json_from(timeout=5)
        await comm.disconnect()
        return first, version, pushed

    first, version, pushed = async_to_sync(body)()
    assert first["version"] == version - 1 and "html" in first
    assert pushed["version"] == version


# ---- a release that cannot render is tried again ---------------------------
def spectator_sees_a_move_rendered_by(match, fragment, monkeypatch):
    """A spectator socket opened, then a move, its table rendered by ``fragment``:
    the version moved to and the first table pushed after it."""

    async def body():
        comm = socket(match.pk)
        await opened(comm)
        monkeypatch.setattr(live_consumers, "fragment", fragment)
        version = await move(match)
        pushed = await comm.receive_json_from(timeout=10)
        await comm.disconnect()
        return version, pushed

    return async_to_sync(body)()


def test_a_spectator_whose_release_could_not_render_gets_it_on_the_retry(monkeypatch, caplog):
    """The database away when a version is due (a restart): the socket keeps
    the version held and shows it once a render works, never skipping it."""
    ana, ben = users("ana_f", "ben_f")
    delay = 0.6
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)
    real = live_consumers.fragment
    failed = []

    def fragment(match, viewer, **kw):
        if viewer == SPECTATOR_VIEW and len(failed) < 3 and match.version > 1:
            failed.append(match.version)
            raise OperationalError("the connection was closed while dealing a Princess")
        return real(match, viewer, **kw)

    version, pushed = spectator_sees_a_move_rendered_by(match, fragment, monkeypatch)
    # the first three renders failed: the early one (before the version was due), then
    # the release's and its first retry's
    assert failed == [version, version, version]
    early = [r.getMessage() for r in caplog.records if "not rendered early" in r.getMessage()]
    assert len(early) == 1 and "OperationalError" in early[0]
    retries = [r.getMessage() for r in caplog.records if "could not render" in r.getMessage()]
    assert len(retries) == 2 and "OperationalError" in retries[0]
    assert "Princess" not in caplog.text  # the error's kind is logged, never its text
    assert pushed["version"] == version
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert not any(spelled(c) in pushed["html"] for c in hands)


def test_a_spectator_render_cut_before_the_released_version_is_tried_again(monkeypatch):
    """A render whose cut fell just before the released version was recorded
    (clocks a hair apart) is not the end: the version comes on the retry."""
    ana, ben = users("ana_c", "ben_c")
    delay = 0.6
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)
    real_fragment, real_clock = live_consumers.fragment, visibility.clock
    behind = []

    def fragment(match, viewer, **kw):
        if viewer == SPECTATOR_VIEW and match.version > 1 and not behind:
            behind.append(match.version)  # this render's clock is a second behind
            monkeypatch.setattr(visibility, "clock", lambda: real_clock() - 1.0)
            try:
                return real_fragment(match, viewer, **kw)
            finally:
                monkeypatch.setattr(visibility, "clock", real_clock)
        return real_fragment(match, viewer, **kw)

    version, pushed = spectator_sees_a_move_rendered_by(match, fragment, monkeypatch)
    assert behind == [version]
    assert pushed["version"] == version


def test_a_writer_does_not_wait_for_the_channel_layer(monkeypatch):
    """A layer that hangs (Redis restarting) never holds a move back: the
    message goes out on the publishing loop once the layer answers."""
    ana, ben = users("ana_h", "ben_h")
    match = seated(ana, ben)
    monkeypatch.setattr(publisher, "_sockets_loop", None)
    assert publisher.flush()
    layer = get_channel_layer()
    answer = threading.Event()
    delivered = []

    async def group_send(group, message):
        for _ in range(300):  # the layer away until the test says (3 s at most)
            if answer.is_set():
                delivered.append((group, message["version"]))
                return
            await asyncio.sleep(0.01)
        raise TimeoutError("the layer never answered")

    monkeypatch.setattr(layer, "group_send", group_send)
    version = move_now(match)
    assert delivered == []  # the move is written and returned; its message waits
    answer.set()
    assert publisher.flush()
    assert sorted(delivered) == sorted((g, version) for g in groups_of(match))


# ---- every version inside the delay window reaches a spectator ---------------
def pushes_until(comm, last: int):
    """Every push a socket gets up to version ``last``, each with when it came."""

    async def collect():
        pushed = []
        while not pushed or pushed[-1][0]["version"] < last:
            message = await comm.receive_json_from(timeout=10)
            if "html" in message:
                pushed.append((message, time.time()))
        return pushed

    return collect()


def assert_each_move_shown(shown: list[int], moves: list[int]) -> None:
    """Every move's last version was pushed, in order, each table once. A move
    whose events two statements wrote (a bout's end after the play) may be
    recorded a few milliseconds apart: its first part is then a version of its
    own, shown at its own due time."""
    assert shown == sorted(set(shown))
    assert set(moves) <= set(shown)
    assert shown[-1] == moves[-1]


def versions_due(match, delay) -> dict[int, float]:
    """Each version after the first deal with the moment it is due to spectators."""
    return {r.version: r.recorded_at.timestamp() + delay for r in read(match.stream)}


def test_a_spectator_who_connects_under_a_delay_gets_every_version_of_the_window():
    """Versions appended before the socket opened, still inside the delay
    window, are released each at its own due time: the table never freezes
    on the version shown when the page opened."""
    ana, ben = users("ana_w", "ben_w")
    delay = 2.0
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)  # the deal is old enough to be watched

    async def body():
        versions = [await move(match, seed=seed) for seed in (1, 2, 3)]
        comm = socket(match.pk)  # all three moves are still inside the window
        first = await opened(comm)
        pushed = await pushes_until(comm, versions[-1])
        later = await move(match, seed=4)  # and what comes after, announced
        pushed += await pushes_until(comm, later)
        await comm.disconnect()
        return first, [*versions, later], pushed

    first, versions, pushed = async_to_sync(body)()
    assert first["version"] < versions[0]
    assert_each_move_shown([p["version"] for p, _ in pushed], versions)
    due = versions_due(match, delay)
    for p, received in pushed:
        assert due[p["version"]] <= received  # never early
        # the clocks of a delayed table run from the cut, not from now
        assert p["clock"] <= received - delay + 0.01


def test_a_reconnected_spectator_gets_every_version_it_has_not_seen_yet():
    ana, ben = users("ana_v", "ben_v")
    delay = 1.5
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)

    async def body():
        comm = socket(match.pk)
        shown = (await opened(comm))["version"]
        await comm.disconnect()
        versions = [await move(match, seed=seed) for seed in (5, 6)]
        again = socket(match.pk)
        caught_up = await opened(again, since=shown)  # nothing newer is due yet
        pushed = await pushes_until(again, versions[-1])
        await again.disconnect()
        return shown, caught_up, versions, pushed

    shown, caught_up, versions, pushed = async_to_sync(body)()
    assert caught_up == {"version": shown}
    assert_each_move_shown([p["version"] for p, _ in pushed], versions)
    due = versions_due(match, delay)
    assert all(due[p["version"]] <= received for p, received in pushed)


# ---- a socket re-checks its viewer -----------------------------------------
def show_match(ana, ben, **options):
    """A love-me-not match of a show organized by olga and moderated by mia."""
    from tournaments import show_services as ss
    from tournaments import shows

    for name in ("olga", "mia"):
        User.objects.get_or_create(username=name)
    stream = ss.create_show(
        name="Socket night",
        organizer="olga",
        entrants=["ana", "ben", "cal", "dee"],
        options={"game_pool": ["love-me-not"], **options},
        holders={"ana": ana.pk, "ben": ben.pk, "cal": "bot:random", "dee": "bot:random"},
        rng=random.Random(2),
    )
    organizer = ss.Acting("olga", shows.ORGANIZER)
    ss.command(stream, {"type": "appoint_moderator", "username": "mia"}, organizer)
    match = services.create_match(
        "love-me-not",
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={"ana": ana.pk, "ben": ben.pk},
        show_stream=stream,
        rng=random.Random(9),
    )
    return stream, organizer, match


async def closed_on_next_move(comm, match) -> dict:
    await move(match)
    return await comm.receive_output(timeout=5)


def test_a_moderator_removed_from_the_show_gets_nothing_more_live():
    ana, ben = users("ana_d", "ben_d")
    stream, organizer, match = show_match(ana, ben, spectator_delay_s=300)
    mia = User.objects.get(username="mia")
    browser = Client()
    cookie = session(mia, match, browser)
    assert browser.post(f"/games/matches/{match.pk}/open").status_code == 302

    async def body():
        from tournaments import show_services as ss

        comm = socket(match.pk, cookie)
        first = await opened(comm)
        live = await move(match)
        pushed = await comm.receive_json_from(timeout=5)
        pushed["hands"] = await database_sync_to_async(
            lambda: hand_of(match, "ana") + hand_of(match, "ben")
        )()
        removal = {"type": "remove_moderator", "username": "mia", "reason": "off duty"}
        await database_sync_to_async(ss.command)(stream, removal, organizer)
        closing = await closed_on_next_move(comm, match)
        return first, live, pushed, closing

    first, live, pushed, closing = async_to_sync(body)()
    assert pushed["version"] == live  # live while she moderates
    assert pushed["hands"] and all(spelled(c) in pushed["html"] for c in pushed["hands"])
    assert (closing["type"], closing["code"]) == ("websocket.close", VIEWER_CHANGED)


def test_a_moderators_socket_is_a_spectators_until_the_opening_and_writes_nothing():
    ana, ben = users("ana_w", "ben_w")
    stream, _organizer, match = show_match(ana, ben, spectator_delay_s=0)
    mia = User.objects.get(username="mia")
    browser = Client()
    cookie = session(mia, match, browser)
    written = len(read(stream))

    async def pushes(*comms):
        """What each socket is pushed once one move is made."""
        for comm in comms:
            await opened(comm)
        version = await move(match)
        out = []
        for comm in comms:
            pushed = await comm.receive_json_from(timeout=5)
            while pushed["version"] < version:
                pushed = await comm.receive_json_from(timeout=5)
            await comm.disconnect()
            out.append(pushed)
        return out

    as_mia, as_anyone = async_to_sync(pushes)(socket(match.pk, cookie), socket(match.pk))
    assert len(read(stream)) == written  # her socket and its pushes wrote nothing
    assert as_mia["version"] == as_anyone["version"]
    assert as_mia["html"] == as_anyone["html"]  # a spectator's table, no hand in it
    assert browser.post(f"/games/matches/{match.pk}/open").status_code == 302
    assert len(read(stream)) == written + 1
    (opened_push,) = async_to_sync(pushes)(socket(match.pk, cookie))
    hands = hand_of(match, "ana") + hand_of(match, "ben")
    assert hands and all(spelled(c) in opened_push["html"] for c in hands)
    assert len(read(stream)) == written + 1


def test_a_player_substituted_out_gets_nothing_more_of_the_seat():
    ana, ben = users("ana_o", "ben_o")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        # the seat's holder changes (what a substitution's projector writes)
        await database_sync_to_async(match.holders.filter(seat="ana").update)(
            user=None, bot="random"
        )
        return await closed_on_next_move(comm, match)

    closing = async_to_sync(body)()
    assert (closing["type"], closing["code"]) == ("websocket.close", VIEWER_CHANGED)


# ---- a closed socket leaves nothing running; no raw CSRF secret ---------------
def test_a_spectator_socket_closed_mid_release_stops_its_release(monkeypatch):
    ana, ben = users("ana_k", "ben_k")
    delay = 0.5
    match = seated(ana, ben, spectator_delay_s=delay)
    time.sleep(delay + 0.1)
    consumers = []
    connect = live_consumers.MatchConsumer.connect

    async def kept(self):
        consumers.append(self)
        await connect(self)

    monkeypatch.setattr(live_consumers.MatchConsumer, "connect", kept)
    real = live_consumers._spectator_fragment
    armed, rendering = threading.Event(), threading.Event()

    async def slow_fragment(pk, language, now):
        if armed.is_set():  # the release's render waits (on the database, say)
            rendering.set()
            await asyncio.sleep(30)
        return await real(pk, language, now)

    monkeypatch.setattr(live_consumers, "_spectator_fragment", slow_fragment)

    async def body():
        comm = socket(match.pk)
        await opened(comm)
        armed.set()
        await move(match)
        for _ in range(200):  # the release is waiting for the render (10 s at most)
            if rendering.is_set() and consumers[0].releasing is not None:
                break
            await asyncio.sleep(0.05)
        releasing = consumers[0].releasing
        assert releasing is not None and not releasing.done()
        await comm.disconnect()
        for _ in range(100):
            if releasing.done():
                break
            await asyncio.sleep(0.01)
        return releasing.cancelled()  # asked before this loop ends (which cancels what is left)

    assert async_to_sync(body)()


def test_a_pushed_table_carries_a_masked_csrf_token_never_the_secret():
    ana, ben = users("ana_z", "ben_z")
    match = seated(ana, ben)
    browser = Client(enforce_csrf_checks=True)
    cookie = session(ana, match, browser)
    secret = browser.cookies["csrftoken"].value

    async def body():
        comm = socket(match.pk, cookie)
        await opened(comm)
        pushed = []
        for seed in range(6):  # until a table with a form to post comes
            await move(match, seed=seed)
            pushed.append(await comm.receive_json_from(timeout=5))
            if "csrfmiddlewaretoken" in pushed[-1]["html"]:
                break
        await comm.disconnect()
        return pushed[-1]

    pushed = async_to_sync(body)()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', pushed["html"])[1]
    assert secret not in pushed["html"] and token != secret
    url = f"/games/matches/{match.pk}/command"
    assert browser.post(url, {"control": "x", "csrfmiddlewaretoken": token}).status_code == 302


def test_a_version_is_told_to_one_group_and_a_spectators_room_never_to_a_seats():
    """Every socket of a match joins its match's group, where each version is
    sent once; the spectators' room chat goes to the watchers' group, which
    no seat's socket joins."""
    from types import SimpleNamespace

    from games.core.protocol import MODERATOR_VIEW
    from live.chat import chat_sends
    from live.groups import groups_for, match_group, watchers_group

    ana, ben = users("ana_g", "ben_g")
    match = seated(ana, ben)
    assert groups_of(match) == [match_group(match.pk)]
    assert groups_for(match.pk, Viewer.of_seat("ana")) == [match_group(match.pk)]
    for viewer in (SPECTATOR_VIEW, MODERATOR_VIEW):
        assert groups_for(match.pk, viewer) == [match_group(match.pk), watchers_group(match.pk)]

    def row(room):
        return SimpleNamespace(
            stream=f"chat-m{match.pk}-{room}",
            type="chat_message",
            data={},
            recorded_at=match.created_at,
        )

    assert [g for g, _ in chat_sends([row("players")])] == [match_group(match.pk)]
    assert [g for g, _ in chat_sends([row("spectators")])] == [watchers_group(match.pk)]


def test_a_seats_render_reads_the_match_and_its_holders_in_one_statement():
    """What every seat socket's rights are checked against: the match row and
    account id -> its first seat by name (bots hold none), read together."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from live.render import match_and_seats

    ana, ben = users("ana_1", "ben_1")
    match = seated(ana, ben)
    with CaptureQueriesContext(connection) as queries:
        row, seat_of, _tokens = match_and_seats(match.pk)
    assert len(queries) == 1
    assert (row.pk, row.version, row.stream) == (match.pk, match.version, match.stream)
    assert seat_of == {ana.pk: "ana", ben.pk: "ben"}
    match.holders.filter(seat="ben").update(user=ana)  # ana holds both: her first by name
    match.holders.filter(seat="ana").update(user=None, bot="random")
    assert _tokens == {ana.pk: frozenset(), ben.pk: frozenset()}
    from api.models import ApiToken

    issued = ApiToken.issue(ana, "bot")[0]
    revoked = ApiToken.issue(ana, "old")[0]
    revoked.revoke()
    assert match_and_seats(match.pk)[2][ana.pk] == {issued.pk}
    ana.is_active = False
    ana.save()
    assert match_and_seats(match.pk)[2][ana.pk] == frozenset()  # none while disabled
    assert match_and_seats(match.pk)[1] == {ana.pk: "ben"}
    with pytest.raises(type(match).DoesNotExist):
        match_and_seats(match.pk + 1000)


def test_a_group_waits_only_for_its_own_sends():
    """Each group's versions go out in order, and a send held up on one
    match's group does not hold another match's (live.publisher)."""

    class SlowLayer:
        def __init__(self):
            self.sent, self.held = [], asyncio.Event()

        async def group_send(self, group, message):
            if message["version"] == 1 and group == "match-1":
                await self.held.wait()
            self.sent.append((group, message["version"]))

    async def body():
        layer = SlowLayer()
        first = asyncio.ensure_future(publisher._send_all(layer, [("match-1", {"version": 1})]))
        second = asyncio.ensure_future(publisher._send_all(layer, [("match-1", {"version": 2})]))
        other = asyncio.ensure_future(publisher._send_all(layer, [("match-2", {"version": 7})]))
        await asyncio.wait_for(other, timeout=5)
        assert layer.sent == [("match-2", 7)]  # match-1's version 1 still held
        layer.held.set()
        await asyncio.wait_for(asyncio.gather(first, second), timeout=5)
        return layer.sent

    assert asyncio.run(body()) == [("match-2", 7), ("match-1", 1), ("match-1", 2)]


def test_a_seats_first_table_is_made_in_its_handshakes_trip_to_a_thread(settings, monkeypatch):
    """Opening a seat's socket and asking for its table costs one trip to a
    thread (the handshake's, which reads the match and renders the table),
    not two: under load each trip waits for a thread of the pool."""
    settings.LIVE_REJOIN_S = 60  # no catch-up trip meanwhile
    trips = count_trips(monkeypatch)
    ana, ben = users("ana_h", "ben_h")
    match = seated(ana, ben)
    cookie = session(ana, match)

    async def body():
        comm = socket(match.pk, cookie)
        first = await opened(comm)
        await comm.disconnect()
        return first

    first = async_to_sync(body)()
    assert first["version"] == match.version and "<" in first["html"]
    assert trips == ["_resolve"]


def test_a_move_made_right_after_the_first_table_is_pushed_at_once(settings, monkeypatch):
    """The first table is made before the handshake ends: a move committed
    right after it (before the socket could join its group in the old order)
    still reaches the socket at once, never after its rejoin, and no table
    older than one already sent follows it."""
    settings.LIVE_REJOIN_S = 60  # the rejoin's catch-up would hide a missed announcement
    ana, ben = users("ana_m", "ben_m")
    match = seated(ana, ben)
    cookie = session(ana, match)
    real = live_consumers.MatchConsumer._shared_render
    moved = []

    def render_then_move(self, *args, **kwargs):
        table = real(self, *args, **kwargs)
        if not args and not moved:  # the handshake's: a move right after it
            moved.append(move_now(match))
        return table

    monkeypatch.setattr(live_consumers.MatchConsumer, "_shared_render", render_then_move)

    async def body():
        comm = socket(match.pk, cookie)
        seen = [(await opened(comm))["version"]]
        while seen[-1] < moved[0]:
            seen.append((await comm.receive_json_from(timeout=5))["version"])
        await comm.disconnect()
        return seen

    seen = async_to_sync(body)()
    assert moved and seen[-1] == moved[0]
    assert seen == sorted(seen)
