"""``replace`` for the engines' frozen dataclasses, without ``__init__``.

``dataclasses.replace`` reads every field and calls ``__init__``, which a
frozen class runs through ``object.__setattr__`` field by field: in a fold
that was most of the time. The states here have no ``__post_init__`` and no
``init=False`` fields, so a copy of the instance's ``__dict__`` with the
changes on top is the same value; any other class gets the standard one."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any, TypeVar

T = TypeVar("T")
_field_names: dict[type, frozenset[str] | None] = {}
_set = object.__setattr__  # past the frozen class's own __setattr__


def _plain_fields(cls: type) -> frozenset[str] | None:
    """The init fields of ``cls`` when a dict copy is a faithful replace."""
    if cls not in _field_names:
        fields = dataclasses.fields(cls)
        plain = (
            not hasattr(cls, "__post_init__")
            and not hasattr(cls, "__slots__")
            and all(f.init and f._field_type is dataclasses._FIELD for f in fields)
        )
        _field_names[cls] = frozenset(f.name for f in fields) if plain else None
    return _field_names[cls]


def replace(obj: T, /, **changes: Any) -> T:
    cls = type(obj)
    names = _plain_fields(cls)
    if names is None or not changes.keys() <= names:
        return dataclasses.replace(obj, **changes)  # its own errors for unknown fields
    new = object.__new__(cls)
    _set(new, "__dict__", {**obj.__dict__, **changes})
    return new


def copied(value: Any) -> Any:
    """``value`` copied as ``copy.deepcopy`` copies it, many times faster for
    an event's data (dicts, lists, tuples, scalars; anything else goes to
    deepcopy): what a view hands its reader, who may change it."""
    cls = type(value)
    if cls in _SCALARS:
        return value
    if cls is dict:
        return {k: copied(v) for k, v in value.items()}
    if cls is list or cls is tuple:
        return cls(copied(v) for v in value)
    return copy.deepcopy(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})
