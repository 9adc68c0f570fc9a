"""The REST API of shows and brackets: thin views over show_services and
bracket_services (the services decide every role; the views only map their
refusals). Errors go through the one handler (api.exceptions.handle)."""

from __future__ import annotations

import json
import math

from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404
from django.utils.dateparse import parse_datetime
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiResponse,
    extend_schema,
    extend_schema_field,
)
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.exceptions import Forbidden
from api.fields import COMMAND_ID_PARAMETER, CommandIdQuery, command_id_field
from api.throttling import COMMAND_THROTTLES
from eventlog.commands import command_args, once
from games import services as match_services
from games.api import (
    COMMAND_MAX_KEY,
    COMMAND_MAX_KEYS,
    COMMAND_MAX_LIST,
    ENTRANT_HOLDERS_HELP,
    MAX_PK,
    HoldersField,
    OptionsField,
    get_match,
    refusals,
    require_login,
    written_status,
)
from games.models import Match
from hooks import addresses as hook_addresses
from hooks import models as hook_models

from . import bracket_check_in, bracket_services, show_services, shows, times
from .models import BracketRecord, ShowRecord
from .readmodels import show_status
from .show_page import show_as_seen

NDJSON = "application/x-ndjson"
from games.limits import MAX_ENTRANTS, MAX_NAME  # noqa: E402  (one definition of each bound)

SHOW_COMMAND_MAX_DEPTH = 3  # e.g. a ranking: a list of lists of names
SHOW_COMMAND_MAX_STRING = 2000  # a dispute's text, a reason


def get_show(pk: int) -> ShowRecord:
    if pk > MAX_PK:
        raise exceptions.NotFound("there is no show with that id")
    return get_object_or_404(ShowRecord, pk=pk)


def get_bracket(pk: int) -> BracketRecord:
    if pk > MAX_PK:
        raise exceptions.NotFound("there is no bracket with that id")
    return get_object_or_404(BracketRecord, pk=pk)


def require_permission(request, perm: str, doing: str) -> None:
    """Creating shows and brackets is an organizer's permission (as matches are)."""
    require_login(request, doing)
    if not request.user.has_perm(perm):
        raise Forbidden(f"to {doing} needs an organizer's permission ({perm})")


# ---- the shapes --------------------------------------------------------------
def _bounded(value, where: str, depth: int = 0) -> None:
    """A show command's value: scalars, or lists and objects of them, kept small."""
    if depth > SHOW_COMMAND_MAX_DEPTH:
        raise serializers.ValidationError(f"{where} is nested too deeply")
    if isinstance(value, str):
        if len(value) > SHOW_COMMAND_MAX_STRING:
            raise serializers.ValidationError(
                f"{where} is longer than {SHOW_COMMAND_MAX_STRING} characters"
            )
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, (int, float)):
        if not math.isfinite(value) or abs(value) > MAX_PK:
            raise serializers.ValidationError(f"{where} is out of range")
    elif isinstance(value, list):
        if len(value) > max(COMMAND_MAX_LIST, MAX_ENTRANTS):
            raise serializers.ValidationError(f"{where} has too many entries")
        for v in value:
            _bounded(v, f"an entry of {where}", depth + 1)
    elif isinstance(value, dict):
        if len(value) > COMMAND_MAX_KEYS:
            raise serializers.ValidationError(f"{where} has more than {COMMAND_MAX_KEYS} fields")
        for k, v in value.items():
            if len(k) > COMMAND_MAX_KEY:
                raise serializers.ValidationError(f"a field name is longer than {COMMAND_MAX_KEY}")
            _bounded(v, k, depth + 1)
    else:
        raise serializers.ValidationError(f"{where} is not a JSON value")


