"""Console forms: they parse what a person typed into a service call's
arguments and check only types; every rule is the service's."""

from __future__ import annotations

import json

from django import forms
from django.contrib.auth.models import User
from django.urls import reverse_lazy
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games import limits
from games.bot_levels import DEFAULT_LEVEL, level_choices
from games.core.fields import whole
from games.core.playout import BOTS_IN_WORDS, bot_name
from games.core.registry import available
from games.holders import is_bot

from .. import usernames
from ..items import DOUBTING_LOVE_LETTER, GAMES
from ..models import ShowRecord
from ..shows import ENTRANT_STEPS

# the bots the console offers: the levels, each with its words (games.bot_levels)
BOT_KINDS = level_choices


def _game_choices():
    return [(r.slug, r.name) for r in available()]


def _accounts():
    return User.objects.filter(is_active=True).order_by("username")


def parse_seats(text: str) -> tuple[list[str], dict]:
    """Lines ``NAME`` (open seat), ``NAME = username`` or ``NAME = bot:KIND``:
    the seats in order and who holds each (a user id or a bot)."""
    seats, holders = [], {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        name, _eq, holder = (p.strip() for p in line.partition("="))
        if not name:
            raise forms.ValidationError(
                _("line %(n)s: a seat needs a name before the '='") % {"n": n}
            )
        seats.append(name)
        if not holder:
            continue
        if is_bot(holder):
            if bot_name(holder) is None:
                raise forms.ValidationError(
                    _("line %(n)s: %(holder)s is not a bot: a bot is %(bots)s")
                    % {"n": n, "holder": holder[:40], "bots": BOTS_IN_WORDS}
                )
            holders[name] = holder
            continue
        uid = User.objects.filter(username=holder, is_active=True).values_list("pk", flat=True)
        if not uid:
            raise forms.ValidationError(
                _("line %(n)s: no account is named %(name)s") % {"n": n, "name": holder}
            )
        holders[name] = uid[0]
    return seats, holders


class AccountsField(forms.ModelMultipleChoiceField):
    """Accounts by id. SQLite raises OverflowError on ``pk__in=[2**70]`` (a
    500): an id no database integer holds is refused before the query."""

    def _check_values(self, value):
        for pk in value:
            if whole(pk) is None:
                raise forms.ValidationError(
                    self.error_messages["invalid_choice"],
                    code="invalid_choice",
                    params={"value": pk},
                )
        return super()._check_values(value)


class ShowForm(forms.Form):
    name = forms.CharField(max_length=200, label=gettext_lazy("Name"))
    players = AccountsField(
        queryset=User.objects.none(),
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label=gettext_lazy("Players"),
        help_text=gettext_lazy("accounts that enter the show (each plays as their username)"),
        error_messages={
            "invalid_choice": gettext_lazy(
                "account %(value)s may not enter this show: pick among the accounts listed "
                "(never you, its organizer)"
            )
        },
    )
    bots = forms.IntegerField(
        initial=0,
        required=False,
        min_value=0,
        max_value=limits.MAX_ENTRANTS,
        label=gettext_lazy("Bots"),
        help_text=gettext_lazy("bot entrants added after the accounts"),
    )
    bot_kind = forms.ChoiceField(
        choices=BOT_KINDS,
        initial=f"level:{DEFAULT_LEVEL}",
        label=gettext_lazy("Bots' level"),
        help_text=gettext_lazy("L0 is the weakest, L4 the strongest"),
    )
    rounds = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        label=gettext_lazy("Rounds"),
        help_text=gettext_lazy("one round title a line (empty: one round per elimination needed)"),
    )
    game_pool = forms.MultipleChoiceField(
        choices=[(g, g) for g in GAMES],
        initial=list(GAMES),
        widget=forms.CheckboxSelectMultiple,
        required=False,
        label=gettext_lazy("Game pool"),
    )
    game_pick = forms.ChoiceField(
        choices=[
            ("organizer", gettext_lazy("the organizer picks")),
            ("pool_with_bans", gettext_lazy("pool with bans")),
        ],
        label=gettext_lazy("Game pick"),
    )
    death_match_first_to = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=limits.MAX_FIRST_TO,
        label=gettext_lazy("Death match first to"),
        help_text=gettext_lazy("empty: game default"),
    )
    final_game = forms.ChoiceField(
        choices=[(g, g) for g in GAMES], label=gettext_lazy("Final game")
    )
    final_first_to = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=limits.MAX_FIRST_TO,
        label=gettext_lazy("Final first to"),
        help_text=gettext_lazy("empty: game default"),
    )
    candidates_per_round = forms.IntegerField(
        initial=1,
        min_value=1,
        max_value=limits.MAX_CANDIDATES,
        label=gettext_lazy("Candidates per round"),
    )
    candidate_rule = forms.ChoiceField(
        choices=[
            ("last", gettext_lazy("the last of the ranking")),
            ("winners_choose_any", gettext_lazy("winners choose")),
        ],
        label=gettext_lazy("Candidate rule"),
    )
    step_deadline_s = forms.IntegerField(
        initial=3600,
        min_value=0,
        max_value=limits.MAX_STEP_DEADLINE_S,
        label=gettext_lazy("Step deadline s"),
        help_text=gettext_lazy("seconds; 0: no deadline"),
    )
    spectator_delay_s = forms.IntegerField(
        initial=300,
        min_value=0,
        max_value=limits.MAX_SPECTATOR_DELAY_S,
        label=gettext_lazy("Spectator delay s"),
    )
    spectator_policy = forms.ChoiceField(
        choices=[
            ("public", gettext_lazy("public information only")),
            ("everything", gettext_lazy("every card")),
        ],
        label=gettext_lazy("Spectator policy"),
    )
    rated = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Rated"),
        help_text=gettext_lazy("its matches count for the players' ratings"),
    )
    order = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "class": "console-seeds"}),
        required=False,
        label=gettext_lazy("Entrant order"),
        help_text=gettext_lazy(
            "one entrant a line, first seed first (drag to reorder; "
            "'Seed by rating' fills it); empty: the accounts, then the bots"
        ),
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
        "rated",
    )

    def __init__(self, *args, organizer=None, **kwargs):
        super().__init__(*args, **kwargs)
        users = _accounts()
        if organizer is not None:
            users = users.exclude(pk=organizer.pk)
        self.fields["players"].queryset = users
        self.fields["final_game"].initial = DOUBTING_LOVE_LETTER

    def entrants(self) -> tuple[list[str], dict]:
        """The entrants (accounts, then bots) and who holds each."""
        d = self.cleaned_data
        entrants = [u.username for u in d.get("players") or ()]
        holders = {u.username: u.pk for u in d.get("players") or ()}
        for i in range(1, (d.get("bots") or 0) + 1):
            name = f"bot-{i}"
            entrants.append(name)
            holders[name] = f"bot:{d.get('bot_kind')}"
        return entrants, holders

    def clean(self):
        data = super().clean()
        count = len(data.get("players") or ()) + (data.get("bots") or 0)
        if count > limits.MAX_ENTRANTS:
            self.add_error(
                "bots",
                _("a show has at most %(n)s entrants, accounts and bots together")
                % {"n": limits.MAX_ENTRANTS},
            )
            return data
        order = [n.strip() for n in (data.get("order") or "").splitlines() if n.strip()]
        if order and sorted(order) != sorted(self.entrants()[0]):
            self.add_error(
                "order",
                _("the order must list every entrant once: %(names)s")
                % {"names": ", ".join(self.entrants()[0])},
            )
        return data

    def service_args(self) -> dict:
        d = self.cleaned_data
        entrants, holders = self.entrants()
        order = [n.strip() for n in (d.get("order") or "").splitlines() if n.strip()]
        if order:
            entrants = order
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
    name = forms.CharField(max_length=200, label=gettext_lazy("Name"))
    game = forms.ChoiceField(choices=(), label=gettext_lazy("Game"))
    format = forms.ChoiceField(
        choices=[
            ("single", gettext_lazy("single elimination")),
            ("double", gettext_lazy("double elimination")),
            ("round_robin", gettext_lazy("round robin")),
            ("swiss", gettext_lazy("Swiss")),
        ],
        label=gettext_lazy("Format"),
    )
    entrants = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "class": "console-seeds"}),
        label=gettext_lazy("Entrants"),
        help_text=gettext_lazy(
            "one a line, in seed order (drag to reorder): NAME, NAME = username "
            "or NAME = bot:level:2 (a bot, level 0 to 4)"
        ),
    )
    first_to = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=limits.MAX_FIRST_TO,
        label=gettext_lazy("First to"),
        help_text=gettext_lazy("series length; empty: game default"),
    )
    grand_final_reset = forms.BooleanField(
        required=False, initial=True, label=gettext_lazy("Grand final reset")
    )
    third_place = forms.BooleanField(required=False, label=gettext_lazy("Third place"))
    double_round = forms.BooleanField(required=False, label=gettext_lazy("Double round"))
    swiss_rounds = forms.IntegerField(
        required=False,
        min_value=1,
        max_value=limits.MAX_ROUNDS,
        label=gettext_lazy("Swiss rounds"),
        help_text=gettext_lazy("Swiss only; empty: log2"),
    )
    rated = forms.BooleanField(
        required=False,
        initial=True,
        label=gettext_lazy("Rated"),
        help_text=gettext_lazy("its series count for the players' ratings"),
    )
    check_in_min = forms.IntegerField(
        required=False,
        min_value=0,
        max_value=7 * 24 * 60,
        label=gettext_lazy("Check-in (minutes)"),
        help_text=gettext_lazy(
            "a series between two people waits this long for both to say they are "
            "there, its clocks standing still; empty: 10; 0: none"
        ),
    )
    check_in_first = forms.BooleanField(
        required=False,
        label=gettext_lazy("Check-in before the draw"),
        help_text=gettext_lazy(
            "the draw waits until you close the check-in on the bracket's page: "
            "only the entrants who checked in are seeded, the others dropped"
        ),
    )

    show = forms.ModelChoiceField(
        queryset=ShowRecord.objects.none(),
        required=False,
        label=gettext_lazy("Disputes go to"),
        help_text=gettext_lazy(
            "one of your shows: its moderators rule on this bracket's disputes (none: no disputes)"
        ),
    )

    def __init__(self, *args, organizer=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = _game_choices()
        if organizer is not None:
            self.fields["show"].queryset = ShowRecord.objects.filter(organizer_id=organizer.pk)
        self.organizer = organizer

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
            "rated": d["rated"],
            "match_options": {"ready_check_s": d["check_in_min"] * 60}
            if d.get("check_in_min") is not None
            else None,
            "host_show": d["show"].stream if d.get("show") else "",
            "organizer_id": self.organizer.pk if self.organizer is not None else None,
            "check_in": bool(d.get("check_in_first")),
        }


