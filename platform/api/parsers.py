"""JSON with bounds: checked before it is parsed, so a hostile body is a
clear 400/413 and never a RecursionError (json.loads recurses per level)."""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import JSONParser

MAX_DEPTH = 32
# strings are skipped when counting brackets; an unterminated one is left in
# and can only make the count larger, which is refused anyway
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class BoundedJSONError(ValueError):
    """A body the bounds refuse; ``code`` is the API's machine-readable code."""

    def __init__(self, code: str, message: str):
        self.code = code
        super().__init__(message)


def max_body_bytes() -> int:
    return settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440


def nesting_depth(text: str) -> int:
    """The deepest bracket nesting of a JSON text, without recursing."""
    depth = deepest = 0
    for m in _BRACKET.finditer(_STRING.sub("", text)):
        if m.group() in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _refuse_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def parse_bounded_json(
    text: str | bytes, *, max_bytes: int | None = None, max_depth: int = MAX_DEPTH
) -> Any:
    """Parse JSON no larger than ``max_bytes`` and no deeper than ``max_depth``.

    Raises BoundedJSONError (a ValueError) with a code and words a person
    understands; pages use it for JSON typed into a form."""
    max_bytes = max_body_bytes() if max_bytes is None else max_bytes
    if isinstance(text, bytes):
        if len(text) > max_bytes:
            raise BoundedJSONError("too_large", f"the body is larger than {max_bytes} bytes")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise BoundedJSONError("parse_error", "the body is not UTF-8 text") from None
    elif len(text.encode("utf-8")) > max_bytes:
        raise BoundedJSONError("too_large", f"the body is larger than {max_bytes} bytes")
    if nesting_depth(text) > max_depth:
        raise BoundedJSONError("too_deep", f"the JSON is nested more than {max_depth} levels deep")
    try:
        value = json.loads(text, parse_constant=_refuse_constant)
    except ValueError as exc:  # JSONDecodeError, or an integer of thousands of digits
        raise BoundedJSONError("parse_error", f"not valid JSON: {exc}") from None
    if _SURROGATE_ESCAPE.search(text):  # a pair makes one character; a lone half is no text
        try:
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise BoundedJSONError(
                "parse_error", "not valid JSON text: a \\u escape names half a character"
            ) from None
    return value


class TooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "the body is too large"
    default_code = "too_large"


class BoundedJSONParser(JSONParser):
    """The default JSON parser: size and depth are checked first."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = max_body_bytes()
        raw = stream.read(limit + 1) if stream is not None else b""
        try:
            return parse_bounded_json(raw, max_bytes=limit)
        except BoundedJSONError as exc:
            if exc.code == "too_large":
                raise TooLarge(str(exc)) from None
            raise ParseError(str(exc), code=exc.code) from None