@extend_schema_field(
    {
        "type": "object",
        "properties": {"type": {"type": "string", "enum": sorted(shows.COMMANDS)}},
        "required": ["type"],
        "maxProperties": COMMAND_MAX_KEYS,
        "additionalProperties": True,
    }
)
class ShowCommandField(serializers.DictField):
    """A show command: a type and its fields (see TOURNAMENTS.md); actor and
    role are the caller's, never taken from the body."""

    def to_internal_value(self, data):
        command = super().to_internal_value(data)
        if not isinstance(command.get("type"), str):
            raise serializers.ValidationError(
                'a command needs a "type", e.g. {"type": "add_round", "title": "Round 1"}'
            )
        _bounded(command, "the command")
        return {k: v for k, v in command.items() if k not in ("actor", "role")}


class ShowOptionsField(serializers.DictField):
    """A show's options: named values, lists included (e.g. game_pool); the show checks them."""

    def to_internal_value(self, data):
        options = super().to_internal_value(data)
        _bounded(options, "options")
        return options


class StartField(serializers.DateTimeField):
    """An ISO 8601 moment with its offset, e.g. 2027-01-15T20:30:00+01:00."""

    def to_internal_value(self, value):
        if not isinstance(value, str) or len(value) > 40 or not times.is_moment(value):
            raise serializers.ValidationError("a date and time, e.g. 2027-01-15T20:30:00+01:00")
        try:
            parsed = parse_datetime(value)
        except ValueError:
            raise serializers.ValidationError("not a date and time that exists") from None
        if parsed is not None and parsed.tzinfo is None:
            raise serializers.ValidationError("give the time zone offset, e.g. +01:00 or Z")
        return super().to_internal_value(value)


class ShowCommandSerializer(serializers.Serializer):
    command_id = command_id_field()
    command = ShowCommandField(help_text='e.g. {"type": "give_token", "to": "ben"}')
    entrant = serializers.CharField(
        required=False,
        max_length=MAX_NAME,
        help_text="the entrant you act as, if you hold more than one",
    )


class ShowAppendedSerializer(serializers.Serializer):
    appended = serializers.ListField(child=serializers.IntegerField(), help_text="versions written")
    view = serializers.DictField(help_text="the show as the caller may see it now")


class ActingSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=list(shows.ROLES))
    name = serializers.CharField(help_text="the username, or the entrant a player acts as")


class ShowSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = ShowRecord
        fields = [
            "id",
            "stream",
            "name",
            "organizer",
            "status",
            "champion",
            "round_no",
            "version",
            "starts_at",
        ]


class ShowViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    stream = serializers.CharField()
    acting = ActingSerializer()
    show = serializers.DictField(
        help_text="the show as the caller's role may see it (spectators: with the delay)"
    )


class CreateShowSerializer(serializers.Serializer):
    command_id = command_id_field()
    name = serializers.CharField(max_length=200)
    entrants = serializers.ListField(
        child=serializers.CharField(max_length=MAX_NAME),
        max_length=MAX_ENTRANTS,
        help_text="at least two, unless the show has a start time to register for",
    )
    options = ShowOptionsField(
        required=False, help_text='show options, e.g. {"step_deadline_s": 600, "game_pool": [...]}'
    )
    holders = HoldersField(required=False, help_text=ENTRANT_HOLDERS_HELP)
    rounds = serializers.ListField(
        child=serializers.CharField(max_length=200),
        required=False,
        max_length=MAX_ENTRANTS,
        help_text="round titles, planned in this order",
    )
    starts_at = StartField(
        required=False,
        help_text="a scheduled show's start (ISO 8601 with its offset): people register "
        "until then (options registration, cap, check_in_s, absentees...) and it starts by itself",
    )

    def validate(self, data):
        if len(data["entrants"]) < 2 and not data.get("starts_at"):
            raise serializers.ValidationError(
                {"entrants": "at least two, unless the show has a start time to register for"}
            )
        return data


class ShowPendingSerializer(serializers.Serializer):
    who = serializers.CharField(help_text="an entrant, or the organizer")
    step = serializers.CharField()
    deadline = serializers.FloatField(allow_null=True, help_text="Unix time, or none")


