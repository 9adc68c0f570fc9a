"""The one EXCEPTION_HANDLER: every refusal is JSON with a stable ``code``
and a ``message`` a person understands. Views raise; nothing else builds an
error body. Unknown exceptions are left to Django (a logged 500).

The rules' refusals (and their words in the reader's language) are the games
app's: it registers them at start-up (``register_refusals``), so that the
API's plumbing imports nothing of the games."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import set_rollback

from eventlog.commands import BadCommandId
from eventlog.store import CommandIdReused, ConcurrencyError, stream_version

from .parsers import TooLarge, max_body_bytes

MESSAGES = {
    "not_found": "there is nothing here by that id",
    "not_authenticated": "log in, or send an API token: Authorization: Token <secret>",
    "permission_denied": "you may not do that",
    "method_not_allowed": "this address does not take that method",
}


@dataclass(frozen=True)
class Refusals:
    """What the rules refuse with: the exception types of a refusal (a 422),
    those of them naming a role the caller lacks (a 403), and the words of
    one in the reader's language."""

    rule: tuple[type[Exception], ...]
    role: tuple[type[Exception], ...]
    words: Callable[[Exception], str]


# none registered: nothing is a refusal of the rules, and words are plain
_refusals = Refusals(rule=(), role=(), words=str)


def register_refusals(refusals: Refusals) -> Refusals:
    """Install the rules' refusals; returns the ones they replace."""
    global _refusals
    previous, _refusals = _refusals, refusals
    return previous


class Forbidden(exceptions.PermissionDenied):
    """A refusal naming the role needed (e.g. "only a seated player may send moves")."""


def error(code: str, message: str, http_status: int, **extra) -> Response:
    return Response({"code": code, "message": message, **extra}, status=http_status)


def _code(exc: exceptions.APIException) -> str:
    detail = exc.detail
    code = getattr(detail, "code", None) if isinstance(detail, str) else None
    return code or exc.default_code


def _first_problem(detail, path: str = "") -> str:
    """The first field error as "field: words", for the message."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            name = key if key != "non_field_errors" else ""
            return _first_problem(value, f"{path}.{name}" if path and name else path or name)
    if isinstance(detail, list) and detail:
        return _first_problem(detail[0], path)
    return f"{path}: {detail}" if path else str(detail)


def handle(exc, context):
    refusals = _refusals
    if isinstance(exc, refusals.role):  # the caller's role, in the rules' own words
        return error("permission_denied", refusals.words(exc), status.HTTP_403_FORBIDDEN)
    if isinstance(exc, refusals.rule):
        return error("rule", refusals.words(exc), 422)
    if isinstance(exc, BadCommandId):  # the serializers check it first; kept as a 400 anyway
        return error("invalid", str(exc), status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, CommandIdReused):
        return error("command_id_reused", str(exc), status.HTTP_409_CONFLICT)
    if isinstance(exc, ConcurrencyError):
        current = exc.actual if exc.actual is not None else stream_version(exc.stream)
        return error(
            "conflict",
            "the match moved on while your command was decided; fetch it and try again",
            status.HTTP_409_CONFLICT,
            current_version=current,
        )
    if isinstance(exc, RequestDataTooBig):  # Django's own limit, met while DRF reads the body
        exc = TooLarge(f"the body is larger than {max_body_bytes()} bytes")
    elif isinstance(exc, Http404):
        # words meant for the caller (e.g. "spectators see this match 300 s late") are
        # kept; Django's own ("No Match matches the given query.") are not
        exc = exceptions.NotFound(getattr(exc, "public_message", None) or MESSAGES["not_found"])
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied(str(exc) or MESSAGES["permission_denied"])
    if not isinstance(exc, exceptions.APIException):
        return None  # a defect: Django logs it and answers 500
    set_rollback()
    headers = {}
    if getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = exc.auth_header
    if getattr(exc, "wait", None) is not None:
        headers["Retry-After"] = str(max(1, int(exc.wait + 0.999)))
    code = _code(exc)
    if isinstance(exc, exceptions.ValidationError):
        body = {
            "code": "invalid",
            "message": _first_problem(exc.detail) or "the request is not valid",
            "fields": exc.detail if isinstance(exc.detail, dict) else {},
        }
    else:
        message = str(exc.detail)
        if message == str(exc.default_detail):
            message = MESSAGES.get(code, message)
        body = {"code": code, "message": message}
        if "Retry-After" in headers:
            body["retry_after"] = int(headers["Retry-After"])
    return Response(body, status=exc.status_code, headers=headers)
