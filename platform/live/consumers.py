"""One socket per viewer of a match: it joins its match's group (each
version announced there once, with no card in it: live.groups) and
forwards its own viewer's table, rendered once for every socket of that
viewer in this process (render.viewer_tables; a move decided here renders
the other seats' tables with the mover's, from what its command read); a
seat's socket carries its moves
too (``{"command": {...}, "id": ...}`` as the API's, ``{"form": {...}, "id":
...}`` as the table's controls), decided by the same code as the HTTP ones
(games.api.send_move, games.table_moves) and answered on the socket once
the move's event is committed. Who the socket speaks for is read again
before every command (live.auth): a seat removed, a token revoked or a
session logged out is refused at once. ws/api/matches/<pk>/ is the same
socket in JSON for bots (ApiMatchConsumer): each push carries the viewer's
view and its legal commands, as GET /api/matches/<pk>/view and /legal give.

Spectators of a match all see the same table at the same cut: their
consumers share one render per process and released version
(render.spectator_tables), and the group message carries the recorded time
and the delay, so holding a version back costs no query.

A spectator gets every version, each once its recorded time is older than
the delay: those already inside the delay window when the socket opens are
held from the log, the later ones as they are announced. A seat's or
moderator's socket re-checks its viewer before every push: one who lost the
role (a moderator removed, a player substituted out) is closed with
VIEWER_CHANGED and the page reloads as whoever they are now."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import json
import logging
import random
import re
import time
import uuid
import weakref

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import CsrfViewMiddleware, get_token
from django.utils import translation

from broadcast import viewers
from eventlog.store import read
from games import services, visibility
from games.core.protocol import SEAT, SPECTATOR_VIEW
from games.models import Match
from games.visibility import recorded
from runtime.after_answer import answer_first

from . import auth, commands, publisher
from .chat import ChatSocket
from .groups import groups_for, match_group
from .pool import off_loop as _off_loop
from .render import (
    CSRF_SLOT,
    ViewerTable,
    fragment,
    match_and_seats,
    spectator_tables,
    viewer_tables,
)

log = logging.getLogger(__name__)

# close codes (4000-4999 are the application's)
NO_SUCH_MATCH = 4404
NOT_VISIBLE_YET = 4403
VIEWER_CHANGED = 4409  # the account's role in the match changed: reload as who they are now
NOT_AUTHENTICATED = 4401  # a bad or revoked token, a token in the URL, a session logged out


# the seats' sockets of each match open in this process (their tables are made
# with a move decided here), and the moves of each match being decided here
_seat_sockets: dict[int, weakref.WeakSet] = {}
_moving: dict[int, asyncio.Future] = {}
ACK_SENT_WAIT_S = 0.005  # CPython's switch interval: past it, the GIL changes hands anyway


class _ViewerChanged(Exception):
    pass


class _TokenGone(Exception):
    pass


class MatchConsumer(ChatSocket, AsyncJsonWebsocketConsumer):
    """ws/matches/<pk>/: the client sends {"since": v} (on every connect);
    the server answers {"version", "html"} whenever its viewer's table is
    newer than what the client has, and {"version"} alone when it is not.
    A seat sends its moves as {"command" or "form", "id"} and gets
    {"type": "ack", "id", "version"} or {"type": "refused", "id", "code",
    "message"} (live.commands)."""

    async def dispatch(self, message):
        """Channels' dispatch without its ``aclose_old_connections`` before
        every message: that is a trip to the one sync thread (behind the
        HTTP views' work) for each frame and each group message, to close
        connections this consumer never leaves open there: its database
        work runs through ``off_loop`` or ``database_sync_to_async``, which
        close theirs around each call."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def connect(self):
        self.pk = self.scope["url_route"]["kwargs"]["pk"]
        self.language = commands.language_of(self.scope)
        if self.scope.get("refused"):  # told why, then closed (live.auth)
            await self.accept()
            await self._refuse_token()
            return
        self.shown = 0  # the newest version this socket has sent
        self.release: asyncio.TimerHandle | None = None
        self.warm: asyncio.TimerHandle | None = None  # the next release's render, started early
        self.warming: asyncio.Future | None = None
        self.releasing: asyncio.Future | None = None
        # a spectator's: versions not yet shown and when each is due, in version
        # order; the newest version already due (and its due time)
        self.held: list[tuple[int, float]] = []
        self.released, self.released_due = 0, 0.0
        self.failures = 0  # releases in a row that could not render
        self.opening: ViewerTable | None = None  # a seat's first table, made with the handshake
        # every viewer's group joined first: a version committed once the first
        # table below was read is announced to this socket
        await self._join_now([match_group(self.pk)])
        found = await _off_loop(self._resolve)()
        # accepted, then closed with the reason: a code sent before accepting
        # never reaches the browser (it sees 1006 and retries forever)
        await self.accept()
        if self.scope.get("refused"):  # its token, read with the match
            await self._refuse_token()
            return
        if found is None:
            await self.close(code=NO_SUCH_MATCH, reason="no such match")
            return
        self.viewer, self.joined, visible, self.policy, self.delay = found
        if not visible:
            # the page says when it opens and opens itself then
            await self.close(code=NOT_VISIBLE_YET, reason="not visible yet: too recent")
            return
        publisher.serving_on(asyncio.get_running_loop())
        await self._join_now([g for g in self.joined if g not in self.groups])
        if self.viewer.kind == SEAT:
            _seat_sockets.setdefault(self.pk, weakref.WeakSet()).add(self)
        await viewers.joined(self)  # the viewer counts (broadcast.viewers)
        if self.viewer.kind == SPECTATOR_VIEW.kind:
            # read once joined: what was appended before is held, what comes after announced
            self._hold_all(await _off_loop(self._pending)())
        self.keeping = asyncio.ensure_future(self._keep_joined())

    async def _refuse_token(self):
        await self.send_json(commands.refused(None, "bad_token", self.scope["refused"]))
        await self.close(code=NOT_AUTHENTICATED, reason="not authenticated")

    def _resolve(self):
        if self.scope.get("token_unread"):  # in this same trip (live.auth)
            auth.read_token(self.scope, *auth.token_of(self.scope["authorization"]))
            if self.scope["refused"]:
                return None
        match = Match.objects.filter(pk=self.pk).first()
        if match is None:
            return None
        user = self.scope.get("user")
        viewer = services.viewer_for(match, user)  # a moderator's opening is read, never written
        visible, policy, delay = True, "", 0.0
        if viewer.kind == SPECTATOR_VIEW.kind:
            facts = visibility.match_facts(match)
            policy, delay = facts.spectator_policy, facts.spectator_delay_s
            self.delay = delay
            try:
                self.released = services.view_for(match, viewer)["version"]
            except visibility.NotVisibleYet:
                visible = False
            else:
                row = read(match.stream, after=self.released - 1)[:1]
                self.released_due = recorded(row[0]) + delay if row else visibility.clock()
        else:
            # the table the client's first "since" asks for, in this same hop (a
            # version committed before the group is joined is caught once joined)
            self.viewer = viewer
            try:
                self.opening = self._shared_render()
            except Exception as exc:  # rendered again when asked, and told then
                # the kind of error only: a rendering error's text could name a card
                log.warning("match %s: first table not rendered (%s)", self.pk, type(exc).__name__)
        return viewer, groups_for(match.pk, viewer), visible, policy, delay

    def _pending(self) -> list[tuple[int, float]]:
        """The versions after the last one held or released, each with the
        moment it is due (its recorded time + the delay); versions recorded
        at the same moment are one (the newest of them)."""
        after = max([self.released, *(v for v, _ in self.held)])
        stream = Match.objects.filter(pk=self.pk).values_list("stream", flat=True).first()
        rows = read(stream, after=after) if stream else []
        due: dict[float, int] = {}
        for row in rows:
            due[recorded(row) + self.delay] = row.version
        return sorted((v, d) for d, v in due.items())

    async def disconnect(self, code):
        sockets = _seat_sockets.get(getattr(self, "pk", None))
        if sockets is not None:
            sockets.discard(self)
            if not sockets:
                del _seat_sockets[self.pk]
        await viewers.left(self)
        for pending in (
            getattr(self, "release", None),
            getattr(self, "warm", None),
            getattr(self, "warming", None),
            getattr(self, "releasing", None),  # a release rendering right now
            getattr(self, "keeping", None),
        ):
            if pending is not None:
                pending.cancel()

    async def _keep_joined(self):
        """A Redis restart empties the channel layer's groups while this socket stays
        open: join again now and then, and catch up on what was announced meanwhile."""
        period = settings.LIVE_REJOIN_S
        await asyncio.sleep(random.uniform(0, period))  # sockets opened together spread out
        while True:
            try:
                await self._join()
                if self.viewer.kind == SPECTATOR_VIEW.kind:
                    self._hold_all(await _off_loop(self._pending)())
                elif newer := await _off_loop(self._newer)():
                    await self.push(announced=newer)  # shared, as an announcement's
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the layer or the database away: next time
                # the kind of error only: a rendering error's text could name a card
                log.warning("socket of match %s could not rejoin (%s)", self.pk, type(exc).__name__)
            await asyncio.sleep(period)

    async def _join(self, groups: list[str] | None = None):
        """Join ``groups`` (all of this socket's by default), each left on disconnect."""
        for group in self.joined if groups is None else groups:
            if group not in self.groups:
                self.groups.append(group)
            await self.channel_layer.group_add(group, self.channel_name)

    async def _join_now(self, groups: list[str]):
        try:
            await self._join(groups)
        except Exception as exc:  # the layer away (Redis restarting): joined again later
            log.warning("socket of match %s could not join its group: %s", self.pk, exc)

    def _newer(self) -> int | None:
        """The stream's version if newer than what this socket has shown."""
        version = Match.objects.filter(pk=self.pk).values_list("version", flat=True).first()
        return version if version is not None and version > self.shown else None

    async def receive(self, text_data=None, bytes_data=None):
        content = await self.chat_or_parsed(text_data, bytes_data)  # chat: live.chat
        if content is None:
            return
        if isinstance(content, dict) and ("command" in content or "form" in content):
            await self.command(content)
            return
        since = content.get("since") if isinstance(content, dict) else None
        if isinstance(since, bool) or not isinstance(since, int) or since < 0:
            await self.send_json({"error": commands.WHAT_TO_SEND})
            return
        opening, self.opening = self.opening, None
        if opening is not None and opening.version < self.shown:
            opening = None  # a newer version was pushed after it was made
        self.shown = since
        await self.push(answer=True, rendered=opening)

    async def command(self, content: dict):
        """One move, decided off the event loop on a thread of the pool (no
        other socket waits for it), answered once its event is committed;
        an ack's table is rendered on the same thread right after it, and
        so are the other seats' sockets' of this process: their announcement
        of the move waits for those (``_moving``), so they render nothing."""
        table, sent = None, None
        loop = asyncio.get_running_loop()
        moving = loop.create_future()
        _moving[self.pk] = moving
        try:
            answer, table, others, sent = await _off_loop(self._decide)(
                content, self._peers(), loop
            )
            for peer, made in others:
                viewer_tables.put(peer._table_key(made.version), made)
        except Exception:
            log.exception("a move over the socket of match %s failed", self.pk)
            answer = commands.refused(
                None, "error", "the server failed to decide this move; try again"
            )
        finally:
            moving.set_result(None)
            if _moving.get(self.pk) is moving:
                del _moving[self.pk]
        if "html" in answer:  # the table a person's move is answered with
            self.shown = max(self.shown, answer["version"])
        if sent is None:
            await self.send_json(answer)
        else:  # sent from the thread before the tables were made
            await asyncio.wrap_future(sent)
        if answer.get("type") == "ack" and answer["version"] > self.shown:
            # the mover's table now, not once the move is announced: shared with
            # the seat's other sockets woken by the announcement of that version
            await self.push(announced=answer["version"], rendered=table)
        if answer.get("code") in ("bad_token", "not_authenticated") and self.scope["user"].pk:
            # who this socket spoke for is gone: nothing more of the match on it
            await self.close(code=NOT_AUTHENTICATED, reason="not authenticated")

    def _decide(
        self, content: dict, peers: list[MatchConsumer] = (), loop=None
    ) -> tuple[
        dict,
        ViewerTable | None,
        list[tuple[MatchConsumer, ViewerTable]],
        concurrent.futures.Future | None,
    ]:
        """The answer, and for an ack without a table of its own (the JSON
        socket's) the viewer's table after it: no second trip to the pool;
        and when the command read every seat's holder with the match (a
        token's), the table of each of ``peers`` (the other seats' sockets
        of this process) after it too, so theirs read nothing either.

        Such an ack is sent on ``loop`` as soon as the move committed (the
        future of that send is returned last, else None): the tables, the
        kept state's copy and the version's announcement come after it
        (runtime.after_answer)."""
        moved: list[commands.Moved] = []
        with answer_first():
            with translation.override(self.language):
                answer = commands.decide(
                    self.pk, self.scope, content, csrf_token=self._csrf_token, moved=moved
                )
            if answer.get("type") != "ack" or "html" in answer:
                return answer, None, [], None
            sent = None
            if loop is not None:
                sent = asyncio.run_coroutine_threadsafe(self.send_json(answer), loop)
                # the loop sends it only once it holds the GIL, which this
                # thread would keep through the tables below (0.6 ms a move):
                # give it way until the ack is out, for a bounded time
                concurrent.futures.wait([sent], timeout=ACK_SENT_WAIT_S)
            if self.viewer.kind == SPECTATOR_VIEW.kind:
                return answer, None, [], sent
            # the match row as the move's own append left it, and the seats its
            # command read with it: nothing read again; a table not made here
            # is made when pushed (the move stands, acknowledged)
            made = moved[0] if moved else ()
            table, others = None, []
            # with the holders' tokens read, the other seats' rights are checkable
            for socket in (self, *(peers if moved and made.tokens is not None else ())):
                try:
                    rendered = socket._shared_render(*made)
                except Exception as exc:
                    log.info("table of match %s not made with the move (%s)", self.pk, type(exc))
                    continue
                if socket is self:
                    table = rendered
                else:
                    others.append((socket, rendered))
            return answer, table, others, sent

    def _table_key(self, version: int) -> tuple:
        """The key of this socket's viewer's table at ``version`` in viewer_tables."""
        return (self.pk, type(self).__name__, self.viewer, version, self.language)

    def _peers(self) -> list[MatchConsumer]:
        """One socket of every other kind of seat's table of this match open
        in this process (another seat, or the JSON and HTML sockets' own)."""
        mine, found = self._table_key(0), {}
        for peer in list(_seat_sockets.get(self.pk, ())):
            key = peer._table_key(0)
            if key != mine:
                found.setdefault(key, peer)
        return list(found.values())

    async def table_update(self, event):
        if not hasattr(self, "viewer"):  # refused at its handshake, closing
            return
        if self.viewer.kind != SPECTATOR_VIEW.kind:
            moving = _moving.get(self.pk)
            if moving is not None:  # a move of this match decided here: its tables come with it
                await asyncio.shield(moving)
            announced = int(event.get("version", 0))
            if announced > self.shown:  # else shown already (a move's answer)
                await self.push(announced=announced)
            return
        # a spectator gets version v once its recorded time is older than the delay
        if "delay" in event:
            self.policy = event.get("policy", self.policy)
            if float(event["delay"]) != self.delay:
                # the show changed its delay: what is held is due at other times
                self.delay, self.held = float(event["delay"]), []
                self._hold_all(await _off_loop(self._pending)())
                return
        self._hold_all([(int(event["version"]), float(event.get("at", 0)) + self.delay)])

    def _hold_all(self, versions: list[tuple[int, float]]):
        for version, due in versions:
            if version > self.released and all(v < version for v, _ in self.held):
                self.held.append((version, due))
        self._schedule()

    def _schedule(self):
        if self.release is None and self.releasing is None and self.held:
            version, due = self.held[0]
            wait = max(0.0, due - visibility.clock()) + _MARGIN_S
            loop = asyncio.get_running_loop()
            self.release = loop.call_later(wait, self._release)
            if wait > _MARGIN_S:
                if self.warm is not None:
                    self.warm.cancel()
                self.warm = loop.call_later(max(0.0, wait - _WARM_S), self._warm, version, due)

    def _warm(self, version: int, due: float):
        """Render the table of the next release before it is due (its cut is
        fixed: the due time), so that the release only sends it; shared with
        the other spectators of this process, as the release's render is."""
        self.warm = None
        self.warming = asyncio.ensure_future(self._warmed(version, due))

    async def _warmed(self, version: int, due: float):
        try:
            await self._spectators_table(version, due)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the release renders it again
            log.info(
                "spectator table of match %s not rendered early (%s)", self.pk, type(exc).__name__
            )
        finally:
            self.warming = None

    def _release(self):
        self.release = None
        self.releasing = asyncio.ensure_future(self._released())  # kept: not collected mid-run

    async def _released(self):
        """Push every held version now due, one table each, in version order."""
        try:
            while self.held and self.held[0][1] + _CUT_AFTER_S <= visibility.clock():
                target, due = self.held[0]
                try:
                    version = await self.push(releasing=(target, due))
                except Exception as exc:  # the database away (a restart): try again shortly
                    # the kind of error only: a rendering error's text could name a card
                    log.warning(
                        "spectator socket of match %s could not render v%s (%s); retrying",
                        self.pk,
                        target,
                        type(exc).__name__,
                    )
                    version = None
                if version is None or version < target:
                    # not shown yet: held, so a retry (or a rejoin's catch-up) shows it
                    self.failures += 1
                    wait = min(_RETRY_S * 2 ** (self.failures - 1), settings.LIVE_REJOIN_S)
                    self.releasing = None
                    self.release = asyncio.get_running_loop().call_later(wait, self._release)
                    return
                self.failures = 0
                self.released, self.released_due = version, due
                self.held = [(v, d) for v, d in self.held if v > version]
        except asyncio.CancelledError:
            raise
        self.releasing = None
        self._schedule()  # the next version held, if any

    async def push(
        self,
        *,
        answer: bool = False,
        releasing: tuple[int, float] | None = None,
        announced: int | None = None,
        rendered: ViewerTable | None = None,
    ) -> int | None:
        """Send this viewer's table if newer than what the client shows; the
        version rendered (None when nothing is visible yet). A spectator's is
        the table as of ``releasing`` (a version and when it is due; by
        default the version last released). A seat's or moderator's is
        rendered once for every socket of its kind in this process that was
        told of version ``announced`` (None: for this socket alone); one
        ``rendered`` by a move's answer is shared as it is."""
        try:
            if self.viewer.kind == SPECTATOR_VIEW.kind:
                version, due = releasing or (self.released, self.released_due)
                version, html = await self._spectators_table(version, due)
            else:
                table = await self._viewer_table(announced, rendered)
                version, html = table.version, table
        except visibility.NotVisibleYet:
            return None
        except _ViewerChanged:
            await self.close(code=VIEWER_CHANGED, reason="your role in this match changed")
            return None
        except _TokenGone:
            await self.close(code=NOT_AUTHENTICATED, reason="not authenticated")
            return None
        if version <= self.shown:
            if answer:
                await self.send_json({"version": version})
            return version
        self.shown = version
        if isinstance(html, SharedTable):
            # the table's JSON is made once for every spectator: only the clock is
            # theirs (the clocks run from the cut)
            clock_at = round(visibility.clock() - self.delay, 3)
            text = f'{{"version": {version}, "html": {html.json}, "clock": {clock_at}}}'
            await self.send(text_data=text)
        elif isinstance(html, dict):  # the JSON socket's spectators (ApiMatchConsumer)
            await self.send_json({"type": "update", "version": version, **html})
        else:  # the same text for every socket of this viewer
            await self.send(text_data=self._own(html.text))
        return version

    async def _spectators_table(self, released: int, due: float) -> tuple[int, SharedTable]:
        """The table every spectator of this match sees once ``released`` is
        out: rendered as of its due time (so never newer than the delay
        allows, and at least ``released``), once for all of them."""
        language = translation.get_language()
        key = (self.pk, self.policy, released, language)
        version, html = await spectator_tables.get(
            key, lambda: _spectator_fragment(self.pk, language, due + _CUT_AFTER_S)
        )
        if version < released:  # cut a hair before it was recorded: not kept for the retry
            spectator_tables.discard(key)
        return version, html

    async def _viewer_table(
        self, announced: int | None, rendered: ViewerTable | None = None
    ) -> ViewerTable:
        """This viewer's table, rendered on a thread of the pool (never behind
        another socket's) once for every socket of the same kind, viewer and
        language told of version ``announced`` (or the one a move's answer
        ``rendered``); then this socket's rights are checked against the
        same read of the match."""
        render = _off_loop(self._shared_render)
        if rendered is not None:
            render = functools.partial(_ready, rendered)
        if announced is None:
            table = await render()
        else:
            table = await viewer_tables.get(self._table_key(announced), render)
        # a move's answer read the token a moment ago (live.commands)
        await self._check_rights(table, token=rendered is None)
        return table

    async def _check_rights(self, table: ViewerTable, token: bool = True) -> None:
        """Re-checked at every push: a moderator removed or a player substituted
        out gets nothing more of this match live, and leaves its group at once;
        a revoked token (or its account disabled) likewise."""
        user = self.scope.get("user")
        if self.viewer.kind == SEAT:  # in memory: who holds the seat was read with the table
            uid = user.pk if user is not None and user.is_authenticated else None
            same = table.seat_of.get(uid) == self.viewer.seat
        else:  # a moderator's opening is read from the show's fold
            viewer_of = _off_loop(visibility.viewer_of)
            same = await viewer_of(table.match, user, table.facts) == self.viewer
        gone = None
        if same and token and self.scope.get("authorization"):
            # a seat's table read its holders' tokens in force: asked again only
            # when it did not, or longer ago than a moment
            found = self.scope.get("api_token")
            in_force = (
                table.token_in_force(uid, found[0]) if found and self.viewer.kind == SEAT else None
            )
            if in_force is None:
                gone = (await _off_loop(auth.token_user)(self.scope["authorization"]))[1]
            elif not in_force:
                gone = "this token is no longer in force"
        if not same or gone:
            try:
                for group in self.joined:
                    await self.channel_layer.group_discard(group, self.channel_name)
            except Exception as exc:  # the socket closes anyway
                log.warning("socket of match %s could not leave its group: %s", self.pk, exc)
            raise _ViewerChanged if not same else _TokenGone

    def _shared_render(
        self,
        match=None,
        seat_of: dict | None = None,
        tokens: dict | None = None,
        read_at: float = 0.0,
    ) -> ViewerTable:
        """The message of this socket's viewer at the match's version, with a
        slot for the CSRF token: the same for every socket of the viewer.
        ``match``, ``seat_of`` (account id -> seat) and perhaps the holders'
        ``tokens`` in force read at ``read_at`` when the caller has them as
        they stand (a move's answer), else read now."""
        if match is None:
            read_at = time.monotonic()
            match, seat_of, tokens = match_and_seats(self.pk)  # one statement
        with translation.override(self.language):
            version, payload = self._table(match, CSRF_SLOT)
        return ViewerTable(
            version,
            self._message(version, payload),
            match,
            visibility.match_facts(match),
            seat_of,
            tokens,
            read_at,
        )

    def _table(self, match, csrf_token: str) -> tuple[int, str | dict]:
        return fragment(match, self.viewer, csrf_token=csrf_token)

    def _message(self, version: int, payload) -> str:
        return json.dumps({"version": version, "html": payload})

    def _own(self, text: str) -> str:
        """A shared table made this browser's: its CSRF token in the slot,
        and a fresh command id per form (two tabs of one seat never share
        one): string work, not a render."""
        text = text.replace(_CSRF_INPUT_JSON, self._csrf_input)
        return _COMMAND_ID.sub(lambda m: m[1] + uuid.uuid4().hex, text)

    @functools.cached_property
    def _csrf_input(self) -> str:
        """What the CSRF slot of a shared table becomes on this socket: the
        hidden input with this browser's masked token, or nothing without one
        (as it stands in a message's JSON text)."""
        token = self._csrf_token()
        return _CSRF_INPUT_JSON.replace(CSRF_SLOT, token) if token else ""

    def _csrf_token(self) -> str:
        """A masked token for this browser's CSRF cookie (as a page would
        write; never the raw secret), or "" without a valid cookie."""
        request = HttpRequest()
        request.COOKIES = self.scope.get("cookies") or {}
        CsrfViewMiddleware(lambda r: None).process_request(request)
        if "CSRF_COOKIE" not in request.META:
            return ""
        return get_token(request)


class ApiMatchConsumer(MatchConsumer):
    """ws/api/matches/<pk>/: the match socket in JSON, for bots and scripts.
    Each push is {"type": "update", "version", "view", "legal"}: the view
    and the legal commands the API's GET /view and /legal give the same
    viewer (a spectator's view as of the delay, and no legal commands)."""

    def _table(self, match, csrf_token: str) -> tuple[int, dict]:
        return commands.json_table(match, self.viewer)

    def _message(self, version: int, payload) -> str:
        # made once for every socket of the viewer: compact, as the API's JSON
        return json.dumps({"type": "update", "version": version, **payload}, separators=(",", ":"))

    def _own(self, text: str) -> str:
        return text  # the very same bytes for every socket of the viewer

    async def _spectators_table(self, released: int, due: float) -> tuple[int, dict]:
        """Shared by the JSON spectators of this process, as the HTML ones'."""
        key = ("api", self.pk, self.policy, released, translation.get_language())
        version, table = await spectator_tables.get(
            key,
            lambda: database_sync_to_async(commands.json_spectator_table)(
                self.pk, due + _CUT_AFTER_S
            ),
        )
        if version < released:
            spectator_tables.discard(key)
        return version, table


async def _ready(table: ViewerTable) -> ViewerTable:
    return table


class SharedTable(str):
    """A spectators' table HTML, with its JSON string made once for all."""

    @functools.cached_property
    def json(self) -> str:
        return json.dumps(str(self))


@database_sync_to_async
def _spectator_fragment(pk: int, language: str | None, now: float) -> tuple[int, SharedTable]:
    # shared by many sockets: no one's CSRF token (spectators have no forms)
    with translation.override(language):
        version, html = fragment(Match.objects.get(pk=pk), SPECTATOR_VIEW, now=now)
    return version, SharedTable(html)


# a table's CSRF input as rendered with the slot (django's {% csrf_token %})
# (the JSON text of a message holds it with its quotes escaped)
_CSRF_INPUT = f'<input type="hidden" name="csrfmiddlewaretoken" value="{CSRF_SLOT}">'
_CSRF_INPUT_JSON = json.dumps(_CSRF_INPUT)[1:-1]
# a form's command id ({% command_id_field %}), in a table's JSON text
_COMMAND_ID = re.compile(r'(name=\\"command_id\\" value=\\")[0-9a-f]{32}')
# the cut is taken a little after the release time, so the version is surely behind it
_MARGIN_S = 0.02
# the next release's table is rendered this long before it is due
_WARM_S = 0.5
# a version's table is cut this long after its recorded time (rounding of the timestamps)
_CUT_AFTER_S = 0.001
# the first retry of a release that could not render; each next one waits twice as long
_RETRY_S = 0.5
