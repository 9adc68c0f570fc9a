"""A match's title in the reader's language.

A title a person typed is shown as typed. A title the system made (a show's
death match, its final) is stored as its parts (``Match.title_words``: what
it is, the round's title or the show's name; the seats are the match's own)
and put in words when it is shown, so a French page says it in French. The
English sentence kept in ``Match.title`` serves the API and the matches made
before the parts were stored: a stored sentence of the made shapes is read
back into its parts (checked against the match's kind and seats)."""

from __future__ import annotations

import re

from django.utils.translation import gettext as _

_ROUND = re.compile(r"^Round (\d+)$")


def round_title(title) -> str:
    """A round's title: one the system made ("Round 3") in the reader's
    language, one a person typed as typed."""
    m = _ROUND.match(str(title))
    return _("Round %(n)s") % {"n": m.group(1)} if m else str(title)


def made_words(kind: str, place: str, seats) -> dict:
    """The parts of a made title (what ``Match.title_words`` holds)."""
    return {"made": kind, "place": place, "seats": list(seats)}


def made_english(words: dict) -> str:
    """The English sentence of a made title (the API's ``title``)."""
    if words.get("made") == "final":
        return f"{words['place']}: the final"
    return f"{words['place']}: death match " + " v ".join(words["seats"])


def _parts_of(match) -> dict | None:
    words = getattr(match, "title_words", None) or None
    if words:
        return words
    title, seats = match.title or "", list(match.seats or ())
    if match.kind == "final" and title.endswith(": the final"):
        return made_words("final", title[: -len(": the final")], seats)
    tail = ": death match " + " v ".join(seats)
    if match.kind in ("death_match", "death") and seats and title.endswith(tail):
        return made_words("death_match", title[: -len(tail)], seats)
    return None


def match_title(match) -> str:
    """What a page calls ``match``, in the reader's language."""
    words = _parts_of(match)
    if words is None:
        return match.title or f"{match.game_name}: {' v '.join(match.seats)}"
    if words.get("made") == "final":
        return _("%(show)s: the final") % {"show": words["place"]}
    seats = list(words.get("seats") or match.seats)
    return _("%(round)s: death match %(first)s v %(second)s") % {
        "round": round_title(words["place"]),
        "first": seats[0] if seats else "",
        "second": " v ".join(seats[1:]),
    }
