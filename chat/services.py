"""The chat's one writer: every message, hiding, timeout (of a room or of a
show's rooms), slow mode, closing and opening of a room, a show's word list,
report and block is an event appended here, checked by account id (chat.rooms), with
a client's command id idempotent per account (the same id from the same
account again is answered with the first result, nothing written twice).

Refusals are RuleError (RoleRequired for a role), in words the catalogs
hold in English and French (games.engine_words.refusal reads them)."""

from __future__ import annotations

import random
import re
import time
import unicodedata
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
from .rooms import SHOW, STAFF, Room, access, show_of_room, show_room

MAX_RETRIES = 8
REASON_MAX = 200
# a timeout's lengths, in seconds; "show": until the show (or the match) is over
TIMEOUTS = {"5m": 300, "1h": 3600, "show": None}
# where a timeout holds: the room, or every room of the room's show
SCOPES = ("room", "show")
SLOW_MAX_S = 600
WORDS_MAX, WORD_MAX_CHARS = 200, 40


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
            if attempt == MAX_RETRIES - 1:  # said as the room's limit is: in words, to resend
                raise RuleError(limits.ROOM_BUSY) from None
            time.sleep(random.uniform(0, 0.004 * (attempt + 1)))  # writers of one room spread out
    raise AssertionError("unreachable")


def _event(stream: str, user, role: str, kind: str, data: dict, body, command_id):
    """One event ``kind`` with ``data`` in ``stream`` (``body``: what a retry
    of the same command id must repeat); the rows."""
    return _write(
        stream, user, role, lambda: NewEvent(kind, data), command_id=command_id, body=body
    )


def _moderate(room: Room, user, kind: str, data: dict, body, command_id):
    """A moderator's act on ``room`` (their role checked by ``_moderator``
    first, the act's fields then): its event, signed with who did it."""
    data = {**data, "by_id": user.pk, "by": user.username}
    return _event(room.stream, user, "moderator", kind, data, body, command_id)


def _signed_in(user) -> None:
    if user is None or not getattr(user, "is_authenticated", False):
        raise RoleRequired(gettext_noop("log in to write in the chat"))


# ---- messages ---------------------------------------------------------------
def _controls(text: str) -> bool:
    """Whether ``text`` holds a control character (NUL, a newline...) or a
    lone surrogate: nothing a chat line or a listed word is made of."""
    return any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text)


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
    if _controls(text):  # after the length: a huge message is not read through
        raise RuleError(gettext_noop("a message is one line of text, without control characters"))
    return text


def _may_write_now(room: Room, user, now: float, moderator: bool, text: str) -> None:
    """The limits on writing: a new account waits, a closed room, a timeout
    (of this room or of the show's rooms), the account's burst, the room's
    rate, its slow mode, and the show's word list."""
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
    state = ChatRoomState.objects.filter(stream=room.stream).first()
    if state is not None and state.closed and not moderator:
        raise RuleError(
            gettext_noop("a moderator closed this room: you may read it but not write in it")
        )
    show = show_of_room(room)
    _not_timed_out(room, show, user, now)
    mine = ChatMessage.objects.filter(author_id=user.pk)
    burst, window = int(_setting("CHAT_BURST", 5)), float(_setting("CHAT_BURST_WINDOW_S", 10))
    if mine.filter(at__gt=_ago(now, window)).count() >= burst:
        raise RuleError(gettext_noop("you are writing too fast: wait a few seconds"))
    rate = int(_setting("CHAT_ROOM_RATE", 30))
    window = float(_setting("CHAT_ROOM_RATE_WINDOW_S", 10))
    busy = ChatMessage.objects.filter(stream=room.stream, staff=False, at__gt=_ago(now, window))
    if not moderator and busy.count() >= rate:
        raise RuleError(limits.ROOM_BUSY)
    if state is not None and state.slow_s and not moderator:
        if mine.filter(stream=room.stream, at__gt=_ago(now, state.slow_s)).exists():
            raise RuleError(
                gettext_noop("this room is in slow mode: one message every {seconds} s"),
                seconds=state.slow_s,
            )
    if show is not None and room.kind != STAFF and has_listed_word(text, show_words(show)):
        # the word is not named: the list is not told to whoever tries it
        raise RuleError(
            gettext_noop(
                "this show does not allow a word of your message in its chat: "
                "it was not sent; write it otherwise"
            )
        )


