"""The chat's one writer: every message, hiding, timeout, slow mode and
block is an event appended here, checked by account id (chat.rooms), with
a client's command id idempotent per account (the same id from the same
account again is answered with the first result, nothing written twice).

Refusals are RuleError (RoleRequired for a role), in words the catalogs
hold in English and French (games.engine_words.refusal reads them)."""

from __future__ import annotations

import random
import time
from datetime import UTC, datetime

from django.conf import settings
from django.db import transaction
from django.utils.translation import gettext_noop

from eventlog.store import (
    ConcurrencyError,
    NewEvent,
    append,
    client_command_id,
    command_fingerprint,
    replayed,
    stream_version,
)
from games import visibility
from games.core.protocol import RoleRequired, RuleError

from . import limits
from .models import ChatBlock, ChatMessage, ChatReport, ChatRoomState, ChatTimeout
from .readmodels import BLOCKS
from .rooms import Room, access

MAX_RETRIES = 8
REASON_MAX = 200
# a timeout's lengths, in seconds; "show": until the show (or the match) is over
TIMEOUTS = {"5m": 300, "1h": 3600, "show": None}
SLOW_MAX_S = 600


def _setting(name: str, default):
    return getattr(settings, name, default)


def _key(command_id, uid: int) -> str | None:
    """A client's command id, checked, and scoped to its account: two people
    may use the same id in one room, and each's retry is its own."""
    if not command_id:
        return None
    try:
        checked = client_command_id(command_id)
    except ValueError as exc:
        raise RuleError(str(exc)) from None
    return f"c:u{uid}/{checked[2:]}"


def _write(room_stream: str, user, role: str, make, *, command_id=None, body=None):
    """Append ``make()``'s event once (per command id and account); the rows."""
    key = _key(command_id, user.pk)
    fingerprint = command_fingerprint(f"user:{user.pk}", body) if key else None
    for attempt in range(MAX_RETRIES):
        if key and (first := replayed(room_stream, key, fingerprint)):
            return first
        version = stream_version(room_stream)
        try:
            with transaction.atomic():
                return append(
                    room_stream,
                    version,
                    [make()],
                    actor=user.username,
                    role=role,
                    command_id=key,
                    fingerprint=fingerprint,
                )
        except ConcurrencyError:
            if attempt == MAX_RETRIES - 1:
                raise
            time.sleep(random.uniform(0, 0.004 * (attempt + 1)))  # writers of one room spread out
    raise AssertionError("unreachable")


def _signed_in(user) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise RoleRequired(gettext_noop("log in to write in the chat"))


# ---- messages ---------------------------------------------------------------
def clean_text(text) -> str:
    """The message as it is kept: trimmed, within the length limit, never empty."""
    limit = int(_setting("CHAT_MAX_CHARS", 500))
    if not isinstance(text, str):
        raise RuleError(gettext_noop("a message is text"))
    text = text.strip()
    if not text:
        raise RuleError(gettext_noop("write something before sending"))
    if len(text) > limit:
        raise RuleError(
            gettext_noop("a message is at most {limit} characters long (this one has {length})"),
            limit=limit,
            length=len(text),
        )
    return text


