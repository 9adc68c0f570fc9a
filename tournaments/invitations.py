"""Invitations, one service for the console and the API.

Two kinds, both signed links (nothing secret is stored; Django's signing
with the site's key, a salt per kind, valid INVITE_MAX_AGE_S):

- an account invitation (the console): a link that creates one named account;
- a show invitation: the organizer invites a person to hold an entrant of a
  show (``invite``, an event in the show's log); whoever accepts the link
  with an account (logged in, or with an API token) holds the entrant from
  then on (``invitation_accepted``); the organizer may revoke an open one.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core import signing

from games.core.protocol import RuleError
from games.models import Match

from . import show_services, shows

INVITE_MAX_AGE_S = 14 * 24 * 3600
ACCOUNT_SALT = "console.invite"
SHOW_SALT = "shows.invite"


# ---- accounts -------------------------------------------------------------------------
def account_token(username: str, invited_by: int) -> str:
    return signing.dumps({"u": username, "by": invited_by}, salt=ACCOUNT_SALT)


def invited_username(token: str) -> str:
    """The account name an invitation link creates; RuleError when forged or expired."""
    try:
        return signing.loads(token, salt=ACCOUNT_SALT, max_age=INVITE_MAX_AGE_S)["u"]
    except (signing.BadSignature, KeyError, TypeError):
        raise RuleError("this invitation link is not valid or has expired") from None


# ---- shows --------------------------------------------------------------------------------
@dataclass(frozen=True)
class ShowInvitation:
    show_stream: str
    invitation_id: str
    entrant: str
    status: str
    token: str | None = None  # only when it is created: shown once


def invite(stream: str, entrant: str, acting: show_services.Acting, **command_id) -> ShowInvitation:
    """The organizer invites a person to hold ``entrant``: the link's token
    (a retried ``command_id``: the same invitation's)."""
    rows = show_services.command(
        stream, {"type": "invite", "entrant": entrant}, acting, **command_id
    )
    state, _, _ = show_services.load(stream)
    inv = state.invitations[rows[0].data["invitation_id"]]
    token = signing.dumps({"s": stream, "i": inv.id}, salt=SHOW_SALT)
    return ShowInvitation(stream, inv.id, inv.entrant, inv.status, token)


def listing(stream: str) -> list[shows.Invitation]:
    state, _, _ = show_services.load(stream)
    return sorted(state.invitations.values(), key=lambda i: int(i.id.split("-")[1]))


def revoke(stream: str, invitation_id: str, acting: show_services.Acting, **command_id) -> None:
    show_services.command(
        stream, {"type": "revoke_invitation", "invitation_id": invitation_id}, acting, **command_id
    )


def read_token(token: str) -> tuple[str, str]:
    """(show stream, invitation id) of a show invitation's token."""
    try:
        data = signing.loads(token, salt=SHOW_SALT, max_age=INVITE_MAX_AGE_S)
        return str(data["s"]), str(data["i"])
    except (signing.BadSignature, KeyError, TypeError):
        raise RuleError("this invitation is not valid or has expired: ask for a new one") from None


def accept(token: str, user, command_id: str | None = None) -> ShowInvitation:
    """``user`` holds the invited entrant from now on. Refused (nothing
    written) when the link is forged or expired, the invitation revoked or
    used, or the entrant is playing a match (accept once it has ended)."""
    if user is None or not user.is_authenticated:
        raise RuleError("log in (or send an API token) to accept an invitation")
    stream, iid = read_token(token)
    try:
        state, _, _ = show_services.load(stream)
    except RuleError:
        raise RuleError("the show of this invitation no longer exists") from None
    inv = state.invitations.get(iid)
    if inv is not None and _playing(stream, inv.entrant):
        raise RuleError(
            "{entrant} is playing a match: accept once it has ended", entrant=inv.entrant
        )
    show_services.command(
        stream,
        {
            "type": "accept_invitation",
            "invitation_id": iid,
            "user_id": user.pk,
            "username": user.username,
        },
        show_services.Acting(user.username, shows.SYSTEM),
        command_id=command_id,
        account=user.pk,
    )
    inv = show_services.load(stream)[0].invitations[iid]
    return ShowInvitation(stream, inv.id, inv.entrant, inv.status)


def _playing(stream: str, entrant: str) -> bool:
    live = Match.objects.filter(show_stream=stream, status="live")
    return any(entrant in m.seats for m in live)