def _ago(now: float, seconds: float) -> datetime:
    return datetime.fromtimestamp(now - seconds, tz=UTC)


def _not_timed_out(room: Room, show, user, now: float) -> None:
    """Refused in words while a timeout of ``user`` holds in ``room``: one of
    this room, or one of every room of its show (set in any of them); the
    one that ends last speaks."""
    from django.db.models import Q

    where = Q(stream=room.stream)
    if show is not None:
        where |= Q(show_id=show.pk)
    held = [
        h
        for h in ChatTimeout.objects.filter(where, user_id=user.pk)
        if h.until is None or h.until.timestamp() > now
    ]
    if not held:
        return
    last = max(held, key=lambda h: float("inf") if h.until is None else h.until.timestamp())
    whole_show = last.show_id is not None
    if last.until is None:
        if whole_show:
            raise RuleError(
                gettext_noop("a moderator timed you out of this show's rooms until it is over")
            )
        raise RuleError(gettext_noop("a moderator timed you out of this room until it closes"))
    minutes = max(1, int((last.until.timestamp() - now) // 60) + 1)
    if whole_show:
        raise RuleError(
            gettext_noop(
                "a moderator timed you out of this show's rooms: try again in {minutes} min"
            ),
            minutes=minutes,
        )
    raise RuleError(
        gettext_noop("a moderator timed you out of this room: try again in {minutes} min"),
        minutes=minutes,
    )


def post(room: Room, user, text, *, command_id=None, now: float | None = None):
    """``user`` writes ``text`` in ``room``: the message's stored row."""
    _signed_in(user)
    now = visibility.clock() if now is None else now
    text = clean_text(text)
    key = _key(command_id, user.pk)
    if key and (first := replayed(room.stream, key, command_fingerprint(f"user:{user.pk}", text))):
        return first[0]  # a retry: its first message, no limit counted twice
    # counted at once, for every process, before any read (chat.limits); a
    # message refused or not written afterwards is not counted
    with limits.counted(room, user):
        may = access(room, user, now=now)
        if not may.write:
            raise RoleRequired(_no_write_words(room))
        _may_write_now(room, user, now, may.moderate, text)
        data = {"author_id": user.pk, "author": user.username, "text": text}
        if may.moderate:
            data["staff"] = True  # its links are shown as links (chat.present)
        role = "moderator" if may.moderate else "member"
        return _event(room.stream, user, role, "chat_message", data, text, command_id)[0]


# ---- a show's word list ------------------------------------------------------------
def folded(text: str) -> str:
    """``text`` as the word list compares it: NFKC-normalised and casefolded
    ("ＢＡＤ" and "Bad" are "bad"), its runs of spaces one space."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def has_listed_word(text: str, words) -> bool:
    """Whether ``text`` holds one of ``words`` (folded) as a whole word: "bad"
    is in "so BAD!" but not in "badge"."""
    if not words:
        return False
    either = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.search(rf"(?<!\w)(?:{either})(?!\w)", folded(text)) is not None


def show_words(show) -> list[str]:
    """The show's word list (folded): for the checks and its moderators only."""
    found = ChatRoomState.objects.filter(stream=show_room(show, SHOW).stream).first()
    return list(found.words) if found is not None else []


def clean_words(words) -> list[str]:
    """A word list as it is kept: each entry folded, 1 to WORD_MAX_CHARS
    characters, no repeats, sorted, at most WORDS_MAX."""
    if isinstance(words, str):
        words = words.splitlines()
    if not isinstance(words, list | tuple) or not all(isinstance(w, str) for w in words):
        raise RuleError(gettext_noop("a word list is words, one a line"))
    if any(_controls(w.strip()) for w in words):
        raise RuleError(gettext_noop("a listed word holds no control characters"))
    kept = sorted({folded(w) for w in words} - {""})
    if any(len(w) > WORD_MAX_CHARS for w in kept):
        raise RuleError(
            gettext_noop("a listed word is at most {limit} characters long"), limit=WORD_MAX_CHARS
        )
    if len(kept) > WORDS_MAX:
        raise RuleError(gettext_noop("a word list holds at most {limit} words"), limit=WORDS_MAX)
    return kept


def words_for(show, user) -> list[str]:
    """The show's word list, for its organizer, moderators and staff."""
    _moderator(show_room(show, SHOW), user)
    return show_words(show)


def set_words(show, user, words, *, command_id=None):
    """The show's organizer, a moderator or staff sets its word list (all of
    it: an empty list clears it), an event of the show room's stream."""
    room = show_room(show, SHOW)
    _moderator(room, user)
    words = clean_words(words)
    return _moderate(room, user, "chat_words_set", {"words": words}, {"words": words}, command_id)


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
    if not reason or len(reason) > REASON_MAX or _controls(reason):
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
    data = {"message_id": message_id, "reason": reason}
    body = {"hide": message_id, "reason": reason}
    return _moderate(room, user, "chat_message_hidden", data, body, command_id)


def time_out(room: Room, user, target_id, length, *, scope="room", command_id=None, now=None):
    """A moderator times a person out of ``room`` (``scope`` "room") or of
    every room of its show ("show": the show's organizer, its moderators and
    staff only) for ``length`` (TIMEOUTS)."""
    _moderator(room, user)
    if length not in TIMEOUTS:
        raise RuleError(gettext_noop("a timeout lasts 5 min, 1 h or the show"))
    if scope not in SCOPES:
        raise RuleError(gettext_noop("a timeout holds in this room or in all the show's rooms"))
    if isinstance(target_id, bool) or not isinstance(target_id, int) or target_id == user.pk:
        raise RuleError(gettext_noop("choose someone who wrote in this room"))
    if not ChatMessage.objects.filter(stream=room.stream, author_id=target_id).exists():
        raise RuleError(gettext_noop("choose someone who wrote in this room"))
    data = {"user_id": target_id, "length": length, "scope": scope}
    if scope == "show":
        show = show_of_room(room)
        if show is None:
            raise RuleError(
                gettext_noop("this match belongs to no show: time them out of this room")
            )
        if not access(show_room(show, SHOW), user).moderate:  # a match's own moderator
            raise RoleRequired(
                gettext_noop(
                    "only the show's organizer, its moderators and staff time a person "
                    "out of all its rooms"
                )
            )
        data["show_id"] = show.pk
    now = visibility.clock() if now is None else now
    seconds = TIMEOUTS[length]
    data["until"] = None if seconds is None else now + seconds
    body = {"time_out": target_id, "length": length, "scope": scope}
    return _moderate(room, user, "chat_timed_out", data, body, command_id)


def slow_mode(room: Room, user, seconds, *, command_id=None):
    """A moderator sets the room's slow mode (0: off)."""
    _moderator(room, user)
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= SLOW_MAX_S:
        raise RuleError(gettext_noop("slow mode is 0 (off) to {limit} seconds"), limit=SLOW_MAX_S)
    return _moderate(
        room, user, "chat_slow_mode", {"seconds": seconds}, {"slow": seconds}, command_id
    )


def close_room(room: Room, user, closed: bool = True, *, command_id=None):
    """A moderator closes ``room`` (nobody but its moderators writes in it;
    everyone who read it still reads it) or opens it again."""
    _moderator(room, user)
    if not isinstance(closed, bool):
        raise RuleError(gettext_noop("a room is closed or open"))
    kind = "chat_room_closed" if closed else "chat_room_opened"
    return _moderate(room, user, kind, {}, {"closed": closed}, command_id)


def room_state(room: Room) -> ChatRoomState:
    """The room's slow mode and whether it is closed (an unsaved row: neither)."""
    return ChatRoomState.objects.filter(stream=room.stream).first() or ChatRoomState(
        stream=room.stream
    )


# ---- reports ------------------------------------------------------------------
def report(room: Room, user, message_id, reason="", *, command_id=None):
    """Anyone who reads a message reports it to the moderators, once, with an
    optional reason: an event of the room's stream (the dashboard lists it)."""
    _signed_in(user)
    from .rooms import readable

    may = readable(room, user)
    reason = reason.strip() if isinstance(reason, str) else ""
    if len(reason) > REASON_MAX or _controls(reason):
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
    return _event(room.stream, user, "member", "chat_message_reported", data, body, command_id)


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
    return _event(f"{BLOCKS}{user.pk}", user, "member", kind, data, {kind: blocked_id}, command_id)


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
