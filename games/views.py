from datetime import UTC, datetime

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse, HttpResponseBadRequest
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from api.throttling import wait_before_next
from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games.core.fields import whole
from games.core.protocol import RoleRequired, RuleError
from games.core.registry import available, rules_for

from . import bot_levels, services, visibility
from .disputes import dispute_places
from .engine_words import refusal
from .models import Match
from .practice import start_practice
from .presenters.table import table_for
from .table_moves import move_from_table


def index(request, status=200):
    """The games, and the practice picker: a row per game, a level a column,
    each level's rating in that game in its cell."""
    rows = [(g, bot_levels.levels(g.slug)) for g in available()]
    context = {"games": available(), "practice": rows, "levels": bot_levels.levels()}
    return render(request, "games/index.html", context, status=status)


@require_POST
def practice(request):
    """One click on the games page: a match against the bot at the level
    chosen ("choice": "<game> level:<n>"), then its table."""
    if not request.user.is_authenticated:
        return redirect_to_login(reverse("games:index"))
    game, _sp, level = request.POST.get("choice", "")[:100].partition(" ")
    wait = wait_before_next(request)
    if wait is not None:
        msg = _("too many at once: wait %(s)s seconds") % {"s": max(1, round(wait))}
        return _practice_refused(request, msg, status=429)
    try:
        match = start_practice(
            request.user,
            game,
            level,
            rated=request.POST.get("rated") == "on",
            command_id=command_args(request)["command_id"],
        )
    except RuleError as exc:
        return _practice_refused(request, refusal(exc))
    except CommandIdReused:
        return _practice_refused(request, _("this form was already used; choose again"))
    return redirect("games:match", pk=match.pk)


def _practice_refused(request, message: str, status: int = 400):
    messages.error(request, message)
    return index(request, status=status)


def your_turn_badge(request):
    """The header's "your turn" badge alone, which every page re-asks now and
    then (one query: games.context_processors)."""
    return render(request, "_your_turn.html")


def rules(request, slug):
    try:
        game = rules_for(slug)
    except (RuleError, ModuleNotFoundError):
        raise Http404(_("no such game")) from None
    return render(
        request, rules_template(game.rules_template), {"game": game, "options": game.options}
    )


def rules_template(english: str) -> list[str]:
    """The rules page in the active language first ("games/fr/bleven.html"),
    then the English one: the first that exists is rendered."""
    folder, name = english.rsplit("/", 1)
    language = (get_language() or "en").split("-")[0]
    if language == "en":
        return [english]
    return [f"{folder}/{language}/{name}", english]


def _match_or_404(request, pk: int) -> Match:
    """Match ``pk``, with the seat the user holds in it read in the same query."""
    match = services.match_seen_by(pk, request.user)
    if match is None:
        raise Http404("there is no match with that id")
    return match


def match_page(request, pk):
    """The table: the full page, or (htmx) the fragment alone; a poll that
    names the version already shown gets 204 and nothing is swapped."""
    match = _match_or_404(request, pk)
    viewer = services.viewer_for(match, request.user, cross_site=services.cross_site(request))
    at = request.GET.get("at_version")
    if at is not None and whole(at) is None:  # a 5,000-digit one was a 500 (int's limit)
        return HttpResponseBadRequest(_("at_version must be a version number"))
    seen = request.GET.get("v")
    if request.htmx and at is None and seen == str(match.version):
        return HttpResponse(status=204)  # nothing new anywhere: no fold at all
    try:
        table = table_for(match, viewer, at=whole(at) if at is not None else None)
    except RuleError as exc:
        raise PermissionDenied(refusal(exc)) from None
    except visibility.NotVisibleYet:
        return too_early(request, match)
    if request.htmx and at is None and seen == str(table.version):
        return HttpResponse(status=204)
    return _render_table(request, table)