class ItemsSerializer(serializers.Serializer):
    inventories = serializers.DictField(
        child=serializers.ListField(child=serializers.DictField()),
        help_text="entrant -> items; only the caller's own (all for moderators)",
    )
    item_counts = serializers.DictField(
        child=serializers.IntegerField(), help_text="entrant -> how many items they hold"
    )


class DisputesSerializer(serializers.Serializer):
    disputes = serializers.ListField(
        child=serializers.DictField(),
        help_text="texts and proposals only for moderators and the filer",
    )


class LogSerializer(serializers.Serializer):
    events = serializers.ListField(
        child=serializers.DictField(), help_text="version, type, text, data, void"
    )


class BracketSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = BracketRecord
        fields = [
            "id",
            "stream",
            "name",
            "game",
            "format",
            "entrants",
            "standings",
            "champion",
            "status",
            "version",
        ]


class BracketViewSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    stream = serializers.CharField()
    name = serializers.CharField()
    game = serializers.CharField()
    status = serializers.CharField()
    tree = serializers.DictField(
        help_text="the drawn tree: series (id, round, sides, winner, match_stream), standings"
    )


class FirstToField(serializers.JSONField):
    """One series length for all rounds, or per round label (R1, GF...)."""

    def to_internal_value(self, data):
        if isinstance(data, int) and not isinstance(data, bool) and 1 <= data <= 99:
            return data
        if isinstance(data, dict) and len(data) <= COMMAND_MAX_KEYS * 2:
            if all(
                isinstance(k, str)
                and len(k) <= 10
                and isinstance(v, int)
                and not isinstance(v, bool)
                and 1 <= v <= 99
                for k, v in data.items()
            ):
                return data
        raise serializers.ValidationError(
            'a number of wins from 1 to 99, or round -> wins, e.g. {"R1": 1, "GF": 2}'
        )


class CreateBracketSerializer(serializers.Serializer):
    command_id = command_id_field()
    name = serializers.CharField(max_length=200)
    game = serializers.CharField(max_length=64)
    format = serializers.CharField(max_length=20, help_text="single, double, round_robin or swiss")
    entrants = serializers.ListField(
        child=serializers.CharField(max_length=100), min_length=2, max_length=MAX_ENTRANTS
    )
    options = OptionsField(required=False, help_text="the format's options")
    first_to = FirstToField(required=False)
    holders = HoldersField(required=False, help_text=ENTRANT_HOLDERS_HELP)
    match_options = OptionsField(required=False, help_text="options of every match")
    rated = serializers.BooleanField(
        default=True, help_text="its series count for the players' ratings"
    )
    show = serializers.IntegerField(
        required=False,
        min_value=1,
        max_value=MAX_PK,
        help_text="the id of a show of yours whose organizer and moderators take the "
        "disputes about this bracket's matches (no other show's do; none without it)",
    )
    check_in = serializers.BooleanField(
        default=False,
        help_text="the draw waits for a check-in: people holding entrants check in "
        "(POST .../check-in/), the organizer draws (POST .../draw/); only those "
        "checked in (and bots) are seeded, the others dropped",
    )


class BracketCheckedInSerializer(serializers.Serializer):
    checked_in = serializers.ListField(
        child=serializers.CharField(), help_text="the entrants you checked in"
    )


class BracketDrawnSerializer(BracketViewSerializer):
    dropped = serializers.ListField(
        child=serializers.CharField(), help_text="the entrants dropped: they did not check in"
    )


# ---- examples of show commands (what a script writer sends) --------------------
def _ex(title: str, command: dict) -> OpenApiExample:
    return OpenApiExample(title, value={"command": command}, request_only=True)


