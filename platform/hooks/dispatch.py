"""From the log to deliveries, through an outbox: the webhooks reactor
(reactors.follow) follows the log, and the show and match events a show's
hooks asked for become delivery rows (once each: unique per endpoint,
stream, version and kind), each due at its recorded time + the show's
spectator delay (at once for an endpoint of the show's organizer that asked
to be live). The log is the outbox: a delivery a crash left unwritten is
written when the reactor passes that event. Once written each is queued (a
Celery task, or the embedded sender); the sweeper (hooks.outbox) sends
whatever a crash left unqueued. Payloads carry only what a spectator may see.

Other apps' streams may become deliveries too, through a source they
register at start-up (``register_source``: the show room's chat, filled by
chat.apps, so the hooks import nothing of the chat): its rows' items, the
shows its streams belong to, and whether an item still stands when it is
due (a chat message hidden meanwhile is withdrawn, never sent)."""

from __future__ import annotations

import json
import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from games import visibility
from games.core.adapt import as_game_event
from games.core.protocol import SPECTATOR_VIEW

from .models import WebhookDelivery, WebhookEndpoint
from .sources import source_of, sources

log = logging.getLogger(__name__)

# show event -> hook kind
SHOW_KINDS = {
    "death_match_linked": "match_opened",
    "final_linked": "match_opened",
    "death_match_result": "result",
    "final_result": "result",
    "entrant_eliminated": "elimination",
    "entrant_disqualified": "elimination",
    "champion_crowned": "champion",
    "champion_corrected": "champion",
    "ruling_applied": "ruling",
}


def _text(kind: str, event: str, d: dict) -> str:
    g = d.get
    if event == "death_match_linked":
        return f"The death match of {g('candidate')} is open: {g('match_stream')}"
    if event == "final_linked":
        return f"The final is open: {g('match_stream')}"
    if kind == "result":
        return f"{g('winner')} beats {g('loser')}"
    if kind == "elimination":
        how = "is disqualified" if event == "entrant_disqualified" else "is eliminated"
        return f"{g('entrant')} {how}"
    if kind == "champion":
        return f"{g('champion')} is the champion!"
    if kind == "ruling":
        return f"Ruling on {g('dispute_id')}: {g('ruling')}"
    return event.replace("_", " ")


def payload(endpoint: WebhookEndpoint, body: dict) -> str:
    body = dict(body)
    discord = body.pop("discord", None)
    if endpoint.format == "discord":  # Discord's execute-webhook shape
        # no name in a text may ping anyone (an entrant or author called @everyone)
        content = (discord or body["text"])[:2000]
        return json.dumps({"content": content, "allowed_mentions": {"parse": []}})
    return json.dumps(body, default=str)


def _show_items(rows) -> list[tuple[str, str, int, dict, object]]:
    """(show stream, kind, version, body, recorded_at) of the show events hooks care about."""
    out = []
    for r in rows:
        kind = SHOW_KINDS.get(r.type)
        if kind is None:
            continue
        data = as_game_event(r).for_viewer(SPECTATOR_VIEW)
        if data is None:
            continue
        data = {k: v for k, v in data.items() if k != "holders"}
        out.append(
            (
                r.stream,
                kind,
                r.version,
                {
                    "kind": kind,
                    "show": r.stream,
                    "stream": r.stream,
                    "version": r.version,
                    "event": r.type,
                    "text": _text(kind, r.type, data),
                    "data": data,
                },
                r.recorded_at,
            )
        )
    return out


def _turn_items(rows, wanted_shows: set[str]) -> list[tuple[str, str, int, dict, object]]:
    """A show's match moved: whose turn it was once the append was written
    (seats and steps only), though the reactor may come to it later."""
    from games.models import Match
    from games.turns import pending_at

    last, recorded = {}, {}
    for r in rows:
        last[r.stream], recorded[r.stream] = r.version, r.recorded_at
    out = []
    for match in Match.objects.filter(stream__in=list(last), show_stream__in=wanted_shows):
        # who must act and by when is public: no view needed (nor its spectator delay)
        decisions = pending_at(match, last[match.stream])
        if decisions is None:
            continue
        pending = [{"seat": d.seat, "kind": d.kind, "deadline": d.deadline} for d in decisions]
        seats = sorted({p["seat"] for p in pending})
        if not seats:
            continue
        out.append(
            (
                match.show_stream,
                "your_turn",
                last[match.stream],
                {
                    "kind": "your_turn",
                    "show": match.show_stream,
                    "stream": match.stream,
                    "version": last[match.stream],
                    "seats": seats,
                    "pending": pending,
                    "text": f"{match.title or match.stream}: {', '.join(seats)} to move",
                },
                recorded[match.stream],
            )
        )
    return out


