"""A reminder in words, in the active language (pages) or English (e-mail,
push sent by a worker)."""

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from .models import CHECK_IN_OPEN, DISPUTE_FILED, MATCH_READY, YOUR_TURN


def title(kind: str) -> str:
    return {
        CHECK_IN_OPEN: _("Check-in is open"),
        MATCH_READY: _("Your match is ready"),
        YOUR_TURN: _("Your turn"),
        DISPUTE_FILED: _("New dispute"),
    }.get(kind, kind)


def _match(params: dict) -> str | None:
    """The match a reminder is about, in the reader's language: from its
    parts (a death match, the final, and their seats) or its row; None: the
    stored words (older reminders) stand."""
    seats = params.get("seats")
    if params.get("made") in ("final", "death_match") and isinstance(seats, list):
        # not inside an f-string: xgettext would not find it
        versus = " " + pgettext("between the seats of a match", "v") + " "
        names = versus.join(str(s) for s in seats)
        if params["made"] == "final":
            return _("the final %(seats)s") % {"seats": names}
        return _("death match %(seats)s") % {"seats": names}
    if isinstance(params.get("match_id"), int):
        from games.models import Match

        match = Match.objects.filter(pk=params["match_id"]).first()
        return str(match) if match else None
    return None


def text(kind: str, params: dict) -> str:
    p = {k: v for k, v in params.items() if isinstance(v, (str, int, float))}
    said = _match(params)
    if said is not None:
        p["match"] = said
    if kind == CHECK_IN_OPEN:
        return _("Check-in is open for %(show)s: check in before it starts.") % p
    if kind == MATCH_READY and p.get("waits"):
        return (
            _(
                "Your match is ready: %(match)s. Press “I am here” on its page "
                "within %(seconds)s s; its clocks wait for you until then."
            )
            % p
        )
    if kind == MATCH_READY and p.get("seconds"):
        return (
            _(
                "Your match is ready: %(show)s, %(match)s. Confirm you are there "
                "within %(seconds)s s or you forfeit."
            )
            % p
        )
    if kind == MATCH_READY:
        return _("Your match is ready: %(show)s, %(match)s.") % p
    if kind == YOUR_TURN:
        return _("Your turn: %(match)s waits for you.") % p
    if kind == DISPUTE_FILED:
        return _("A dispute was filed in %(show)s: claim it on the dashboard.") % p
    return kind