def _may_write_now(room: Room, user, now: float, moderator: bool) -> None:
    """The limits on writing: a new account waits, a timeout holds, the
    rate limit (a burst, then one by one) and the room's slow mode."""
    wait = float(_setting("CHAT_NEW_ACCOUNT_WAIT_S", 600))
    joined = user.date_joined.timestamp()
    if not moderator and now - joined < wait:
        minutes = max(1, int((joined + wait - now) // 60) + 1)
        raise RuleError(
            gettext_noop(
                "a new account may read the chat but not write in it yet: "
                "try again in {minutes} min"
            ),
            minutes=minutes,
        )
    held = ChatTimeout.objects.filter(stream=room.stream, user_id=user.pk).first()
    if held is not None and (held.until is None or held.until.timestamp() > now):
        if held.until is None:
            raise RuleError(gettext_noop("a moderator timed you out of this room until it closes"))
        raise RuleError(
            gettext_noop("a moderator timed you out of this room: try again in {minutes} min"),
            minutes=max(1, int((held.until.timestamp() - now) // 60) + 1),
        )
    mine = ChatMessage.objects.filter(author_id=user.pk)
    burst, window = int(_setting("CHAT_BURST", 5)), float(_setting("CHAT_BURST_WINDOW_S", 10))
    since = datetime.fromtimestamp(now - window, tz=UTC)
    if mine.filter(at__gt=since).count() >= burst:
        raise RuleError(gettext_noop("you are writing too fast: wait a few seconds"))
    state = ChatRoomState.objects.filter(stream=room.stream).first()
    if state is not None and state.slow_s and not moderator:
        since = datetime.fromtimestamp(now - state.slow_s, tz=UTC)
        if mine.filter(stream=room.stream, at__gt=since).exists():
            raise RuleError(
                gettext_noop("this room is in slow mode: one message every {seconds} s"),
                seconds=state.slow_s,
            )


def post(room: Room, user, text, *, command_id=None, now: float | None = None):
    """``user`` writes ``text`` in ``room``: the message's stored row."""
    _signed_in(user)
    now = visibility.clock() if now is None else now
    text = clean_text(text)
    key = _key(command_id, user.pk)
    if key and (first := replayed(room.stream, key, command_fingerprint(f"user:{user.pk}", text))):
        return first[0]  # a retry: its first message, no limit counted twice
    limits.guard_account(user)  # counted at once, for every process, before any read
    limits.guard_room(room, user)
    may = access(room, user, now=now)
    if not may.write:
        raise RoleRequired(_no_write_words(room))
    _may_write_now(room, user, now, may.moderate)
    data = {"author_id": user.pk, "author": user.username, "text": text}
    rows = _write(
        room.stream,
        user,
        "moderator" if may.moderate else "member",
        lambda: NewEvent("chat_message", data),
        command_id=command_id,
        body=text,
    )
    return rows[0]


def _no_write_words(room: Room) -> str:
    from .rooms import PLAYERS

    if room.kind == PLAYERS:
        return gettext_noop("only the players and the moderators write in the players' room")
    return gettext_noop("you may read this room but not write in it")


# ---- moderation ------------------------------------------------------------------
def _moderator(room: Room, user, now: float | None = None) -> None:
    _signed_in(user)
    if not access(room, user, now=now).moderate:
        raise RoleRequired(
            gettext_noop(
                "only the organizer, the show's moderators and staff moderate this room, "
                "and never a room of a match they play in"
            )
        )


def _reason(reason) -> str:
    reason = reason.strip() if isinstance(reason, str) else ""
    if not reason or len(reason) > REASON_MAX:
        raise RuleError(gettext_noop("give a reason of 1 to {limit} characters"), limit=REASON_MAX)
    return reason


def hide(room: Room, user, message_id, reason, *, command_id=None):
    """A moderator hides a message of ``room`` with a reason."""
    _moderator(room, user)
    reason = _reason(reason)
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        raise RuleError(gettext_noop("there is no such message in this room"))
    if not ChatMessage.objects.filter(stream=room.stream, id=message_id).exists():
        raise RuleError(gettext_noop("there is no such message in this room"))
    data = {"message_id": message_id, "reason": reason, "by_id": user.pk, "by": user.username}
    return _write(
        room.stream,
        user,
        "moderator",
        lambda: NewEvent("chat_message_hidden", data),
        command_id=command_id,
        body={"hide": message_id, "reason": reason},
    )


def time_out(room: Room, user, target_id, length, *, command_id=None, now=None):
    """A moderator times a person out of ``room`` (``length``: TIMEOUTS)."""
    _moderator(room, user)
    if length not in TIMEOUTS:
        raise RuleError(gettext_noop("a timeout lasts 5 min, 1 h or the show"))
    if isinstance(target_id, bool) or not isinstance(target_id, int) or target_id == user.pk:
        raise RuleError(gettext_noop("choose someone who wrote in this room"))
    if not ChatMessage.objects.filter(stream=room.stream, author_id=target_id).exists():
        raise RuleError(gettext_noop("choose someone who wrote in this room"))
    now = visibility.clock() if now is None else now
    seconds = TIMEOUTS[length]
    until = None if seconds is None else now + seconds
    data = {"user_id": target_id, "until": until, "length": length, "by_id": user.pk}
    data["by"] = user.username
    return _write(
        room.stream,
        user,
        "moderator",
        lambda: NewEvent("chat_timed_out", data),
        command_id=command_id,
        body={"time_out": target_id, "length": length},
    )


def slow_mode(room: Room, user, seconds, *, command_id=None):
    """A moderator sets the room's slow mode (0: off)."""
    _moderator(room, user)
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= SLOW_MAX_S:
        raise RuleError(gettext_noop("slow mode is 0 (off) to {limit} seconds"), limit=SLOW_MAX_S)
    data = {"seconds": seconds, "by_id": user.pk, "by": user.username}
    return _write(
        room.stream,
        user,
        "moderator",
        lambda: NewEvent("chat_slow_mode", data),
        command_id=command_id,
        body={"slow": seconds},
    )


# ---- reports ------------------------------------------------------------------
def report(room: Room, user, message_id, reason="", *, command_id=None):
    """Anyone who reads a message reports it to the moderators, once, with an
    optional reason: an event of the room's stream (the dashboard lists it)."""
    _signed_in(user)
    from .rooms import readable

    may = readable(room, user)
    reason = reason.strip() if isinstance(reason, str) else ""
    if len(reason) > REASON_MAX:
        raise RuleError(gettext_noop("a reason is at most {limit} characters"), limit=REASON_MAX)
    if isinstance(message_id, bool) or not isinstance(message_id, int):
        raise RuleError(gettext_noop("there is no such message in this room"))
    message = _readable_rows(room, user, may, hidden=False).filter(id=message_id).first()
    if message is None:  # nor one they may not read: its existence is not told
        raise RuleError(gettext_noop("there is no such message in this room"))
    if message.author_id == user.pk:
        raise RuleError(gettext_noop("you cannot report your own message"))
    body = {"report": message_id, "reason": reason}
    key = _key(command_id, user.pk)
    fingerprint = command_fingerprint(f"user:{user.pk}", body)
    if key and (first := replayed(room.stream, key, fingerprint)):
        return first
    if ChatReport.objects.filter(message_id=message_id, reporter_id=user.pk).exists():
        raise RuleError(gettext_noop("you already reported this message"))
    data = {"message_id": message_id, "reporter_id": user.pk, "reporter": user.username}
    data["reason"] = reason
    return _write(
        room.stream,
        user,
        "member",
        lambda: NewEvent("chat_message_reported", data),
        command_id=command_id,
        body=body,
    )


def report_context(room: Room, user, message_id: int, around: int = 2):
    """The ``around`` messages before and after ``message_id`` in ``room``, as
    ``user`` (a moderator) may read them: (before, after), oldest first."""
    from .rooms import readable

    rows = _readable_rows(room, user, readable(room, user), hidden=False)
    before = list(rows.filter(id__lt=message_id).order_by("-id")[:around])
    after = list(rows.filter(id__gt=message_id).order_by("id")[:around])
    return list(reversed(before)), after


# ---- blocking ------------------------------------------------------------------
def block(user, blocked_id, *, blocked: bool = True, command_id=None):
    """``user`` blocks (or unblocks) a person: their messages are hidden for
    ``user`` in every room, at once and later."""
    _signed_in(user)
    from django.contrib.auth import get_user_model

    if isinstance(blocked_id, bool) or not isinstance(blocked_id, int) or blocked_id == user.pk:
        raise RuleError(gettext_noop("choose someone else to block"))
    if not get_user_model().objects.filter(pk=blocked_id).exists():
        raise RuleError(gettext_noop("choose someone else to block"))
    kind = "chat_blocked" if blocked else "chat_unblocked"
    data = {"blocker_id": user.pk, "blocked_id": blocked_id}
    return _write(
        f"{BLOCKS}{user.pk}",
        user,
        "member",
        lambda: NewEvent(kind, data),
        command_id=command_id,
        body={kind: blocked_id},
    )


def blocked_by(user) -> set[int]:
    if user is None or not getattr(user, "is_authenticated", False):
        return set()
    return set(ChatBlock.objects.filter(blocker_id=user.pk).values_list("blocked_id", flat=True))


def _cut_q(cut: float | None, uid: int | None):
    from django.db.models import Q

    if cut is None:
        return Q()
    q = Q(at__lte=datetime.fromtimestamp(cut, tz=UTC))
    return q | Q(author_id=uid) if uid is not None else q


def _staff_only_q(may, uid: int | None):
    """A seat of a live match of the show reads in the show room, since that
    match began, only the show's staff and themselves (chat.rooms)."""
    from django.db.models import Q

    if may.staff_only_after is None:
        return Q()
    authors = {*may.staff_ids, uid} - {None}
    return Q(id__lte=may.staff_only_after) | Q(author_id__in=authors)


def _readable_rows(room: Room, user, may, *, hidden: bool):
    """The messages of ``room`` ``user`` reads with ``may`` (hidden or not)."""
    uid = user.pk if getattr(user, "is_authenticated", False) else None
    rows = ChatMessage.objects.filter(stream=room.stream, hidden=hidden)
    rows = rows.filter(_cut_q(may.cut, uid)).filter(_staff_only_q(may, uid))
    return rows.exclude(author_id__in=blocked_by(user))


def history(room: Room, user, *, before: int | None = None, after: int = 0, limit: int = 100):
    """The messages of ``room`` ``user`` may read now (the newest ``limit``,
    before message ``before`` if given, after ``after``), oldest first:
    behind the delay for whoever sees it delayed (their own at once), never
    a hidden one nor one of a person they block, nor (for a seat of a live
    match of the show, in the show room) anyone's but the show's staff's and
    their own since that match began. Refused in words when they may not
    read the room."""
    from .rooms import readable

    may = readable(room, user)
    rows = _readable_rows(room, user, may, hidden=False).filter(id__gt=after)
    if before is not None:
        rows = rows.filter(id__lt=before)
    newest = list(rows.order_by("-id")[:limit])
    return list(reversed(newest))


def hidden_since(room: Room, user, after_id: int) -> list[int]:
    """The ids of messages of ``room`` hidden since ``after_id`` that ``user``
    could have read (for the pages to drop): no more, so not even a count
    of what they may not read."""
    from .rooms import readable

    may = readable(room, user)
    rows = _readable_rows(room, user, may, hidden=True).filter(id__gt=after_id)
    return list(rows.values_list("id", flat=True))
