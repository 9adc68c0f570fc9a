"""Console forms: they parse what a person typed into a service call's
arguments and check only types; every rule is the service's."""

from __future__ import annotations

import json

from django import forms
from django.contrib.auth.models import User

from games.core.registry import available

from ..items import DOUBTING_LOVE_LETTER, GAMES
from ..shows import ENTRANT_STEPS

BOT_KINDS = [("heuristic", "heuristic bot"), ("random", "random bot")]


def _game_choices():
    return [(r.slug, r.name) for r in available()]


def _accounts():
    return User.objects.filter(is_active=True).order_by("username")


def parse_ranking(text: str) -> list[list[str]]:
    """One place a line, best first; tied entrants share a line, comma-separated."""
    places = []
    for line in text.splitlines():
        names = [n.strip() for n in line.split(",") if n.strip()]
        if names:
            places.append(names)
    return places


def parse_seats(text: str) -> tuple[list[str], dict]:
    """Lines ``NAME`` (open seat), ``NAME = username`` or ``NAME = bot:KIND``:
    the seats in order and who holds each (a user id or a bot)."""
    seats, holders = [], {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, _, holder = (p.strip() for p in line.partition("="))
        if not name:
            raise forms.ValidationError(f"line {n}: a seat needs a name before the '='")
        seats.append(name)
        if not holder:
            continue
        if holder.startswith("bot:"):
            holders[name] = holder
            continue
        uid = User.objects.filter(username=holder, is_active=True).values_list("pk", flat=True)
        if not uid:
            raise forms.ValidationError(f"line {n}: no account is named {holder}")
        holders[name] = uid[0]
    return seats, holders


class ShowForm(forms.Form):
    name = forms.CharField(max_length=200)
    players = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="accounts that enter the show (each plays as their username)",
    )
    bots = forms.IntegerField(
        initial=0, required=False, help_text="bot entrants added after the accounts"
    )
    bot_kind = forms.ChoiceField(choices=BOT_KINDS)
    rounds = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="one round title a line (empty: one round per elimination needed)",
    )
    game_pool = forms.MultipleChoiceField(
        choices=[(g, g) for g in GAMES],
        initial=list(GAMES),
        widget=forms.CheckboxSelectMultiple,
        required=False,
    )
    game_pick = forms.ChoiceField(
        choices=[("organizer", "the organizer picks"), ("pool_with_bans", "pool with bans")]
    )
    death_match_first_to = forms.IntegerField(required=False, help_text="empty: game default")
    final_game = forms.ChoiceField(choices=[(g, g) for g in GAMES])
    final_first_to = forms.IntegerField(required=False, help_text="empty: game default")
    candidates_per_round = forms.IntegerField(initial=1)
    candidate_rule = forms.ChoiceField(
        choices=[("last", "the last of the ranking"), ("winners_choose_any", "winners choose")]
    )
    step_deadline_s = forms.IntegerField(initial=3600, help_text="seconds; 0: no deadline")
    spectator_delay_s = forms.IntegerField(initial=300)
    spectator_policy = forms.ChoiceField(
        choices=[("public", "public information only"), ("everything", "every card")]
    )

    OPTIONS = (
        "game_pool",
        "game_pick",
        "death_match_first_to",
        "final_game",
        "final_first_to",
        "candidates_per_round",
        "candidate_rule",
        "step_deadline_s",
        "spectator_delay_s",
        "spectator_policy",
    )

    def __init__(self, *args, organizer=None, **kwargs):
        super().__init__(*args, **kwargs)
        users = _accounts()
        if organizer is not None:
            users = users.exclude(pk=organizer.pk)
        self.fields["players"].queryset = users
        self.fields["final_game"].initial = DOUBTING_LOVE_LETTER

    def service_args(self) -> dict:
        d = self.cleaned_data
        entrants = [u.username for u in d["players"]]
        holders = {u.username: u.pk for u in d["players"]}
        for i in range(1, (d.get("bots") or 0) + 1):
            name = f"bot-{i}"
            entrants.append(name)
            holders[name] = f"bot:{d['bot_kind']}"
        options = {k: d[k] for k in self.OPTIONS if d.get(k) not in (None, "")}
        if not d.get("game_pool"):
            options["game_pool"] = []
        titles = [t.strip() for t in (d.get("rounds") or "").splitlines() if t.strip()]
        return {
            "name": d["name"],
            "entrants": entrants,
            "holders": holders,
            "options": options,
            "rounds": titles or None,
        }


