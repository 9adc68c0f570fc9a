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

from typing import Any

from django.http import HttpRequest
from django.utils import translation
from rest_framework import exceptions

from api.exceptions import handle
from api.parsers import BoundedJSONError, parse_bounded_json
from api.throttling import CommandThrottles, wait_before_next
from games import services
from games.api import send_move
from games.core.protocol import SEAT, SPECTATOR_VIEW
from games.models import Match
from games.table_moves import move_from_table

from . import auth
from .render import fragment

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


def decide(pk: int, scope, content: dict, *, csrf_token, moved: list | None = None) -> dict:
    """The answer to one move message on match ``pk``'s socket. An API
    command acknowledged puts in ``moved`` the match row as its append left
    it and who holds which seat as the command read it ({account id: seat}):
    the mover's table is rendered from them, not read again."""
    ident = content.get("id")
    shown = ident if isinstance(ident, str) and len(ident) <= 64 else None
    try:
        user = _account(scope)
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
        request = _request(scope, user)
        limits = CommandThrottles()
        if not limits.allow_request(request, None):
            raise exceptions.Throttled(limits.wait())
        data = {"command": content["command"], "command_id": ident}
        match, viewer, rows = send_move(pk, user, data)
        version = rows[-1].version if rows else match.version
        if moved is not None:
            moved.append((match, {user.pk: viewer.seat}))
        return {"type": "ack", "id": shown, "version": version}
    except Exception as exc:
        response = handle(exc, {})
        if response is None:  # a defect: logged by the consumer's caller
            raise
        return {"type": "refused", "id": shown, **response.data}


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
