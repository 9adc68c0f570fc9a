"""How invitations fold into the show: an entrant invited, the invitation
accepted (its account now holds the entrant) or revoked."""

from __future__ import annotations

from dataclasses import replace

from .state import Invitation, ShowState


def _created(s: ShowState, d) -> ShowState:
    inv = Invitation(d["invitation_id"], d["entrant"], d["actor"])
    return replace(
        s, invitations={**s.invitations, inv.id: inv}, invitation_seq=s.invitation_seq + 1
    )


def _accepted(s: ShowState, d) -> ShowState:
    inv = replace(s.invitations[d["invitation_id"]], status="accepted", username=d["username"])
    return replace(
        s,
        invitations={**s.invitations, inv.id: inv},
        held={**s.held, inv.entrant: d["user_id"]},
    )


def _revoked(s: ShowState, d) -> ShowState:
    inv = replace(s.invitations[d["invitation_id"]], status="revoked")
    return replace(s, invitations={**s.invitations, inv.id: inv})


EVOLVERS = {
    "invitation_created": _created,
    "invitation_accepted": _accepted,
    "invitation_revoked": _revoked,
}
