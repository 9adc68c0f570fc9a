"""The API of scheduled shows and templates: register for a show, save a
show as a template, list and create templates, create a show from one, and
set a template's weekly recurrence. Withdrawing, checking in and confirming a
ready-check are show commands (``withdraw``, ``check_in``, ``ready``) on
/api/shows/<id>/commands."""

from __future__ import annotations

import datetime as dt

from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.exceptions import Forbidden
from api.fields import command_id_field
from api.throttling import COMMAND_THROTTLES
from eventlog.commands import command_args
from games.api import MAX_PK, refusals, require_login
from games.core.protocol import RuleError

from . import show_services, show_templates, times
from .api import MAX_ENTRANTS, ShowOptionsField, ShowSummarySerializer, StartField, get_show
from .models import ShowRecord, ShowTemplate

SHOWS_PER_PAGE = 100


@extend_schema_field(
    {
        "type": "string",
        "pattern": rf"^{times.WALL_TIME.pattern}$",
        "example": "20:30",
        "nullable": True,
        "description": "a wall-clock time in the template's time_zone (HH:MM, no offset)",
    }
)
class WallTimeField(serializers.TimeField):
    """A weekly show's time on the clocks of its zone: ASCII HH:MM[:SS], no
    offset (an offset would change with daylight saving time; the zone says it)."""

    def to_internal_value(self, value):
        if not isinstance(value, str) or not times.is_wall_time(value):
            raise serializers.ValidationError(
                "a time of day as HH:MM, e.g. 20:30, without an offset: time_zone says it"
            )
        return super().to_internal_value(value)


class TemplateSerializer(serializers.ModelSerializer):
    start_time = WallTimeField(allow_null=True, read_only=True)

    class Meta:
        model = ShowTemplate
        fields = [
            "id",
            "name",
            "options",
            "rounds",
            "moderator_ids",
            "weekday",
            "start_time",
            "time_zone",
            "announce_days",
        ]


class NewTemplateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    options = ShowOptionsField(required=False)
    rounds = serializers.ListField(
        child=serializers.CharField(max_length=200), required=False, max_length=MAX_ENTRANTS
    )
    moderators = serializers.ListField(
        child=serializers.CharField(max_length=150), required=False, max_length=MAX_ENTRANTS
    )
    command_id = command_id_field()


class SaveTemplateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    command_id = command_id_field()


class FromTemplateSerializer(serializers.Serializer):
    starts_at = StartField()
    command_id = command_id_field()


class RecurrenceSerializer(serializers.Serializer):
    weekday = serializers.IntegerField(
        min_value=0, max_value=6, allow_null=True, help_text="0 Monday to 6 Sunday; null stops it"
    )
    start_time = WallTimeField(required=False, allow_null=True)
    time_zone = serializers.CharField(max_length=64, default="UTC")
    announce_days = serializers.IntegerField(min_value=1, max_value=6, default=2)
    command_id = command_id_field()


def _template(request, pk: int) -> ShowTemplate:
    require_login(request, "use a template")
    if pk > MAX_PK:
        raise exceptions.NotFound("you have no template with that id")
    try:
        return show_templates.mine(request.user, pk)
    except RuleError:
        raise exceptions.NotFound("you have no template with that id") from None


def _organizer(request, doing: str) -> None:
    require_login(request, doing)
    if not request.user.has_perm("tournaments.add_showrecord"):
        raise Forbidden(f"to {doing} needs an organizer's permission (tournaments.add_showrecord)")


class RegisterSerializer(serializers.Serializer):
    command_id = command_id_field()


class ShowRegister(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=RegisterSerializer,
        responses={201: ShowSummarySerializer, **refusals(400, 401, 403, 404, 409, 422, 429)},
    )
    def post(self, request, pk):
        """Register the caller for a scheduled show with open registration (a seat,
        the waiting list, or the organizer's approval, as the show says)."""
        record = get_show(pk)
        require_login(request, "register for a show")
        body = RegisterSerializer(data=request.data or {})
        body.is_valid(raise_exception=True)
        show_services.register(
            record.stream,
            request.user,
            command_id=command_args(request, body.validated_data)["command_id"],
        )
        record.refresh_from_db()
        return Response(ShowSummarySerializer(record).data, status=status.HTTP_201_CREATED)


class ShowSaveTemplate(APIView):
    @extend_schema(
        request=SaveTemplateSerializer,
        responses={201: TemplateSerializer, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def post(self, request, pk):
        """Save the show's options, game pool, rounds and moderators as a
        template (the show's organizer only)."""
        record = get_show(pk)
        require_login(request, "save a template")
        body = SaveTemplateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        template = show_templates.save_from_show(
            record.stream,
            request.user,
            body.validated_data["name"],
            **command_args(request, body.validated_data),
        )
        return Response(TemplateSerializer(template).data, status=status.HTTP_201_CREATED)


class TemplateList(APIView):
    @extend_schema(responses={200: TemplateSerializer(many=True), **refusals(401)})
    def get(self, request):
        """The caller's templates."""
        require_login(request, "list your templates")
        rows = ShowTemplate.objects.filter(organizer=request.user)[:SHOWS_PER_PAGE]
        return Response(TemplateSerializer(rows, many=True).data)

    @extend_schema(
        request=NewTemplateSerializer,
        responses={201: TemplateSerializer, **refusals(400, 401, 403, 409, 413, 422)},
    )
    def post(self, request):
        """A template of show options, rounds and moderators (organizers only)."""
        _organizer(request, "create a template")
        body = NewTemplateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = dict(body.validated_data)
        keys = command_args(request, {"command_id": data.pop("command_id", None)})
        template = show_templates.create(request.user, **data, **keys)
        return Response(TemplateSerializer(template).data, status=status.HTTP_201_CREATED)


class TemplateView(APIView):
    @extend_schema(responses={200: TemplateSerializer, **refusals(401, 404)})
    def get(self, request, pk):
        """One of the caller's templates."""
        return Response(TemplateSerializer(_template(request, pk)).data)


class TemplateShows(APIView):
    @extend_schema(
        request=FromTemplateSerializer,
        responses={201: ShowSummarySerializer, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def post(self, request, pk):
        """Schedule a show from the template at ``starts_at``."""
        template = _template(request, pk)
        _organizer(request, "create a show")
        body = FromTemplateSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        start = body.validated_data["starts_at"].timestamp()
        stream = show_templates.create_show(
            template, starts_at=start, **command_args(request, body.validated_data)
        )
        record = ShowRecord.objects.get(stream=stream)
        return Response(ShowSummarySerializer(record).data, status=status.HTTP_201_CREATED)


class TemplateRecurrence(APIView):
    @extend_schema(
        request=RecurrenceSerializer,
        responses={200: TemplateSerializer, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def put(self, request, pk):
        """Repeat the template every week (a periodic task of django-celery-beat's
        database scheduler creates each show ``announce_days`` before it starts)."""
        template = _template(request, pk)
        _organizer(request, "repeat a template")
        body = RecurrenceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        d = body.validated_data
        start = d.get("start_time")
        show_templates.set_recurrence(
            template,
            weekday=d["weekday"],
            start_time=start if isinstance(start, dt.time) else None,
            time_zone=d["time_zone"],
            announce_days=d["announce_days"],
            **command_args(request, d),
        )
        template.refresh_from_db()
        return Response(TemplateSerializer(template).data)
