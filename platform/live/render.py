"""One viewer's table fragment: the page's own template and table code; and
the renders shared by every socket of one kind of viewer in this process:
the spectators' (once per release) and each seat's and the moderators' (once
per version), so a version costs one render per kind of viewer, not per
socket."""

from __future__ import annotations

import asyncio
import functools
import json
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from dataclasses import dataclass

from django.contrib.auth import get_user_model
from django.template.loader import render_to_string

from api.models import ApiToken
from eventlog import rows as db_rows
from games.models import Match, SeatHolder
from games.presenters.table import table_for


def fragment(
    match,
    viewer,
    *,
    csrf_token: str = "",
    now: float | None = None,
    errors: dict[str, str] | None = None,
) -> tuple[int, str]:
    """The version a viewer may see now (or at ``now``) and the #table HTML
    of it, through the visibility policy (NotVisibleYet when nothing is old
    enough yet); ``errors``: a refused move's words by control, as the
    table's POST answers them."""
    table = table_for(match, viewer, now=now)
    table.errors.update(errors or {})
    context = {"table": table, "match": match, "csrf_token": csrf_token}
    return table.version, render_to_string("games/tables/_table.html", context)


class SharedRenders:
    """Renders shared by every consumer of this process's loop asking for the
    same key: the first starts it, the others await the same task. A finished
    render is served for ``keep_s`` more (the consumers woken by one release
    arrive within it), and at most ``size`` keys are kept."""

    def __init__(self, size: int = 128, keep_s: float = 2.0):
        self.size, self.keep_s = size, keep_s
        self._tasks: OrderedDict[Hashable, asyncio.Future] = OrderedDict()
        self._done_at: dict[Hashable, float] = {}
        self.started = 0  # renders started, for the tests and the curious

    async def get(self, key: Hashable, render: Callable[[], Awaitable]):
        loop = asyncio.get_running_loop()
        task = self._tasks.get(key)
        if task is not None and (task.get_loop() is not loop or self._expired(key, loop)):
            self._forget(key, task)
            task = None
        if task is None:
            task = loop.create_task(render())
            self.started += 1
            self._tasks[key] = task
            task.add_done_callback(functools.partial(self._finished, key))
            self._trim()
        else:
            self._tasks.move_to_end(key)
        # one waiter going away (a socket closing) does not cancel the others' render
        return await asyncio.shield(task)

    def put(self, key: Hashable, value) -> bool:
        """Serve ``value`` for ``key`` as if rendered now (a render made
        beside another, from what it read), unless a render of ``key`` is
        kept or under way: that one is left as it is. True if put."""
        loop = asyncio.get_running_loop()
        task = self._tasks.get(key)
        if task is not None and task.get_loop() is loop and not self._expired(key, loop):
            return False
        ready = loop.create_future()
        ready.set_result(value)
        self._tasks[key] = ready
        self._tasks.move_to_end(key)
        self._done_at[key] = loop.time()
        self._trim()
        return True

    def _trim(self) -> None:
        """The oldest dropped past ``size`` (waiters of an evicted render still get it)."""
        while len(self._tasks) > self.size:
            oldest = next(iter(self._tasks))
            self._forget(oldest, self._tasks[oldest])

    def _expired(self, key, loop) -> bool:
        done = self._done_at.get(key)
        return done is not None and loop.time() - done > self.keep_s

    def _finished(self, key, task: asyncio.Task) -> None:
        if task.cancelled() or task.exception() is not None:
            self._forget(key, task)  # a failure is not kept: the next one tries again
        elif self._tasks.get(key) is task:
            self._done_at[key] = task.get_loop().time()

    def _forget(self, key, task: asyncio.Task) -> None:
        if self._tasks.get(key) is task:
            del self._tasks[key]
            self._done_at.pop(key, None)

    def discard(self, key: Hashable) -> None:
        """Render ``key`` afresh next time (a result found stale)."""
        task = self._tasks.get(key)
        if task is not None:
            self._forget(key, task)

    def clear(self) -> None:
        self._tasks.clear()
        self._done_at.clear()


