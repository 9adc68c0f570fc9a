"""What the broadcast shows of a show: its board, TV's match, the overlays.

Everything here is read as a spectator reads it, whoever asks: the show as
``tournaments.show_page.show_as_seen`` cuts it for a spectator, its matches
through ``games.services.summaries_for`` and
``games.presenters.table.table_for`` with the spectator's viewer (the
visibility policy decides the cut, the delay and which cards show). Nothing here decides what a card reveals."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AnonymousUser

from games import services as match_services
from games import visibility
from games.core.protocol import SPECTATOR_VIEW, RuleError
from games.models import Match
from games.presenters.table import Table, table_for
from tournaments import shows
from tournaments.models import ShowRecord
from tournaments.show_page import not_open_yet, show_as_seen

from . import tv, viewers

SPECTATOR = AnonymousUser()


@dataclass
class LiveMatch:
    summary: match_services.Summary
    table: Table
    stake: float
    viewers: int
    ratings: dict[str, float] = field(default_factory=dict)  # seat -> rating (TV asks)

    @property
    def seats(self) -> list[dict]:
        """Each seat of the table with its rating (None: unrated)."""
        return [{"row": s, "rating": self.ratings.get(s.seat)} for s in self.table.seats]


def _candidate(m: LiveMatch) -> tv.Candidate:
    return tv.Candidate(
        key=m.summary.pk,
        kind=m.summary.kind,
        scores=tuple(s.score for s in m.table.seats),
        target=m.table.target,
        finished=m.table.finished,
    )


def _entrants(seen, view) -> list[dict]:
    rnd = shows.current_round(seen)
    counts = view["item_counts"]
    out = []
    for e in seen.entrants:
        status = seen.status.get(e, "")
        if status in (shows.WITHDRAWN, shows.DECLINED, shows.DROPPED, shows.WAITING):
            continue
        out.append(
            {
                "name": e,
                "status": status,
                "in": status in (shows.ACTIVE, shows.CHAMPION),
                "tokens": rnd.tokens.get(e, 0) if rnd else 0,
                "marks": "♥" * (rnd.tokens.get(e, 0) if rnd else 0),
                "immune": bool(rnd and e in rnd.immune),
                "candidate": bool(rnd and e in rnd.candidates),
                "items": counts.get(e, 0),
            }
        )
    # who is still in first, in the show's order
    return sorted(out, key=lambda x: not x["in"])


def _next_steps(seen) -> list[dict]:
    out = [{"who": d.seat, "step": d.kind, "deadline": d.deadline} for d in shows.pending(seen)]
    upcoming = shows.next_round(seen)
    if not out and upcoming is not None and not seen.champion:
        out.append({"who": "", "step": "next_round", "title": upcoming.title, "deadline": None})
    return out


def live_entries(summaries, per_match: dict[int, int], now: float) -> list[LiveMatch]:
    """The live ones of ``summaries`` with their spectators' tables at ``now``
    (their cut) and what is at stake in each; those not open yet are left out."""
    live = []
    for s in summaries:
        if s.status != "live":
            continue
        try:
            table = table_for(s.match, SPECTATOR_VIEW, now=now)
        except (visibility.NotVisibleYet, RuleError):
            continue
        entry = LiveMatch(s, table, 0.0, per_match.get(s.pk, 0))
        entry.stake = tv.stake(_candidate(entry))
        live.append(entry)
    return live


def board_for(record: ShowRecord, now: float | None = None) -> dict:
    """The show's board as spectators see it at ``now`` (their cut)."""
    now = visibility.clock() if now is None else now
    seen, cut = show_as_seen(record.stream, SPECTATOR, now)
    view = shows.view(seen, shows.SPECTATOR)
    rows = Match.objects.filter(show_stream=record.stream).order_by("id")
    summaries = match_services.summaries_for(rows, SPECTATOR, now=now)
    total, per_match = viewers.show_counts(record.stream)
    live = live_entries(summaries, per_match, now)
    done = [s for s in summaries if s.status != "live"]
    facts = visibility.show_facts(record.stream)
    return {
        "show": record,
        "view": view,
        "entrants": _entrants(seen, view),
        "rounds": view["rounds"],
        "final": view["final"],
        "champion": view["champion"],
        "next_steps": _next_steps(seen),
        "live": live,
        "opening": not_open_yet(rows, summaries),  # by number and time only
        "done": done,
        "delay_s": facts.spectator_delay_s if facts else 0,
        "cut": cut,
        "viewers": total,
        "now": now,
    }


def featured(live: list[LiveMatch], on_screen: int | None = None) -> LiveMatch | None:
    """The match TV shows now: ``tv.pick`` from ``on_screen``, the one the
    screen asking shows (its poll says it), so a read writes nothing."""
    stakes = {m.summary.pk: m.stake for m in live}
    chosen = tv.pick(on_screen, stakes)
    return next((m for m in live if m.summary.pk == chosen), None)


def on_screen(query) -> int | None:
    """The match a TV or overlay poll says it shows (``?on=``); anything
    but a match id is no match (the best one is picked)."""
    raw = query.get("on", "")
    return int(raw) if raw.isascii() and raw.isdigit() and len(raw) < 19 else None
