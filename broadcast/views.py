"""The broadcast's pages: thin views over board.py, overlays.py and the
match services. The board, TV and overlays are what spectators see, for
everyone (a broadcast has one cut); the replay is the match's own policy's."""

from __future__ import annotations

from csp.constants import SELF
from csp.decorators import csp_replace
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.clickjacking import xframe_options_exempt, xframe_options_sameorigin
from django.views.decorators.http import require_http_methods

from eventlog.commands import BadCommandId, command_args
from eventlog.store import CommandIdReused
from games import services as match_services
from games.core.protocol import RuleError
from games.engine_words import refusal
from games.models import Match
from games.presenters.table import table_for
from games.seat_ratings import ratings_for
from tournaments.models import ShowRecord
from tournaments.words import FORM_REUSED

from . import channels, overlay_settings, overlays, viewers
from .board import board_for, featured, on_screen


def _board(request, pk, template):
    record = get_object_or_404(ShowRecord, pk=pk)
    context = board_for(record)
    return render(request, template, context)


def board(request, pk):
    """The show board: the full page, or (htmx, every few seconds) its fragment."""
    template = "broadcast/_board.html" if request.htmx else "broadcast/board.html"
    return _board(request, pk, template)


def _tv(request, context: dict, channel: str, poll_url: str):
    """TV's page (full screen, without the site's header) or, for its poll
    and a switch of channel (htmx), its fragment; ``switched`` when the
    match on screen is not the one the screen asking showed (it fades in)."""
    shown = context["featured"]
    if shown is not None and not shown.ratings:
        shown.ratings = ratings_for(shown.summary.match)
    on = on_screen(request.GET)
    record = context.get("show")
    items = [(channels.TOP, _("Top rated"), reverse("broadcast:tv_site"))]
    items += [
        (slug, name, reverse("broadcast:tv_game", args=[slug])) for slug, name in channels.games()
    ]
    if record is not None:
        items.append(("show", record.name, reverse("broadcast:tv", args=[record.pk])))
    context.update(
        channel=channel,
        channels=[{"key": k, "label": w, "url": u, "current": k == channel} for k, w, u in items],
        poll_url=poll_url,
        switched=shown is not None and on != shown.summary.pk,
    )
    template = "broadcast/_tv.html" if request.htmx else "broadcast/tv.html"
    return render(request, template, context)


def tv(request, pk):
    """TV of a show: its match with the most at stake."""
    record = get_object_or_404(ShowRecord, pk=pk)
    context = board_for(record)
    context["featured"] = featured(context["live"], on_screen(request.GET))
    context["title"] = _("%(name)s: TV") % {"name": record.name}
    return _tv(request, context, "show", reverse("broadcast:tv", args=[pk]))


def _site_tv(live, shown) -> dict:
    return {
        "live": live,
        "featured": shown,
        "delay_s": (shown.table.delayed_s or 0) if shown else 0,
        "viewers": viewers.match_count(shown.summary.pk) if shown else 0,
    }


def tv_site(request):
    """TV's top-rated channel: the live match of the site whose players are
    rated highest (as everyone sees the ratings), at its spectators' delay."""
    live = channels.site_live()
    context = _site_tv(live, channels.top_rated(live, on_screen(request.GET)))
    context["title"] = _("TV: the top-rated match")
    return _tv(request, context, channels.TOP, reverse("broadcast:tv_site"))


def tv_game(request, game):
    """TV's channel of one game: its live match with the most at stake."""
    names = dict(channels.games())
    if game not in names:
        raise Http404(_("There is no such game."))
    live = channels.site_live(game)
    context = _site_tv(live, channels.most_at_stake(live, on_screen(request.GET)))
    context["title"] = _("TV: %(game)s") % {"game": names[game]}
    return _tv(request, context, game, reverse("broadcast:tv_game", args=[game]))


def _overlay_page(request, record, kind: str, poll_url: str):
    """An overlay of ``record`` drawn with the settings of the query (a bad
    one: 400 in words); the page, or (htmx, its poll) the fragment."""
    try:
        settings = overlay_settings.parse(request.GET)
    except overlay_settings.BadSetting as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    context = board_for(record)
    if kind in ("featured", "hands"):
        context["featured"] = featured(context["live"], on_screen(request.GET))
    shown = context.get("featured")
    query = settings.query()
    if shown is not None:
        query = "&".join(q for q in (query, f"on={shown.summary.pk}") if q)
    context.update(
        kind=kind,
        settings=settings,
        shown_seats=settings.pick(shown.table.seats) if shown is not None else [],
        poll_url=f"{poll_url}?{query}" if query else poll_url,
    )
    template = f"broadcast/overlay/_{kind}.html" if request.htmx else "broadcast/overlay.html"
    return render(request, template, context)


