"""A match as the ratings see it, read from its stream's rows alone: who held
each seat, how the sides ranked, when it ended, and each seat's statistics.
Only events a ruling left standing count; an abandoned match counts for
nothing. Depends on no read model, so any rebuild order gives the same."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from eventlog.store import first
from games import services

from . import stats
from .identity import bot_key, holder_key

ENDINGS = ("series_ended", "series_forfeited", "series_overturned")


@dataclass(frozen=True)
class Side:
    seats: tuple[str, ...]
    players: tuple[str | None, ...]  # player keys; None: an open seat
    rank: int  # 1 best; equal ranks tie


@dataclass(frozen=True)
class Result:
    stream: str
    game: str
    show_stream: str
    sides: tuple[Side, ...]
    position: int  # global id of the event that ended the match: its place in time
    played_at: float  # the game clock's time of that event
    public_at: float  # when its end is shown to everyone (recorded time + the delay)
    rated: bool
    stats: dict[str, dict] = field(default_factory=dict)  # seat -> counters
    items: dict[str, list[str]] = field(default_factory=dict)  # seat -> items used

    @property
    def seat_players(self) -> dict[str, str | None]:
        return {s: p for side in self.sides for s, p in zip(side.seats, side.players, strict=True)}

    @property
    def ratable(self) -> bool:
        """Rated, every seat held, nobody on two seats (a bot against itself
        teaches nothing about its strength)."""
        players = [p for side in self.sides for p in side.players]
        return self.rated and None not in players and len(set(players)) == len(players)


def holders_of(rows) -> dict[str, str | None]:
    """seat -> player key at the end of ``rows`` (the creation record, then
    any change of holder)."""
    created = rows[0].data
    seats = {s: holder_key((created.get("holders") or {}).get(s)) for s in created["seats"]}
    for r in rows:
        if r.type == "match_holder_changed":
            d = r.data
            seats[d["seat"]] = bot_key(d["bot"]) if d.get("bot") else holder_key(d.get("user"))
    return seats


def teams_of(game: str, seats: tuple[str, ...]) -> list[tuple[str, ...]]:
    """The sides: Bleven's four seats play as partners (first and third,
    second and fourth); everyone else alone."""
    if game == "bleven" and len(seats) == 4:
        return [(seats[0], seats[2]), (seats[1], seats[3])]
    return [(s,) for s in seats]


def _ranks(teams, winners, scores) -> list[int]:
    """Winners' sides first (rank 1), the others by their score, ties equal.
    A side wins when all its seats won (a forfeit by one partner loses for
    both); when no side did, when any of its seats did (an overturn names one)."""
    won = [all(s in winners for s in team) for team in teams]
    if not any(won):
        won = [any(s in winners for s in team) for team in teams]
    score = [max(scores.get(s, 0) for s in team) for team in teams]
    others = sorted({score[i] for i, w in enumerate(won) if not w}, reverse=True)
    return [1 if won[i] else 2 + others.index(score[i]) for i in range(len(teams))]


def _time(row) -> float:
    at = row.metadata.get("at")
    if isinstance(at, (int, float)) and not isinstance(at, bool):
        return float(at)
    return row.recorded_at.timestamp()


def _creation(stream: str) -> dict:
    row = first(stream) if stream else None
    return row.data if row is not None else {}


def rated_and_delay(show_stream: str, created: dict) -> tuple[bool, float]:
    """Whether a match counts for ratings (its show or bracket says so; a
    match outside both, its creation) and its spectator delay, from the log."""
    if not show_stream:
        return bool(created.get("rated", False)), float(created.get("spectator_delay_s") or 0)
    parent = _creation(show_stream)
    if show_stream.startswith("show-"):
        options = parent.get("options") or {}
        return bool(options.get("rated", True)), float(options.get("spectator_delay_s") or 0)
    return bool(parent.get("rated", True)), float(created.get("spectator_delay_s") or 0)


def result_of(rows) -> Result | None:
    """The match's result as ``rows`` (its stream from version 1) leave it;
    None while it is not over, or when a ruling took it out of play."""
    if not rows or rows[0].type != "match_created":
        return None
    if any(services.is_platform(r) and r.type == "match_abandoned" for r in rows):
        return None
    kept = services.game_events(rows)
    end = next((r for r in kept if r.type in ENDINGS), None)
    if end is None:
        return None
    created = rows[0].data
    game = created["game"]
    state = services.fold_rows(game, rows)
    if state is None or not state.finished:
        return None
    seats = tuple(state.seats)
    holders = holders_of(rows)
    teams = teams_of(game, seats)
    ranks = _ranks(teams, set(state.winners), state.scores)
    show_stream = created.get("show_stream") or ""
    rated, delay = rated_and_delay(show_stream, created)
    sides = tuple(
        Side(team, tuple(holders.get(s) for s in team), rank)
        for team, rank in zip(teams, ranks, strict=True)
    )
    # shown once its end, and any ruling that changed it since, are older than the delay
    standing = {r.version for r in kept}
    ended: datetime = max(
        r.recorded_at
        for r in rows
        if r.version >= end.version
        and (
            (r.type in ENDINGS and r.version in standing)
            or (services.is_platform(r) and r.type == "match_voided")
        )
    )
    return Result(
        stream=rows[0].stream,
        game=game,
        show_stream=show_stream,
        sides=sides,
        position=end.id,
        played_at=_time(end),
        public_at=ended.timestamp() + delay,
        rated=rated,
        stats=stats.count(game, seats, kept),
        items=stats.items_used(seats, kept),
    )
