"""The reminder choices: a channel per kind, and the time zone of times shown."""

from django import forms
from django.utils.translation import gettext_lazy

from tournaments.times import ZONES

from .models import CHANNELS, KINDS, SITE, YOUR_TURN

KIND_LABELS = {
    "check_in_open": gettext_lazy("Check-in is open"),
    "match_ready": gettext_lazy("Your match is ready"),
    "your_turn": gettext_lazy("Your turn"),
    "dispute_filed": gettext_lazy("A dispute was filed in a show you moderate"),
}
CHANNEL_LABELS = {
    "site": gettext_lazy("on the site"),
    "email": gettext_lazy("by e-mail"),
    "push": gettext_lazy("web push"),
}


def _zones():
    return [("", gettext_lazy("my browser's"))] + [(z, z) for z in ZONES]


class ReminderForm(forms.Form):
    time_zone = forms.ChoiceField(
        choices=(),
        required=False,
        label=gettext_lazy("Time zone"),
        help_text=gettext_lazy("times on the site are shown in it"),
    )

    def __init__(self, *args, channels=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = _zones()
        for kind in KINDS:
            choices = [
                (c, CHANNEL_LABELS[c]) for c in CHANNELS if not (kind == YOUR_TURN and c == SITE)
            ]
            self.fields[kind] = forms.MultipleChoiceField(
                choices=choices,
                required=False,
                widget=forms.CheckboxSelectMultiple,
                label=KIND_LABELS[kind],
                initial=(channels or {}).get(kind, []),
            )

    def channels(self) -> dict:
        return {kind: list(self.cleaned_data.get(kind) or []) for kind in KINDS}
