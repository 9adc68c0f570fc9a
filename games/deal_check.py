"""The deal check in words, one sentence for every game's deal reveal."""

from django.utils.translation import gettext as _

from games.core.deal import verify_deal


def deal_check(deal: dict) -> str:
    """A revealed deal checked against the fingerprint published at the deal."""
    h = str(deal.get("commitment", ""))[:16]
    if verify_deal(deal.get("commitment", ""), deal.get("order", []), deal.get("salt", "")):
        return _("Deal verified: the revealed order and salt match fingerprint %(h)s…") % {"h": h}
    return _("Deal NOT verified: the revealed order does not match fingerprint %(h)s…") % {"h": h}