def _due(endpoint: WebhookEndpoint, recorded_at, facts, kind: str = "") -> object:
    """When a delivery may go: at the event's recorded time + the show's
    spectator delay; at once only for a live endpoint of the show's organizer
    (never a source's delayed kind: the chat)."""
    delayed = any(kind in s.delayed for s in sources.values())
    organizers = facts.organizer_ids if facts is not None else ()
    if endpoint.live and not delayed and endpoint.owner_id in organizers:
        return recorded_at
    delay = float(facts.spectator_delay_s) if facts is not None else 300.0
    return recorded_at + timedelta(seconds=delay)


def record_deliveries(rows) -> int:
    """The outbox: the delivery rows of one append's rows (one stream), each
    written once however often its rows come. Returns how many were made."""
    show_rows = [r for r in rows if r.stream.startswith("show-")]
    match_rows = [r for r in rows if r.stream.startswith("match-")]
    sourced = [(s, r) for r in rows if (s := source_of(r.stream)) is not None]
    if not show_rows and not match_rows and not sourced:
        return 0
    from games.models import Match

    source_items = []
    for source in {s for s, _ in sourced}:
        source_items += source.items([r for s, r in sourced if s is source])
    # one query: the active hooks of the shows these rows belong to
    touched = Q(show_stream__in={r.stream for r in show_rows} | {i[0] for i in source_items})
    if match_rows:
        of_matches = Match.objects.filter(stream__in={r.stream for r in match_rows})
        touched |= Q(show_stream__in=of_matches.values("show_stream"))
    endpoints = list(WebhookEndpoint.objects.filter(touched, active=True))
    if not endpoints:
        return 0
    items = _show_items(show_rows) + source_items
    turn_shows = {e.show_stream for e in endpoints if "your_turn" in e.kinds}
    if match_rows and turn_shows:
        items += _turn_items(match_rows, turn_shows)
    facts = {s: visibility.show_facts(s) for s in {e.show_stream for e in endpoints}}
    made = [
        WebhookDelivery(
            endpoint=endpoint,
            kind=kind,
            stream=body["stream"],
            version=version,
            body=payload(endpoint, body),
            due_at=_due(endpoint, recorded_at, facts[show_stream], kind),
        )
        for show_stream, kind, version, body, recorded_at in items
        for endpoint in endpoints
        if endpoint.show_stream == show_stream and kind in endpoint.kinds
    ]
    WebhookDelivery.objects.bulk_create(made, ignore_conflicts=True)
    return len(made)


def hooked(rows, matches) -> bool:
    """Whether one append's rows belong to a show with an active endpoint
    (the webhooks reactor's ``needs``): the batch's hooked shows are read
    once per pass, and not at all when the batch touches no show."""
    shows = _shows_of({r.stream for r in rows}, matches)
    return bool(shows & matches.once("hooks.shows", lambda: _hooked(matches)))


def _shows_of(streams, matches) -> set[str]:
    """The shows ``streams`` are (show streams) or belong to (match streams)."""
    shows = {s for s in streams if s.startswith("show-")}
    for prefix, source in sources.items():
        if theirs := {s for s in streams if s.startswith(prefix)}:
            shows |= source.shows_of(theirs)
    return shows | {m.show_stream for m in matches.of(streams) if m.show_stream}


def _hooked(matches) -> set[str]:
    shows = _shows_of(matches.batch_streams, matches)
    if not shows:
        return set()
    return set(
        WebhookEndpoint.objects.filter(active=True, show_stream__in=sorted(shows))
        .values_list("show_stream", flat=True)
        .distinct()
    )


def deliveries_of(rows) -> None:
    """The webhooks reactor: one append's deliveries written, then queued once
    they are committed (with the reactor's checkpoint)."""
    if record_deliveries(rows):
        transaction.on_commit(lambda: queue_after_commit(rows))


def queue_after_commit(rows) -> None:
    """Queue the pending deliveries of these rows (the sweeper sends them
    anyway if this never runs)."""
    prefixes = ("show-", "match-", *sources)
    streams = {r.stream for r in rows if r.stream.startswith(prefixes)}
    if not streams:
        return
    first = min(r.version for r in rows)
    for pk, due_at in WebhookDelivery.objects.filter(
        stream__in=streams, version__gte=first, status=WebhookDelivery.PENDING, attempts=0
    ).values_list("pk", "due_at"):
        enqueue(pk, due_at)


def enqueue(delivery_id: int, due_at=None) -> None:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from . import embedded

        embedded.wake()  # no Celery worker: the embedded thread sends it (make run)
        return
    from .tasks import deliver

    try:
        deliver.apply_async(args=[delivery_id], eta=due_at)
    except Exception:  # never fail a move because a hook could not be queued
        log.exception("could not queue webhook delivery %s", delivery_id)