SHOW_COMMAND_EXAMPLES = [
    _ex("Organizer: add a round", {"type": "add_round", "title": "Round 1"}),
    _ex(
        "Organizer: enter the main match's ranking",
        {"type": "enter_ranking", "ranking": [["ana"], ["ben", "cy"], ["dee"]]},
    ),
    _ex("Organizer: pick the death-match game", {"type": "pick_game", "game": "love-letter"}),
    _ex("Organizer: appoint a moderator", {"type": "appoint_moderator", "username": "mo"}),
    _ex(
        "Organizer: substitute an entrant",
        {"type": "substitute", "out": "cy", "in": "zed", "reason": "cy left"},
    ),
    _ex("Player: give a token of life", {"type": "give_token", "to": "ben"}),
    _ex("Player: choose the candidate", {"type": "choose_candidate", "candidates": ["dee"]}),
    _ex("Player: nominate a death-match opponent", {"type": "nominate", "dmo": "ben"}),
    _ex("Player: ban a game", {"type": "ban_game", "game": "bleven"}),
    _ex(
        "Moderator: grant an item",
        {
            "type": "grant_item",
            "entrant": "ana",
            "item": "peek",
            "scope": "any",
            "given_by": "the audience",
            "reason": "best comeback",
        },
    ),
    _ex(
        "Moderator (or the holder): transfer an item",
        {
            "type": "transfer_item",
            "from": "ana",
            "to": "ben",
            "item_id": "item-1",
            "reason": "gift",
        },
    ),
    _ex("Moderator: revoke an item", {"type": "revoke_item", "item_id": "item-1", "reason": "x"}),
    _ex(
        "File a dispute",
        {
            "type": "file_dispute",
            "target_stream": "match-3f2a",
            "target_version": 17,
            "text": "the clock ran while paused",
        },
    ),
    _ex("Moderator: claim a dispute", {"type": "claim_dispute", "dispute_id": "dispute-1"}),
    _ex(
        "Moderator: transfer a dispute",
        {"type": "transfer_dispute", "dispute_id": "dispute-1", "to": "mo"},
    ),
    _ex(
        "Moderator: rule on a dispute",
        {
            "type": "rule_dispute",
            "dispute_id": "dispute-1",
            "ruling": "adjust_clock",
            "params": {"seat": "ana", "seconds": 60},
            "reason": "the clock ran while paused",
        },
    ),
    _ex(
        "Second moderator: approve a ruling",
        {"type": "approve_ruling", "dispute_id": "dispute-1", "reason": "agreed"},
    ),
    _ex(
        "Second moderator: reject a ruling",
        {"type": "reject_ruling", "dispute_id": "dispute-1", "reason": "the log says otherwise"},
    ),
]


# ---- shows --------------------------------------------------------------------
def _seen(record: ShowRecord, user):
    """The show as ``user`` may see it: as of the delay, by the pages' own rule."""
    return show_as_seen(record.stream, user)[0]


def _view(record: ShowRecord, acting: show_services.Acting, user) -> dict:
    return shows.view(_seen(record, user), acting.role, acting.actor, viewer_id=acting.user_id)


def _show_summary(record: ShowRecord, user) -> dict:
    """A line of the list: the record's fields as of the caller's cut."""
    line = ShowSummarySerializer(record).data
    seen = _seen(record, user)
    if seen.version != record.version:
        line.update(
            status=show_status(seen),
            champion=seen.champion or "",
            round_no=len([r for r in seen.rounds if r.status != "planned"]),
            version=seen.version,
        )
    return line


