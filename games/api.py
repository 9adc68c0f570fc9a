"""The REST API: thin views over the services.

Views raise (RuleError, ConcurrencyError, DRF's exceptions); the one handler
(api.exceptions.handle) turns each into a JSON refusal with a ``code``."""

import math

from django.contrib.auth import get_user_model
from django.urls import reverse
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
from api.fields import command_id_field
from api.throttling import COMMAND_THROTTLES
from eventlog.commands import command_args
from games.core.playout import BOTS_IN_WORDS, bot_name
from games.core.protocol import MODERATOR, SEAT, Viewer
from games.core.registry import available
from games.holders import is_bot

from . import services
from .models import Match

User = get_user_model()
from games.limits import MAX_ADD_TIME_S, MAX_PK  # noqa: E402  (one definition of each bound)

# a command is a flat object: a few named scalars, or short lists of them
COMMAND_MAX_KEYS = 16
COMMAND_MAX_KEY = 32
COMMAND_MAX_STRING = 100
COMMAND_MAX_LIST = 32
COMMAND_MAX_NUMBER = 10**9


def get_match(pk: int, user=None) -> Match:
    """Match ``pk`` (404 if none), with the seat ``user`` holds in it when given."""
    match = services.match_seen_by(pk, user)
    if match is None:
        raise exceptions.NotFound("there is no match with that id")
    return match


def require_login(request, doing: str) -> None:
    if not request.user.is_authenticated:
        raise exceptions.NotAuthenticated(f"log in, or send an API token, to {doing}")


# ---- the shapes --------------------------------------------------------------
class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="stable and machine-readable, e.g. rule, conflict")
    message = serializers.CharField(help_text="what went wrong, in words a person understands")
    fields = serializers.DictField(
        required=False, help_text="invalid input: field -> its problems (code invalid)"
    )
    current_version = serializers.IntegerField(
        required=False, help_text="the stream's version now (code conflict)"
    )
    retry_after = serializers.IntegerField(
        required=False, help_text="seconds to wait (code throttled)"
    )


def refusals(*codes: int) -> dict:
    words = {
        400: "invalid input (invalid, parse_error, too_deep)",
        401: "no or a bad login or token (not_authenticated, bad_token)",
        403: "the caller's role may not do this (permission_denied)",
        404: "no such match (not_found)",
        409: "the stream moved on meanwhile (conflict, with current_version), or the "
        "command_id was used for another command or by another account (command_id_reused)",
        413: "the body is too large (too_large)",
        422: "a rule refused it, in the rule's words (rule)",
        429: "too many commands; see Retry-After (throttled)",
    }
    return {c: OpenApiResponse(ErrorSerializer, description=words[c]) for c in codes}


class MatchSummarySerializer(serializers.ModelSerializer):
    class Meta:
        model = Match
        fields = [
            "id",
            "stream",
            "game",
            "title",
            "seats",
            "scores",
            "status",
            "winners",
            "version",
        ]


class ViewerSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["seat", "moderator", "spectator"])
    seat = serializers.CharField(allow_null=True)


class PendingSerializer(serializers.Serializer):
    seat = serializers.CharField()
    kind = serializers.CharField()
    deadline = serializers.FloatField(allow_null=True, help_text="Unix time, or none")


class MatchViewSerializer(serializers.Serializer):
    """What the caller may know of a match: the series, and the bout as the game shows it."""

    version = serializers.IntegerField()
    game = serializers.CharField()
    viewer = ViewerSerializer()
    replay = serializers.BooleanField(help_text="the match is over: everything is revealed")
    seats = serializers.ListField(child=serializers.CharField())
    scores = serializers.DictField(child=serializers.IntegerField())
    target = serializers.IntegerField()
    bout_no = serializers.IntegerField()
    first = serializers.CharField(allow_null=True)
    finished = serializers.BooleanField()
    winners = serializers.ListField(child=serializers.CharField())
    end_reason = serializers.CharField(allow_null=True)
    paused = serializers.BooleanField()
    ready_check = serializers.DictField(
        allow_null=True,
        required=False,
        help_text="the ready-check the match opened with, while it is open: "
        "awaiting (the seats not there yet: each sends ready), by (its deadline), "
        "expired (its time is up: a moderator may declare a no-show); null: none",
    )
    items = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="seat -> items; only the caller's own (all for a moderator)",
    )
    pending = PendingSerializer(many=True)
    history = serializers.ListField(child=serializers.DictField())
    bout = serializers.DictField(allow_null=True, help_text="the game's own view of the bout")


class EventSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    type = serializers.CharField()
    data = serializers.DictField(help_text="only what the caller may see")
    recorded_at = serializers.DateTimeField()
    actor = serializers.CharField(allow_null=True)
    void = serializers.BooleanField(required=False, help_text="undone by a ruling")


class HistorySerializer(serializers.Serializer):
    events = EventSerializer(many=True)


class HistoryQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(
        required=False, default=0, min_value=0, max_value=MAX_PK, help_text="a version"
    )


def _bounded_scalar(value, where: str):
    if isinstance(value, str):
        if len(value) > COMMAND_MAX_STRING:
            raise serializers.ValidationError(
                f"{where} is longer than {COMMAND_MAX_STRING} characters"
            )
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        if not math.isfinite(value) or abs(value) > COMMAND_MAX_NUMBER:
            raise serializers.ValidationError(f"{where} is out of range")
    elif value is not None and not isinstance(value, bool):
        raise serializers.ValidationError(f"{where} must be a string, a number or true/false")


@extend_schema_field(
    {
        "type": "object",
        "properties": {"type": {"type": "string", "maxLength": COMMAND_MAX_STRING}},
        "required": ["type"],
        "maxProperties": COMMAND_MAX_KEYS,
        "additionalProperties": {
            "oneOf": [
                {"type": "string", "maxLength": COMMAND_MAX_STRING},
                {"type": "number", "minimum": -COMMAND_MAX_NUMBER, "maximum": COMMAND_MAX_NUMBER},
                {"type": "boolean"},
                {
                    "type": "array",
                    "maxItems": COMMAND_MAX_LIST,
                    "items": {
                        "oneOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}]
                    },
                },
            ],
            "nullable": True,
        },
    }
)
class CommandField(serializers.DictField):
    """A move: a flat object with a type and a few short values."""

    def to_internal_value(self, data):
        command = super().to_internal_value(data)
        if not isinstance(command.get("type"), str):
            raise serializers.ValidationError('a command needs a "type", e.g. {"type": "pass"}')
        if len(command) > COMMAND_MAX_KEYS:
            raise serializers.ValidationError(f"a command has at most {COMMAND_MAX_KEYS} fields")
        for key, value in command.items():
            if len(key) > COMMAND_MAX_KEY:
                raise serializers.ValidationError(f"a field name is longer than {COMMAND_MAX_KEY}")
            if isinstance(value, list):
                if len(value) > COMMAND_MAX_LIST:
                    raise serializers.ValidationError(
                        f"{key} has more than {COMMAND_MAX_LIST} entries"
                    )
                for v in value:
                    _bounded_scalar(v, f"an entry of {key}")
            else:
                _bounded_scalar(value, key)
        return command


class CommandSerializer(serializers.Serializer):
    command = CommandField(help_text='the move, e.g. {"type": "play", "card": "1", "claim": "3"}')
    command_id = command_id_field()


# one CommandSerializer's fields, bound once and shared by every move (they
# keep nothing of a call): a serializer built per move deep-copied its fields
_COMMAND_BODY = CommandSerializer()
_COMMAND_BODY.fields  # noqa: B018  (bound here, never by two threads at once)


def command_body(data) -> dict:
    """``data`` validated as ``CommandSerializer(data=data)`` validates it
    (ValidationError, a 400 with its words, else the command and its id)."""
    if not isinstance(data, dict):  # no object at all: the serializer's own words for it
        body = CommandSerializer(data=data)
        body.is_valid(raise_exception=True)
    return _COMMAND_BODY.run_validation(data)


class CommandResultSerializer(serializers.Serializer):
    appended = serializers.ListField(child=serializers.IntegerField(), help_text="versions written")
    view = MatchViewSerializer()


class OptionsField(serializers.DictField):
    """A match's options: named scalars (the game checks their ranges)."""

    def to_internal_value(self, data):
        options = super().to_internal_value(data)
        if len(options) > COMMAND_MAX_KEYS:
            raise serializers.ValidationError(f"at most {COMMAND_MAX_KEYS} options")
        for key, value in options.items():
            if len(key) > COMMAND_MAX_KEY:
                raise serializers.ValidationError(
                    f"an option name is longer than {COMMAND_MAX_KEY}"
                )
            _bounded_scalar(value, key)
        return options


