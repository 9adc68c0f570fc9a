"""A seat's moves over its match socket: each message read within bounds,
decided by the code the HTTP requests use (games.api.send_move for the API's
commands, games.table_moves for a table's controls), with the API's rate
limits, and answered with the API's codes and words (api.exceptions.handle):

- ``{"command": {...}, "id": "<command id>"}`` (optionally ``"match": <pk>``,
  which must be the socket's) -> ``{"type": "ack", "id", "version"}`` once the
  move's event is committed, or ``{"type": "refused", "id", "code", "message"}``;
- ``{"form": {"control": ..., <its fields>, "table_version": v}, "id": ...}``
  (a person's table, live.js) -> the same, with the table's HTML as the POST
  would answer it (``"html"``: the refusal beside its control).

The id is the command id: a retry with the same id writes nothing and gets
the first answer; another account's id is refused (command_id_reused)."""

from __future__ import annotations

import json
import time
from datetime import datetime
from typing import Any, NamedTuple

from django.contrib.auth import get_user_model
from django.http import HttpRequest
from django.utils import translation
from rest_framework import exceptions

from api.authentication import BadToken, partial_user, refusal, touched
from api.exceptions import handle
from api.models import ApiToken
from api.parsers import BoundedJSONError, parse_bounded_json
from api.throttling import CommandThrottles, wait_before_next
from eventlog import rows as db_rows
from games import services
from games.api import send_move
from games.core.protocol import SEAT, SPECTATOR_VIEW
from games.limits import MAX_PK
from games.models import Match, SeatHolder
from games.table_moves import move_from_table

from . import auth
from .render import fragment, holders_of, holders_sql

# a move is a few dozen bytes: anything this large is not one
MAX_MESSAGE_BYTES = 64 * 1024
WHAT_TO_SEND = (
    'send {"since": <the version you show>}, or a move: {"command": {...}, "id": "<command id>"}'
)
# a table's form: a control, its few fields, the table's version and a command id
FORM_MAX_FIELDS = 16
FORM_MAX_VALUE = 200


class Unreadable(ValueError):
    """A message that is not a bounded JSON text; ``answer`` says why."""

    def __init__(self, answer: dict):
        self.answer = answer
        super().__init__(answer["message"])


def refused(ident, code: str, message: str, **extra) -> dict:
    return {"type": "refused", "id": ident, "code": code, "message": message, **extra}


def parse(text: str | None, data: bytes | None) -> Any:
    raw = text if text is not None else data
    if raw is None:
        raise Unreadable(refused(None, "parse_error", "an empty message", error=WHAT_TO_SEND))
    try:
        return parse_bounded_json(raw, max_bytes=MAX_MESSAGE_BYTES)
    except BoundedJSONError as exc:
        raise Unreadable(refused(None, exc.code, str(exc), error=WHAT_TO_SEND)) from None


def language_of(scope) -> str:
    """The reader's language, as LocaleMiddleware would choose it for a page
    (the language cookie, else Accept-Language)."""
    request = HttpRequest()
    request.COOKIES = scope.get("cookies") or {}
    accept = auth.header(scope, b"accept-language")
    if accept is not None:
        request.META["HTTP_ACCEPT_LANGUAGE"] = accept.decode("latin-1")
    return translation.get_language_from_request(request)


def _request(scope, user) -> HttpRequest:
    """What the rate limits read of a request: the account and the address."""
    request = HttpRequest()
    client = scope.get("client") or ("", 0)
    request.META["REMOTE_ADDR"] = client[0] or ""
    forwarded = auth.header(scope, b"x-forwarded-for")
    if forwarded is not None:
        request.META["HTTP_X_FORWARDED_FOR"] = forwarded.decode("latin-1")
    request.user = user
    return request


def _account(scope):
    """The socket's account now (a token revoked, a session logged out: refused)."""
    user, why = auth.account_now(scope)
    if why is not None:
        raise exceptions.AuthenticationFailed(why, code="bad_token")
    if not user.is_authenticated and scope.get("user") is not None and scope["user"].pk:
        raise exceptions.NotAuthenticated("you were logged out: log in again to send moves")
    return user


def _command_read_sql() -> str:
    tokens, users = ApiToken._meta.db_table, get_user_model()._meta.db_table
    holders = SeatHolder._meta.db_table
    return (
        f"SELECT {db_rows.columns(Match, 'm.')}, "
        f'(SELECT h."seat" FROM "{holders}" h WHERE h."match_id" = m."id" '
        f'AND h."user_id" = (SELECT "user_id" FROM "{tokens}" WHERE "id" = %s) '
        'ORDER BY h."seat" LIMIT 1), '
        f'(SELECT json_build_array(t."revoked" IS NULL, t."last_used", u."id", u."username", '
        f'u."is_active", u."is_staff", u."is_superuser") FROM "{tokens}" t '
        f'JOIN "{users}" u ON u."id" = t."user_id" WHERE t."id" = %s), '
        f"{holders_sql()} "  # the other seats' rights, for their tables made with this move's
        f'FROM "{Match._meta.db_table}" m WHERE m."id" = %s'
    )


_COMMAND_READ = _command_read_sql()


