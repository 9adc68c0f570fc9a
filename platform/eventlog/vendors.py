"""The forks between PostgreSQL and SQLite, each chosen in one place.

The hot paths run fixed statements on PostgreSQL (one round trip where the
ORM would take several) and the ORM elsewhere. A concern written both ways
is a ``Fork``: its two implementations side by side in the concern's own
module, called as one function that picks by the database's vendor, so no
caller asks ``connection.vendor`` itself and a test can run both halves
(``fork.postgresql``, ``fork.portable``) against the same database."""

from __future__ import annotations

from typing import Any

from django.db import connection


def on_postgresql(db=None) -> bool:
    """Whether ``db`` (the default connection) is PostgreSQL's."""
    return (db or connection).vendor == "postgresql"


class Fork:
    """One concern's two implementations: ``postgresql`` (fixed statements)
    and ``portable`` (the ORM, which runs on PostgreSQL too); calling the
    fork calls the one for the default connection's database, and
    ``chosen()`` gives it (a concern of several functions forks an object
    that holds them)."""

    def __init__(self, *, postgresql: Any, portable: Any):
        self.postgresql, self.portable = postgresql, portable
        self.__doc__ = postgresql.__doc__

    def chosen(self) -> Any:
        return self.postgresql if on_postgresql() else self.portable

    def __call__(self, *args, **kwargs):
        return self.chosen()(*args, **kwargs)