HOLDERS_HELP = (
    'seat -> user id, or a bot: "bot:level:0" (random legal moves) to "bot:level:4" '
    '(the strongest); "bot:random" and "bot:heuristic" are the older names of levels 0 and 1'
)


ENTRANT_HOLDERS_HELP = HOLDERS_HELP.replace("seat ->", "entrant ->")


class HoldersField(serializers.DictField):
    """seat -> the id of an existing user, or a bot ("bot:level:<0-4>")."""

    def to_internal_value(self, data):
        holders = super().to_internal_value(data)
        users = set()
        for seat, holder in holders.items():
            if bot_name(holder) is not None:
                continue
            if is_bot(holder):
                raise serializers.ValidationError(
                    f"{seat[:100]}: {holder[:40]!r} is not a bot: a bot is {BOTS_IN_WORDS}"
                )
            if not isinstance(holder, int) or isinstance(holder, bool) or not 0 < holder <= MAX_PK:
                raise serializers.ValidationError(
                    f"{seat[:100]}: a holder is a user id or a bot, {BOTS_IN_WORDS}"
                )
            users.add(holder)
        known = set(User.objects.filter(pk__in=users).values_list("pk", flat=True))
        if users - known:
            raise serializers.ValidationError(
                f"no user with id {', '.join(map(str, sorted(users - known)))}"
            )
        return holders


class CreateMatchSerializer(serializers.Serializer):
    command_id = command_id_field()
    game = serializers.CharField(max_length=64)
    seats = serializers.ListField(
        child=serializers.CharField(max_length=100), min_length=2, max_length=8
    )
    options = OptionsField(required=False, help_text="e.g. time controls: decision_s")
    holders = HoldersField(required=False, help_text=HOLDERS_HELP)
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    spectator_delay_s = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1_000_000,
        help_text="spectators see the match this late (default 0)",
    )
    rated = serializers.BooleanField(
        default=False, help_text="the match counts for the players' ratings (default not)"
    )


class ModerateSerializer(serializers.Serializer):
    type = serializers.ChoiceField(
        choices=["pause", "resume", "add_time", "declare_no_show"],
        help_text="declare_no_show: once a ready-check's time is up, the absent "
        "``seat`` forfeits the match",
    )
    reason = serializers.CharField(max_length=500)
    seconds = serializers.FloatField(
        required=False, min_value=0.001, max_value=MAX_ADD_TIME_S, help_text="for add_time"
    )
    seat = serializers.CharField(
        required=False,
        max_length=100,
        trim_whitespace=False,  # a seat's name exactly as the match has it
        help_text="for add_time: the seat whose clock gets the time (none: every clock); "
        "for declare_no_show: the absent seat",
    )
    command_id = command_id_field()

    def validate_seat(self, seat):
        seats = self.context["match"].seats
        if seat not in seats:
            raise serializers.ValidationError(
                f"{seat} is not seated in this match: add time to one of {', '.join(seats)}"
            )
        return seat


class AppendedSerializer(serializers.Serializer):
    appended = serializers.ListField(child=serializers.IntegerField(), help_text="versions written")


class OptionSerializer(serializers.Serializer):
    name = serializers.CharField()
    default = serializers.JSONField()
    help = serializers.CharField()


class GameSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    options = OptionSerializer(many=True)
    items = serializers.DictField(
        child=serializers.CharField(), help_text="item -> its rule in short"
    )
    rules_url = serializers.CharField()


class LegalSerializer(serializers.Serializer):
    version = serializers.IntegerField(
        allow_null=True, help_text="the version the list holds for (null: not seated)"
    )
    seat = serializers.CharField(allow_null=True, help_text="the caller's seat, if seated")
    commands = serializers.ListField(
        child=serializers.DictField(),
        help_text="what the caller may send now (a sample where the choices are many, "
        "e.g. stakes); empty when it is not the caller's turn or they are not seated",
    )


# ---- the endpoints ------------------------------------------------------------
class GameList(APIView):
    @extend_schema(responses=GameSerializer(many=True))
    def get(self, request):
        """The games that can be played, with their options and defaults."""
        games = [
            {
                "slug": rules.slug,
                "name": rules.name,
                "min_players": rules.min_seats,
                "max_players": rules.max_seats,
                "options": [
                    {"name": name, "default": spec.default, "help": spec.help}
                    for name, spec in rules.options.items()
                ],
                "items": dict(rules.items),
                "rules_url": reverse("games:rules", args=[rules.slug]),
            }
            for rules in available()
        ]
        return Response(GameSerializer(games, many=True).data)


