"""Console forms of scheduled shows and templates: a start time, who may
register and how, check-in, absentees, the ready-check, a weekly recurrence.
They parse; the show service and the template service decide."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django import forms
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.bot_levels import DEFAULT_LEVEL
from games.core.protocol import RuleError
from games.engine_words import refusal

from .. import times
from ..shows.options import ABSENTEE_RULES, MAX_CHECK_IN_S, MAX_ENTRANTS, MAX_READY_CHECK_S
from .forms import BOT_KINDS, ShowForm

ABSENTEE_LABELS = {
    "drop": gettext_lazy("drop them"),
    "waiting_list": gettext_lazy("the waiting list takes their seat"),
    "bot": gettext_lazy("a bot takes their seat"),
    "waiting_list_then_bot": gettext_lazy("the waiting list, else a bot"),
}
WEEKDAYS = [
    (0, gettext_lazy("Monday")),
    (1, gettext_lazy("Tuesday")),
    (2, gettext_lazy("Wednesday")),
    (3, gettext_lazy("Thursday")),
    (4, gettext_lazy("Friday")),
    (5, gettext_lazy("Saturday")),
    (6, gettext_lazy("Sunday")),
]


def follow_the_browser(form) -> None:
    """A form shown new (nothing sent, no zone of its own) offers the
    browser's time zone: static/js/browser_zone.js picks it in the select
    when the list has it. Without JavaScript the server's default (UTC)
    stands and is valid."""
    field = form.fields.get("time_zone")
    if field is not None and not form.is_bound and not form.initial.get("time_zone"):
        field.widget.attrs["data-browser-zone"] = "1"


def zone_field(**kwargs):
    return forms.ChoiceField(
        choices=[(z, z) for z in times.ZONES],
        initial="UTC",
        label=gettext_lazy("Time zone"),
        **kwargs,
    )


class ScheduleFields(forms.Form):
    """Who enters a scheduled show and how: its options (shows/options.py)."""

    registration = forms.ChoiceField(
        choices=[
            ("open", gettext_lazy("open: anyone with an account registers")),
            ("invitation", gettext_lazy("by invitation")),
        ],
        label=gettext_lazy("Registration"),
    )
    cap = forms.IntegerField(
        required=False,
        min_value=2,
        max_value=MAX_ENTRANTS,
        label=gettext_lazy("Seats"),
        help_text=gettext_lazy("the most entrants; empty: no cap"),
    )
    waiting_list = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Waiting list past the cap")
    )
    approval = forms.BooleanField(required=False, label=gettext_lazy("I approve each registration"))
    check_in_s = forms.IntegerField(
        initial=900,
        min_value=0,
        max_value=MAX_CHECK_IN_S,
        label=gettext_lazy("Check-in opens (seconds before the start)"),
        help_text=gettext_lazy("0: no check-in"),
    )
    absentees = forms.ChoiceField(
        choices=[(r, ABSENTEE_LABELS[r]) for r in ABSENTEE_RULES],
        label=gettext_lazy("Who did not check in"),
    )
    replacement_bot = forms.ChoiceField(
        choices=BOT_KINDS, initial=f"level:{DEFAULT_LEVEL}", label=gettext_lazy("Replacement bot")
    )
    ready_check_s = forms.IntegerField(
        initial=120,
        min_value=0,
        max_value=MAX_READY_CHECK_S,
        label=gettext_lazy("Ready-check before each match (seconds)"),
        help_text=gettext_lazy("a player who does not confirm in time forfeits; 0: none"),
    )

    SCHEDULE_OPTIONS = (
        "registration",
        "cap",
        "waiting_list",
        "approval",
        "check_in_s",
        "absentees",
        "replacement_bot",
        "ready_check_s",
    )

    def schedule_options(self) -> dict:
        d = self.cleaned_data
        return {k: d[k] for k in self.SCHEDULE_OPTIONS if d.get(k) is not None}


class MomentField(forms.DateTimeField):
    """A date and time in ASCII digits, as a browser's date picker sends it
    (no offset: the form's time zone says it)."""

    def to_python(self, value):
        if (
            isinstance(value, str)
            and value.strip()
            and not times.is_moment(value.strip(), offset=False)
        ):
            raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class StartFields(forms.Form):
    """A start: a date and time in a time zone (one the clocks there show)."""

    starts_at = MomentField(
        label=gettext_lazy("Starts at"),
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M"],
    )
    time_zone = zone_field()

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        follow_the_browser(self)

    def clean(self):
        d = super().clean()
        if d.get("starts_at") is not None and d.get("time_zone"):
            try:
                self.start_timestamp()
            except RuleError as exc:
                self.add_error("starts_at", refusal(exc))
        return d

    def start_timestamp(self) -> float:
        naive = self.cleaned_data["starts_at"].replace(tzinfo=None)
        return times.wall_clock(naive, self.cleaned_data["time_zone"])


class ScheduledShowForm(ShowForm, ScheduleFields, StartFields):
    """A new show with a start time: entrants register (accounts may be entered too)."""

    field_order = ["name", "starts_at", "time_zone", *ScheduleFields.SCHEDULE_OPTIONS]

    def service_args(self) -> dict:
        args = super().service_args()
        args["options"].update(self.schedule_options())
        args["starts_at"] = self.start_timestamp()
        return args


class TemplateForm(ShowForm, ScheduleFields):
    """A template: a show's options and rounds and its moderators (no entrants)."""

    moderators = forms.CharField(
        required=False,
        label=gettext_lazy("Moderators"),
        help_text=gettext_lazy("usernames, comma-separated"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name in ("players", "bots", "bot_kind"):
            self.fields.pop(name)

    def template_args(self) -> dict:
        d = self.cleaned_data
        d.setdefault("players", [])
        args = ShowForm.service_args(self)
        options = {**args["options"], **self.schedule_options()}
        names = [n.strip() for n in (d.get("moderators") or "").split(",") if n.strip()]
        return {
            "name": args["name"],
            "options": options,
            "rounds": args["rounds"] or [],
            "moderators": names,
        }


class FromTemplateForm(StartFields):
    """A show from a template: its start."""


class RecurrenceForm(forms.Form):
    weekday = forms.TypedChoiceField(
        choices=[("", gettext_lazy("no recurrence")), *WEEKDAYS],
        coerce=int,
        empty_value=None,
        required=False,
        label=gettext_lazy("Every week on"),
    )
    start_time = forms.TimeField(
        required=False,
        label=gettext_lazy("At"),
        widget=forms.TimeInput(attrs={"type": "time"}),
    )
    time_zone = zone_field()
    announce_days = forms.IntegerField(
        min_value=1,
        max_value=6,
        initial=2,
        label=gettext_lazy("Days before, the show opens for registration"),
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        follow_the_browser(self)

    def clean(self):
        d = super().clean()
        if d.get("weekday") is not None and d.get("start_time") is None:
            self.add_error("start_time", _("a weekly show needs its start time"))
        return d


class SaveTemplateForm(forms.Form):
    name = forms.CharField(max_length=200, label=gettext_lazy("Template name"))


def local_now(zone: str = "UTC") -> dt.datetime:
    return dt.datetime.now(zoneinfo.ZoneInfo(zone))
