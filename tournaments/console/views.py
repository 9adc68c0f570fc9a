"""The organizer's console. Thin views: a form parses, one service decides,
and a refusal's own words go back beside the field it concerns."""

from __future__ import annotations

import time

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import IntegrityError, transaction
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games import services as match_services
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal
from games.models import Match

from .. import bracket_services, demo, invitations, show_services, shows, usernames
from ..log_words import log_lines
from ..models import BracketRecord, ShowRecord
from ..words import FORM_REUSED
from . import forms, rating_order

PERMISSION = "games.add_match"
SEED = "seed"  # the button that orders the entrants by rating, creating nothing


def _organizer(request) -> None:
    """Creating shows, brackets and matches is for organizers (games.add_match)."""
    if not request.user.has_perm(PERMISSION):
        raise PermissionDenied(
            _(
                "Only an organizer may do this: your account lacks the organizer's "
                "permission (games.add_match)."
            )
        )


def _place(form, exc: RuleError, fields: dict[str, str]) -> None:
    """Put a service's refusal beside the field its words name (else on top)."""
    text = str(exc)
    for word, field in fields.items():
        if word in text:
            form.add_error(field, refusal(exc))
            return
    form.add_error(None, refusal(exc))


SHOW_FIELDS = {
    **{o: o for o in forms.ShowForm.OPTIONS},
    "a show needs a name": "name",
    "entrant": "players",
    "round": "rounds",
}


@login_required
def index(request):
    _organizer(request)
    return render(
        request,
        "console/index.html",
        {
            "shows": ShowRecord.objects.filter(organizer_id=request.user.pk)[:50],
            "brackets": BracketRecord.objects.all()[:50],
            "matches": match_services.summaries_for(
                Match.objects.filter(show_stream="").order_by("-id")[:20], request.user
            ),
        },
    )


def create_show_from(request, form, fields: dict[str, str]) -> ShowRecord | None:
    """The show a valid new-show form describes, organized by the caller; None
    (the refusal beside its field) when the show service refuses it."""
    try:
        stream = show_services.create_show(
            organizer=request.user.username,
            organizer_id=request.user.pk,
            command_id=command_args(request)["command_id"],
            **form.service_args(),
        )
    except RuleError as exc:
        _place(form, exc, fields)
        return None
    except CommandIdReused:
        form.add_error(None, FORM_REUSED)
        return None
    return ShowRecord.objects.get(stream=stream)


@login_required
def show_new(request):
    _organizer(request)
    form = forms.ShowForm(request.POST or None, organizer=request.user)
    if request.method == "POST" and SEED in request.POST and form.is_valid():
        entrants, holders = form.entrants()
        game = form.cleaned_data["final_game"]
        data = request.POST.copy()
        data["order"] = "\n".join(rating_order.by_rating(game, entrants, holders))
        form = forms.ShowForm(data, organizer=request.user)
        return render(request, "console/show_new.html", {"form": form, "seeded": game})
    if request.method == "POST" and form.is_valid():
        record = create_show_from(request, form, SHOW_FIELDS)
        if record is not None:
            messages.success(request, _("%(name)s is created.") % {"name": record.name})
            return redirect("console:show", pk=record.pk)
    status = 400 if form.errors else 200
    return render(request, "console/show_new.html", {"form": form}, status=status)


def _show_for_organizer(request, pk):
    record = get_object_or_404(ShowRecord, pk=pk)
    acting = show_services.acting_for(record.stream, request.user)
    if acting.role != shows.ORGANIZER:
        raise PermissionDenied(
            _(
                "Only the organizer of %(name)s may run it from the console; "
                "you are a %(role)s of this show."
            )
            % {"name": record.name, "role": _(acting.role)}
        )
    return record, acting


def due_steps(state) -> set[str]:
    """The console's step forms the show's state allows next: the organizer's
    owed step (a ranking, a game pick), and the standing ones where they can
    apply (reorder with two planned rounds, remove with a moderator, extend
    with a deadline running)."""
    if state.champion is not None or state.phase != shows.RUNNING:
        return set()
    owed = {d.kind for d in shows.pending(state) if d.seat == state.organizer}
    due = {"add_round", "appoint", "substitute"}
    if "enter_ranking" in owed:
        due.add("ranking")
    if "pick_game" in owed:
        due.add("pick_game")
    if sum(1 for r in state.rounds if r.status == shows.PLANNED) >= 2:
        due.add("reorder")
    if state.moderators:
        due.add("remove")
    if any(d.deadline for d in shows.pending(state)):
        due.add("extend")
    return due