class ShowList(APIView):
    @extend_schema(responses=ShowSummarySerializer(many=True))
    def get(self, request):
        """The latest shows."""
        records = ShowRecord.objects.all()[:100]
        return Response([_show_summary(r, request.user) for r in records])

    @extend_schema(
        request=CreateShowSerializer,
        responses={201: ShowSummarySerializer, **refusals(400, 401, 403, 409, 413, 422)},
    )
    def post(self, request):
        """Organizers (permission tournaments.add_showrecord) create a show; the caller
        is its organizer."""
        require_permission(request, "tournaments.add_showrecord", "create a show")
        body = CreateShowSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        stream = show_services.create_show(
            name=data["name"],
            organizer=request.user.username,
            entrants=data["entrants"],
            options=data.get("options"),
            holders=data.get("holders"),
            rounds=data.get("rounds"),
            starts_at=data["starts_at"].timestamp() if data.get("starts_at") else None,
            organizer_id=request.user.pk,
            command_id=command_args(request, data)["command_id"],
        )
        record = ShowRecord.objects.get(stream=stream)
        return Response(ShowSummarySerializer(record).data, status=status.HTTP_201_CREATED)


class ShowView(APIView):
    @extend_schema(responses={200: ShowViewSerializer, **refusals(404)})
    def get(self, request, pk):
        """The show as the caller's role may see it."""
        record = get_show(pk)
        acting = show_services.acting_for(record.stream, request.user)
        return Response(
            {
                "id": record.pk,
                "stream": record.stream,
                "acting": {"role": acting.role, "name": acting.actor},
                "show": _view(record, acting, request.user),
            }
        )


class ShowCommand(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=ShowCommandSerializer,
        responses={201: ShowAppendedSerializer, **refusals(400, 401, 403, 404, 409, 413, 422, 429)},
        examples=SHOW_COMMAND_EXAMPLES
        + [
            OpenApiExample(
                "Refused: the caller's role",
                value={
                    "code": "permission_denied",
                    "message": "only the organizer may add a round",
                },
                response_only=True,
                status_codes=["403"],
            ),
            OpenApiExample(
                "Refused by a rule",
                value={"code": "rule", "message": "ben is immune this round"},
                response_only=True,
                status_codes=["422"],
            ),
        ],
    )
    def post(self, request, pk):
        """Any show command: organizer steps, players' decisions, items,
        disputes and rulings. The show's rules decide who may give it: a
        refusal for the caller's role is a 403 naming the role needed."""
        record = get_show(pk)
        require_login(request, "act in a show")
        body = ShowCommandSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        acting = show_services.acting_for(
            record.stream, request.user, body.validated_data.get("entrant")
        )
        acting = _bracket_filer(record, request.user, body.validated_data["command"]) or acting
        # a RoleRequired refusal is a 403 (the handler), any other RuleError a 422
        rows = show_services.command(
            record.stream,
            body.validated_data["command"],
            acting,
            **command_args(request, body.validated_data),
        )
        return Response(
            {"appended": [r.version for r in rows], "view": _view(record, acting, request.user)},
            status=written_status(rows),
        )


def _bracket_filer(record: ShowRecord, user, command) -> show_services.Acting | None:
    """A hosted bracket's player filing about their match acts as their seat
    there (they are no entrant of the show); None for anything else."""
    from .dispute_filing import filer

    if not isinstance(command, dict) or command.get("type") != "file_dispute":
        return None
    target = command.get("target_stream")
    if not isinstance(target, str):
        return None
    match = Match.objects.filter(stream=target).first()
    if match is None or match.show_stream == record.stream:
        return None
    acting = filer(record, user, match)
    return acting if acting is not None and acting.role == shows.PLAYER else None


class ShowPending(APIView):
    @extend_schema(responses={200: ShowPendingSerializer(many=True), **refusals(404)})
    def get(self, request, pk):
        """Who must decide what, by when (as the caller may see the show)."""
        record = get_show(pk)
        acting = show_services.acting_for(record.stream, request.user)
        return Response(_view(record, acting, request.user)["pending"])


class ShowItems(APIView):
    @extend_schema(responses={200: ItemsSerializer, **refusals(404)})
    def get(self, request, pk):
        """Inventories: the caller's own items (every entrant's for moderators)."""
        record = get_show(pk)
        acting = show_services.acting_for(record.stream, request.user)
        view = _view(record, acting, request.user)
        return Response({"inventories": view["inventories"], "item_counts": view["item_counts"]})