class MatchListQuerySerializer(serializers.Serializer):
    mine = serializers.BooleanField(
        required=False, default=False, help_text="only live matches where the caller holds a seat"
    )


class MatchList(APIView):
    @extend_schema(
        parameters=[MatchListQuerySerializer],
        responses={200: MatchSummarySerializer(many=True), **refusals(400)},
    )
    def get(self, request):
        query = MatchListQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        rows = Match.objects.all()
        if query.validated_data["mine"]:
            require_login(request, "list your matches")
            rows = rows.filter(holders__user=request.user, status="live").order_by("id")
        rows = services.summaries_for(rows[:100], request.user)
        return Response(MatchSummarySerializer(rows, many=True).data)

    @extend_schema(
        request=CreateMatchSerializer,
        responses={201: MatchSummarySerializer, **refusals(400, 401, 403, 409, 413, 422)},
    )
    def post(self, request):
        """Organizers (the permission games.add_match) create a match, time
        controls included; its creator moderates it."""
        require_login(request, "create a match")
        if not request.user.has_perm("games.add_match"):
            raise Forbidden("creating a match needs an organizer's permission (games.add_match)")
        body = CreateMatchSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        match = services.create_match(
            data["game"],
            data["seats"],
            options=data.get("options"),
            holders=data.get("holders"),
            title=data.get("title", ""),
            actor=request.user.username,
            moderators=[request.user.pk],
            spectator_delay_s=data.get("spectator_delay_s", 0),
            rated=data["rated"],
            command_id=command_args(request, data)["command_id"],
        )
        return Response(MatchSummarySerializer(match).data, status=status.HTTP_201_CREATED)


class MatchView(APIView):
    @extend_schema(responses={200: MatchViewSerializer, **refusals(404)})
    def get(self, request, pk):
        match = get_match(pk, request.user)
        viewer = services.viewer_for(match, request.user, cross_site=services.cross_site(request))
        return Response(services.view_for(match, viewer))


class MatchHistory(APIView):
    @extend_schema(
        parameters=[HistoryQuerySerializer],
        responses={200: HistorySerializer, **refusals(400, 404)},
    )
    def get(self, request, pk):
        match = get_match(pk, request.user)
        query = HistoryQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        after = query.validated_data["after"]
        viewer = services.viewer_for(match, request.user, cross_site=services.cross_site(request))
        return Response({"events": services.history_for(match, viewer, after)})


class MatchLegal(APIView):
    @extend_schema(responses={200: LegalSerializer, **refusals(404)})
    def get(self, request, pk):
        """The commands the caller's seat may send now."""
        match = get_match(pk, request.user)
        viewer = services.viewer_for(match, request.user)
        version, commands = services.legal_for(match, viewer)
        seat = viewer.seat if viewer.kind == SEAT else None
        return Response({"version": version, "seat": seat, "commands": commands})


class MatchCommand(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=CommandSerializer,
        responses={
            201: CommandResultSerializer,
            200: OpenApiResponse(
                CommandResultSerializer, "a retry: the command id was applied before"
            ),
            **refusals(400, 401, 403, 404, 409, 413, 422, 429),
        },
        examples=[
            OpenApiExample(
                "A play with its claim",
                value={"command": {"type": "play", "card": "1", "claim": "3"}, "command_id": "a7"},
                request_only=True,
            ),
            OpenApiExample(
                "Written",
                value={
                    "appended": [14, 15],
                    "view": {
                        "version": 15,
                        "game": "doubting-love-letter",
                        "viewer": {"kind": "seat", "seat": "ana"},
                        "replay": False,
                        "seats": ["ana", "ben"],
                        "scores": {"ana": 1, "ben": 0},
                        "target": 5,
                        "bout_no": 2,
                        "first": "ben",
                        "finished": False,
                        "winners": [],
                        "end_reason": None,
                        "paused": False,
                        "items": {"ana": []},
                        "pending": [{"seat": "ben", "kind": "respond", "deadline": 1767225660.0}],
                        "history": [],
                        "bout": {"phase": "respond", "hand": ["5"]},
                    },
                },
                response_only=True,
                status_codes=["201"],
            ),
            OpenApiExample(
                "Refused by a rule",
                value={"code": "rule", "message": "you have no bluffs left this bout (at most 3)"},
                response_only=True,
                status_codes=["422"],
            ),
            OpenApiExample(
                "A concurrent write won",
                value={
                    "code": "conflict",
                    "message": "the match moved on while your command was decided; "
                    "fetch it and try again",
                    "current_version": 12,
                },
                response_only=True,
                status_codes=["409"],
            ),
            OpenApiExample(
                "Too many commands",
                value={
                    "code": "throttled",
                    "message": "Request was throttled. Expected available in 1 second.",
                    "retry_after": 1,
                },
                response_only=True,
                status_codes=["429"],
            ),
        ],
    )
    def post(self, request, pk):
        """A seated player's move, checked by the game's rules."""
        match, viewer, rows = send_move(pk, request.user, request.data)
        versions = [r.version for r in rows]
        return Response(
            {"appended": versions, "view": services.view_for(match, viewer)},
            status=written_status(rows),
        )


