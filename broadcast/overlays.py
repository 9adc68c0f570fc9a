"""The secret read-only link of a show's overlays: one per show, made and
replaced by its organizer. Only the token's hash is stored; replacing it
makes every older link answer 404."""

from __future__ import annotations

import hashlib
import secrets

from django.core.exceptions import PermissionDenied
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from eventlog.commands import once
from games import visibility
from tournaments.models import ShowRecord

from .models import OverlayKey

KINDS = ("scoreboard", "bracket", "featured", "hands", "chat")
# the kinds in words, on the organizer's page of links
KIND_WORDS = (
    gettext_noop("scoreboard"),
    gettext_noop("bracket"),
    gettext_noop("featured"),
    gettext_noop("hands"),
    gettext_noop("chat"),
)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def is_organizer(show_stream: str, user) -> bool:
    facts = visibility.show_facts(show_stream)
    uid = getattr(user, "pk", None) if getattr(user, "is_authenticated", False) else None
    return facts is not None and uid is not None and uid in facts.organizer_ids


def rotate(record: ShowRecord, user, *, command_id: str | None = None) -> str | None:
    """A new overlay token for the show (the old one stops working), returned
    once; None when ``command_id`` made one already (a resent form: written once)."""
    if not is_organizer(record.stream, user):
        raise PermissionDenied(_("Only the show's organizer may make its overlay link."))
    made: list[str] = []

    def write() -> dict:
        token = secrets.token_urlsafe(24)
        fields = {"token_hash": _hash(token), "made_at": timezone.now(), "made_by": user.pk}
        OverlayKey.objects.update_or_create(show_stream=record.stream, defaults=fields)
        made.append(token)
        return {"token_hash": fields["token_hash"]}  # never the token: only its hash is kept

    first = once(
        f"overlay-link:{record.stream}",
        {"show": record.stream},
        write,
        command_id=command_id,
        account=user.pk,
    )
    # a try that lost a race to the same id wrote nothing: its token opens nothing
    return made[0] if made and first["token_hash"] == _hash(made[0]) else None


def show_for(token: str) -> ShowRecord | None:
    """The show a token opens, if it is the show's current one."""
    if not token or len(token) > 100:
        return None
    key = OverlayKey.objects.filter(token_hash=_hash(token)).first()
    if key is None:
        return None
    return ShowRecord.objects.filter(stream=key.show_stream).first()


def made_at(record: ShowRecord):
    key = OverlayKey.objects.filter(show_stream=record.stream).first()
    return key.made_at if key else None
