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


def _step(kind: Any) -> str:
    return _(str(kind)).replace("_", " ")


def _ruling(kind: Any) -> str:
    return str(RULING_WORDS.get(kind, str(kind).replace("_", " ")))


def describe(kind: str, d: Mapping[str, Any], titles: Mapping[str, str]) -> str:
    """One show event in words (``titles``: match stream -> its title)."""
    g = d.get

    def match(stream: Any) -> str:
        return titles.get(str(stream), _("a match"))

    def registered() -> str:
        if g("status") == "waiting":
            return _("%(who)s registers (waiting list)") % {"who": g("entrant")}
        if g("status") == "applied":
            return _("%(who)s registers (awaiting approval)") % {"who": g("entrant")}
        return _("%(who)s registers") % {"who": g("entrant")}

    entrants = len(g("entrants") or [])
    texts: dict[str, Callable[[], str]] = {
        "show_created": lambda: (
            ngettext(
                "%(name)s opens with %(n)s entrant", "%(name)s opens with %(n)s entrants", entrants
            )
            % {"name": g("name"), "n": entrants}
        ),
        "round_added": lambda: (
            _("round %(n)s (%(title)s) planned") % {"n": g("round"), "title": g("title")}
        ),
        "rounds_reordered": lambda: (
            _("rounds reordered: %(order)s") % {"order": _names(g("order"))}
        ),
        "moderator_appointed": lambda: _("%(who)s moderates the show") % {"who": g("username")},
        "moderator_removed": lambda: (
            _("%(who)s no longer moderates the show") % {"who": g("username")}
        ),
        "match_viewed_omnisciently": lambda: (
            _("%(who)s looks at %(match)s with every card shown")
            % {"who": g("username"), "match": match(g("match_stream"))}
        ),
        "entrant_substituted": lambda: (
            _("%(new)s replaces %(old)s") % {"new": g("in"), "old": g("out")}
        ),
        "autopilot_released": lambda: (
            _("%(who)s takes over the organizer's steps") % {"who": g("actor")}
        ),
        "autopilot_resumed": lambda: (
            _("%(who)s hands the organizer's steps to the autopilot") % {"who": g("actor")}
        ),
        "invitation_created": lambda: (
            _("a person is invited to hold %(seat)s") % {"seat": g("entrant")}
        ),
        "invitation_accepted": lambda: (
            _("%(who)s now holds %(seat)s") % {"who": g("username"), "seat": g("entrant")}
            if g("username")
            else _("a person now holds %(seat)s") % {"seat": g("entrant")}
        ),
        "invitation_revoked": lambda: (
            _("the invitation to hold %(seat)s is revoked") % {"seat": g("entrant")}
        ),
        "deadline_extended": lambda: (
            ngettext(
                "the deadline to %(step)s is extended by %(s)s second",
                "the deadline to %(step)s is extended by %(s)s seconds",
                g("seconds") or 0,
            )
            % {"step": _step(g("step")), "s": g("seconds")}
        ),
        "ranking_entered": lambda: (
            _("round %(n)s: main match won by %(who)s")
            % {"n": g("round"), "who": _names(g("winners"))}
        ),
        "token_given": lambda: (
            _("%(giver)s gives a token of life to %(to)s") % {"giver": g("giver"), "to": g("to")}
        ),
        "candidates_named": lambda: (
            ngettext(
                "elimination candidate: %(who)s",
                "elimination candidates: %(who)s",
                len(g("candidates") or []),
            )
            % {"who": _names(g("candidates"))}
        ),
        "dmo_nominated": lambda: (
            _("%(candidate)s nominates %(dmo)s for the death match")
            % {"candidate": g("candidate"), "dmo": g("dmo")}
        ),
        "game_banned": lambda: (
            _("%(who)s bans %(game)s") % {"who": g("by"), "game": _game(g("game"))}
        ),
        "game_picked": lambda: (
            _("death match of %(who)s: %(game)s")
            % {"who": g("candidate"), "game": _game(g("game"))}
        ),
        "death_match_opened": lambda: (
            _("death match %(a)s vs %(b)s opens (%(game)s)")
            % {"a": g("candidate"), "b": g("dmo"), "game": _game(g("game"))}
        ),
        "death_match_linked": lambda: (
            _("the death match of %(who)s is played in %(match)s")
            % {"who": g("candidate"), "match": match(g("match_stream"))}
        ),
        "death_match_result": lambda: (
            _("%(winner)s wins the death match against %(loser)s")
            % {"winner": g("winner"), "loser": g("loser")}
        ),
        "entrant_eliminated": lambda: _("%(who)s is eliminated") % {"who": g("entrant")},
        "round_finished": lambda: _("round %(n)s ends") % {"n": g("round")},
        "final_opened": lambda: (
            _("final: %(players)s (%(game)s)")
            % {
                "players": _(" vs ").join(str(p) for p in g("players") or []),
                "game": _game(g("game")),
            }
        ),
        "final_result": lambda: _("%(who)s wins the final") % {"who": g("winner")},
        "champion_crowned": lambda: _("%(who)s is the champion") % {"who": g("champion")},
        "item_granted": lambda: (
            _("%(who)s receives %(item)s, given by %(by)s")
            % {"who": g("entrant"), "item": _item(d), "by": g("given_by")}
        ),
        "item_transferred": lambda: (
            _("%(item)s passes from %(a)s to %(b)s")
            % {"item": _item(d), "a": g("from"), "b": g("to")}
        ),
        "item_revoked": lambda: (
            _("%(item)s is taken from %(who)s") % {"item": _item(d), "who": g("entrant")}
        ),
        "item_used": lambda: _("%(who)s uses %(item)s") % {"who": g("entrant"), "item": _item(d)},
        "dispute_filed": lambda: (
            _("dispute no. %(n)s filed about %(match)s, move %(v)s")
            % {
                "n": _dispute_no(g("dispute_id")),
                "match": match(g("target_stream")),
                "v": g("target_version"),
            }
            if g("target_stream")
            else _("dispute no. %(n)s filed") % {"n": _dispute_no(g("dispute_id"))}
        ),
        "ruling_applied": lambda: (
            _("ruling on dispute no. %(n)s: %(ruling)s, by %(who)s")
            % {
                "n": _dispute_no(g("dispute_id")),
                "ruling": _ruling(g("ruling")),
                "who": _names(g("moderators")),
            }
        ),
        "death_match_corrected": lambda: (
            _("ruling: %(winner)s wins the death match, %(loser)s is eliminated")
            % {"winner": g("winner"), "loser": g("loser")}
        ),
        "death_match_reopened": lambda: (
            _("ruling: the death match of %(who)s is back in play") % {"who": g("candidate")}
        ),
        "champion_corrected": lambda: _("ruling: %(who)s is the champion") % {"who": g("champion")},
        "entrant_disqualified": lambda: _("%(who)s is disqualified") % {"who": g("entrant")},
        "entrant_registered": registered,
        "entrant_withdrew": lambda: _("%(who)s withdraws") % {"who": g("entrant")},
        "registration_approved": lambda: (
            _("the registration of %(who)s is approved") % {"who": g("entrant")}
        ),
        "registration_declined": lambda: (
            _("the registration of %(who)s is declined") % {"who": g("entrant")}
        ),
        "entrant_promoted": lambda: (
            _("%(who)s takes a seat from the waiting list") % {"who": g("entrant")}
        ),
        "check_in_opened": lambda: _("check-in is open"),
        "entrant_checked_in": lambda: _("%(who)s checks in") % {"who": g("entrant")},
        "entrant_dropped": lambda: (
            _("%(who)s is dropped: %(why)s") % {"who": g("entrant"), "why": g("reason")}
        ),
        "entrant_replaced": lambda: (
            _("%(new)s takes the seat of %(old)s") % {"new": g("in"), "old": g("out")}
        ),
        "show_started": lambda: (
            ngettext(
                "the show starts with %(n)s entrant",
                "the show starts with %(n)s entrants",
                entrants,
            )
            % {"n": entrants}
        ),
        "show_cancelled": lambda: _("the show is cancelled: %(why)s") % {"why": g("reason")},
        "player_ready": lambda: _("%(who)s is ready") % {"who": g("entrant")},
        "ready_check_passed": lambda: _("ready-check passed: the match opens"),
        "no_show_forfeited": lambda: (
            _("%(who)s did not show: %(loser)s forfeits to %(winner)s")
            % {"who": _names(g("entrants")), "loser": g("loser"), "winner": g("winner")}
        ),
    }
    fn = texts.get(kind)
    return fn() if fn else _step(kind)


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
