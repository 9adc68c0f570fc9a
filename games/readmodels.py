"""The match list read model, kept in step with the log."""

from datetime import UTC, datetime

from django.contrib.auth import get_user_model

from eventlog.readmodels import read_model, stable_id, unlogged
from eventlog.store import followed_in_append

from .models import Match, Notification, SeatHolder


def _forget(stream: str) -> None:
    if stream.startswith("match-"):
        Match.objects.filter(stream=stream).delete()  # its seats and notifications too


def _prune() -> None:
    unlogged(Match.objects.all()).delete()


def _settle(stream: str) -> None:
    """The clock index and the "waiting for you" notes, as the append that
    made the match's last move left them."""
    from .services import _set_deadline, load

    match = Match.objects.filter(stream=stream, status="live").first()
    if match is not None:
        _set_deadline(match, load(match).state)


def _existing_users(holders) -> set[int]:
    """The user ids among ``holders`` that still exist: the log keeps a
    deleted user's id, the read model keeps the seat with no user."""
    ids = [h for h in holders if isinstance(h, int) and not isinstance(h, bool)]
    if not ids:
        return set()
    return set(get_user_model().objects.filter(pk__in=ids).values_list("pk", flat=True))


WAITING = "Your turn: "


def note_waiting(match: Match, pending, bout_no: int = 0) -> None:
    """The "waiting for you" notification: one per user and match while the
    match waits on a seat of theirs, saying the bout and the decision; gone
    when it no longer waits on them. It is dated by the match's last event,
    so a rebuild (``_settle``) writes the same rows."""
    kinds: dict[str, str] = {}
    for d in pending:
        kinds.setdefault(d.seat, d.kind)
    notes = Notification.objects.filter(match=match, text__startswith=WAITING)
    bout = f"bout {bout_no}: " if bout_no else ""
    held = SeatHolder.objects.filter(match=match, user__isnull=False, seat__in=list(kinds))
    texts: dict[int, str] = {}
    for h in held.order_by("seat"):
        texts.setdefault(h.user_id, f"{WAITING}{match} waits for you")
        texts[h.user_id] += f" ({h.seat}: {bout}{kinds[h.seat].replace('_', ' ')})"
    notes.exclude(user_id__in=list(texts)).delete()
    for user_id, text in texts.items():
        n = notes.filter(user_id=user_id).update(text=text, created_at=match.updated_at)
        if not n:
            Notification.objects.create(
                id=stable_id("waiting", match.pk, user_id),
                user_id=user_id,
                match=match,
                text=text,
                created_at=match.updated_at,
            )


@read_model(_forget, prune=_prune, settle=_settle)
def project_match(row):
    if not row.stream.startswith("match-"):
        return
    at = row.recorded_at or datetime.now(UTC)
    if row.type == "match_created" and row.metadata.get("layer") == "platform":
        d = row.data
        users = _existing_users(d.get("holders", {}).values())
        match = Match.objects.create(
            pk=row.id,  # the stream's first event: a rebuild keeps every URL
            stream=row.stream,
            game=d["game"],
            title=d.get("title", ""),
            seats=d["seats"],
            show_stream=d.get("show_stream", ""),
            kind=d.get("kind", ""),
            scores={s: 0 for s in d["seats"]},
            version=row.version,
            created_at=at,
            updated_at=at,
        )
        for seat in d["seats"]:
            holder = d.get("holders", {}).get(seat)
            SeatHolder.objects.create(
                id=stable_id("seat", match.pk, seat),
                match=match,
                seat=seat,
                user_id=holder if holder in users else None,  # a deleted user: open
                bot=holder[4:] if isinstance(holder, str) and holder.startswith("bot:") else "",
            )
            if holder in users:
                Notification.objects.create(
                    id=stable_id("opened", match.pk, seat),
                    user_id=holder,
                    match=match,
                    text=f"Your match has opened: {match} (you play {seat})",
                    created_at=at,
                )
        return
    fields = {"version": row.version, "updated_at": at}
    if row.type == "series_started":
        fields["options"] = row.data["options"]
    elif row.type == "bout_scored":
        match = Match.objects.get(stream=row.stream)
        scores = dict(match.scores)
        for s, p in row.data["points"].items():
            scores[s] = scores.get(s, 0) + p
        fields["scores"] = scores
    elif row.type in ("series_ended", "series_forfeited", "series_overturned"):
        fields["status"] = "finished"
        fields["winners"] = row.data["winners"]
    elif row.type == "match_voided" and row.metadata.get("layer") == "platform":
        # a ruling changed history: recompute from the fold up to this event
        from eventlog.store import read_upto

        from .services import fold_rows

        match = Match.objects.get(stream=row.stream)
        state = fold_rows(match.game, read_upto(row))
        fields["scores"] = dict(state.scores)
        fields["status"] = "finished" if state.finished else "live"
        fields["winners"] = list(state.winners)
    elif row.type == "match_abandoned" and row.metadata.get("layer") == "platform":
        fields["status"] = "void"
    elif row.type == "match_holder_changed":
        d = row.data
        user = d.get("user")
        SeatHolder.objects.filter(match__stream=row.stream, seat=d["seat"]).update(
            user_id=user if user in _existing_users([user]) else None, bot=d.get("bot", "")
        )
    elif followed_in_append(row):
        return  # only the version and time, which the append's last row writes
    Match.objects.filter(stream=row.stream).update(**fields)