def send_move(pk: int, user, data, *, match: Match | None = None) -> tuple[Match, Viewer, list]:
    """A seated player's move (``data``: a command and its command_id), the
    one way a move reaches the log from the API and from the match socket
    (live.consumers): the same checks, refusals and words. ``match``: the
    row already read with the seat ``user`` holds (``match_seen_by``'s, or
    live.commands' read with its token), else read here."""
    if match is None:
        match = get_match(pk, user)
    if not user.is_authenticated:
        raise exceptions.NotAuthenticated("log in, or send an API token, to send moves")
    viewer = services.viewer_for(match, user)
    if viewer.kind != SEAT:
        raise Forbidden("only a seated player may send moves")
    body = command_body(data)
    rows = services.submit(
        match,
        viewer.seat,
        body["command"],
        actor=user.username,
        command_id=body.get("command_id") or None,
        account=user.pk,
    )
    return match, viewer, rows


def written_status(rows) -> int:
    """201, or 200 for a retried command id (its first result, nothing written now)."""
    return status.HTTP_200_OK if getattr(rows, "replay", False) else status.HTTP_201_CREATED


class MatchModerate(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=ModerateSerializer,
        responses={201: AppendedSerializer, **refusals(400, 401, 403, 404, 409, 413, 422, 429)},
    )
    def post(self, request, pk):
        """Moderators pause or resume a match's clocks, or add time (to one seat's
        clock with ``seat``, else to every clock), with a reason; once a
        ready-check's time is up, declare the absent ``seat``'s no-show (it
        forfeits the match)."""
        match = get_match(pk)
        require_login(request, "moderate")
        if not services.moderates(match, request.user):
            raise Forbidden(
                "only a moderator of this match may do that (its show's organizer "
                "or moderators, or those named when it was created)"
            )
        body = ModerateSerializer(data=request.data, context={"match": match})
        body.is_valid(raise_exception=True)
        cmd = dict(body.validated_data)
        keys = command_args(request, {"command_id": cmd.pop("command_id", None)})
        rows = services.submit(
            match, None, cmd, actor=request.user.username, role=MODERATOR, **keys
        )
        return Response({"appended": [r.version for r in rows]}, status=written_status(rows))


class OpenSerializer(serializers.Serializer):
    command_id = command_id_field()


class MatchOpen(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=OpenSerializer,
        responses={
            201: OpenApiResponse(MatchViewSerializer, "the opening is written in the show's log"),
            200: OpenApiResponse(
                MatchViewSerializer,
                "nothing written: an opening by this account is recorded within 10 minutes, "
                "the command id was applied before, or the match needs none",
            ),
            **refusals(400, 401, 403, 404, 409, 413, 422, 429),
        },
    )
    def post(self, request, pk):
        """A show's organizer or moderator opens a live match of the show with
        every card shown: written in the show's audit log (at most once per
        account and match per 10 minutes). Until then a GET gives them what a
        spectator gets; after it, every card until the match ends."""
        match = get_match(pk, request.user)
        require_login(request, "see every card of a match")
        if services.cross_site(request):
            raise Forbidden("another site may not open a match with every card shown")
        body = OpenSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        command_id = command_args(request, body.validated_data)["command_id"]
        written = services.open_every_card(match, request.user, command_id=command_id)
        viewer = services.viewer_for(match, request.user)
        return Response(
            services.view_for(match, viewer),
            status=status.HTTP_201_CREATED if written else status.HTTP_200_OK,
        )


class NoSuchEndpoint(APIView):
    """Any other address under /api/: a JSON 404, like every other refusal."""

    def http_method_not_allowed(self, request, *args, **kwargs):
        raise exceptions.NotFound("there is no such address in this API; see /api/docs/")