def step_arguments(kind: str, state) -> dict:
    """What a step's form is drawn from: the ranking, from the entrants still
    in; a substitute's player, from the accounts that may hold a seat."""
    if kind == "ranking":
        return {"entrants": list(shows.active(state))}
    if kind == "substitute":
        return {"accounts": show_services.seat_candidates(state)}
    return {}


def _console(request, record, acting, bound=None, status=200):
    state, _version, holders = show_services.load(record.stream)
    due = due_steps(state)
    steps = {
        kind: cls(prefix=kind, **step_arguments(kind, state))
        for kind, cls in forms.STEPS.items()
        if kind in due
    }
    autopilot = None
    switching = isinstance(bound, forms.AutopilotForm)
    if demo.drives(record.stream) and (state.champion is None or switching):
        switch = "hand_back" if state.autopilot_released else "take_over"
        autopilot = {
            "released": state.autopilot_released,
            "form": forms.AutopilotForm(initial={"switch": switch}),
        }
    if switching:
        bound.data = bound.data.copy()  # shown with its errors, it switches the right way now
        bound.data["switch"] = switch
        autopilot["form"] = bound
    elif bound is not None:
        steps[bound.prefix] = bound
    matches = Match.objects.filter(show_stream=record.stream).order_by("id")
    return render(
        request,
        "console/show.html",
        {
            "show": record,
            "view": shows.view(state, acting.role, acting.actor, viewer_id=acting.user_id),
            "pending": shows.pending(state),
            "matches": match_services.summaries_for(matches, request.user),
            "holders": holders,
            "steps": steps,
            "autopilot": autopilot,
            "log": log_lines(shows.public_log(state)[-30:], record.stream),
            "server_now": time.time(),
        },
        status=status,
    )


@login_required
def show_console(request, pk):
    record, acting = _show_for_organizer(request, pk)
    return _console(request, record, acting)


