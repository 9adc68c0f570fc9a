"""The Love Letter cards in the reader's language, and the history words
both games (Love Letter, Doubting Love Letter) share."""

from __future__ import annotations

from collections.abc import Callable

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from .base import Card, card_of, seat_name

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


# ---- history in words: what both games' describers share ---------------------
Words = Callable[[str, dict, str | None, dict], str | None]


def who(d: dict, names: dict, key: str = "seat") -> str:
    """The name of the seat ``d[key]``."""
    return seat_name(names, d.get(key))


def describer(*parts: Words) -> Callable[[dict, str | None, dict], str | None]:
    """A game's ``describe``: the first of ``parts`` that has words for the event."""

    def describe(event: dict, you: str | None, names: dict) -> str | None:
        t, d = event["type"], event["data"]
        for words in parts:
            text = words(t, d, you, names)
            if text is not None:
                return text
        return None

    return describe


def seen_or_not(d: dict, names: dict, seen: str, unseen: str, **more) -> str:
    """``seen`` when the event shows its card to this reader, else ``unseen``
    (both formats get ``who`` and ``more``; ``seen`` the card too)."""
    values = {"who": who(d, names), **more}
    if "card" in d:
        return seen % {**values, "card": rank(d["card"])}
    return unseen % values


def dealt_or_discarded(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """A card dealt or discarded: the same words in both games."""
    if t == "card_dealt":
        return seen_or_not(d, names, _("%(who)s got %(card)s."), _("%(who)s got a card."))
    if t == "card_discarded":
        return _("%(who)s discarded %(card)s.") % {"who": who(d, names), "card": rank(d["card"])}
    return None


def hands_shown(cards: dict, names: dict) -> str:
    """ "Ann Baron (3), Bob Guard (1)": seats and the cards they show."""
    return ", ".join(f"{names.get(s, s)} {rank(c)}" for s, c in cards.items())


def looked_at(d: dict, names: dict, you: str | None, key: str, seen: str) -> str:
    """A hand looked at (a Priest's effect): ``seen`` names the card to who may see it."""
    whose = card_of(names, d.get(key), you)
    return seen_or_not(d, names, seen, _("%(who)s looked at %(whose)s."), whose=whose)


def traded(d: dict, names: dict, you: str | None, mine: str, theirs: str, **other) -> str:
    """Hands traded (a King's effect): ``mine`` says what the reader now
    holds when the reader is one of the two, ``theirs`` is what everyone
    else reads (both get ``who`` and ``other``, the seat traded with)."""
    values = {"who": who(d, names), **other}
    cards = d.get("cards")
    if cards and you in cards:
        return mine % {**values, "card": rank(cards[you])}
    return theirs % values
