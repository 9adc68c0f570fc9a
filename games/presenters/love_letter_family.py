"""The Love Letter cards in the reader's language (for both games' tables)."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from .base import Card

# the rules engines name cards in English; these are the names people read
NAMES = {
    1: gettext_noop("Guard"),
    2: gettext_noop("Priest"),
    3: gettext_noop("Baron"),
    4: gettext_noop("Handmaid"),
    5: gettext_noop("Prince"),
    6: gettext_noop("King"),
    7: gettext_noop("Countess"),
    8: gettext_noop("Princess"),
}


def card_name(r) -> str:
    return _(NAMES[int(r)])


def rank(r) -> str:
    """ "Baron (3)": a card's name and value."""
    r = int(r)
    return f"{card_name(r)} ({r})"


def face(r, note: str = "") -> Card:
    r = int(r)
    return Card(str(r), card_name(r), f"ll r{r}", note, str(r))
