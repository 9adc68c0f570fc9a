"""What a username may be: NFKC-normalised, and never one that passes for
another (a Cyrillic е in "organizеr", letters of several scripts, a
compatibility form such as a full-width letter)."""

from __future__ import annotations

import unicodedata

from django.utils.translation import gettext as _


def _script(ch: str) -> str:
    """The script of a letter by its Unicode name (LATIN, CYRILLIC, GREEK...)."""
    name = unicodedata.name(ch, "")
    return name.split(" ", 1)[0] if name else "UNKNOWN"


def refusal(name: str) -> str | None:
    """Why ``name`` may not be a username, or None when it may."""
    if unicodedata.normalize("NFKC", name) != name:
        return _("a username is written in its plain form: %(plain)s") % {
            "plain": unicodedata.normalize("NFKC", name)
        }
    scripts = {_script(ch) for ch in name if ch.isalpha()}
    if len(scripts) > 1:
        return _(
            "a username may not mix letters of several alphabets (they pass for one "
            "another, like a Cyrillic е for a Latin e)"
        )
    if any(unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") for ch in name):
        return _("a username may not contain invisible or control characters")
    return None
