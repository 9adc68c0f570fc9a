"""Reading command fields that arrive from anyone (issue 12).

A field may hold anything JSON (or a Python caller) can: a unicode digit,
a 5,000-digit number, NaN, a list. These helpers turn it into a value or
into None, and put it into an error message without failing themselves
(``str`` of an int over 4,300 digits raises ValueError).
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from .protocol import RuleError

MAX_DIGITS = 12  # no field of any game needs a longer number


def whole(raw: Any, floats: bool = False) -> int | None:
    """A whole number from a field: an int, a string of ASCII digits (not
    '²' or '٣', which ``isdigit`` accepts) or, with ``floats``, a float
    with no fraction; None otherwise, or when it has over MAX_DIGITS digits."""
    if isinstance(raw, bool):
        return None
    if isinstance(raw, float) and floats and math.isfinite(raw) and raw.is_integer():
        raw = int(raw)
    if isinstance(raw, int):
        return raw if abs(raw) < 10**MAX_DIGITS else None
    if isinstance(raw, str):
        text = raw.strip()
        if 0 < len(text) <= MAX_DIGITS and text.isascii() and text.isdigit():
            return int(text)
    return None


def shown(raw: Any, limit: int = 24) -> str:
    """A field's value for an error message: short, and never an exception."""
    if isinstance(raw, str):
        return repr(raw if len(raw) <= limit else raw[:limit] + "...")
    if isinstance(raw, bool) or raw is None:
        return repr(raw)
    if isinstance(raw, int):
        return str(raw) if abs(raw) < 10**limit else "a number that long"
    if isinstance(raw, float):
        return repr(raw)
    return {list: "a list", tuple: "a list", dict: "an object"}.get(type(raw), "that value")


def check_fields(command: Mapping[str, Any], fields: Mapping[str, Collection[str]]) -> None:
    """RuleError when a command of a known type carries a field it does not
    have (a misspelt or stray field is never silently ignored)."""
    kind = command.get("type")
    allowed = fields.get(kind) if isinstance(kind, str) else None
    if allowed is None:
        return  # an unknown type: the game says which types there are
    extra = [k for k in command if k != "type" and k not in allowed]
    if extra:
        names = ", ".join(shown(k) for k in extra[:5])
        has = f"its fields are {', '.join(sorted(allowed))}" if allowed else "it has no fields"
        raise RuleError("{kind} has no field {names}: {has}", kind=kind, names=names, has=has)