@require_POST
def match_open(request, pk):
    """A moderator opens a live show match with every card shown: a write,
    recorded in the show's audit log (a page load never writes); then the
    page again, now with every card."""
    match = _match_or_404(request, pk)
    if not request.user.is_authenticated:
        raise PermissionDenied(_("log in as a moderator of this match to see every card of it"))
    try:
        services.open_every_card(
            match, request.user, command_id=command_args(request)["command_id"]
        )
    except RoleRequired as exc:
        raise PermissionDenied(refusal(exc)) from None
    except RuleError as exc:  # a malformed command id
        return HttpResponseBadRequest(refusal(exc))
    except CommandIdReused:
        messages.error(request, _("this form was already used for something else; try again"))
        return redirect("games:match", pk=pk)
    messages.success(request, _("Every card is shown: your opening is written in the show's log."))
    return redirect("games:match", pk=pk)


def opening_of(match) -> dict:
    """When a match opens to spectators (epoch seconds and ISO, None and ""
    before it has started)."""
    opens = visibility.opens_at(match)
    iso = datetime.fromtimestamp(opens, UTC).isoformat() if opens else ""
    return {"pk": match.pk, "opens_at": opens, "opens_iso": iso}


def too_early(request, match):
    """A match spectators may not see yet: when it opens, counting down; the
    page opens itself then (static/js/opens.js)."""
    context = {
        **opening_of(match),
        "match": match,
        "delay_s": visibility.match_facts(match).spectator_delay_s,
        "now": visibility.clock(),
        "may_open": services.may_open_every_card(match, request.user, services.SPECTATOR_VIEW),
    }
    return render(request, "games/too_early.html", context)


def _render_table(request, table, status=200):
    # its players and its moderators (of its show, or of the show hosting its bracket)
    if table.match.show_stream and request.user.is_authenticated:
        table.dispute_places = dispute_places(table.match, request.user)
    if request.htmx:
        context = {"table": table, "match": table.match}
        return render(request, "games/tables/_table.html", context, status=status)
    may_open = services.may_open_every_card(table.match, request.user, table.viewer)
    context = {
        "table": table,
        "match": table.match,
        "may_open": may_open,
        "no_show": services.no_show_seats(table.match, request.user),
    }
    return render(request, "games/match.html", context, status=status)


@require_POST
def match_no_show(request, pk):
    """A moderator of the match declares a no-show once its ready-check's
    time is up: the absent seat forfeits (TOURNAMENTS.md); the engine refuses
    it in words before then or for a seat that is there."""
    match = _match_or_404(request, pk)
    if not request.user.is_authenticated or not services.moderates(match, request.user):
        raise PermissionDenied(_("only a moderator of this match may declare a no-show"))
    reason = str(request.POST.get("reason", "")).strip()[:500]
    if not reason:
        messages.error(request, _("give a reason: the players and the match's history see it"))
        return redirect("games:match", pk=pk)
    command = {"type": "declare_no_show", "seat": request.POST.get("seat"), "reason": reason}
    try:
        services.submit(
            match,
            None,
            command,
            actor=request.user.username,
            role="moderator",
            **command_args(request),
        )
    except RuleError as exc:
        messages.error(request, refusal(exc))
        return redirect("games:match", pk=pk)
    except CommandIdReused:
        messages.error(request, _("this form was already used for something else; try again"))
        return redirect("games:match", pk=pk)
    messages.success(request, _("The no-show is declared: the absent player forfeits the match."))
    return redirect("games:match", pk=pk)


@require_POST
def match_command(request, pk):
    """One action from the table's controls: the form names the control,
    the command is built from its declared fields and re-checked by the
    rules (games.table_moves, as over the table's socket). htmx gets the
    fragment back (with the refusal beside the control, status 422); a
    plain form is redirected to the page."""
    match = _match_or_404(request, pk)
    refused = move_from_table(
        match,
        request.user,
        request.POST,
        wait=lambda: wait_before_next(request),
        command_id=command_args(request)["command_id"],
    )
    if refused is not None:
        return _refuse(request, match, refused.control, refused.message, refused.status)
    if request.htmx:
        return _render_table(request, table_for(match, services.viewer_for(match, request.user)))
    return redirect("games:match", pk=pk)


def _refuse(request, match, key, message, status):
    if not request.htmx:
        messages.error(request, message)
        return redirect("games:match", pk=match.pk)
    viewer = services.viewer_for(match, request.user)
    table = table_for(match, viewer)
    table.errors[key or ""] = message
    return _render_table(request, table, status=status)