class MatchForm(forms.Form):
    game = forms.ChoiceField(choices=(), label=gettext_lazy("Game"))
    title = forms.CharField(max_length=200, required=False, label=gettext_lazy("Title"))
    seats = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4}),
        label=gettext_lazy("Seats"),
        help_text=gettext_lazy(
            "one seat a line: NAME (open), NAME = username or NAME = bot:level:2 (a bot, "
            "level 0 to 4)"
        ),
    )
    options = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        label=gettext_lazy("Options"),
        help_text=gettext_lazy(
            'the game\'s options as JSON, clocks included, e.g. {"decision_s": 60}'
        ),
    )
    spectator_delay_s = forms.FloatField(
        initial=0,
        min_value=0,
        max_value=limits.MAX_SPECTATOR_DELAY_S,
        label=gettext_lazy("Spectator delay s"),
    )
    rated = forms.BooleanField(
        required=False,
        label=gettext_lazy("Rated"),
        help_text=gettext_lazy("the match counts for the players' ratings"),
    )

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
            raise forms.ValidationError(_('options must be JSON, e.g. {"first_to": 3}')) from None
        if not isinstance(value, dict):
            raise forms.ValidationError(_("options must be a JSON object of option: value"))
        return value


class InviteForm(forms.Form):
    username = forms.CharField(
        max_length=150,
        label=gettext_lazy("Username"),
        help_text=gettext_lazy("the account the invitation creates"),
    )

    def clean_username(self):
        name = self.cleaned_data["username"].strip()
        why = usernames.refusal(name)
        if why:
            raise forms.ValidationError(why)
        if User.objects.filter(username__iexact=name).exists():
            raise forms.ValidationError(
                _("an account named %(name)s exists already") % {"name": name}
            )
        return name