@xframe_options_exempt  # a streaming tool may frame it; it holds nothing private
@csp_replace({"frame-ancestors": None})  # the CSP's word for the same
def overlay(request, token, kind):
    """A transparent page for a streaming tool's browser source, opened by the
    show's current secret link only (an old or wrong link: 404)."""
    if kind not in overlays.KINDS:
        raise Http404(_("no such overlay"))
    record = overlays.show_for(token)
    if record is None:
        raise Http404(_("This overlay link is not (or no longer) valid."))
    return _overlay_page(request, record, kind, reverse("broadcast:overlay", args=[token, kind]))


@xframe_options_sameorigin  # the organizer's page of links frames it
@csp_replace({"frame-ancestors": [SELF]})
@login_required
def overlay_preview(request, pk, kind):
    """An overlay as its link draws it, for the show's organizer only: the
    preview on the page of links (no link needed, none shown)."""
    record = get_object_or_404(ShowRecord, pk=pk)
    if not overlays.is_organizer(record.stream, request.user):
        raise PermissionDenied(_("Only the show's organizer may see its overlay links."))
    if kind not in overlays.KINDS:
        raise Http404(_("no such overlay"))
    return _overlay_page(
        request, record, kind, reverse("broadcast:overlay_preview", args=[pk, kind])
    )


@never_cache  # the new link is shown once: no copy kept on the way
@require_http_methods(["GET", "POST"])
@login_required
def overlay_links(request, pk):
    """The organizer's page of the show's overlay links: a new secret link is
    made (and the old one stops working) with a POST; it is shown once."""
    record = get_object_or_404(ShowRecord, pk=pk)
    if not overlays.is_organizer(record.stream, request.user):
        raise PermissionDenied(_("Only the show's organizer may see its overlay links."))
    token = None
    if request.method == "POST":
        try:  # a resent form (a double click) makes one link, not two
            token = overlays.rotate(
                record, request.user, command_id=command_args(request)["command_id"]
            )
        except BadCommandId as exc:
            return HttpResponseBadRequest(str(exc))
        except CommandIdReused:
            return HttpResponseBadRequest(FORM_REUSED)
    try:
        settings = overlay_settings.parse(request.GET)
        kind = overlay_settings.kind_of(request.GET, overlays.KINDS)
    except overlay_settings.BadSetting as exc:
        return HttpResponseBadRequest(str(exc), content_type="text/plain; charset=utf-8")
    query = settings.query()
    preview = reverse("broadcast:overlay_preview", args=[record.pk, kind])
    links = []
    if token is not None:
        links = [
            (kind, request.build_absolute_uri(reverse("broadcast:overlay", args=[token, kind])))
            for kind in overlays.KINDS
        ]
    return render(
        request,
        "broadcast/overlay_links.html",
        {
            "show": record,
            "links": links,
            "made_at": overlays.made_at(record),
            "repeated": request.method == "POST" and token is None,
            "settings": settings,
            "query": query,
            "kind": kind,
            "preview_url": f"{preview}?{query}" if query else preview,
            "choices": overlay_settings.choices_in_words(),
            "kinds": [(k, _(w)) for k, w in zip(overlays.KINDS, overlays.KIND_WORDS, strict=True)],
        },
    )


def spoiler_free_asked(spoilers: str | None, step: str | None) -> bool:
    """Spoiler-free unless asked otherwise: a replay opened as it is (from a
    result, a list, the match's page) starts at its first step with the
    result hidden; ``?spoilers=on`` opens it at its end, and a link to a step
    (``?v=N``) shows that step as it was shared."""
    if spoilers in ("on", "off"):
        return spoilers == "off"
    return step is None


def replay(request, pk):
    """A finished match, step by step: ``?v=N`` opens (and links) step N; the
    htmx fetch of a step gets the table alone. The policy decides whether the
    replay is open to this viewer (else 403 in words)."""
    match = get_object_or_404(Match, pk=pk)
    viewer = match_services.viewer_for(match, request.user)
    step = request.GET.get("v")
    if step is not None and not (step.isascii() and step.isdigit() and len(step) < 9):
        return HttpResponseBadRequest(_("v must be a step number"))
    try:
        full = table_for(match, viewer, at=10**9)  # the last step: every line of the history
        table = table_for(match, viewer, at=int(step)) if step is not None else None
    except RuleError as exc:
        raise PermissionDenied(refusal(exc)) from None
    spoiler_free = spoiler_free_asked(request.GET.get("spoilers"), step)
    if table is None:
        table = table_for(match, viewer, at=2) if spoiler_free else full
    context = {
        "match": match,
        "table": table,
        "lines": full.history,
        "first": 2,
        "last": full.latest,
        "spoiler_free": spoiler_free,
    }
    template = "broadcast/_replay_step.html" if request.htmx else "broadcast/replay.html"
    return render(request, template, context)


def match_viewers(request, pk):
    """How many spectators watch a match now (a small fragment)."""
    match = get_object_or_404(Match, pk=pk)
    return render(request, "broadcast/_viewers.html", {"viewers": viewers.match_count(match.pk)})
