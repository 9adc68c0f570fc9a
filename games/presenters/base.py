"""The shapes a game's table is made of (no I/O; words through gettext).

Each game's presenter (``games/presenters/<game>.py``) turns what a seat may
see (its ``view``) into cards, piles and controls; ``games/presenters/table.py``
puts them on a page. A
``Control`` is one command type with the fields that vary; any choice of
one value per field is a legal command, so a form built from it can only
offer legal moves, and ``command`` re-checks what came back.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.core.fields import whole

# the standard deck's suits and face ranks, as people read them
SUIT_NAMES = {
    "C": gettext_noop("clubs"),
    "D": gettext_noop("diamonds"),
    "H": gettext_noop("hearts"),
    "S": gettext_noop("spades"),
}
RANK_NAMES = {
    "A": gettext_noop("Ace"),
    "J": gettext_noop("Jack"),
    "Q": gettext_noop("Queen"),
    "K": gettext_noop("King"),
}


@dataclass(frozen=True)
class Card:
    text: str  # what is printed big: "3", "7H", "?"
    name: str = ""  # "Baron", "hearts"
    look: str = ""  # a CSS class: the game's look, a suit
    note: str = ""  # small print: "bluff", "claimed 5"
    value: str = ""  # how a command names it ("3", "7H"); "" for none

    @property
    def art(self) -> str:
        """The face drawn for it in static/cards/cards.svg: a suit, a Love
        Letter character, Higher or Lower's face; a hidden card's back
        (which depends on nothing of the card)."""
        looks = self.look.split()
        if "back" in looks:
            return "back"
        suit = next((k[5:] for k in looks if k.startswith("suit-")), "")
        if suit in SUIT_NAMES:
            return f"suit-{suit}"
        if "ll" in looks and self.text.isdigit() and 1 <= int(self.text) <= 8:
            return f"ll-{self.text}"
        return "hl" if "hl" in looks else "plain"

    @property
    def label(self) -> str:
        """The card in words, in the reader's language, for a screen reader
        ("Baron (3)", "Jack of spades", "card 14", "hidden card")."""
        art = self.art
        if art == "back":
            words = self.name or _("hidden card")
        elif art.startswith("suit-") and self.value[:-1]:
            rank = self.value[:-1]
            words = _("%(rank)s of %(suit)s") % {
                "rank": _(RANK_NAMES[rank]) if rank in RANK_NAMES else rank,
                "suit": _(SUIT_NAMES[art[5:]]),
            }
        elif art.startswith("ll-") and self.name:
            words = f"{self.name} ({self.text})"
        elif art == "hl":
            words = _("card %(n)s") % {"n": self.text}
        else:
            words = " ".join(w for w in (self.text, self.name) if w)
        return f"{words}, {self.note}" if self.note else words


HIDDEN = Card("?", "", "back")


@dataclass(frozen=True)
class Pile:
    title: str
    cards: tuple[Card, ...] = ()
    lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class SeatPart:
    """What a game adds to one seat: facts (lives, tokens), cards, piles."""

    facts: tuple[str, ...] = ()
    hand: tuple[Card, ...] = ()
    piles: tuple[Pile, ...] = ()
    status: str = ""  # "protected", "out of this round", ...: marks the seat
    reserve: float | None = None
    out: bool = False  # eliminated: the seat is greyed


@dataclass(frozen=True)
class Board:
    seats: Mapping[str, SeatPart] = field(default_factory=dict)
    regions: tuple[Pile, ...] = ()
    notices: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    value: str  # what the form sends
    label: str
    sets: Mapping[str, Any] | None = None  # command fields; None: {field: value}


@dataclass(frozen=True)
class Field:
    name: str
    label: str
    choices: tuple[Choice, ...] = ()
    # a whole-number range instead of choices (bids, stakes)
    lo: int | None = None
    hi: int | None = None
    step: int = 1
    widget: str = ""  # "buttons", "select", "slider", "number"; "" picks one

    @property
    def is_range(self) -> bool:
        return not self.choices

    @property
    def shown_as(self) -> str:
        if self.widget:
            return self.widget
        return "number" if self.is_range else "select"

    def values(self, sample: int | None = None) -> list[Mapping[str, Any]]:
        """The command fields each value sets (a range: every step, or an
        even sample of ``sample`` of them with both ends)."""
        if self.choices:
            return [_sets(self.name, c) for c in self.choices]
        assert self.lo is not None, f"{self.name}: a range needs lo"
        hi = self.hi if self.hi is not None else self.lo + 20 * self.step
        steps = list(range(self.lo, hi + 1, self.step))
        if sample is not None and len(steps) > sample:
            picked = {steps[round(i * (len(steps) - 1) / (sample - 1))] for i in range(sample)}
            steps = sorted(picked)
        return [{self.name: v} for v in steps]


def _sets(name: str, choice: Choice) -> Mapping[str, Any]:
    return choice.sets if choice.sets is not None else {name: choice.value}


class BadForm(ValueError):
    """A submitted form that does not fit the control (message for people)."""


@dataclass(frozen=True)
class Control:
    key: str  # unique on the table: names the form
    type: str  # the command type
    label: str  # the button's words
    fixed: Mapping[str, Any] = field(default_factory=dict)
    fields: tuple[Field, ...] = ()
    help: str = ""

    def command(self, form: Mapping[str, Any]) -> dict:
        """The command a submitted form asks for; BadForm when a value is
        not one the control offered."""
        out: dict[str, Any] = {"type": self.type, **self.fixed}
        for f in self.fields:
            raw = form.get(f.name)
            # an empty value is a choice only where one is offered ("nobody")
            if raw is None or (raw == "" and not any(c.value == "" for c in f.choices)):
                raise BadForm(_("choose %(what)s") % {"what": f.label.lower()})
            raw = str(raw).strip()
            if f.choices:
                chosen = next((c for c in f.choices if c.value == raw), None)
                if chosen is None:
                    raise BadForm(
                        _("%(value)s is not one of the choices for %(what)s")
                        % {"value": repr(raw), "what": f.label.lower()}
                    )
                out.update(_sets(f.name, chosen))
                continue
            value = whole(raw)
            if value is None:
                raise BadForm(_("%(what)s must be a whole number") % {"what": f.label})
            if value < f.lo or (f.hi is not None and value > f.hi):
                if f.hi is not None:
                    words = _("%(what)s must be from %(lo)s to %(hi)s")
                else:
                    words = _("%(what)s must be from %(lo)s or more")
                raise BadForm(words % {"what": f.label, "lo": f.lo, "hi": f.hi})
            if (value - f.lo) % f.step:
                raise BadForm(
                    _("%(what)s goes in steps of %(step)s from %(lo)s")
                    % {"what": f.label, "step": f.step, "lo": f.lo}
                )
            out[f.name] = value
        return out

    def commands(self, sample: int | None = None) -> Iterator[dict]:
        """Every command this control offers (ranges sampled if asked)."""
        for parts in itertools.product(*(f.values(sample) for f in self.fields)):
            cmd: dict[str, Any] = {"type": self.type, **self.fixed}
            for p in parts:
                cmd.update(p)
            yield cmd

    def form_values(self) -> Iterator[dict[str, str]]:
        """Every form this control can send (for tests: ranges at both ends)."""
        options = []
        for f in self.fields:
            if f.choices:
                options.append([(f.name, c.value) for c in f.choices])
            else:
                hi = f.hi if f.hi is not None else f.lo + 4 * f.step
                options.append([(f.name, str(f.lo)), (f.name, str(hi))])
        for parts in itertools.product(*options):
            yield dict(parts)


def one_choice_field(name: str, label: str, pairs, widget: str = "") -> Field:
    """A field from (value, label) pairs."""
    return Field(name, label, tuple(Choice(str(v), lab) for v, lab in pairs), widget=widget)


# ---- words shared by the games' histories ---------------------------------
def seat_name(names: Mapping[str, str], seat: Any) -> str:
    """A seat as the viewer reads it ("you" for their own)."""
    return names.get(seat, str(seat))


def card_of(names: Mapping[str, str], seat: Any, you: str | None) -> str:
    """ "your card" or "ben's card": the whole phrase, so each language puts
    the owner where it belongs ("votre carte", "la carte de ben")."""
    if seat == you:
        return _("your card")
    return _("%(who)s's card") % {"who": seat_name(names, seat)}