# ---- a show's steps ----------------------------------------------------------------
class _Step(forms.Form):
    """A show command from a form: ``command()`` builds its mapping."""

    confirm_needed = False
    confirm = forms.BooleanField(
        required=False, label=gettext_lazy("I understand this cannot be undone")
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        confirm = self.fields.pop("confirm")
        if self.confirm_needed:
            self.fields["confirm"] = confirm  # last, beside the button

    def clean(self):
        data = super().clean()
        if self.confirm_needed and not data.get("confirm"):
            self.add_error("confirm", _("tick the box to confirm: this cannot be undone"))
        return data


_PLACES_HELP = gettext_lazy("each entrant's place: 1 is best; tied entrants share a place")


class RankingStep(_Step):
    """The main match's ranking picked from the entrants still in: a place
    for each (1 is best; tied entrants share a place). The names the form
    was drawn for come back with it, so a ranking is never applied to a
    field of entrants that changed since."""

    title = gettext_lazy("Enter the main match's ranking")
    confirm_needed = True
    drawn_for = forms.CharField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, entrants=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.entrants = list(entrants)
        self.fields["drawn_for"].initial = json.dumps(self.entrants)
        places = [(str(n), str(n)) for n in range(1, len(self.entrants) + 1)]
        for n, name in enumerate(self.entrants, 1):
            self.fields[f"place_{n}"] = forms.TypedChoiceField(
                choices=places, coerce=int, initial=str(n), label=name
            )
        if self.entrants:
            self.fields["place_1"].help_text = _PLACES_HELP
        if "confirm" in self.fields:
            self.fields["confirm"] = self.fields.pop("confirm")  # last, beside the button

    def clean(self):
        data = super().clean()
        if (data.get("drawn_for") or "") != json.dumps(self.entrants):
            raise forms.ValidationError(
                _("the entrants still in changed since this form was shown; look again")
            )
        return data

    def ranking(self) -> list[list[str]]:
        by_place: dict[int, list[str]] = {}
        for n, name in enumerate(self.entrants, 1):
            by_place.setdefault(self.cleaned_data[f"place_{n}"], []).append(name)
        return [by_place[p] for p in sorted(by_place)]

    def command(self):
        return {"type": "enter_ranking", "ranking": self.ranking()}


class PickGameStep(_Step):
    title = gettext_lazy("Pick a death match's game")
    candidate = forms.CharField(
        required=False,
        label=gettext_lazy("Candidate"),
        help_text=gettext_lazy("empty: the only death match"),
    )
    game = forms.ChoiceField(choices=[(g, g) for g in GAMES], label=gettext_lazy("Game"))

    def command(self):
        cmd = {"type": "pick_game", "game": self.cleaned_data["game"]}
        if self.cleaned_data["candidate"]:
            cmd["candidate"] = self.cleaned_data["candidate"]
        return cmd


class AddRoundStep(_Step):
    title = gettext_lazy("Add a round")
    round_title = forms.CharField(required=False, label=gettext_lazy("Title"))

    def command(self):
        return {"type": "add_round", "title": self.cleaned_data["round_title"] or None}


class ReorderStep(_Step):
    title = gettext_lazy("Reorder rounds not started")
    order = forms.CharField(
        label=gettext_lazy("Order"),
        max_length=500,
        help_text=gettext_lazy("the rounds' numbers in the new order, e.g. 3, 2"),
    )
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))

    def command(self):
        order = [_round_id(x) for x in self.cleaned_data["order"].split(",") if x.strip()]
        return {"type": "reorder_rounds", "order": order, "reason": self.cleaned_data["reason"]}


