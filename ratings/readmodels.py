"""The ratings read models, kept in step with the log and rebuilt from it
by ``rebuild_read_models``.

Who entered shows and brackets, and the seasons, are projected inside each
append. A match's result is rated by the ``ratings`` reactor, which follows
the log (``rate_changes``): not in the append's transaction, so a move or a
timeout that ends a match neither waits for its game's ratings lock nor
pays for the rating, and matches of one game ending at once do not take
turns in their requests. It reads the result from the match's own stream
whenever an event could change it (its end, a ruling that voids or
overturns, its abandonment). A new result after every other of its game is
rated on top of the current ratings; any other change (a corrected or
withdrawn result, one that lands before others) re-folds the game's ratings
from the results in log order, so the ratings that followed a correction
are rated again; a result already stored as it is changes nothing (the
reactor may see an event twice). A rebuild ends with a re-fold of every
game: the same ratings, whatever order it applied events in."""

from __future__ import annotations

from datetime import UTC, date, datetime

from django.contrib.auth import get_user_model
from django.db import transaction

from eventlog import rows as db_rows
from eventlog.models import StoredEvent
from eventlog.readmodels import read_model, stable_id, unlogged
from eventlog.store import first, lock_name, read
from games import services

from . import skill
from .identity import holder_key, user_id_of
from .models import Entry, Participation, PlayedMatch, Rating, RatingPoint, Season
from .results import ENDINGS, Result, result_of

SEASONS = "ratings-seasons"
MATCH_CHANGES = frozenset({*ENDINGS, "match_voided", "match_abandoned", "match_holder_changed"})


def at(ts: float) -> datetime:
    return datetime.fromtimestamp(ts, tz=UTC)


def _users(keys) -> set[int]:
    ids = {user_id_of(k) for k in keys} - {None}
    return set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))


def _user_id(key: str, known: set[int]) -> int | None:
    uid = user_id_of(key)
    return uid if uid in known else None


def _forget(stream: str) -> None:
    """A match's played row is rewritten in place by ``_settle`` (its rating
    points stay until ``_finish`` re-folds its game); entries and seasons go."""
    if stream.startswith(("show-", "bracket-")):
        Entry.objects.filter(stream=stream).delete()
    elif stream == SEASONS:
        Season.objects.all().delete()


# matches a rebuild found without a result any more: their played rows go
# when ``_finish`` re-folds their game, under its lock
_gone: set[str] = set()


def _prune() -> None:
    unlogged(Entry.objects.all()).delete()
    _gone.update(unlogged(PlayedMatch.objects.all()).values_list("stream", flat=True))
    if not StoredEvent.objects.filter(stream=SEASONS).exists():
        Season.objects.all().delete()


def _settle(stream: str) -> None:
    """A replayed match's result, as the last event that could change it left it."""
    if not stream.startswith("match-"):
        return
    result = _result_now(stream)
    if result is not None:
        _store(result)
    elif PlayedMatch.objects.filter(stream=stream).exists():
        _gone.add(stream)


def _finish() -> None:
    """Every game's ratings re-folded, each in one transaction under its lock:
    a match that ends meanwhile is rated before or after, never in between."""
    games = {
        *PlayedMatch.objects.values_list("game", flat=True).distinct(),
        *Rating.objects.values_list("game", flat=True).distinct(),
    }
    for game in sorted(games):
        with transaction.atomic():
            lock_game(game)
            for played in PlayedMatch.objects.filter(game=game, stream__in=list(_gone)):
                if _result_now(played.stream) is None:
                    played.delete()
            refold(game)
    _gone.clear()


def _result_now(stream: str) -> Result | None:
    """The match's result as the last event that could change it left it
    (what the live projection read at that event)."""
    rows = read(stream)
    changes = [i for i, r in enumerate(rows) if r.type in MATCH_CHANGES]
    return result_of(rows[: changes[-1] + 1]) if changes else None


def lock_game(game: str) -> None:
    """Writers of one game's ratings take turns: each rates on the last one's."""
    lock_name("ratings-game", game)


def _ratings_writes(row) -> frozenset[str] | None:
    if not row.stream.startswith(("show-", "bracket-")) and row.stream != SEASONS:
        return frozenset()  # a match's result: the ``ratings`` reactor's
    return None


@read_model(_forget, prune=_prune, settle=_settle, finish=_finish, writes=_ratings_writes)
def project_ratings(row):
    if row.stream.startswith(("show-", "bracket-")):
        _entries(row)
    elif row.stream == SEASONS:
        _season(row)


