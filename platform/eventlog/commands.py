"""Command ids (idempotency keys) for every write, the log's and the others.

``command_args`` turns what a request sent into a service's arguments.
``once`` gives a write that appends no event (a template, a season, a
webhook endpoint) the log's rule: the same id from the same account with the
same content is a retry, answered with the first result and written once;
the same id with another account or other content is ``CommandIdReused``
(a 409 in the API, the form's words in a page)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.db import IntegrityError, transaction

from .models import CommandRecord
from .store import CommandIdReused, client_command_id, command_fingerprint


class BadCommandId(ValueError):
    """What a client sent as a command id is not one (the rule in words)."""


def command_args(request, data: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The command id a request sent (a form's hidden field, else ``data``:
    an API body's validated fields) and the account that sent it, as a
    service's ``command_id`` and ``account`` arguments."""
    source = request.POST if data is None else data
    return {"command_id": source.get("command_id") or None, "account": request.user.pk}


def once(
    scope: str,
    body: Any,
    write: Callable[[], dict],
    *,
    command_id: str | None,
    account: int | None,
) -> dict:
    """``write()`` (returning a JSON-able result) done once per ``command_id``
    in ``scope`` (the write and its target); without an id, just done."""
    if not command_id:
        return write()
    try:
        key = client_command_id(command_id)
    except ValueError as exc:
        raise BadCommandId(str(exc)) from None
    fingerprint = command_fingerprint(account, body)
    try:
        with transaction.atomic():
            first = CommandRecord.objects.filter(scope=scope, command_id=key).first()
            if first is None:
                result = write()
                CommandRecord.objects.create(
                    scope=scope, command_id=key, fingerprint=fingerprint, result=result
                )
                return result
    except IntegrityError:  # a try racing this one recorded the id first
        first = CommandRecord.objects.filter(scope=scope, command_id=key).first()
        if first is None:
            raise
    if first.fingerprint != fingerprint:
        raise CommandIdReused(scope, command_id)
    return first.result
