"""One socket per viewer of a match: it joins its viewer's group only and
forwards its own viewer's rendered table. Moves stay HTTP.

Spectators of a match all see the same table at the same cut: their
consumers share one render per process and released version
(render.spectator_tables), and the group message carries the recorded time
and the delay, so holding a version back costs no query."""

from __future__ import annotations

import asyncio
import logging
import random

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings
from django.utils import translation

from broadcast import viewers
from eventlog.store import read
from games import services, visibility
from games.core.protocol import SPECTATOR_VIEW
from games.models import Match
from games.visibility import recorded

from . import publisher
from .groups import group_for
from .render import fragment, spectator_tables

log = logging.getLogger(__name__)

# close codes (4000-4999 are the application's)
NO_SUCH_MATCH = 4404
NOT_VISIBLE_YET = 4403


class MatchConsumer(AsyncJsonWebsocketConsumer):
    """ws/matches/<pk>/: the client sends {"since": v} (on every connect);
    the server answers {"version", "html"} whenever its viewer's table is
    newer than what the client has, and {"version"} alone when it is not."""

    async def connect(self):
        self.pk = self.scope["url_route"]["kwargs"]["pk"]
        self.shown = 0  # the newest version this socket has sent
        self.release: asyncio.TimerHandle | None = None
        # a spectator's: versions announced and when each may be shown, in
        # version order; the newest version already shown to spectators
        self.held: list[tuple[int, float]] = []
        self.released = 0
        self.failures = 0  # releases in a row that could not render
        found = await database_sync_to_async(self._resolve)()
        if found is None:
            await self.close(code=NO_SUCH_MATCH, reason="no such match")
            return
        self.viewer, self.group, visible, newest, self.policy, self.delay = found
        if not visible:
            # the page answers 404 with the wait; the client polls until then
            await self.close(code=NOT_VISIBLE_YET, reason="not visible yet: too recent")
            return
        publisher.serving_on(asyncio.get_running_loop())
        try:
            await self.channel_layer.group_add(self.group, self.channel_name)
        except Exception as exc:  # the layer away (Redis restarting): joined again later
            log.warning("socket of match %s could not join its group: %s", self.pk, exc)
        self.groups.append(self.group)  # discarded on disconnect
        await self.accept()
        await viewers.joined(self)  # the viewer counts (broadcast.viewers)
        if newest is not None:
            self._hold(*newest)
        self.keeping = asyncio.ensure_future(self._keep_joined())

    def _resolve(self):
        match = Match.objects.filter(pk=self.pk).first()
        if match is None:
            return None
        user = self.scope.get("user")
        # an omniscient opening is recorded once, here; every push after it is not
        viewer = services.viewer_for(match, user, record=True)
        visible, newest, policy, delay = True, None, "", 0.0
        if viewer.kind == SPECTATOR_VIEW.kind:
            facts = visibility.match_facts(match)
            policy, delay = facts.spectator_policy, facts.spectator_delay_s
            try:
                self.released = services.view_for(match, viewer)["version"]
            except visibility.NotVisibleYet:
                visible = False
            # what was appended before this socket joined is released on time too
            last = read(match.stream, after=match.version - 1)[-1:]
            if last and last[0].version > self.released:
                newest = (last[0].version, recorded(last[0]) + delay)
        return viewer, group_for(match.pk, viewer), visible, newest, policy, delay

    async def disconnect(self, code):
        await viewers.left(self)
        if self.release is not None:
            self.release.cancel()
        keeping = getattr(self, "keeping", None)
        if keeping is not None:
            keeping.cancel()

    async def _keep_joined(self):
        """A Redis restart empties the channel layer's groups while this socket stays
        open: join again now and then, and catch up on what was announced meanwhile."""
        period = settings.LIVE_REJOIN_S
        await asyncio.sleep(random.uniform(0, period))  # sockets opened together spread out
        while True:
            try:
                await self.channel_layer.group_add(self.group, self.channel_name)
                newest = await database_sync_to_async(self._newer)()
                if newest is not None:
                    await self.table_update({"version": newest[0], "at": newest[1]})
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the layer or the database away: next time
                # the kind of error only: a rendering error's text could name a card
                log.warning("socket of match %s could not rejoin (%s)", self.pk, type(exc).__name__)
            await asyncio.sleep(period)

    def _newer(self) -> tuple[int, float] | None:
        """The stream's newest version and when it was written, if newer than shown."""
        found = Match.objects.filter(pk=self.pk).values_list("stream", "version").first()
        if found is None or found[1] <= self.shown:
            return None
        row = read(found[0], after=found[1] - 1)[-1:]
        return (row[0].version, recorded(row[0])) if row else None

    @classmethod
    async def decode_json(cls, text_data):
        try:
            return await super().decode_json(text_data)
        except ValueError:
            return None  # answered below like any other malformed message

    async def receive_json(self, content, **kwargs):
        since = content.get("since") if isinstance(content, dict) else None
        if isinstance(since, bool) or not isinstance(since, int) or since < 0:
            await self.send_json({"error": 'send {"since": <the version you show>}'})
            return
        self.shown = since
        await self.push(answer=True)

    async def table_update(self, event):
        if self.viewer.kind != SPECTATOR_VIEW.kind:
            await self.push()
            return
        # a spectator gets version v once its recorded time is older than the delay
        if "delay" in event:  # else (a rejoin's catch-up) the delay known so far
            self.delay = float(event["delay"])
            self.policy = event.get("policy", self.policy)
        self._hold(int(event["version"]), float(event.get("at", 0)) + self.delay)

    def _hold(self, version: int, due: float):
        if version <= self.released or any(v >= version for v, _ in self.held):
            return
        self.held.append((version, due))
        self._schedule()

    def _schedule(self):
        if self.release is None and self.held:
            due = min(d for _, d in self.held)
            wait = max(0.0, due - visibility.clock()) + _MARGIN_S
            self.release = asyncio.get_running_loop().call_later(wait, self._release)

    def _release(self):
        self.release = None
        self.releasing = asyncio.ensure_future(self._released())  # kept: not collected mid-run

    async def _released(self):
        now = visibility.clock()
        due = [v for v, d in self.held if d <= now]
        if due:
            target = max(due)
            try:
                version = await self.push(releasing=target)
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
                self.release = asyncio.get_running_loop().call_later(wait, self._release)
                return
            self.failures = 0
            self.released = max(self.released, target)
            self.held = [(v, d) for v, d in self.held if v > self.released]
        self._schedule()  # the next version held, if any

    async def push(self, *, answer: bool = False, releasing: int | None = None) -> int | None:
        """Send this viewer's table if newer than what the client shows; the
        version rendered (None when nothing is visible yet). A spectator's is
        the table as of ``releasing`` (by default the version last released)."""
        try:
            if self.viewer.kind == SPECTATOR_VIEW.kind:
                version, html = await self._spectators_table(
                    self.released if releasing is None else releasing
                )
            else:
                version, html = await database_sync_to_async(self._render)()
        except visibility.NotVisibleYet:
            return None
        if version > self.shown:
            self.shown = version
            await self.send_json({"version": version, "html": html})
        elif answer:
            await self.send_json({"version": version})
        return version

    async def _spectators_table(self, released: int) -> tuple[int, str]:
        """The table every spectator of this match sees once ``released`` is
        out: rendered as of now - delay (so never newer than the delay
        allows, and at least ``released``), once for all of them."""
        language = translation.get_language()
        key = (self.pk, self.policy, released, language)
        version, html = await spectator_tables.get(
            key, lambda: _spectator_fragment(self.pk, language)
        )
        if version < released:  # cut a hair before it was recorded: not kept for the retry
            spectator_tables.discard(key)
        return version, html

    def _render(self):
        match = Match.objects.get(pk=self.pk)
        cookies = self.scope.get("cookies") or {}
        return fragment(match, self.viewer, csrf_token=cookies.get(settings.CSRF_COOKIE_NAME, ""))


@database_sync_to_async
def _spectator_fragment(pk: int, language: str | None) -> tuple[int, str]:
    # shared by many sockets: no one's CSRF token (spectators have no forms)
    with translation.override(language):
        return fragment(Match.objects.get(pk=pk), SPECTATOR_VIEW)


# the cut is taken a little after the release time, so the version is surely behind it
_MARGIN_S = 0.05
# the first retry of a release that could not render; each next one waits twice as long
_RETRY_S = 0.5