# ---- matches ----------------------------------------------------------------------
_UNREAD = object()  # _store's ``old`` when its caller did not read it


def changes_result(rows, matches=None) -> bool:
    """Whether one append's rows could change its match's result (the
    ``ratings`` reactor's ``needs``)."""
    return any(r.type in MATCH_CHANGES for r in rows)


def rate_changes(rows) -> None:
    """The ``ratings`` reactor: one append's rows of a match, after its commit."""
    for row in rows:
        if row.type in MATCH_CHANGES:
            _match_changed(row)


_PLAYED = db_rows.select(PlayedMatch, "stream = %s")


def _match_changed(row) -> None:
    # the rows this process's reactors read as they came, and those after them
    rows = [r for r in services.rows_kept(row.stream) if r.version <= row.version]
    result = result_of(rows)
    game = rows[0].data.get("game", "")
    lock_game(game)  # before any read of the ratings this may write
    found = db_rows.fetch(PlayedMatch, _PLAYED, [row.stream])  # stream is unique
    old = found[0] if found else None
    if result is None and old is None:
        return
    if result is not None and old is not None and _stored_as(old, result):
        return  # seen before (the reactor may see an event twice): rated already
    was_rated = old is not None and old.rated
    if result is None:
        old.delete()
    played = _store(result, old) if result is not None else None
    if played is None or not played.rated:
        if was_rated:
            refold(game)
        return
    later = PlayedMatch.objects.filter(game=game, rated=True, position__gt=played.position)
    if was_rated or later.exists():
        refold(game)
    else:
        _rate_on(played)


def _played_fields(result: Result) -> dict:
    return {
        "game": result.game,
        "show_stream": result.show_stream,
        "position": result.position,
        "played_at": at(result.played_at),
        "public_at": at(result.public_at),
        "rated": result.ratable,
        "sides": [
            {"seats": list(s.seats), "players": list(s.players), "rank": s.rank}
            for s in result.sides
        ],
    }


_PARTICIPATION_FIELDS = ("seat", "player", "rank", "won", "stats", "items")


def _participations(result: Result) -> list[dict]:
    """The fields of the result's participations (a seat each held)."""
    return [
        {
            "seat": seat,
            "player": player,
            "rank": side.rank,
            "won": side.rank == 1,
            "stats": result.stats.get(seat, {}),
            "items": result.items.get(seat, []),
        }
        for side in result.sides
        for seat, player in zip(side.seats, side.players, strict=True)
        if player is not None
    ]


def _stored_as(played: PlayedMatch, result: Result) -> bool:
    """Whether ``played`` holds ``result`` already, participations included."""
    fields = _played_fields(result)
    if any(getattr(played, name) != value for name, value in fields.items()):
        return False
    stored = played.players.order_by("seat").values(*_PARTICIPATION_FIELDS)
    return sorted(_participations(result), key=lambda p: p["seat"]) == list(stored)


def _store(result: Result, old: PlayedMatch | None | object = _UNREAD) -> PlayedMatch:
    """The match's played row, written over in place (its rating points stay
    for a re-fold to rewrite), and its participations. ``old``: its row as
    the reactor read it under the game's lock (a first result is then one
    INSERT, with no participations to delete); unread (a rebuild, not under
    the lock): looked up and written as another writer may meanwhile."""
    fields = _played_fields(result)
    if old is _UNREAD:
        played, _ = PlayedMatch.objects.update_or_create(
            stream=result.stream,
            defaults=fields,
            create_defaults={**fields, "id": stable_id("played", result.stream)},
        )
    elif old is None:
        played = PlayedMatch.objects.create(
            id=stable_id("played", result.stream), stream=result.stream, **fields
        )
    else:
        played = old
        for name, value in fields.items():
            setattr(played, name, value)
        PlayedMatch.objects.filter(pk=played.pk).update(**fields)
    if old is not None:
        played.players.all().delete()
    seated = _participations(result)
    known = _users(p["player"] for p in seated)
    Participation.objects.bulk_create(
        Participation(
            id=stable_id("participation", result.stream, p["seat"]),
            played=played,
            user_id=_user_id(p["player"], known),
            **p,
        )
        for p in seated
    )
    return played


def rated_result(played: PlayedMatch) -> skill.Rated:
    return skill.Rated(
        played.stream,
        played.played_at.timestamp(),
        [tuple(s["players"]) for s in played.sides],
        [s["rank"] for s in played.sides],
    )