# the spectators' tables of this process: keyed by match, policy, released version, language
spectator_tables = SharedRenders()

# the seats' and moderators' tables of this process: keyed by match, socket kind
# (HTML or JSON), viewer, the version announced and language (live.consumers)
viewer_tables = SharedRenders(size=512, keep_s=10.0)

# a table shared by the sockets of one seat is rendered with this in place of
# the CSRF token; each socket puts its own browser's masked token there (a
# string replace, not a render). Letters and digits only: HTML and JSON
# escaping leave it as it is.
CSRF_SLOT = "csrfslot" + secrets.token_hex(24)


@dataclass(frozen=True)
class ViewerTable:
    """One viewer kind's message at one version, made once for every socket
    of that kind: its JSON text, and what each socket checks its rights
    against in memory (the match row, its facts, who holds which seat)."""

    version: int
    text: str
    match: object
    facts: object
    seat_of: dict  # account id -> the first seat it holds, by name (visibility.seat_of)
    # account id -> its tokens in force (none: the account is disabled), read
    # with the table at ``read_at`` (time.monotonic); None: not read with it
    tokens: dict | None = None
    read_at: float = 0.0

    def token_in_force(self, uid, token_id) -> bool | None:
        """Whether token ``token_id`` of account ``uid`` was in force when
        the table was read, if that was within ``TOKENS_FRESH_S``; None:
        not known (ask the token's own check)."""
        if self.tokens is None or time.monotonic() - self.read_at > TOKENS_FRESH_S:
            return None
        return token_id in self.tokens.get(uid, ())


# a table's read of the seats' tokens answers for a socket's token this long
# (the sockets told of one version ask within moments of its render)
TOKENS_FRESH_S = 1.0


def holders_sql() -> str:
    """A column: who holds which seat of match ``m`` and each
    holder's API tokens in force (none while the account is disabled), as
    ``holders_of`` reads it."""
    holders, tokens = SeatHolder._meta.db_table, ApiToken._meta.db_table
    users = get_user_model()._meta.db_table
    in_force = (
        f'(SELECT COALESCE(json_agg(t."id"), \'[]\'::json) FROM "{tokens}" t '
        f'WHERE t."user_id" = h."user_id" AND t."revoked" IS NULL AND u."is_active")'
    )
    return (
        f'(SELECT json_agg(json_build_array(h."user_id", h."seat", {in_force}) ORDER BY h."seat") '
        f'FROM "{holders}" h JOIN "{users}" u ON u."id" = h."user_id" '
        'WHERE h."match_id" = m."id")'
    )


def holders_of(held_json) -> tuple[dict[int, str], dict[int, frozenset]]:
    """``holders_sql``'s column read: (account id -> the first seat it holds,
    by name; account id -> its tokens in force)."""
    if isinstance(held_json, str | bytes):
        held_json = json.loads(held_json)
    held: dict[int, str] = {}
    tokens: dict[int, frozenset] = {}
    for user_id, seat, in_force in held_json or ():
        held.setdefault(user_id, seat)
        tokens[user_id] = frozenset(in_force or ())
    return held, tokens


def _match_and_seats_sql() -> str:
    return (
        f"SELECT {db_rows.columns(Match, 'm.')}, {holders_sql()} "
        f'FROM "{Match._meta.db_table}" m WHERE m."id" = %s'
    )


_MATCH_AND_SEATS = _match_and_seats_sql()


def match_and_seats(pk: int) -> tuple[Match, dict[int, str], dict[int, frozenset]]:
    """Match ``pk``, who holds which seat (account id -> the first seat it
    holds, by name) and each holder's API tokens in force (none while the
    account is disabled), in one statement: what a seat's shared render
    reads, and its sockets' rights are checked against (Match.DoesNotExist
    if gone)."""
    row = db_rows.first_row(_MATCH_AND_SEATS, [pk])
    if row is None:
        raise Match.DoesNotExist(f"no match {pk}")
    held, tokens = holders_of(row[-1])
    return db_rows.instance(Match, row), held, tokens