@login_required
@require_POST
def show_step(request, pk, kind):
    record, acting = _show_for_organizer(request, pk)
    cls = forms.STEPS.get(kind)
    if cls is None:
        raise PermissionDenied(_("the console has no step %(kind)r") % {"kind": kind})
    state = show_services.load(record.stream)[0]
    form = cls(request.POST, prefix=kind, **step_arguments(kind, state))
    if form.is_valid():
        try:
            show_services.command(record.stream, form.command(), acting, **command_args(request))
        except RoleRequired as exc:
            raise PermissionDenied(refusal(exc)) from None
        except RuleError as exc:
            form.add_error(None, refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            messages.success(request, _("Done: %(step)s.") % {"step": cls.title.lower()})
            return redirect("console:show", pk=record.pk)
    return _console(request, record, acting, bound=form, status=400)


@login_required
@require_POST
def show_autopilot(request, pk):
    """The organizer takes over their steps from the demo's autopilot, or hands them back."""
    record, acting = _show_for_organizer(request, pk)
    if not demo.drives(record.stream):
        raise PermissionDenied(
            _("no autopilot makes the organizer's steps of %(show)s") % {"show": record.name}
        )
    form = forms.AutopilotForm(request.POST)
    if form.is_valid():
        cmd = form.command()
        try:
            show_services.command(record.stream, cmd, acting, **command_args(request))
        except RuleError as exc:
            form.add_error(None, refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            messages.success(
                request,
                _("You have taken over: the show waits for your steps.")
                if cmd["type"] == "release_autopilot"
                else _("The autopilot makes your steps again."),
            )
            return redirect("console:show", pk=record.pk)
    return _console(request, record, acting, bound=form, status=400)


@login_required
def bracket_new(request):
    _organizer(request)
    form = forms.BracketForm(request.POST or None, organizer=request.user)
    if request.method == "POST" and SEED in request.POST and form.is_valid():
        entrants, holders = form.cleaned_data["entrants"]
        game = form.cleaned_data["game"]
        data = request.POST.copy()
        data["entrants"] = rating_order.lines_by_rating(game, data["entrants"], entrants, holders)
        form = forms.BracketForm(data, organizer=request.user)
        return render(request, "console/bracket_new.html", {"form": form, "seeded": game})
    if request.method == "POST" and form.is_valid():
        try:
            stream = bracket_services.create_bracket(
                actor=request.user.username, **command_args(request), **form.service_args()
            )
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        except RuleError as exc:
            _place(
                form,
                exc,
                {
                    "name": "name",
                    "format": "format",
                    "first_to": "first_to",
                    "series": "first_to",
                    "entrant": "entrants",
                },
            )
        else:
            record = BracketRecord.objects.get(stream=stream)
            said = (
                _("%(name)s is created: its check-in is open, the draw waits for you.")
                if form.cleaned_data.get("check_in_first")
                else _("%(name)s is created and its first series are open.")
            )
            messages.success(request, said % {"name": record.name})
            return redirect("tournaments:bracket", pk=record.pk)
    status = 400 if form.errors else 200
    return render(request, "console/bracket_new.html", {"form": form}, status=status)


@login_required
def match_new(request):
    _organizer(request)
    form = forms.MatchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        seats, holders = form.cleaned_data["seats"]
        try:
            match = match_services.create_match(
                form.cleaned_data["game"],
                seats,
                options=form.cleaned_data["options"],
                holders=holders,
                title=form.cleaned_data["title"],
                actor=request.user.username,
                moderators=[request.user.pk],
                spectator_delay_s=form.cleaned_data["spectator_delay_s"],
                rated=form.cleaned_data["rated"],
                command_id=command_args(request)["command_id"],
            )
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        except RuleError as exc:
            _place(
                form,
                exc,
                {
                    "option": "options",
                    "seat": "seats",
                    "bot": "seats",
                    "spectator": "spectator_delay_s",
                },
            )
        else:
            messages.success(request, _("The match is open."))
            return redirect("games:match", pk=match.pk)
    status = 400 if form.errors else 200
    return render(request, "console/match_new.html", {"form": form}, status=status)


# ---- accounts by invitation ----------------------------------------------------------
@login_required
def invite(request):
    """An organizer invites a person: a signed link that creates one named account."""
    _organizer(request)
    form = forms.InviteForm(request.POST or None)
    link = None
    if request.method == "POST" and form.is_valid():
        token = invitations.account_token(form.cleaned_data["username"], request.user.pk)
        link = request.build_absolute_uri(reverse("console:signup", args=[token]))
    status = 400 if form.errors else 200
    return render(request, "console/invite.html", {"form": form, "link": link}, status=status)


class SignupForm(UserCreationForm):
    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username",)


def signup(request, token):
    """Accept an invitation: choose a password for the invited account."""
    try:
        invited = invitations.invited_username(token)
    except RuleError:
        return render(
            request,
            "registration/signup_invalid.html",
            {"message": _("This invitation link is not valid or has expired: ask for a new one.")},
            status=400,
        )
    why = usernames.refusal(invited)  # an invitation made before the rule
    if why:
        return render(request, "registration/signup_invalid.html", {"message": why}, status=400)
    if User.objects.filter(username__iexact=invited).exists():
        return render(
            request,
            "registration/signup_invalid.html",
            {
                "message": _("The invitation for %(name)s has been accepted already: log in.")
                % {"name": invited}
            },
            status=400,
        )
    data = None
    if request.method == "POST":
        data = {**request.POST.dict(), "username": invited}
    form = SignupForm(data, initial={"username": invited})
    form.fields["username"].disabled = True
    if data is not None and form.is_valid():
        try:
            with transaction.atomic():
                user = form.save()
        except IntegrityError:  # another request took the link a moment before
            return render(
                request,
                "registration/signup_invalid.html",
                {
                    "message": _("The invitation for %(name)s has been accepted already: log in.")
                    % {"name": invited}
                },
                status=409,
            )
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(
            request, _("Welcome, %(name)s: your account is ready.") % {"name": user.username}
        )
        return redirect("home")
    status = 400 if form.errors else 200
    return render(
        request, "registration/signup.html", {"form": form, "invited": invited}, status=status
    )
