"""Pages of the players: profiles, leaderboards, head-to-head, seasons."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games.core.protocol import RoleRequired, RuleError
from games.core.registry import available, rules_for
from games.engine_words import refusal
from tournaments.words import FORM_REUSED

from . import identity, seasons, selectors
from .models import Season


def _player(ref: str) -> str:
    key = identity.key_for(ref)
    if key is None:
        raise Http404(_("no player goes by %(name)s") % {"name": ref})
    return key


def _game(slug: str):
    try:
        return rules_for(slug)
    except RuleError:
        raise Http404(_("no game called %(slug)s") % {"slug": slug}) from None


def _season(request) -> Season | None:
    sid = request.GET.get("season") or ""
    if not sid:
        return None
    season = selectors.season_named(sid)
    if season is None:
        raise Http404(_("there is no season %(id)s") % {"id": sid[:20]})
    return season


def index(request):
    boards = [{"game": r, "people": selectors.leaderboard(r.slug)[:5]} for r in available()]
    return render(
        request,
        "ratings/index.html",
        {"boards": boards, "seasons": Season.objects.all()},
    )


def leaderboard(request, game):
    rules = _game(game)
    season = _season(request)
    return render(
        request,
        "ratings/leaderboard.html",
        {
            "game": rules,
            "season": season,
            "seasons": Season.objects.all(),
            "people": selectors.leaderboard(game, season=season),
            "bots": selectors.leaderboard(game, bots=True, season=season),
        },
    )


def profile(request, ref):
    data = selectors.profile(_player(ref))
    games = {r.slug: r.name for r in available()}
    return render(request, "ratings/profile.html", {"p": data, "games": games})


def bot_profile(request, kind):
    return profile(request, f"{identity.BOT}{kind}")


def head_to_head(request):
    a, b = request.GET.get("a", ""), request.GET.get("b", "")
    result = None
    if a and b:
        result = selectors.head_to_head(_player(a), _player(b))
    games = {r.slug: r.name for r in available()}
    return render(
        request, "ratings/head_to_head.html", {"a": a, "b": b, "h2h": result, "games": games}
    )


class SeasonForm(forms.Form):
    name = forms.CharField(max_length=seasons.NAME_MAX, label=gettext_lazy("Name"))
    starts = forms.CharField(
        max_length=10,
        label=gettext_lazy("Starts"),
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("the first day (YYYY-MM-DD)"),
    )
    ends = forms.CharField(
        max_length=10,
        label=gettext_lazy("Ends"),
        widget=forms.DateInput(attrs={"type": "date"}),
        help_text=gettext_lazy("the last day, included"),
    )


def season_list(request):
    may_name = request.user.has_perm(seasons.PERMISSION)
    form = SeasonForm(request.POST or None) if may_name else None
    if request.method == "POST":
        if not may_name:
            raise PermissionDenied(
                _("Only an organizer may name a season (permission games.add_match).")
            )
        if form.is_valid():
            try:
                seasons.name_season(request.user, **form.cleaned_data, **command_args(request))
            except RoleRequired as exc:
                raise PermissionDenied(refusal(exc)) from None
            except RuleError as exc:
                form.add_error(None, refusal(exc))
            except CommandIdReused:
                form.add_error(None, FORM_REUSED)
            else:
                messages.success(request, _("The season is named."))
                return redirect("ratings:seasons")
    status = 400 if form is not None and form.errors else 200
    return render(
        request,
        "ratings/seasons.html",
        {"seasons": Season.objects.all(), "form": form, "games": available()},
        status=status,
    )