class ShowDisputes(APIView):
    @extend_schema(responses={200: DisputesSerializer, **refusals(404)})
    def get(self, request, pk):
        """Disputes as the caller may see them."""
        record = get_show(pk)
        acting = show_services.acting_for(record.stream, request.user)
        return Response({"disputes": _view(record, acting, request.user)["disputes"]})


def _public_log(record: ShowRecord, user) -> list[dict]:
    """The show's log as the page shows it: spectators see it with the delay."""
    return shows.public_log(_seen(record, user))


class ShowLog(APIView):
    @extend_schema(responses={200: LogSerializer, **refusals(404)})
    def get(self, request, pk):
        """The show's log: every step, item movement and ruling, as the caller may see it."""
        record = get_show(pk)
        return Response({"events": _public_log(record, request.user)})


# ---- exports ------------------------------------------------------------------
def _ndjson(lines, filename: str) -> HttpResponse:
    body = "".join(json.dumps(line, default=str, separators=(",", ":")) + "\n" for line in lines)
    response = HttpResponse(body, content_type=NDJSON)
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _match_lines(match: Match, user, cross_site: bool = False) -> list[dict]:
    viewer = match_services.viewer_for(match, user, cross_site=cross_site)
    return [
        {"stream": match.stream, **event} for event in match_services.history_for(match, viewer)
    ]


EXPORT_RESPONSES = {
    (200, NDJSON): OpenApiResponse(
        OpenApiTypes.STR, description="one JSON event per line, only what the caller may see"
    ),
    **refusals(404),
}


class MatchExport(APIView):
    @extend_schema(responses=EXPORT_RESPONSES)
    def get(self, request, pk):
        """A match's events as JSON lines, exactly what the caller may see."""
        match = get_match(pk)
        lines = _match_lines(match, request.user, match_services.cross_site(request))
        return _ndjson(lines, f"match-{match.pk}.jsonl")


class ShowExport(APIView):
    @extend_schema(responses=EXPORT_RESPONSES)
    def get(self, request, pk):
        """A show's log, then each of its matches' history, as JSON lines:
        exactly what the caller may see (spectators: with the delay)."""
        record = get_show(pk)
        lines = [{"stream": record.stream, **e} for e in _public_log(record, request.user)]
        for match in Match.objects.filter(show_stream=record.stream).order_by("id"):
            try:
                lines.extend(_match_lines(match, request.user, match_services.cross_site(request)))
            except Http404:  # nothing of this match is visible to the caller yet
                continue
        return _ndjson(lines, f"show-{record.pk}.jsonl")


# ---- brackets -------------------------------------------------------------------
def _bracket_view(record: BracketRecord) -> dict:
    return {
        "id": record.pk,
        "stream": record.stream,
        "name": record.name,
        "game": record.game,
        "status": record.status,
        "tree": bracket_services.bracket_output(record.stream),
    }


class BracketList(APIView):
    @extend_schema(responses=BracketSummarySerializer(many=True))
    def get(self, request):
        """The latest brackets, with their standings."""
        rows = BracketRecord.objects.all()[:100]
        return Response(BracketSummarySerializer(rows, many=True).data)

    @extend_schema(
        request=CreateBracketSerializer,
        responses={201: BracketViewSerializer, **refusals(400, 401, 403, 409, 413, 422)},
        examples=[
            OpenApiExample(
                "Eight bots, single elimination",
                value={
                    "name": "Friday cup",
                    "game": "love-letter",
                    "format": "single",
                    "entrants": ["a", "b", "c", "d", "e", "f", "g", "h"],
                    "first_to": {"R1": 1, "R2": 1, "R3": 2},
                    "holders": {e: "bot:level:1" for e in "abcdefgh"},
                },
                request_only=True,
            )
        ],
    )
    def post(self, request):
        """Organizers (permission tournaments.add_bracketrecord) create a bracket; its
        first series open at once."""
        require_permission(request, "tournaments.add_bracketrecord", "create a bracket")
        body = CreateBracketSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        stream = bracket_services.create_bracket(
            name=data["name"],
            game=data["game"],
            format=data["format"],
            entrants=data["entrants"],
            options=data.get("options"),
            first_to=data.get("first_to"),
            holders=data.get("holders"),
            match_options=data.get("match_options"),
            rated=data["rated"],
            actor=request.user.username,
            organizer_id=request.user.pk,
            host_show=get_show(data["show"]).stream if "show" in data else "",
            check_in=data["check_in"],
            **command_args(request, data),
        )
        record = BracketRecord.objects.get(stream=stream)
        return Response(_bracket_view(record), status=status.HTTP_201_CREATED)