def _round_id(typed: str) -> str:
    """A round as the page says it (its number, "3") to its id ("r3"); an id
    typed as the API takes it passes as it is, anything else to the engine's refusal."""
    text = typed.strip()
    return f"r{int(text)}" if text.isdecimal() else text


class AppointStep(_Step):
    title = gettext_lazy("Appoint a moderator")
    username = forms.CharField(
        max_length=150,
        label=gettext_lazy("Username"),
        # suggested as it is typed (static/js/player_search.js), a plain field without script
        widget=forms.TextInput(
            attrs={
                "autocomplete": "off",
                "data-player-search": reverse_lazy("ratings:search"),
                "data-list-name": gettext_lazy("suggested players"),
            }
        ),
    )

    def command(self):
        return {"type": "appoint_moderator", "username": self.cleaned_data["username"]}


class RemoveStep(_Step):
    title = gettext_lazy("Remove a moderator")
    confirm_needed = True
    username = forms.CharField(max_length=150, label=gettext_lazy("Username"))
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))

    def command(self):
        return {
            "type": "remove_moderator",
            "username": self.cleaned_data["username"],
            "reason": self.cleaned_data["reason"],
        }


class SubstituteStep(_Step):
    title = gettext_lazy("Substitute an entrant")
    confirm_needed = True
    out = forms.CharField(max_length=150, label=gettext_lazy("Out"))
    new = forms.CharField(max_length=150, label=gettext_lazy("In"))
    holder = forms.ChoiceField(
        required=False,
        label=gettext_lazy("Played by"),
        help_text=gettext_lazy(
            "a bot or an account that may hold a seat (never the organizer or a moderator); "
            "empty: the account named like In"
        ),
        error_messages={
            "invalid_choice": gettext_lazy(
                "%(value)s may not play in this show: pick a bot or one of the accounts "
                "listed (never its organizer or a moderator, nor an account holding an "
                "entrant already)"
            )
        },
    )
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))

    def __init__(self, *args, accounts=(), **kwargs):
        """``accounts``: the usernames that may hold a seat of the show."""
        super().__init__(*args, **kwargs)
        self.fields["holder"].choices = [
            ("", _("the account named like In")),
            (_("bots"), [(f"bot:{kind}", words) for kind, words in BOT_KINDS()]),
            (_("accounts"), [(name, name) for name in accounts]),
        ]

    def command(self):
        d = self.cleaned_data
        cmd = {"type": "substitute", "out": d["out"], "in": d["new"], "reason": d["reason"]}
        if d["holder"]:
            cmd["holder"] = d["holder"].strip()
        return cmd


class ExtendStep(_Step):
    title = gettext_lazy("Extend a deadline")
    step = forms.ChoiceField(
        choices=[(s, s.replace("_", " ")) for s in ENTRANT_STEPS], label=gettext_lazy("Step")
    )
    seconds = forms.IntegerField(
        min_value=1, max_value=limits.MAX_EXTEND_S, label=gettext_lazy("Seconds")
    )
    entrant = forms.CharField(
        required=False, label=gettext_lazy("Entrant"), help_text=gettext_lazy("empty: everyone's")
    )
    reason = forms.CharField(max_length=500, label=gettext_lazy("Reason"))

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
    confirm = forms.BooleanField(
        required=False, label=gettext_lazy("Yes, switch who makes my steps")
    )

    def command(self):
        return {"type": self.SWITCHES[self.cleaned_data["switch"]]}

    def clean(self):
        data = forms.Form.clean(self)
        if not data.get("confirm"):
            self.add_error("confirm", _("tick the box to confirm the switch"))
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
