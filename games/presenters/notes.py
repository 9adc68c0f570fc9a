"""The home page's notes ("Your match has opened", "Your turn: ... waits
for you (ana: bout 2: play card)") in the reader's language. The notes are
stored in English (games.waiting, games.readmodels: one text for every
reader, written by whoever's request moved the match); a page reads their
parts back and says them in its own words."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from ..models import Match
from ..waiting import STORED_DECISIONS, head, stored_title
from .table import decision_words

# what a note asks of its reader's seat, where the table's words (about a
# seat: "say they are here") would not read as asked of them
NOTE_DECISIONS = {"ready": gettext_noop("say you are here")}
# a note's stored words back to the decision's kind (older notes stored "ready")
_KINDS = {words: kind for kind, words in STORED_DECISIONS.items()}


def _decision(stored: str) -> str:
    kind = _KINDS.get(stored, stored.replace(" ", "_"))
    return _(NOTE_DECISIONS[kind]) if kind in NOTE_DECISIONS else decision_words(kind)


def _sayings(match: Match, tail: str) -> list[str] | None:
    """The seats' parts of a note (`` (ana: bout 2: play card)``), in words;
    None when the tail is not of that shape."""
    out = []
    for seat in sorted(match.seats):
        start = f" ({seat}: "
        if not tail.startswith(start) or ")" not in tail[len(start) :]:
            continue
        said, tail = tail[len(start) :].split(")", 1)
        bout, _sep, kind = said.rpartition(": ")
        what = _decision(kind)
        if bout.startswith("bout ") and bout[5:].isdigit():
            what = _("bout %(n)s: %(decision)s") % {"n": bout[5:], "decision": what}
        out.append(_("%(seat)s: %(decision)s") % {"seat": seat, "decision": what})
    return out if not tail else None


def note_words(note) -> str:
    """A note in the reader's language: the notes store English (``waiting.head``,
    ``readmodels``), pages say them in their own words; a note of another
    shape is shown as it is stored."""
    match, text = note.match, note.text
    opened = f"Your match has opened: {stored_title(match)} (you play "
    if text.startswith(opened) and text.endswith(")"):
        seat = text[len(opened) : -1]
        return _("Your match has opened: %(match)s (you play %(seat)s)") % {
            "match": str(match),
            "seat": seat,
        }
    opens = head(match)
    sayings = _sayings(match, text[len(opens) :]) if text.startswith(opens) else None
    if sayings is None:
        return text
    said = _("Your turn: %(match)s waits for you") % {"match": str(match)}
    return said + "".join(f" ({x})" for x in sayings)
