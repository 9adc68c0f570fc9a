"""The console's scheduled shows and templates (thin views: a form parses,
one service decides, a refusal's words go beside its field)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from eventlog.commands import command_args
from eventlog.store import CommandIdReused
from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal

from .. import show_templates
from ..models import ShowRecord, ShowTemplate
from ..words import FORM_REUSED
from . import schedule_forms
from .views import SHOW_FIELDS, _organizer, _place, create_show_from

SCHEDULE_FIELDS = {
    **SHOW_FIELDS,
    **{o: o for o in schedule_forms.ScheduleFields.SCHEDULE_OPTIONS},
    "starts_at": "starts_at",
}


@login_required
def scheduled_show_new(request):
    _organizer(request)
    form = schedule_forms.ScheduledShowForm(request.POST or None, organizer=request.user)
    if request.method == "POST" and form.is_valid():
        record = create_show_from(request, form, SCHEDULE_FIELDS)
        if record is not None:
            messages.success(request, _("%(name)s is scheduled.") % {"name": record.name})
            return redirect(record.get_absolute_url())
    return render(
        request,
        "console/show_scheduled_new.html",
        {"form": form},
        status=400 if form.errors else 200,
    )


@login_required
def template_list(request):
    _organizer(request)
    form = schedule_forms.TemplateForm(request.POST or None, organizer=request.user)
    if request.method == "POST" and form.is_valid():
        try:
            template = show_templates.create(
                request.user, **form.template_args(), **command_args(request)
            )
        except RuleError as exc:
            _place(
                form,
                exc,
                {**SCHEDULE_FIELDS, "moderat": "moderators", "a template needs a name": "name"},
            )
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            messages.success(
                request, _("The template %(name)s is saved.") % {"name": template.name}
            )
            return redirect("console:template", pk=template.pk)
    return render(
        request,
        "console/templates.html",
        {"form": form, "templates": ShowTemplate.objects.filter(organizer=request.user)},
        status=400 if form.errors else 200,
    )


def _template(request, pk) -> ShowTemplate:
    _organizer(request)
    try:
        return show_templates.mine(request.user, pk)
    except RuleError as exc:
        raise PermissionDenied(refusal(exc)) from None


def _template_page(request, template, show_form=None, recurrence=None, status=200):
    return render(
        request,
        "console/template.html",
        {
            "template": template,
            "show_form": show_form or schedule_forms.FromTemplateForm(),
            "recurrence": recurrence
            or schedule_forms.RecurrenceForm(
                initial={
                    "weekday": template.weekday,
                    "start_time": template.start_time,
                    "time_zone": template.time_zone,
                    "announce_days": template.announce_days,
                }
            ),
            "made": template.shows.order_by("-starts_at")[:20],
        },
        status=status,
    )


@login_required
def template_page(request, pk):
    return _template_page(request, _template(request, pk))


@login_required
@require_POST
def template_show(request, pk):
    """A show from the template, at the start time given."""
    template = _template(request, pk)
    form = schedule_forms.FromTemplateForm(request.POST)
    if form.is_valid():
        try:
            stream = show_templates.create_show(
                template, starts_at=form.start_timestamp(), **command_args(request)
            )
        except RuleError as exc:
            form.add_error("starts_at", refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            record = ShowRecord.objects.get(stream=stream)
            messages.success(request, _("%(name)s is scheduled.") % {"name": record.name})
            return redirect(record.get_absolute_url())
    return _template_page(request, template, show_form=form, status=400)


@login_required
@require_POST
def template_recurrence(request, pk):
    template = _template(request, pk)
    form = schedule_forms.RecurrenceForm(request.POST)
    if form.is_valid():
        d = form.cleaned_data
        try:
            show_templates.set_recurrence(
                template,
                weekday=d["weekday"],
                start_time=d["start_time"],
                time_zone=d["time_zone"],
                announce_days=d["announce_days"],
                **command_args(request),
            )
        except RuleError as exc:
            form.add_error(None, refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            messages.success(request, _("The recurrence is saved."))
            return redirect("console:template", pk=template.pk)
    return _template_page(request, template, recurrence=form, status=400)


@login_required
def save_template(request, pk):
    """Save one of the organizer's shows as a template."""
    _organizer(request)
    record = get_object_or_404(ShowRecord, pk=pk)
    form = schedule_forms.SaveTemplateForm(request.POST or None, initial={"name": record.name})
    if request.method == "POST" and form.is_valid():
        try:
            template = show_templates.save_from_show(
                record.stream, request.user, form.cleaned_data["name"], **command_args(request)
            )
        except RoleRequired as exc:
            raise PermissionDenied(refusal(exc)) from None
        except RuleError as exc:
            form.add_error("name", refusal(exc))
        except CommandIdReused:
            form.add_error(None, FORM_REUSED)
        else:
            messages.success(
                request, _("The template %(name)s is saved.") % {"name": template.name}
            )
            return redirect("console:template", pk=template.pk)
    return render(
        request,
        "console/template_save.html",
        {"form": form, "show": record},
        status=400 if form.errors else 200,
    )
