"""An overlay's settings, read from its address's query (``?position=
bottom-right&panel=dark&accent=gold&size=l&seats=1,2``): where its panel sits,
its colours (from a fixed palette: each a CSS class, no style of its own), its
size and which seats a match's panel shows. A bad value is refused in words
(``BadSetting``: the page answers 400); a setting left out takes its default."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

POSITIONS = ("top-left", "top", "top-right", "bottom-left", "bottom", "bottom-right")
PALETTE = ("dark", "light", "red", "blue", "green", "gold")
SIZES = ("s", "m", "l")
MAX_SEATS = 8
DEFAULTS = {"position": "top-left", "panel": "dark", "accent": "gold", "size": "m"}
CHOICES = {"position": POSITIONS, "panel": PALETTE, "accent": PALETTE, "size": SIZES}


# the settings' values in words, for the organizer's form
WORDS = {
    "top-left": gettext_lazy("top left"),
    "top": gettext_lazy("top, centred"),
    "top-right": gettext_lazy("top right"),
    "bottom-left": gettext_lazy("bottom left"),
    "bottom": gettext_lazy("bottom, centred"),
    "bottom-right": gettext_lazy("bottom right"),
    "dark": gettext_lazy("dark"),
    "light": gettext_lazy("light"),
    "red": gettext_lazy("red"),
    "blue": gettext_lazy("blue"),
    "green": gettext_lazy("green"),
    "gold": gettext_lazy("gold"),
    "s": gettext_lazy("small"),
    "m": gettext_lazy("medium"),
    "l": gettext_lazy("large"),
}


class BadSetting(ValueError):
    """A setting the overlay cannot take; its message says why, in words."""


@dataclass(frozen=True)
class Settings:
    position: str = DEFAULTS["position"]
    panel: str = DEFAULTS["panel"]
    accent: str = DEFAULTS["accent"]
    size: str = DEFAULTS["size"]
    seats: tuple[int, ...] = ()  # positions from 1; none: every seat

    @property
    def classes(self) -> str:
        """The CSS classes that draw these settings."""
        return f"pos-{self.position} panel-{self.panel} accent-{self.accent} size-{self.size}"

    def query(self) -> str:
        """The settings that differ from the defaults, as a query string."""
        fields = {k: getattr(self, k) for k in DEFAULTS if getattr(self, k) != DEFAULTS[k]}
        if self.seats:
            fields["seats"] = ",".join(str(n) for n in self.seats)
        return urlencode(fields)

    def pick(self, seats: list) -> list:
        """The seats of a match these settings show, in the match's order."""
        if not self.seats:
            return list(seats)
        return [s for i, s in enumerate(seats, start=1) if i in self.seats]


def _one(query, name: str) -> str | None:
    values = query.getlist(name)
    if not values:
        return None
    if len(values) > 1:
        raise BadSetting(_("Give the setting “%(name)s” once.") % {"name": name})
    value = values[0]
    if value == "":
        return None  # a form's field left empty: the default
    if len(value) > 40 or not value.isascii() or not value.isprintable():
        raise BadSetting(_("The setting “%(name)s” is not a value it takes.") % {"name": name})
    return value


def _seats(raw: str) -> tuple[int, ...]:
    parts = raw.split(",") if raw else []
    if not parts or any(not p.isdigit() or not 1 <= int(p) <= MAX_SEATS for p in parts):
        raise BadSetting(
            _("“seats” takes seat numbers from 1 to %(n)s, separated by commas (1,2).")
            % {"n": MAX_SEATS}
        )
    if len(set(parts)) != len(parts):
        raise BadSetting(_("“seats” names a seat twice."))
    return tuple(sorted(int(p) for p in parts))


def parse(query) -> Settings:
    """The settings of ``query`` (a QueryDict), or BadSetting."""
    fields: dict = {}
    for name, choices in CHOICES.items():
        value = _one(query, name)
        if value is None:
            continue
        if value not in choices:
            raise BadSetting(
                _("The setting “%(name)s” takes one of: %(choices)s.")
                % {"name": name, "choices": ", ".join(choices)}
            )
        fields[name] = value
    raw = _one(query, "seats")
    if raw is not None:
        fields["seats"] = _seats(raw)
    return Settings(**fields)


def kind_of(query, kinds) -> str:
    """The overlay the organizer's preview shows (``?kind=``), the first by default."""
    kind = _one(query, "kind")
    if kind is None:
        return kinds[0]
    if kind not in kinds:
        raise BadSetting(
            _("The setting “%(name)s” takes one of: %(choices)s.")
            % {"name": "kind", "choices": ", ".join(kinds)}
        )
    return kind


def choices_in_words() -> dict[str, list[tuple[str, str]]]:
    """Each setting's values with their words (the form's options)."""
    return {name: [(v, WORDS[v]) for v in values] for name, values in CHOICES.items()}