class BracketForm(forms.Form):
    name = forms.CharField(max_length=200)
    game = forms.ChoiceField(choices=())
    format = forms.ChoiceField(
        choices=[
            ("single", "single elimination"),
            ("double", "double elimination"),
            ("round_robin", "round robin"),
            ("swiss", "Swiss"),
        ]
    )
    entrants = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "class": "console-seeds"}),
        help_text="one a line, in seed order (drag to reorder): NAME, NAME = username "
        "or NAME = bot:heuristic",
    )
    first_to = forms.IntegerField(required=False, help_text="series length; empty: game default")
    grand_final_reset = forms.BooleanField(required=False, initial=True)
    third_place = forms.BooleanField(required=False)
    double_round = forms.BooleanField(required=False)
    swiss_rounds = forms.IntegerField(required=False, help_text="Swiss only; empty: log2")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = _game_choices()

    def clean_entrants(self):
        return parse_seats(self.cleaned_data["entrants"])

    def service_args(self) -> dict:
        d = self.cleaned_data
        entrants, holders = d["entrants"]
        options = {
            "grand_final_reset": d["grand_final_reset"],
            "third_place": d["third_place"],
            "double_round": d["double_round"],
        }
        if d["format"] != "double":
            options.pop("grand_final_reset")
        if d.get("swiss_rounds") is not None:
            options["rounds"] = d["swiss_rounds"]
        return {
            "name": d["name"],
            "game": d["game"],
            "format": d["format"],
            "entrants": entrants,
            "holders": holders,
            "options": options,
            "first_to": d.get("first_to"),
        }


class MatchForm(forms.Form):
    game = forms.ChoiceField(choices=())
    title = forms.CharField(max_length=200, required=False)
    seats = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="one seat a line: NAME (open), NAME = username or NAME = bot:heuristic",
    )
    options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text='the game\'s options as JSON, clocks included, e.g. {"decision_s": 60}',
    )
    spectator_delay_s = forms.FloatField(initial=0, min_value=0, max_value=1_000_000)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = _game_choices()

    def clean_seats(self):
        return parse_seats(self.cleaned_data["seats"])

    def clean_options(self):
        text = self.cleaned_data.get("options") or ""
        if not text.strip():
            return {}
        try:
            value = json.loads(text)
        except ValueError:
            raise forms.ValidationError('options must be JSON, e.g. {"first_to": 3}') from None
        if not isinstance(value, dict):
            raise forms.ValidationError("options must be a JSON object of option: value")
        return value


class InviteForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="the account the invitation creates")

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        if User.objects.filter(username__iexact=name).exists():
            raise forms.ValidationError(f"an account named {name} exists already")
        return name


# ---- a show's steps ----------------------------------------------------------------
class _Step(forms.Form):
    """A show command from a form: ``command()`` builds its mapping."""

    confirm_needed = False
    confirm = forms.BooleanField(required=False, label="I understand this cannot be undone")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        confirm = self.fields.pop("confirm")
        if self.confirm_needed:
            self.fields["confirm"] = confirm  # last, beside the button

    def clean(self):
        data = super().clean()
        if self.confirm_needed and not data.get("confirm"):
            self.add_error("confirm", "tick the box to confirm: this cannot be undone")
        return data


class RankingStep(_Step):
    title = "Enter the main match's ranking"
    confirm_needed = True
    ranking = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="best first, one place a line; tied entrants on one line, comma-separated",
    )

    def command(self):
        return {"type": "enter_ranking", "ranking": parse_ranking(self.cleaned_data["ranking"])}


