"""The builder every command writes through (emit folds as it goes), and
the role and field checks the commands share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import Ctx, Event, RoleRequired, RuleError

from .evolve import evolve
from .options import _name_ok
from .state import (
    ACTIVE,
    CANCELLED,
    MODERATOR,
    ORGANIZER,
    PLAYER,
    SCHEDULED,
    SYSTEM,
    Round,
    ShowState,
    current_round,
    is_moderator,
)


class _Builder:
    def __init__(self, state: ShowState, cmd: Mapping[str, Any], ctx: Ctx):
        self.state = state
        self.cmd = cmd
        self.ctx = ctx
        self.events: list[Event] = []
        self.actor = cmd.get("actor")
        self.role = cmd.get("role")
        self.on_behalf: str | None = None  # set by timeouts: the entrant whose step it is

    def meta(self, reason: str | None = None) -> dict[str, Any]:
        r = self.cmd.get("reason", "") if reason is None else reason
        m = {"actor": self.actor, "role": self.role, "reason": r or "", "at": self.ctx.now}
        if self.on_behalf is not None:
            m["timeout"] = True
            m["on_behalf_of"] = self.on_behalf
        return m

    def emit(
        self,
        type_: str,
        data: Mapping[str, Any],
        reason: str | None = None,
        visible_to: tuple[str, ...] | None = None,
        public: Mapping[str, Any] | None = None,
    ) -> Event:
        meta = self.meta(reason)
        ev = Event(
            type_,
            {**data, **meta},
            visible_to,
            None if public is None else {**public, **meta},
        )
        self.state = evolve(self.state, ev)
        self.events.append(ev)
        return ev


_WHAT = {
    "add_round": "add a round",
    "reorder_rounds": "reorder rounds",
    "appoint_moderator": "appoint a moderator",
    "remove_moderator": "remove a moderator",
    "view_omnisciently": "see every card of a match",
    "release_autopilot": "take over from the autopilot",
    "resume_autopilot": "hand the steps back to the autopilot",
    "substitute": "substitute an entrant",
    "extend_deadline": "extend a deadline",
    "enter_ranking": "enter a main-match ranking",
    "pick_game": "pick the death-match game",
    "give_token": "give a token of life",
    "choose_candidate": "choose the elimination candidate",
    "nominate": "nominate a death-match opponent",
    "ban_game": "ban a game",
    "grant_item": "grant an item",
    "transfer_item": "transfer an item",
    "revoke_item": "revoke an item",
    "item_used": "record an item's use",
    "death_match_linked": "link a death match",
    "death_match_result": "record a death-match result",
    "final_linked": "link the final",
    "final_result": "record the final's result",
    "file_dispute": "file a dispute",
    "claim_dispute": "claim a dispute",
    "transfer_dispute": "transfer a dispute",
    "rule_dispute": "rule on a dispute",
    "approve_ruling": "approve a ruling",
    "reject_ruling": "reject a ruling",
    "timeout": "time out a step",
    "invite": "invite a person to hold an entrant",
    "accept_invitation": "record an accepted invitation",
    "revoke_invitation": "revoke an invitation",
    "register": "record a registration",
    "withdraw": "withdraw",
    "approve_registration": "approve a registration",
    "decline_registration": "decline a registration",
    "open_check_in": "open the check-in",
    "check_in": "check in",
    "start": "start the show",
    "ready": "confirm being there for a match",
}


def _need_organizer(b: _Builder, kind: str) -> None:
    if b.actor != b.state.organizer or b.role not in (ORGANIZER, MODERATOR):
        raise RoleRequired("only the organizer may {what}", what=_WHAT[kind])


def _need_moderator(b: _Builder, kind: str) -> None:
    if b.role not in (ORGANIZER, MODERATOR) or not is_moderator(b.state, b.actor):
        raise RoleRequired("only a moderator of this show may {what}", what=_WHAT[kind])


def _need_system(b: _Builder, kind: str) -> None:
    if b.role != SYSTEM:
        raise RoleRequired(
            "only the system may {what}: it is recorded from the match", what=_WHAT[kind]
        )


def _player(b: _Builder, kind: str) -> str:
    """The entrant acting (a timeout acts for the entrant whose step it is)."""
    if b.on_behalf is not None:
        return b.on_behalf
    if b.role != PLAYER or b.actor not in b.state.entrants:
        raise RoleRequired("only an entrant of this show may {what}", what=_WHAT[kind])
    if b.state.status.get(b.actor) != ACTIVE:
        raise RuleError("{actor} is no longer in the show", actor=b.actor)
    return b.actor


def _self_field(b: _Builder, c: Mapping[str, Any], key: str, who: str) -> None:
    if key in c and c[key] is not None and c[key] != who:
        raise RuleError("you may only act for yourself")


def _not_over(s: ShowState) -> None:
    if s.champion is not None:
        raise RuleError("the show is over: {champion} is the champion", champion=s.champion)
    if s.phase == CANCELLED:
        raise RuleError("the show was cancelled: fewer than two entrants were there at its start")


def _started(s: ShowState) -> None:
    """Refused before a scheduled show starts (it starts by itself at its time)."""
    _not_over(s)
    if s.phase == SCHEDULED:
        raise RuleError("the show has not started yet: it starts by itself at its start time")


def _text(c: Mapping[str, Any], key: str, what: str) -> str:
    v = c.get(key)
    if not _name_ok(v):
        raise RuleError("{what} is required", what=what)
    return v


def _reason(c: Mapping[str, Any], what: str) -> str:
    return _text(c, "reason", f"a reason for {what}")


def _round_in_progress(b: _Builder, c: Mapping[str, Any]) -> Round:
    s = b.state
    _not_over(s)
    rnd = current_round(s)
    if rnd is None:
        raise RuleError("no round is in progress")
    rid = c.get("round")
    if rid is not None and rid != rnd.id:
        raise RuleError("round {rid} is not in progress; round {id} is", rid=rid, id=rnd.id)
    return rnd
