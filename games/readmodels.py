"""The match list read model, kept in step with the log."""

from datetime import UTC, datetime

from django.contrib.auth import get_user_model

from eventlog.readmodels import read_model, stable_id, unlogged
from eventlog.store import carried_in_append, followed_in_append, read_upto
from games.holders import bot_kind

from . import services
from .clock_index import RESULT, SCORES, VERSION, set_deadline
from .match_row import update_match
from .models import Match, Notification, SeatHolder
from .waiting import stored_title


def _forget(stream: str) -> None:
    if stream.startswith("match-"):
        Match.objects.filter(stream=stream).delete()  # its seats and notifications too


def _prune() -> None:
    unlogged(Match.objects.all()).delete()


def _settle(stream: str) -> None:
    """The clock index and the "waiting for you" notes, as the append that
    made the match's last move left them."""
    match = Match.objects.filter(stream=stream, status="live").first()
    if match is not None:
        set_deadline(match, services.load(match).state)


def _existing_users(holders) -> set[int]:
    """The user ids among ``holders`` that still exist: the log keeps a
    deleted user's id, the read model keeps the seat with no user."""
    ids = [h for h in holders if isinstance(h, int) and not isinstance(h, bool)]
    if not ids:
        return set()
    return set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))


NOTHING = frozenset()
# the events project_match writes more for than the match's version and time
# (the one list both it and _match_writes go by)
_MATCH_CHANGES = frozenset(
    {
        "match_created",
        "series_started",
        "bout_scored",
        "series_ended",
        "series_forfeited",
        "series_overturned",
        "match_voided",
        "match_abandoned",
        "match_holder_changed",
    }
)


# of those, what a move's inline writes cover (``clock_index.inline_row``)
_INLINE_CHANGES = {
    "bout_scored": SCORES,
    "series_ended": RESULT,
    "series_forfeited": RESULT,
}


def _match_writes(row) -> frozenset[str] | None:
    if not row.stream.startswith("match-"):
        return NOTHING
    writes = _INLINE_CHANGES.get(row.type, NOTHING)
    if row.type in _MATCH_CHANGES and not writes:
        return None
    return writes if followed_in_append(row) else writes | VERSION


@read_model(_forget, prune=_prune, settle=_settle, writes=_match_writes)
def project_match(row):
    if not row.stream.startswith("match-"):
        return
    at = row.recorded_at or datetime.now(UTC)
    if row.type == "match_created" and row.metadata.get("layer") == "platform":
        _create_match_rows(row, at)
        return
    fields = {"version": row.version, "updated_at": at}
    points = None
    if row.type == "series_started":
        fields["options"] = row.data["options"]
    elif row.type == "bout_scored":
        points = row.data["points"]
    elif row.type in ("series_ended", "series_forfeited", "series_overturned"):
        fields["status"] = "finished"
        fields["winners"] = row.data["winners"]
    elif row.type == "match_abandoned" and row.metadata.get("layer") == "platform":
        fields["status"] = "void"
    elif row.type == "match_voided" and row.metadata.get("layer") == "platform":
        # a ruling changed history: recompute from the fold up to this event
        _write_carried(row)
        match = Match.objects.get(stream=row.stream)
        state = services.fold_rows(match.game, read_upto(row))
        fields["scores"] = dict(state.scores)
        fields["status"] = "finished" if state.finished else "live"
        fields["winners"] = list(state.winners)
    elif row.type == "match_holder_changed":
        d = row.data
        user = d.get("user")
        SeatHolder.objects.filter(match__stream=row.stream, seat=d["seat"]).update(
            user_id=user if user in _existing_users([user]) else None, bot=d.get("bot", "")
        )
    _update_or_carry(row, fields, points)


def _create_match_rows(row, at: datetime) -> None:
    """A match's row, its seats and its opened-match notes, from its creation record."""
    d = row.data
    users = _existing_users(d.get("holders", {}).values())
    match = Match.objects.create(
        pk=row.id,  # the stream's first event: a rebuild keeps every URL
        stream=row.stream,
        game=d["game"],
        title=d.get("title", ""),
        title_words=d.get("title_words") or {},
        seats=d["seats"],
        show_stream=d.get("show_stream", ""),
        kind=d.get("kind", ""),
        scores={s: 0 for s in d["seats"]},
        version=row.version,
        created_at=at,
        updated_at=at,
    )
    holders = {seat: d.get("holders", {}).get(seat) for seat in d["seats"]}
    SeatHolder.objects.bulk_create(
        SeatHolder(
            id=stable_id("seat", match.pk, seat),
            match=match,
            seat=seat,
            user_id=holder if holder in users else None,  # a deleted user: open
            bot=bot_kind(holder),
        )
        for seat, holder in holders.items()
    )
    Notification.objects.bulk_create(
        Notification(
            id=stable_id("opened", match.pk, seat),
            user_id=holder,
            match=match,
            text=f"Your match has opened: {stored_title(match)} (you play {seat})",
            created_at=at,
        )
        for seat, holder in holders.items()
        if holder in users
    )


def _update_or_carry(row, fields: dict, points: dict | None) -> None:
    """The match row's update for ``row``, with what the earlier rows of its
    append carried: written by the append's last row, carried on by the
    others, so an append writes the match row once (a rebuild's rows, which
    carry nothing, each write)."""
    carried = carried_in_append(row)
    if carried is None:
        update_match(row.stream, fields, points)
        return
    before = carried.pop("match", None)
    if before is not None:
        if "scores" in before[0] and points is not None:  # scores set, then added to
            update_match(row.stream, *before)
        else:
            fields = {**before[0], **fields}
            points = _added(before[1], points)
    if followed_in_append(row):
        carried["match"] = (fields, points)
    else:
        update_match(row.stream, fields, points)


def _write_carried(row) -> None:
    """What the earlier rows of ``row``'s append carried, written now (``row``
    reads the match row or writes beside it)."""
    carried = carried_in_append(row)
    before = carried.pop("match", None) if carried is not None else None
    if before is not None:
        update_match(row.stream, *before)


def _added(a: dict | None, b: dict | None) -> dict | None:
    """Two bouts' points added per seat (None: no points)."""
    if a is None or b is None:
        return a if b is None else b
    return {seat: a.get(seat, 0) + b.get(seat, 0) for seat in {**a, **b}}
