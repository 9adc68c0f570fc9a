"""Reads of ratings, profiles, head-to-head and leaderboards.

Everything here is shown to everyone alike, so it keeps to what everyone
may see of each match (games/visibility.py): a rating is the fold of the
results whose end is older than the spectator delay (when the show's own
pages tell them) and of no other (``public_fold``); statistics, items and
recent matches count a match once its full replay is open to everyone (end
older than the delay, result settled)."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import UTC, datetime, time

from django.db.models import Max

from games import visibility
from games.core.registry import available
from games.models import Match
from tournaments.models import BracketRecord, ShowRecord
from tournaments.selectors import disputed_matches

from . import identity, skill
from .models import Entry, Participation, PlayedMatch, Rating, RatingPoint, Season
from .readmodels import rated_result
from .stats import COUNTERS


def _now(now: float | None) -> float:
    return visibility.clock() if now is None else now


def _dt(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


@dataclass(frozen=True)
class Line:
    """A player's rating in one game, as shown now."""

    player: str
    name: str
    game: str
    mu: float
    sigma: float
    games: int
    last_at: float | None

    @property
    def ordinal(self) -> float:
        return skill.ordinal(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.games < skill.PROVISIONAL_GAMES

    @property
    def is_bot(self) -> bool:
        return identity.is_bot(self.player)

    def as_dict(self) -> dict:
        return {
            "player": self.name,
            "bot": self.is_bot,
            "game": self.game,
            "rating": round(self.ordinal, 6),
            "mu": self.mu,
            "sigma": self.sigma,
            "games": self.games,
            "provisional": self.provisional,
            "last_played": _dt(self.last_at).isoformat() if self.last_at else None,
        }


@dataclass(frozen=True)
class PublicFold:
    """A game's ratings as its public results alone give them: the fold of
    every rated result whose end everyone may see now. The stored ratings
    hold it up to the game's first rated result still held back (``held_from``,
    its position; every earlier result is public); from there the public
    results are folded again on each player's last stored point before it.
    ``skills``: the players with a result from ``held_from`` on, each with
    their public skill (None: none of theirs is public); ``points``: their
    points of that fold. Any other player is shown as stored."""

    held_from: int | None = None
    skills: dict[str, skill.Skill | None] = field(default_factory=dict)
    points: dict[str, list[tuple[PlayedMatch, skill.Skill]]] = field(default_factory=dict)


def public_fold(game: str, now: float) -> PublicFold:
    rated = PlayedMatch.objects.filter(game=game, rated=True)
    held = rated.filter(public_at__gt=_dt(now)).order_by("position")
    held_from = held.values_list("position", flat=True).first()
    if held_from is None:
        return PublicFold()
    later = list(rated.filter(position__gte=held_from).order_by("position"))
    touched = {p for pm in later for s in pm.sides for p in s["players"]}
    start = _stored_before(game, touched, held_from)
    shown = {pm.stream: pm for pm in later if pm.public_at.timestamp() <= now}
    skills = dict(start)
    points: dict[str, list] = defaultdict(list)
    for res, _before, after in skill.fold((rated_result(pm) for pm in shown.values()), start):
        skills.update(after)
        for p, s in after.items():
            points[p].append((shown[res.key], s))
    return PublicFold(held_from, {p: skills.get(p) for p in touched}, dict(points))


def _stored_before(game: str, players: set[str], position: int) -> dict[str, skill.Skill]:
    """Each of ``players``' stored skill after their last rated result of
    ``game`` before ``position`` (those with none are left out)."""
    before = RatingPoint.objects.filter(
        game=game, player__in=players, played__position__lt=position
    )
    last = dict(before.order_by().values_list("player").annotate(at=Max("played__position")))
    found = before.filter(played__position__in=set(last.values())).select_related("played")
    return {
        p.player: skill.Skill(p.mu, p.sigma, p.games, p.played.played_at.timestamp())
        for p in found
        if last[p.player] == p.played.position
    }


def _fold_of(folds: dict[str, PublicFold], game: str, now: float) -> PublicFold:
    if game not in folds:
        folds[game] = public_fold(game, now)
    return folds[game]


def _lines(ratings, now: float, folds: dict[str, PublicFold] | None = None) -> list[Line]:
    """``ratings`` as everyone may see them now (those with no public result
    left out); ``folds``: the public folds already made, by game."""
    folds = {} if folds is None else folds
    names = identity.names({r.player for r in ratings})
    out = []
    for r in ratings:
        fold = _fold_of(folds, r.game, now)
        if r.player in fold.skills:
            s = fold.skills[r.player]
        else:
            s = skill.Skill(r.mu, r.sigma, r.games, r.last_at.timestamp())
        if s is None:
            continue
        s = skill.as_of(s, now)
        out.append(Line(r.player, names[r.player], r.game, s.mu, s.sigma, s.games, s.last_at))
    return out


def _ranked(lines: list[Line]) -> list[Line]:
    return sorted(lines, key=lambda x: (-x.ordinal, -x.games, x.name))


def leaderboard(
    game: str, *, bots: bool = False, season: Season | None = None, now: float | None = None
) -> list[Line]:
    """A game's players best first: people, or bots (never mixed). A season
    rates only its own matches, everyone starting afresh."""
    now = _now(now)
    if season is not None:
        return _ranked([x for x in season_lines(game, season, now) if x.is_bot == bots])
    ratings = Rating.objects.filter(
        game=game, player__startswith=identity.BOT if bots else identity.USER
    )
    return _ranked(_lines(list(ratings), now))


def player_ratings(game: str, keys, *, now: float | None = None) -> dict:
    """The ratings in ``game`` of ``keys`` ("u:<id>", "bot:level:N") as
    everyone may see them now, by key, for the games' pages: the practice
    picker's levels and a table's seats (games.player_ratings)."""
    from games.player_ratings import ShownRating

    ratings = list(Rating.objects.filter(game=game, player__in=list(keys)))
    return {
        x.player: ShownRating(x.ordinal, x.games, x.provisional) for x in _lines(ratings, _now(now))
    }


def season_named(sid: str) -> Season | None:
    """The season of id ``sid`` (as a page or the API names it), or None."""
    if not isinstance(sid, str) or not sid.isprintable() or len(sid) > 20:
        return None
    return Season.objects.filter(season_id=sid).first()


def season_window(season: Season) -> tuple[datetime, datetime]:
    start = datetime.combine(season.starts, time.min, tzinfo=UTC)
    end = datetime.combine(season.ends, time.max, tzinfo=UTC)
    return start, end


def season_lines(game: str, season: Season, now: float) -> list[Line]:
    start, end = season_window(season)
    played = PlayedMatch.objects.filter(
        game=game,
        rated=True,
        played_at__gte=start,
        played_at__lte=end,
        public_at__lte=_dt(now),
    ).order_by("position")
    skills: dict[str, skill.Skill] = {}
    for _res, _before, after in skill.fold(rated_result(pm) for pm in played):
        skills.update(after)
    names = identity.names(skills)
    until = min(now, end.timestamp())
    out = []
    for p, s in skills.items():
        s = skill.as_of(s, until)
        out.append(Line(p, names[p], game, s.mu, s.sigma, s.games, s.last_at))
    return out


def rating_of(player: str, game: str, now: float | None = None) -> Line | None:
    r = Rating.objects.filter(player=player, game=game).first()
    lines = _lines([r], _now(now)) if r is not None else []
    return lines[0] if lines else None


def seed_order(game: str, entrants: list[str], players: dict[str, str | None], now=None):
    """``entrants`` best rated first in ``game`` (``players``: entrant ->
    player key); the unrated keep their order after the rated."""
    now = _now(now)
    keys = {k for k in players.values() if k}
    found = {r.player: r for r in Rating.objects.filter(game=game, player__in=keys)}
    shown = {x.player: x.ordinal for x in _lines(list(found.values()), now)}

    def key(item):
        i, e = item
        o = shown.get(players.get(e))
        return (o is None, -(o or 0.0), i)

    return [e for _i, e in sorted(enumerate(entrants), key=key)]


# ---- what may be told of a match --------------------------------------------------
def published(played, now: float) -> list:
    """Of ``played`` (PlayedMatch rows), those whose full replay everyone
    may open now: the end older than the delay, the result settled."""
    due = [pm for pm in played if pm.public_at.timestamp() <= now]
    held = disputed_matches(pm.stream for pm in due if pm.show_stream.startswith("show-"))
    return [pm for pm in due if pm.stream not in held]


@dataclass
class GameStats:
    game: str
    matches: int = 0
    wins: int = 0
    counters: dict[str, int] = field(default_factory=dict)


@dataclass
class Profile:
    player: str
    name: str
    is_bot: bool
    ratings: list[Line]
    history: dict[str, list[dict]]
    recent: list[dict]
    stats: list[GameStats]
    items: dict[str, int]
    entries: list[dict]


def _matches(streams) -> dict[str, Match]:
    return {m.stream: m for m in Match.objects.filter(stream__in=list(streams))}


def _match_line(pm: PlayedMatch, me: str, names: dict, matches: dict) -> dict:
    mine = next((s for s in pm.sides if me in s["players"]), None)
    others = [names.get(p, p) for s in pm.sides for p in s["players"] if p and p != me]
    match = matches.get(pm.stream)
    return {
        "match": match.pk if match else None,
        "title": str(match) if match else pm.stream,
        "game": pm.game,
        "played_at": pm.played_at,
        "rank": mine["rank"] if mine else None,
        "won": bool(mine and mine["rank"] == 1),
        "opponents": others,
        "rated": pm.rated,
    }


def profile(player: str, *, now: float | None = None, recent: int = 10) -> Profile:
    now = _now(now)
    name = identity.names([player])[player]
    folds: dict[str, PublicFold] = {}
    ratings = _ranked(_lines(list(Rating.objects.filter(player=player)), now, folds))
    history = _history(player, now, folds)
    parts = list(
        Participation.objects.filter(player=player)
        .select_related("played")
        .order_by("-played__position")
    )
    shown = {pm.stream for pm in published([p.played for p in parts], now)}
    parts = [p for p in parts if p.played.stream in shown]
    stats: dict[str, GameStats] = {}
    items: Counter = Counter()
    for p in parts:
        g = stats.setdefault(
            p.played.game,
            GameStats(p.played.game, counters=dict.fromkeys(COUNTERS.get(p.played.game, ()), 0)),
        )
        g.matches += 1
        g.wins += int(p.won)
        for k, v in p.stats.items():
            g.counters[k] = g.counters.get(k, 0) + int(v)
        items.update(p.items)
    latest = [p.played for p in parts[:recent]]
    names = identity.names({q for pm in latest for s in pm.sides for q in s["players"] if q})
    matches = _matches(pm.stream for pm in latest)
    return Profile(
        player=player,
        name=name,
        is_bot=identity.is_bot(player),
        ratings=ratings,
        history=dict(history),
        recent=[_match_line(pm, player, names, matches) for pm in latest],
        stats=[stats[r.slug] for r in available() if r.slug in stats],
        items=dict(sorted(items.items())),
        entries=entries_of(player, now),
    )


def _point(played: PlayedMatch, s) -> dict:
    return {
        "at": played.played_at,
        "rating": skill.ordinal(s.mu, s.sigma),
        "mu": s.mu,
        "sigma": s.sigma,
        "games": s.games,
    }


def _history(player: str, now: float, folds: dict[str, PublicFold]) -> dict[str, list[dict]]:
    """The player's rating after each public result, per game: the stored
    points before each game's first held result, then its public fold's."""
    history: dict[str, list[dict]] = defaultdict(list)
    stored = RatingPoint.objects.filter(player=player).select_related("played")
    for p in stored.order_by("played__position"):
        held_from = _fold_of(folds, p.game, now).held_from
        if held_from is None or p.played.position < held_from:
            history[p.game].append(_point(p.played, p))
    for game, fold in folds.items():
        for pm, s in fold.points.get(player, ()):
            history[game].append(_point(pm, s))
    return dict(history)


def entries_of(player: str, now: float) -> list[dict]:
    """The shows and brackets a player entered, and the titles they won:
    a title once every match of it is over and public."""
    entries = list(Entry.objects.filter(player=player))
    streams = {e.stream for e in entries}
    shows = {r.stream: r for r in ShowRecord.objects.filter(stream__in=streams)}
    brackets = {r.stream: r for r in BracketRecord.objects.filter(stream__in=streams)}
    live = set(
        Match.objects.filter(show_stream__in=streams, status="live").values_list(
            "show_stream", flat=True
        )
    )
    pending = set(
        PlayedMatch.objects.filter(show_stream__in=streams, public_at__gt=_dt(now)).values_list(
            "show_stream", flat=True
        )
    )
    out = []
    for e in entries:
        record = shows.get(e.stream) or brackets.get(e.stream)
        if record is None:
            continue
        told = record.champion and e.stream not in live and e.stream not in pending
        out.append(
            {
                "kind": "show" if e.stream in shows else "bracket",
                "id": record.pk,
                "name": record.name,
                "entrant": e.entrant,
                "champion": bool(told and record.champion == e.entrant),
                "over": bool(told),
            }
        )
    return out


# ---- head to head -----------------------------------------------------------------
def head_to_head(a: str, b: str, *, now: float | None = None) -> dict:
    """Every public match the two played against each other (not as
    partners): per game, who placed better how often."""
    now = _now(now)
    mine = set(Participation.objects.filter(player=a).values_list("played_id", flat=True))
    both = PlayedMatch.objects.filter(pk__in=mine, players__player=b).order_by("-position")
    games: dict[str, dict] = {}
    lines = []
    names = identity.names([a, b])
    matches = _matches(pm.stream for pm in both)
    for pm in published(list(both), now):
        rank = {p: s["rank"] for s in pm.sides for p in s["players"] if p in (a, b)}
        if any(a in s["players"] and b in s["players"] for s in pm.sides):
            continue  # partners
        g = games.setdefault(pm.game, {"game": pm.game, "matches": 0, "a_wins": 0, "b_wins": 0})
        g["matches"] += 1
        if rank[a] < rank[b]:
            g["a_wins"] += 1
        elif rank[b] < rank[a]:
            g["b_wins"] += 1
        lines.append(_match_line(pm, a, names, matches))
    return {
        "a": names[a],
        "b": names[b],
        "games": [games[r.slug] for r in available() if r.slug in games],
        "matches": lines,
    }