class BracketView(APIView):
    @extend_schema(responses={200: BracketViewSerializer, **refusals(404)})
    def get(self, request, pk):
        """A bracket: the drawn tree as data, and its standings."""
        return Response(_bracket_view(get_bracket(pk)))


class BracketActSerializer(serializers.Serializer):
    command_id = command_id_field()


def _bracket_act_id(request) -> str | None:
    body = BracketActSerializer(data=request.data or {})
    body.is_valid(raise_exception=True)
    return command_args(request, body.validated_data)["command_id"]


class BracketCheckIn(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=BracketActSerializer,
        responses={200: BracketCheckedInSerializer, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def post(self, request, pk):
        """Before a bracket's draw, a person holding entrants says they are there
        (every entrant of theirs not checked in yet)."""
        record = get_bracket(pk)
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        names = bracket_check_in.check_in(
            record.stream, request.user.pk, command_id=_bracket_act_id(request)
        )
        return Response({"checked_in": names})


class BracketDraw(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=BracketActSerializer,
        responses={200: BracketDrawnSerializer, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def post(self, request, pk):
        """The bracket's organizer closes its check-in and draws it: the
        entrants who checked in (and bots) are seeded in their order, the
        others dropped; the first series open."""
        record = get_bracket(pk)
        if not request.user.is_authenticated:
            raise exceptions.NotAuthenticated()
        dropped = bracket_check_in.draw(
            record.stream,
            request.user.pk,
            actor=request.user.username,
            command_id=_bracket_act_id(request),
        )
        record.refresh_from_db()
        return Response({**_bracket_view(record), "dropped": dropped})


# ---- webhooks -------------------------------------------------------------------
class WebhookUrlField(serializers.URLField):
    """http or https, no credentials, a host resolving to public addresses only."""

    def to_internal_value(self, data):
        url = super().to_internal_value(data)
        try:
            hook_addresses.check_registration(url)
        except hook_addresses.RefusedAddress as exc:
            raise serializers.ValidationError(str(exc)) from None
        return url


class CreateWebhookSerializer(serializers.Serializer):
    url = WebhookUrlField(max_length=500, help_text="where to POST (e.g. a Discord webhook)")
    kinds = serializers.MultipleChoiceField(
        choices=list(hook_models.KINDS),
        required=False,
        help_text="the events to send (default: all but chat, the show room forwarded at the spectators' delay)",
    )
    format = serializers.ChoiceField(
        choices=list(hook_models.FORMATS),
        default="json",
        help_text='json (the event), or discord ({"content": "..."})',
    )
    live = serializers.BooleanField(
        default=False,
        help_text="events at once, before the spectator delay (this show's organizer only; "
        "by default each event goes out when spectators see it)",
    )
    command_id = command_id_field()


class DeliverySerializer(serializers.ModelSerializer):
    class Meta:
        model = hook_models.WebhookDelivery
        fields = [
            "id",
            "kind",
            "stream",
            "version",
            "status",
            "due_at",
            "attempts",
            "status_code",
            "error",
        ]


class WebhookSerializer(serializers.ModelSerializer):
    kinds = serializers.ListField(child=serializers.CharField())
    recent = serializers.SerializerMethodField(help_text="the last deliveries, newest first")

    class Meta:
        model = hook_models.WebhookEndpoint
        fields = [
            "id",
            "url",
            "kinds",
            "format",
            "live",
            "active",
            "consecutive_failures",
            "disabled_reason",
            "created_at",
            "recent",
        ]

    @extend_schema_field(DeliverySerializer(many=True))
    def get_recent(self, obj):
        return DeliverySerializer(obj.deliveries.order_by("-id")[:10], many=True).data


class NewWebhookSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="shown once: sign checks use it")

    class Meta(WebhookSerializer.Meta):
        fields = [*WebhookSerializer.Meta.fields, "secret"]


def require_show_organizer(request, record: ShowRecord) -> None:
    require_login(request, "manage a show's webhooks")
    if show_services.acting_for(record.stream, request.user).role != shows.ORGANIZER:
        raise Forbidden("only the organizer of this show may manage its webhooks")


class ShowWebhooks(APIView):
    @extend_schema(responses={200: WebhookSerializer(many=True), **refusals(401, 403, 404)})
    def get(self, request, pk):
        """The show's webhooks and their last deliveries (organizer only)."""
        record = get_show(pk)
        require_show_organizer(request, record)
        rows = hook_models.WebhookEndpoint.objects.filter(show_stream=record.stream)
        return Response(WebhookSerializer(rows, many=True).data)

    @extend_schema(
        request=CreateWebhookSerializer,
        responses={201: NewWebhookSerializer, **refusals(400, 401, 403, 404, 409, 413)},
        examples=[
            OpenApiExample(
                "Results and the champion to Discord",
                value={
                    "url": "https://discord.com/api/webhooks/123/abc",
                    "kinds": ["result", "elimination", "champion"],
                    "format": "discord",
                },
                request_only=True,
            )
        ],
    )
    def post(self, request, pk):
        """Register a URL for some of the show's events; the secret is shown once.
        Each delivery is signed: X-Showtable-Signature: t=<unix>,v1=<hex
        HMAC-SHA256(secret, "<t>.<body>")>."""
        record = get_show(pk)
        require_show_organizer(request, record)
        body = CreateWebhookSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        endpoint = {
            "show_stream": record.stream,
            "url": data["url"],
            "kinds": sorted(data.get("kinds") or hook_models.DEFAULT_KINDS),
            "format": data["format"],
            "live": data["live"],
        }

        def create() -> dict:
            hook = hook_models.WebhookEndpoint.objects.create(
                **endpoint,
                secret=hook_models.WebhookEndpoint.new_secret(),
                created_by=request.user.username,
                owner_id=request.user.pk,
            )
            return {"id": hook.pk}

        made = once("webhook-endpoint", endpoint, create, **command_args(request, data))
        hook = get_object_or_404(hook_models.WebhookEndpoint, pk=made["id"])
        return Response(NewWebhookSerializer(hook).data, status=status.HTTP_201_CREATED)


class ShowWebhook(APIView):
    @extend_schema(
        parameters=[COMMAND_ID_PARAMETER],
        responses={204: None, **refusals(400, 401, 403, 404, 409)},
    )
    def delete(self, request, pk, hook_id):
        """Remove a webhook (organizer only)."""
        record = get_show(pk)
        require_show_organizer(request, record)
        query = CommandIdQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        if hook_id > MAX_PK:
            raise exceptions.NotFound("this show has no webhook with that id")

        def remove() -> dict:
            hook = get_object_or_404(
                hook_models.WebhookEndpoint, pk=hook_id, show_stream=record.stream
            )
            hook.delete()
            return {}

        target = {"show_stream": record.stream, "hook": hook_id}
        once("webhook-removal", target, remove, **command_args(request, query.validated_data))
        return Response(status=status.HTTP_204_NO_CONTENT)