def _skill(r: Rating) -> skill.Skill:
    return skill.Skill(r.mu, r.sigma, r.games, r.last_at.timestamp())


def _rate_on(played: PlayedMatch) -> None:
    """A result after every other of its game: rated on the current ratings."""
    res = rated_result(played)
    players = [p for team in res.teams for p in team]
    current = {r.player: r for r in Rating.objects.filter(game=played.game, player__in=players)}
    before = {p: _skill(current[p]) if p in current else skill.Skill() for p in players}
    after = skill.rate(before, res.teams, res.ranks, res.at)
    _write(played, before, after, _users(players))


_RATING_FIELDS = ["user", "mu", "sigma", "games", "last_at", "public_at"]


def _write(played, before, after, known) -> None:
    RatingPoint.objects.bulk_create(
        RatingPoint(
            id=stable_id("point", played.stream, p),
            player=p,
            game=played.game,
            played=played,
            mu=s.mu,
            sigma=s.sigma,
            games=s.games,
            mu_before=before[p].mu,
            sigma_before=before[p].sigma,
        )
        for p, s in after.items()
    )
    # every player's rating in one statement (INSERT ... ON CONFLICT DO
    # UPDATE), where one update_or_create each cost four to six, savepoints
    # and a SELECT FOR UPDATE included; the game's lock is held (lock_game)
    Rating.objects.bulk_create(
        [
            Rating(
                id=stable_id("rating", p, played.game),
                player=p,
                game=played.game,
                user_id=_user_id(p, known),
                mu=s.mu,
                sigma=s.sigma,
                games=s.games,
                last_at=played.played_at,
                public_at=played.public_at,
            )
            for p, s in after.items()
        ],
        update_conflicts=True,
        unique_fields=["player", "game"],
        update_fields=_RATING_FIELDS,
    )


def refold(game: str) -> None:
    """The game's ratings again from its rated results, in log order."""
    RatingPoint.objects.filter(game=game).delete()
    Rating.objects.filter(game=game).delete()
    played = list(PlayedMatch.objects.filter(game=game, rated=True).order_by("position"))
    known = _users({p for pm in played for s in pm.sides for p in s["players"]})
    by_key = {pm.stream: pm for pm in played}
    for res, before, after in skill.fold(rated_result(pm) for pm in played):
        _write(by_key[res.key], before, after, known)


# ---- shows and brackets: who entered ------------------------------------------------


def _entries(row) -> None:
    d = row.data
    created = row.version == 1
    if created and row.stream.startswith("show-") and row.type != "show_created":
        return
    if created:
        holders = d.get("holders") or {}
        made = [(e, holder_key(holders.get(e))) for e in d.get("entrants", [])]
    elif row.type == "entrant_substituted":
        made = [(d["in"], holder_key(d.get("holder")))]
    elif row.type == "invitation_accepted":
        made = [(_invited_entrant(row), holder_key(d.get("user_id")))]
    else:
        return
    name = d.get("name") or _first_name(row.stream)
    Entry.objects.bulk_create(
        [
            Entry(
                id=stable_id("entry", p, row.stream, e),
                player=p,
                stream=row.stream,
                entrant=e,
                name=name,
                created_at=row.recorded_at,
            )
            for e, p in made
            if p is not None and e
        ],
        ignore_conflicts=True,
    )


def _invited_entrant(row) -> str:
    invited = StoredEvent.objects.filter(
        stream=row.stream, type="invitation_created", version__lt=row.version
    )
    for r in invited.order_by("-version"):
        if r.data.get("invitation_id") == row.data.get("invitation_id"):
            return r.data["entrant"]
    return ""


def _first_name(stream: str) -> str:
    row = first(stream)
    return (row.data.get("name") if row is not None else "") or stream


# ---- seasons ---------------------------------------------------------------------------
def _season(row) -> None:
    d = row.data
    if row.type == "season_named":
        fields = {
            "name": d["name"],
            "starts": date.fromisoformat(d["starts"]),
            "ends": date.fromisoformat(d["ends"]),
            "named_by": row.metadata.get("actor") or "",
        }
        Season.objects.update_or_create(
            season_id=d["id"],
            defaults=fields,
            create_defaults={**fields, "id": stable_id("season", d["id"])},
        )
    elif row.type == "season_removed":
        Season.objects.filter(season_id=d["id"]).delete()