def _read_with_token(pk: int, scope):
    """A token socket's command: match ``pk`` with the seat the token's account
    holds in it, and the token and its account as they stand, in one
    statement (what ``_account`` and ``send_move``'s match lookup read
    otherwise: a cache round trip, then a query). (user, match), or None when
    the match is not there (the whole path says why); a token revoked or
    deleted, or its account disabled: BadToken, in the API's words."""
    token_id, key_hash, last_used = scope["api_token"]
    if pk > MAX_PK:
        return None
    row = db_rows.first_row(_COMMAND_READ, [token_id, token_id, pk])
    if row is None:
        return None
    found = row[-2]
    if isinstance(found, str | bytes):
        found = json.loads(found)
    valid, used, uid, username, active, staff, superuser = found or (False,) + (None,) * 6
    why = refusal(found is not None, not valid, bool(active))
    if why is not None:
        raise BadToken(why)
    used = datetime.fromisoformat(used) if isinstance(used, str) else used
    touched(token_id, key_hash, used or last_used)
    user = partial_user(
        {
            "id": uid,
            "username": username,
            "is_active": active,
            "is_staff": staff,
            "is_superuser": superuser,
        }
    )
    match = db_rows.instance(Match, row)
    match.seat_read_for = (uid, row[-3])
    match.holders_read = (*holders_of(row[-1]), time.monotonic())
    return user, match


class Moved(NamedTuple):
    """What an acknowledged API command read and left, so the tables after
    it are rendered from it, not read again: the match row as its append left
    it, who holds which seat ({account id: seat}), and with a token's command
    (whose statement read every seat's holder) each holder's tokens in force
    and when they were read (else None, 0)."""

    match: Match
    seat_of: dict[int, str]
    tokens: dict[int, frozenset] | None
    read_at: float


def decide(pk: int, scope, content: dict, *, csrf_token, moved: list | None = None) -> dict:
    """The answer to one move message on match ``pk``'s socket; an API
    command acknowledged puts its ``Moved`` in ``moved``."""
    ident = content.get("id")
    shown = ident if isinstance(ident, str) and len(ident) <= 64 else None
    limits, count = CommandThrottles(), None
    try:
        with_token = "api_token" in scope and "form" not in content
        if with_token:  # the token's account is known: counted on Redis while the match is read
            count = limits.begin(_request(scope, scope["user"]))
        read = _read_with_token(pk, scope) if with_token else None
        user, match = read if read is not None else (_account(scope), None)
        if "match" in content and content["match"] != pk:
            raise exceptions.ValidationError(
                {"match": [f"this socket carries the moves of match {pk}: send others on theirs"]}
            )
        if not isinstance(ident, str) or not ident:
            raise exceptions.ValidationError(
                {"id": ["each move needs an id: your command id, the same on a retry"]}
            )
        if "form" in content:
            return _table_move(pk, scope, user, content["form"], ident, csrf_token)
        count = count or limits.begin(_request(scope, user))
        if not count.allowed():
            raise exceptions.Throttled(limits.wait())
        data = {"command": content["command"], "command_id": ident}
        holders = getattr(match, "holders_read", None)
        match, viewer, rows = send_move(pk, user, data, match=match)
        version = rows[-1].version if rows else match.version
        if moved is not None:
            moved.append(Moved(match, *(holders or ({user.pk: viewer.seat}, None, 0.0))))
        return {"type": "ack", "id": shown, "version": version}
    except Exception as exc:
        response = handle(exc, {})
        if response is None:  # a defect: logged by the consumer's caller
            raise
        return {"type": "refused", "id": shown, **response.data}
    finally:
        if count is not None:
            count.close()


def _table_move(pk: int, scope, user, form, ident: str, csrf_token) -> dict:
    if (
        not isinstance(form, dict)
        or len(form) > FORM_MAX_FIELDS
        or not all(
            isinstance(v, str | int) and len(str(v)) <= FORM_MAX_VALUE for v in form.values()
        )
    ):
        raise exceptions.ValidationError(
            {"form": [f"a form is at most {FORM_MAX_FIELDS} fields, each a short text"]}
        )
    match = services.match_seen_by(pk, user)
    if match is None:
        raise exceptions.NotFound("there is no match with that id")
    form = {key: str(value) for key, value in form.items()}
    request = _request(scope, user)
    why = move_from_table(
        match,
        user,
        form,
        wait=lambda: wait_before_next(request),
        command_id=form.get("command_id") or ident,
    )
    viewer = services.viewer_for(match, user)
    errors = {why.control or "": why.message} if why is not None else {}
    version, html = fragment(match, viewer, csrf_token=csrf_token(), errors=errors)
    if why is None:
        return {"type": "ack", "id": ident, "version": version, "html": html}
    return refused(ident, why.code, why.message, version=version, html=html, status=why.status)


def json_table(match: Match, viewer) -> tuple[int, dict]:
    """What the JSON socket pushes to ``viewer``: the API's view and legal commands."""
    view = services.view_for(match, viewer)
    version, commands = services.legal_for(match, viewer)
    seat = viewer.seat if viewer.kind == SEAT else None
    return view["version"], {
        "view": view,
        "legal": {"version": version, "seat": seat, "commands": commands},
    }


def json_spectator_table(pk: int, now: float) -> tuple[int, dict]:
    view = services.view_for(Match.objects.get(pk=pk), SPECTATOR_VIEW, now=now)
    return view["version"], {
        "view": view,
        "legal": {"version": None, "seat": None, "commands": []},
    }
