"""A reminder in words, in the active language (pages) or English (e-mail,
push sent by a worker)."""

from django.utils.translation import gettext as _

from .models import CHECK_IN_OPEN, MATCH_READY, YOUR_TURN


def title(kind: str) -> str:
    return {
        CHECK_IN_OPEN: _("Check-in is open"),
        MATCH_READY: _("Your match is ready"),
        YOUR_TURN: _("Your turn"),
    }.get(kind, kind)


def text(kind: str, params: dict) -> str:
    p = {k: v for k, v in params.items() if isinstance(v, (str, int, float))}
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
    return kind
