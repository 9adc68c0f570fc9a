"""Invitations: the organizer invites a person to hold an entrant; the
platform records the acceptance once it has checked the signed link."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from games.core.protocol import RuleError

from ..builder import _Builder, _need_organizer, _need_system, _not_over, _text
from ..options import _is_int
from ..state import ACTIVE, Invitation

STAFF_ONLY = ()  # the organizer and moderators see who was invited


def _active_unheld(b: _Builder, entrant: str) -> None:
    s = b.state
    if s.status.get(entrant) != ACTIVE:
        raise RuleError("{entrant} is not an active entrant of this show", entrant=entrant)
    if entrant in s.held:
        raise RuleError("{entrant} is held by an account already", entrant=entrant)


def _open(b: _Builder, c: Mapping[str, Any]) -> Invitation:
    iid = _text(c, "invitation_id", "invitation_id")
    inv = b.state.invitations.get(iid)
    if inv is None:
        raise RuleError("this show has no invitation {iid}", iid=iid)
    if inv.status != "open":
        raise RuleError("invitation {iid} is {status} already", iid=iid, status=inv.status)
    return inv


def _invite(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "invite")
    _not_over(b.state)
    who = _text(c, "entrant", "the entrant invited")
    _active_unheld(b, who)
    iid = f"invitation-{b.state.invitation_seq + 1}"
    b.emit(
        "invitation_created",
        {"invitation_id": iid, "entrant": who},
        visible_to=STAFF_ONLY,
    )


def _accept_invitation(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_system(b, "accept_invitation")
    s = b.state
    _not_over(s)
    inv = _open(b, c)
    user_id, username = c.get("user_id"), c.get("username")
    if not _is_int(user_id) or not isinstance(username, str):
        raise RuleError("an invitation is accepted by an account")
    if user_id == s.organizer_id or user_id in s.moderator_ids.values():
        raise RuleError("{username} runs this show and cannot enter it", username=username)
    if user_id in s.held.values():
        raise RuleError("{username} holds an entrant of this show already", username=username)
    _active_unheld(b, inv.entrant)
    b.emit(
        "invitation_accepted",
        {"invitation_id": inv.id, "entrant": inv.entrant, "user_id": user_id, "username": username},
        visible_to=STAFF_ONLY,
        public={"entrant": inv.entrant},
    )


def _revoke_invitation(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "revoke_invitation")
    inv = _open(b, c)
    b.emit(
        "invitation_revoked",
        {"invitation_id": inv.id, "entrant": inv.entrant},
        visible_to=STAFF_ONLY,
    )


HANDLERS = {
    "invite": _invite,
    "accept_invitation": _accept_invitation,
    "revoke_invitation": _revoke_invitation,
}