class PickGameStep(_Step):
    title = "Pick a death match's game"
    candidate = forms.CharField(required=False, help_text="empty: the only death match")
    game = forms.ChoiceField(choices=[(g, g) for g in GAMES])

    def command(self):
        cmd = {"type": "pick_game", "game": self.cleaned_data["game"]}
        if self.cleaned_data["candidate"]:
            cmd["candidate"] = self.cleaned_data["candidate"]
        return cmd


class AddRoundStep(_Step):
    title = "Add a round"
    round_title = forms.CharField(required=False, label="Title")

    def command(self):
        return {"type": "add_round", "title": self.cleaned_data["round_title"] or None}


class ReorderStep(_Step):
    title = "Reorder rounds not started"
    order = forms.CharField(help_text="round ids in the new order, e.g. r3, r2")
    reason = forms.CharField(max_length=500)

    def command(self):
        order = [x.strip() for x in self.cleaned_data["order"].split(",") if x.strip()]
        return {"type": "reorder_rounds", "order": order, "reason": self.cleaned_data["reason"]}


class AppointStep(_Step):
    title = "Appoint a moderator"
    username = forms.CharField(max_length=150)

    def command(self):
        return {"type": "appoint_moderator", "username": self.cleaned_data["username"]}


class RemoveStep(_Step):
    title = "Remove a moderator"
    confirm_needed = True
    username = forms.CharField(max_length=150)
    reason = forms.CharField(max_length=500)

    def command(self):
        return {
            "type": "remove_moderator",
            "username": self.cleaned_data["username"],
            "reason": self.cleaned_data["reason"],
        }


class SubstituteStep(_Step):
    title = "Substitute an entrant"
    confirm_needed = True
    out = forms.CharField(max_length=150, label="Out")
    new = forms.CharField(max_length=150, label="In")
    holder = forms.CharField(
        max_length=150,
        required=False,
        label="Played by",
        help_text="a username or bot:heuristic; empty: the account named like In",
    )
    reason = forms.CharField(max_length=500)

    def command(self):
        d = self.cleaned_data
        cmd = {"type": "substitute", "out": d["out"], "in": d["new"], "reason": d["reason"]}
        if d["holder"]:
            cmd["holder"] = d["holder"].strip()
        return cmd


class ExtendStep(_Step):
    title = "Extend a deadline"
    step = forms.ChoiceField(choices=[(s, s.replace("_", " ")) for s in ENTRANT_STEPS])
    seconds = forms.IntegerField()
    entrant = forms.CharField(required=False, help_text="empty: everyone's")
    reason = forms.CharField(max_length=500)

    def command(self):
        d = self.cleaned_data
        cmd = {
            "type": "extend_deadline",
            "step": d["step"],
            "seconds": d["seconds"],
            "reason": d["reason"],
        }
        if d["entrant"]:
            cmd["entrant"] = d["entrant"]
        return cmd


class AutopilotForm(_Step):
    """Take over the organizer's steps from the demo's autopilot, or hand them back."""

    SWITCHES = {"take_over": "release_autopilot", "hand_back": "resume_autopilot"}
    confirm_needed = True
    switch = forms.ChoiceField(choices=[(k, k) for k in SWITCHES], widget=forms.HiddenInput)
    confirm = forms.BooleanField(required=False, label="Yes, switch who makes my steps")

    def command(self):
        return {"type": self.SWITCHES[self.cleaned_data["switch"]]}

    def clean(self):
        data = forms.Form.clean(self)
        if not data.get("confirm"):
            self.add_error("confirm", "tick the box to confirm the switch")
        return data


STEPS = {
    "ranking": RankingStep,
    "pick_game": PickGameStep,
    "add_round": AddRoundStep,
    "reorder": ReorderStep,
    "appoint": AppointStep,
    "remove": RemoveStep,
    "substitute": SubstituteStep,
    "extend": ExtendStep,
}
