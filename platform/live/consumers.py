"""One socket per viewer of a match: it joins its viewer's group only and
forwards its own viewer's rendered table. Moves stay HTTP."""

from __future__ import annotations

import asyncio
import logging
import random

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from django.conf import settings

from eventlog.store import read
from games import services, visibility
from games.core.protocol import SPECTATOR_VIEW
from games.models import Match
from games.visibility import recorded

from . import publisher
from .groups import group_for
from .render import fragment

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
        self.due = 0.0  # a spectator's: when the newest announced version may be shown
        found = await database_sync_to_async(self._resolve)()
        if found is None:
            await self.close(code=NO_SUCH_MATCH, reason="no such match")
            return
        self.viewer, self.group, visible, self.due = found
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
        if self.due:
            self._schedule()
        self.keeping = asyncio.ensure_future(self._keep_joined())

    def _resolve(self):
        match = Match.objects.filter(pk=self.pk).first()
        if match is None:
            return None
        user = self.scope.get("user")
        # an omniscient opening is recorded once, here; every push after it is not
        viewer = services.viewer_for(match, user, record=True)
        visible, due = True, 0.0
        if viewer.kind == SPECTATOR_VIEW.kind:
            try:
                services.view_for(match, viewer)
            except visibility.NotVisibleYet:
                visible = False
            # what was appended before this socket joined is released on time too
            newest = read(match.stream, after=match.version - 1)[-1:]
            if newest:
                due = recorded(newest[0]) + visibility.match_facts(match).spectator_delay_s
        return viewer, group_for(match.pk, viewer), visible, due

    async def disconnect(self, code):
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
                log.warning("socket of match %s could not rejoin: %s", self.pk, exc)
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
        delay = await database_sync_to_async(self._delay)()
        self.due = max(self.due, float(event.get("at", 0)) + delay)
        self._schedule()

    def _schedule(self):
        if self.release is None:
            wait = max(0.0, self.due - visibility.clock()) + _MARGIN_S
            self.release = asyncio.get_running_loop().call_later(wait, self._release)

    def _release(self):
        self.release = None
        self.releasing = asyncio.ensure_future(self._released())  # kept: not collected mid-run

    async def _released(self):
        await self.push()
        if self.due > visibility.clock():  # a newer version was announced meanwhile
            self._schedule()

    def _delay(self) -> float:
        match = Match.objects.get(pk=self.pk)
        return visibility.match_facts(match).spectator_delay_s

    async def push(self, *, answer: bool = False):
        try:
            version, html = await database_sync_to_async(self._render)()
        except visibility.NotVisibleYet:
            return
        if version > self.shown:
            self.shown = version
            await self.send_json({"version": version, "html": html})
        elif answer:
            await self.send_json({"version": version})

    def _render(self):
        match = Match.objects.get(pk=self.pk)
        cookies = self.scope.get("cookies") or {}
        return fragment(match, self.viewer, csrf_token=cookies.get(settings.CSRF_COOKIE_NAME, ""))


# the cut is taken a little after the release time, so the version is surely behind it
_MARGIN_S = 0.05
