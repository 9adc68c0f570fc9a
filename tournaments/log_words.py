"""A show's log in the reader's language, as a person would write it.

``shows.public_log`` and ``shows.audit_log`` (pure, English) keep their
``text`` for the API; the pages show ``log_lines`` instead: each event in
words, with a match named by its title and a move by its number, never a
stream or an item's id.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine_words import item_name

from .ruling_words import RULING_WORDS


def _names(values: Iterable[Any] | None) -> str:
    return ", ".join(str(v) for v in values or ())


def _game(slug: Any) -> str:
    from games.core.registry import rules_for

    try:
        return rules_for(str(slug)).name
    except Exception:  # an unknown game: its slug, as recorded
        return str(slug)


def _item(d: Mapping[str, Any]) -> str:
    return item_name(d["item"]) if d.get("item") else _("an item")


def _dispute_no(dispute_id: Any) -> str:
    """ "d-3" is dispute no. 3."""
    text = str(dispute_id or "")
    return text.split("-", 1)[1] if text.startswith("d-") else text


def match_titles(show_stream: str) -> dict[str, str]:
    """Each match stream of a show and the title people read."""
    from games.models import Match

    return {m.stream: str(m) for m in Match.objects.filter(show_stream=show_stream)}


def _titles_of(streams: Iterable[Any]) -> dict[str, str]:
    from games.models import Match

    wanted = {s for s in streams if isinstance(s, str) and s.startswith("match-")}
    return {m.stream: str(m) for m in Match.objects.filter(stream__in=wanted)} if wanted else {}


def round_number(round_id: Any) -> str:
    """ "r3" is round 3 (a round's number, as the pages say it)."""
    text = str(round_id or "")
    return text[1:] if text[:1] == "r" and text[1:].isdigit() else text


def _step(kind: Any) -> str:
    return _(str(kind)).replace("_", " ")


def _ruling(kind: Any) -> str:
    return str(RULING_WORDS.get(kind, str(kind).replace("_", " ")))


# ---- one describer per kind of show event: (data, titles) -> words ----
Describer = Callable[[Mapping[str, Any], Mapping[str, str]], str]


def _match(titles: Mapping[str, str], stream: Any) -> str:
    return titles.get(str(stream), _("a match"))


def _count(d: Mapping[str, Any], key: str) -> int:
    return len(d.get(key) or [])


def _show_created(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    n = _count(d, "entrants")
    return ngettext(
        "%(name)s opens with %(n)s entrant", "%(name)s opens with %(n)s entrants", n
    ) % {"name": d.get("name"), "n": n}


def _invitation_accepted(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    if d.get("username"):
        return _("%(who)s now holds %(seat)s") % {
            "who": d.get("username"),
            "seat": d.get("entrant"),
        }
    return _("a person now holds %(seat)s") % {"seat": d.get("entrant")}


def _deadline_extended(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    return ngettext(
        "the deadline to %(step)s is extended by %(s)s second",
        "the deadline to %(step)s is extended by %(s)s seconds",
        d.get("seconds") or 0,
    ) % {"step": _step(d.get("step")), "s": d.get("seconds")}


# the show, its staff, its seats and its autopilot
_SHOW_AND_STAFF: dict[str, Describer] = {
    "show_created": _show_created,
    "round_added": lambda d, t: (
        _("round %(n)s (%(title)s) planned")
        % {"n": round_number(d.get("round")), "title": d.get("title")}
    ),
    "rounds_reordered": lambda d, t: (
        _("rounds reordered: %(order)s")
        % {"order": _names(round_number(r) for r in d.get("order") or ())}
    ),
    "moderator_appointed": lambda d, t: (
        _("%(who)s moderates the show") % {"who": d.get("username")}
    ),
    "moderator_removed": lambda d, t: (
        _("%(who)s no longer moderates the show") % {"who": d.get("username")}
    ),
    "match_viewed_omnisciently": lambda d, t: (
        _("%(who)s looks at %(match)s with every card shown")
        % {"who": d.get("username"), "match": _match(t, d.get("match_stream"))}
    ),
    "entrant_substituted": lambda d, t: (
        _("%(new)s replaces %(old)s") % {"new": d.get("in"), "old": d.get("out")}
    ),
    "autopilot_released": lambda d, t: (
        _("%(who)s takes over the organizer's steps") % {"who": d.get("actor")}
    ),
    "autopilot_resumed": lambda d, t: (
        _("%(who)s hands the organizer's steps to the autopilot") % {"who": d.get("actor")}
    ),
    "invitation_created": lambda d, t: (
        _("a person is invited to hold %(seat)s") % {"seat": d.get("entrant")}
    ),
    "invitation_accepted": _invitation_accepted,
    "invitation_revoked": lambda d, t: (
        _("the invitation to hold %(seat)s is revoked") % {"seat": d.get("entrant")}
    ),
    "deadline_extended": _deadline_extended,
}


def _candidates_named(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    return ngettext(
        "elimination candidate: %(who)s", "elimination candidates: %(who)s", _count(d, "candidates")
    ) % {"who": _names(d.get("candidates"))}


def _final_opened(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    players = _(" vs ").join(str(p) for p in d.get("players") or [])
    return _("final: %(players)s (%(game)s)") % {"players": players, "game": _game(d.get("game"))}


# a round's steps, its death matches and the final
_ROUNDS: dict[str, Describer] = {
    "ranking_entered": lambda d, t: (
        _("round %(n)s: main match won by %(who)s")
        % {"n": round_number(d.get("round")), "who": _names(d.get("winners"))}
    ),
    "token_given": lambda d, t: (
        _("%(giver)s gives a token of life to %(to)s")
        % {"giver": d.get("giver"), "to": d.get("to")}
    ),
    "candidates_named": _candidates_named,
    "dmo_nominated": lambda d, t: (
        _("%(candidate)s nominates %(dmo)s for the death match")
        % {"candidate": d.get("candidate"), "dmo": d.get("dmo")}
    ),
    "game_banned": lambda d, t: (
        _("%(who)s bans %(game)s") % {"who": d.get("by"), "game": _game(d.get("game"))}
    ),
    "game_picked": lambda d, t: (
        _("death match of %(who)s: %(game)s")
        % {"who": d.get("candidate"), "game": _game(d.get("game"))}
    ),
    "death_match_opened": lambda d, t: (
        _("death match %(a)s vs %(b)s opens (%(game)s)")
        % {"a": d.get("candidate"), "b": d.get("dmo"), "game": _game(d.get("game"))}
    ),
    "death_match_linked": lambda d, t: (
        _("the death match of %(who)s is played in %(match)s")
        % {"who": d.get("candidate"), "match": _match(t, d.get("match_stream"))}
    ),
    "death_match_result": lambda d, t: (
        _("%(winner)s wins the death match against %(loser)s")
        % {"winner": d.get("winner"), "loser": d.get("loser")}
    ),
    "entrant_eliminated": lambda d, t: _("%(who)s is eliminated") % {"who": d.get("entrant")},
    "round_finished": lambda d, t: _("round %(n)s ends") % {"n": round_number(d.get("round"))},
    "final_opened": _final_opened,
    "final_result": lambda d, t: _("%(who)s wins the final") % {"who": d.get("winner")},
    "champion_crowned": lambda d, t: _("%(who)s is the champion") % {"who": d.get("champion")},
}

# items
_ITEMS: dict[str, Describer] = {
    "item_granted": lambda d, t: (
        _("%(who)s receives %(item)s, given by %(by)s")
        % {"who": d.get("entrant"), "item": _item(d), "by": d.get("given_by")}
    ),
    "item_transferred": lambda d, t: (
        _("%(item)s passes from %(a)s to %(b)s")
        % {"item": _item(d), "a": d.get("from"), "b": d.get("to")}
    ),
    "item_revoked": lambda d, t: (
        _("%(item)s is taken from %(who)s") % {"item": _item(d), "who": d.get("entrant")}
    ),
    "item_used": lambda d, t: (
        _("%(who)s uses %(item)s") % {"who": d.get("entrant"), "item": _item(d)}
    ),
}


def _dispute_filed(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    n = _dispute_no(d.get("dispute_id"))
    if not d.get("target_stream"):
        return _("dispute no. %(n)s filed") % {"n": n}
    return _("dispute no. %(n)s filed about %(match)s, move %(v)s") % {
        "n": n,
        "match": _match(titles, d.get("target_stream")),
        "v": d.get("target_version"),
    }


def _ruling_applied(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    return _("ruling on dispute no. %(n)s: %(ruling)s, by %(who)s") % {
        "n": _dispute_no(d.get("dispute_id")),
        "ruling": _ruling(d.get("ruling")),
        "who": _names(d.get("moderators")),
    }


# disputes and the rulings that mend the show
_DISPUTES: dict[str, Describer] = {
    "dispute_filed": _dispute_filed,
    "ruling_applied": _ruling_applied,
    "death_match_corrected": lambda d, t: (
        _("ruling: %(winner)s wins the death match, %(loser)s is eliminated")
        % {"winner": d.get("winner"), "loser": d.get("loser")}
    ),
    "death_match_reopened": lambda d, t: (
        _("ruling: the death match of %(who)s is back in play") % {"who": d.get("candidate")}
    ),
    "champion_corrected": lambda d, t: (
        _("ruling: %(who)s is the champion") % {"who": d.get("champion")}
    ),
    "entrant_disqualified": lambda d, t: _("%(who)s is disqualified") % {"who": d.get("entrant")},
}


def _registered(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    if d.get("status") == "waiting":
        return _("%(who)s registers (waiting list)") % {"who": d.get("entrant")}
    if d.get("status") == "applied":
        return _("%(who)s registers (awaiting approval)") % {"who": d.get("entrant")}
    return _("%(who)s registers") % {"who": d.get("entrant")}


def _show_started(d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    n = _count(d, "entrants")
    return ngettext(
        "the show starts with %(n)s entrant", "the show starts with %(n)s entrants", n
    ) % {"n": n}


# a scheduled show: registration, check-in, the start and the ready-checks
_SCHEDULE: dict[str, Describer] = {
    "entrant_registered": _registered,
    "entrant_withdrew": lambda d, t: _("%(who)s withdraws") % {"who": d.get("entrant")},
    "registration_approved": lambda d, t: (
        _("the registration of %(who)s is approved") % {"who": d.get("entrant")}
    ),
    "registration_declined": lambda d, t: (
        _("the registration of %(who)s is declined") % {"who": d.get("entrant")}
    ),
    "entrant_promoted": lambda d, t: (
        _("%(who)s takes a seat from the waiting list") % {"who": d.get("entrant")}
    ),
    "check_in_opened": lambda d, t: _("check-in is open"),
    "entrant_checked_in": lambda d, t: _("%(who)s checks in") % {"who": d.get("entrant")},
    "entrant_dropped": lambda d, t: (
        _("%(who)s is dropped: %(why)s") % {"who": d.get("entrant"), "why": d.get("reason")}
    ),
    "entrant_replaced": lambda d, t: (
        _("%(new)s takes the seat of %(old)s") % {"new": d.get("in"), "old": d.get("out")}
    ),
    "show_started": _show_started,
    "show_cancelled": lambda d, t: _("the show is cancelled: %(why)s") % {"why": d.get("reason")},
    "player_ready": lambda d, t: _("%(who)s is ready") % {"who": d.get("entrant")},
    "ready_check_passed": lambda d, t: _("ready-check passed: the match opens"),
    "no_show_forfeited": lambda d, t: (
        _("%(who)s did not show: %(loser)s forfeits to %(winner)s")
        % {"who": _names(d.get("entrants")), "loser": d.get("loser"), "winner": d.get("winner")}
    ),
}

DESCRIBERS: dict[str, Describer] = {
    **_SHOW_AND_STAFF,
    **_ROUNDS,
    **_ITEMS,
    **_DISPUTES,
    **_SCHEDULE,
}


def describe(kind: str, d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """One show event in words (``titles``: match stream -> its title); a kind
    without a describer by its name."""
    describer = DESCRIBERS.get(kind)
    return describer(d, titles) if describer else _step(kind)


def log_lines(rows: list[dict], show_stream: str) -> list[dict]:
    """``public_log`` or ``audit_log`` rows with their ``text`` in words."""
    titles = match_titles(show_stream)
    # a dispute may be about a match of a bracket the show hosts
    targets = ((r.get("data") or {}).get("target_stream") for r in rows)
    titles = {**_titles_of(targets), **titles}
    out = []
    for row in rows:
        kind = row.get("type") or row.get("kind") or ""
        out.append({**row, "text": describe(kind, row.get("data") or {}, titles)})
    return out
