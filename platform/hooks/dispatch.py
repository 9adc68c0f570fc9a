"""From the log to deliveries: after every committed append, the show and
match events a show's hooks asked for become delivery rows, each sent by a
Celery task. Payloads carry only what a spectator may see."""

from __future__ import annotations

import json
import logging

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from games.core.adapt import as_game_event
from games.core.protocol import SPECTATOR_VIEW

from .models import WebhookDelivery, WebhookEndpoint

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
    if endpoint.format == "discord":  # Discord's execute-webhook shape
        return json.dumps({"content": body["text"][:2000]})
    return json.dumps(body, default=str)


def _show_items(rows) -> list[tuple[str, str, int, dict]]:
    """(show stream, kind, version, body) of the show events hooks care about."""
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
            )
        )
    return out


def _turn_items(rows, wanted_shows: set[str]) -> list[tuple[str, str, int, dict]]:
    """A show's match moved: whose turn it is now (seats and steps only)."""
    from games import services
    from games.core.registry import series_for
    from games.models import Match

    last = {}
    for r in rows:
        last[r.stream] = r.version
    out = []
    for match in Match.objects.filter(
        stream__in=list(last), show_stream__in=wanted_shows, status="live"
    ):
        # who must act and by when is public: no view needed (nor its spectator delay)
        decisions = series_for(match.game).pending(services.load(match).state)
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
            )
        )
    return out


def dispatch_after_append(rows) -> None:
    show_rows = [r for r in rows if r.stream.startswith("show-")]
    match_rows = [r for r in rows if r.stream.startswith("match-")]
    if not show_rows and not match_rows:
        return
    from games.models import Match

    # one query: the active hooks of the shows these rows belong to
    touched = Q(show_stream__in={r.stream for r in show_rows})
    if match_rows:
        of_matches = Match.objects.filter(stream__in={r.stream for r in match_rows})
        touched |= Q(show_stream__in=of_matches.values("show_stream"))
    endpoints = list(WebhookEndpoint.objects.filter(touched, active=True))
    if not endpoints:
        return
    items = _show_items(show_rows)
    turn_shows = {e.show_stream for e in endpoints if "your_turn" in e.kinds}
    if match_rows and turn_shows:
        items += _turn_items(match_rows, turn_shows)
    for show_stream, kind, version, body in items:
        for endpoint in endpoints:
            if endpoint.show_stream != show_stream or kind not in endpoint.kinds:
                continue
            try:
                with transaction.atomic():
                    delivery = WebhookDelivery.objects.create(
                        endpoint=endpoint,
                        kind=kind,
                        stream=body["stream"],
                        version=version,
                        body=payload(endpoint, body),
                    )
            except IntegrityError:
                continue  # already recorded
            enqueue(delivery.pk)


def enqueue(delivery_id: int) -> None:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        from . import embedded

        embedded.wake()  # no Celery worker: the embedded thread sends it (make run)
        return
    from .tasks import deliver

    try:
        deliver.apply_async(args=[delivery_id])
    except Exception:  # never fail a move because a hook could not be queued
        log.exception("could not queue webhook delivery %s", delivery_id)
