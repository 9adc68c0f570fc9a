"""Organizer commands: rounds, moderators, substitutions, deadlines."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.playout import BOTS_IN_WORDS, bot_name
from games.core.protocol import RuleError
from games.limits import MAX_EXTEND_S

from ..builder import (
    _Builder,
    _need_moderator,
    _need_organizer,
    _not_over,
    _reason,
    _round_in_progress,
    _started,
    _text,
)
from ..options import _is_int, _name_ok
from ..state import (
    ACTIVE,
    CHAMPION,
    FINAL_KEY,
    PLANNED,
    READY,
    TIMED_STEPS,
    current_round,
    inventory,
    is_moderator,
    seat_holder_ids,
)


def _add_round(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "add_round")
    _not_over(b.state)
    if b.state.final is not None:
        raise RuleError("the final is under way: no more rounds")
    n = b.state.round_seq + 1
    title = c.get("title") or f"Round {n}"
    if not isinstance(title, str):
        raise RuleError("a round's title is text")
    b.emit("round_added", {"round": f"r{n}", "title": title})


def _reorder_rounds(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "reorder_rounds")
    _not_over(b.state)
    reason = _reason(c, "reordering rounds")
    order = c.get("order")
    if not isinstance(order, (list, tuple)) or not all(isinstance(x, str) for x in order):
        raise RuleError("order must be a list of round ids")
    ids = [r.id for r in b.state.rounds]
    done = [r.id for r in b.state.rounds if r.status != PLANNED]
    todo = [r.id for r in b.state.rounds if r.status == PLANNED]
    order = list(order)
    if order[: len(done)] == done and len(order) == len(ids):
        order = order[len(done) :]
    started = [x for x in order if x in done]
    if started:
        raise RuleError(
            "round(s) {started} already started: only rounds not started may be reordered",
            started=", ".join(started),
        )
    if sorted(order) != sorted(todo) or len(set(order)) != len(order):
        raise RuleError(
            "order must list each round not started exactly once: {todo}", todo=", ".join(todo)
        )
    b.emit("rounds_reordered", {"order": done + order}, reason=reason)


def _appoint_moderator(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "appoint_moderator")
    who = _text(c, "username", "the new moderator's username")
    s = b.state
    if who == s.organizer:
        raise RuleError("the organizer is a moderator already")
    if who in s.moderators:
        raise RuleError("{who} is a moderator already", who=who)
    if s.status.get(who) in (ACTIVE, CHAMPION):
        raise RuleError("{who} is an entrant of this show and cannot moderate it", who=who)
    user_id = c.get("user_id")
    if "user_id" in c and not _is_int(user_id):  # the platform names the account
        raise RuleError(
            "{who} has no account on this platform: only an account can moderate", who=who
        )
    if user_id is not None and user_id in seat_holder_ids(s):  # by account, whatever the name
        raise RuleError("{who} holds a seat in this show and cannot moderate it", who=who)
    if user_id is not None and user_id == s.organizer_id:
        raise RuleError("the organizer is a moderator already")
    b.emit("moderator_appointed", {"username": who, "user_id": user_id})


def _remove_moderator(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "remove_moderator")
    who = _text(c, "username", "the moderator's username")
    reason = _reason(c, "removing a moderator")
    s = b.state
    if who == s.organizer:
        raise RuleError("the organizer cannot be removed as a moderator")
    if who not in s.moderators:
        raise RuleError("{who} is not a moderator of this show", who=who)
    b.emit(
        "moderator_removed",
        {"username": who, "user_id": s.moderator_ids.get(who)},
        reason=reason,
    )


def _view_omnisciently(b: _Builder, c: Mapping[str, Any]) -> None:
    """A moderator looks at a match with every card shown: recorded for the audit."""
    _need_moderator(b, "view_omnisciently")
    stream = _text(c, "match_stream", "match_stream (the match looked at)")
    s = b.state
    uid = s.organizer_id if b.actor == s.organizer else s.moderator_ids.get(b.actor)
    b.emit(
        "match_viewed_omnisciently",
        {"match_stream": stream, "user_id": uid, "username": b.actor},
        visible_to=(),  # staff only
    )


def _substitute(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "substitute")
    s = b.state
    _started(s)  # before the start, entrants withdraw and registrations are declined
    reason = _reason(c, "a substitution")
    out, new = c.get("out"), c.get("in")
    if not _name_ok(out) or not _name_ok(new):
        raise RuleError("a substitution needs out and in (usernames)")
    if s.status.get(out) != ACTIVE:
        raise RuleError("{out} is not an active entrant", out=out)
    if new in s.entrants:
        raise RuleError("{new} has already been an entrant of this show", new=new)
    if is_moderator(s, new):
        raise RuleError("{new} moderates this show and cannot enter it", new=new)
    rnd = current_round(s)
    if rnd is not None:
        for d in rnd.duels:
            if d.opened and not d.decided and out in d.seats:
                raise RuleError(
                    "{out} is playing a death match: rule on that match instead", out=out
                )
    if s.final is not None and out in s.final.players:
        raise RuleError("{out} is playing the final: rule on that match instead", out=out)
    holder = c.get("holder")
    if not (holder is None or _is_int(holder) or bot_name(holder) is not None):
        raise RuleError(
            "the substitute is played by an account (its id) or a bot ({bots})", bots=BOTS_IN_WORDS
        )
    if _is_int(holder):  # by account, whatever the names
        if holder == s.organizer_id or holder in s.moderator_ids.values():
            raise RuleError("the account chosen to play {new} runs or moderates this show", new=new)
        if holder in seat_holder_ids(s):
            raise RuleError(
                "the account chosen to play {new} holds an entrant of this show already", new=new
            )
    moved = [it.id for it in inventory(s, out)]
    b.emit(
        "entrant_substituted",
        {"out": out, "in": new, "items": moved, "holder": holder},
        reason=reason,
    )


def _extend_deadline(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "extend_deadline")
    step = c.get("step")
    final = b.state.final
    if step == READY and final is not None and final.awaiting_ready:
        _not_over(b.state)
        rid = FINAL_KEY  # the final's ready-check
    else:
        rid = _round_in_progress(b, c).id
    reason = _reason(c, "extending a deadline")
    if step not in TIMED_STEPS:
        raise RuleError("step must be one of {timed_steps}", timed_steps=", ".join(TIMED_STEPS))
    secs = c.get("seconds")
    if not isinstance(secs, (int, float)) or isinstance(secs, bool) or not 0 < secs <= MAX_EXTEND_S:
        raise RuleError(
            "seconds must be a positive number, at most {max_extend_s}", max_extend_s=MAX_EXTEND_S
        )
    who = c.get("entrant")
    keys = [
        k
        for k in b.state.deadlines
        if k[0] == rid and k[1] == step and (who is None or k[2] == who)
    ]
    if not keys:
        where = "for the final" if rid == FINAL_KEY else f"in round {rid}"
        raise RuleError("no deadline for {step} is running {where}", step=step, where=where)
    b.emit(
        "deadline_extended",
        {"round": rid, "step": step, "seconds": secs, "entrants": sorted(k[2] for k in keys)},
        reason=reason,
    )


def _release_autopilot(b: _Builder, c: Mapping[str, Any]) -> None:
    """The organizer makes their own steps from now on (no autopilot makes them)."""
    _need_organizer(b, "release_autopilot")
    _not_over(b.state)
    if b.state.autopilot_released:
        raise RuleError("you have taken over already: the autopilot makes none of your steps")
    b.emit("autopilot_released", {})


def _resume_autopilot(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "resume_autopilot")
    _not_over(b.state)
    if not b.state.autopilot_released:
        raise RuleError("the autopilot makes your steps already: take over first")
    b.emit("autopilot_resumed", {})


HANDLERS = {
    "add_round": _add_round,
    "reorder_rounds": _reorder_rounds,
    "appoint_moderator": _appoint_moderator,
    "remove_moderator": _remove_moderator,
    "view_omnisciently": _view_omnisciently,
    "substitute": _substitute,
    "extend_deadline": _extend_deadline,
    "release_autopilot": _release_autopilot,
    "resume_autopilot": _resume_autopilot,
}
