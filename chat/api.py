"""The chat's API: read a room, post a message (with a command id), report
a message, hide a message; the same services and rights as the pages (chat.services, chat.rooms)."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.fields import command_id_field
from games.api import refusals, require_login
from games.core.protocol import RuleError
from games.engine_words import refusal

from . import services
from .models import ChatMessage
from .present import as_json
from .rooms import room_named

ROOM = OpenApiParameter(
    "name",
    str,
    OpenApiParameter.PATH,
    description="the room: m<match id>-players, m<match id>-spectators, s<show id>-show "
    "or s<show id>-staff",
)


def _room(name: str):
    try:
        return room_named(name)
    except RuleError as exc:
        raise exceptions.NotFound(refusal(exc)) from None


class MessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="the message's id (its event's position in the log)")
    author = serializers.CharField()
    author_id = serializers.IntegerField()
    text = serializers.CharField(help_text="plain text: show it as text, never as HTML")
    at = serializers.DateTimeField()
    mine = serializers.BooleanField()


class RoomSerializer(serializers.Serializer):
    room = serializers.CharField()
    messages = MessageSerializer(many=True)


def _message_id(help_text: str) -> serializers.RegexField:
    # ASCII digits only: IntegerField would read "٣" as 3
    return serializers.RegexField(
        r"^[0-9]{1,18}\Z",
        required=False,
        help_text=help_text,
        error_messages={"invalid": "a message id is 1 to 18 digits"},
    )


class RoomQuerySerializer(serializers.Serializer):
    before = _message_id("only messages older than this message id")
    after = _message_id("only messages newer than this message id")


class PostSerializer(serializers.Serializer):
    text = serializers.CharField(max_length=10_000, trim_whitespace=False)
    command_id = command_id_field()

    def validate_text(self, value):
        if not isinstance(self.initial_data.get("text"), str):
            raise serializers.ValidationError("a message is text")
        return value


class HideSerializer(serializers.Serializer):
    message = serializers.IntegerField(min_value=1, max_value=2**62)
    reason = serializers.CharField(max_length=200)
    command_id = command_id_field()


class ReportSerializer(serializers.Serializer):
    message = serializers.IntegerField(min_value=1, max_value=2**62)
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True)
    command_id = command_id_field()

    def validate_message(self, value):
        raw = self.initial_data.get("message")
        if isinstance(raw, str) and not raw.isascii():  # "٣" is not 3 here
            raise serializers.ValidationError("a message id is 1 to 18 digits")
        return value


class ReportedSerializer(serializers.Serializer):
    reported = serializers.IntegerField(help_text="the reported message's id")


class HiddenSerializer(serializers.Serializer):
    hidden = serializers.ListField(child=serializers.IntegerField())


class RoomMessages(APIView):
    @extend_schema(
        parameters=[ROOM, RoomQuerySerializer],
        responses={200: RoomSerializer, **refusals(400, 403, 404)},
    )
    def get(self, request, name):
        """A room's last 100 messages (older than ``before``, newer than ``after``)
        as the caller may read them: behind the spectators' delay for whoever
        watches behind it; a seat never reads the spectators' room of its live match."""
        room = _room(name)
        query = RoomQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        found = services.history(
            room,
            request.user,
            before=int(query.validated_data.get("before") or 0) or None,
            after=int(query.validated_data.get("after") or 0),
        )
        return Response({"room": room.name, "messages": [as_json(m, request.user) for m in found]})

    @extend_schema(
        parameters=[ROOM],
        request=PostSerializer,
        responses={201: MessageSerializer, **refusals(400, 401, 403, 404, 409, 413, 422)},
    )
    def post(self, request, name):
        """Write a message in a room (at most 500 characters by default; a new
        account waits its first minutes; a burst, then one at a time)."""
        require_login(request, "write in the chat")
        room = _room(name)
        body = PostSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        row = services.post(room, request.user, data["text"], command_id=data.get("command_id"))
        message = as_json(ChatMessage.objects.get(pk=row.id), request.user)
        return Response(message, status=status.HTTP_201_CREATED)


class HideMessage(APIView):
    @extend_schema(
        parameters=[ROOM],
        request=HideSerializer,
        responses={200: HiddenSerializer, **refusals(400, 401, 403, 404, 409, 413, 422)},
    )
    def post(self, request, name):
        """A moderator hides a message, with a reason: it leaves every open page."""
        require_login(request, "moderate the chat")
        room = _room(name)
        body = HideSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        services.hide(
            room, request.user, data["message"], data["reason"], command_id=data.get("command_id")
        )
        return Response({"hidden": [data["message"]]})


class ReportMessage(APIView):
    @extend_schema(
        parameters=[ROOM],
        request=ReportSerializer,
        responses={200: ReportedSerializer, **refusals(400, 401, 403, 404, 409, 413, 422)},
    )
    def post(self, request, name):
        """Report a message you may read to the show's moderators (once per
        person and message, an optional reason): their dashboard lists it."""
        require_login(request, "report a chat message")
        room = _room(name)
        body = ReportSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        services.report(
            room,
            request.user,
            data["message"],
            data.get("reason", ""),
            command_id=data.get("command_id"),
        )
        return Response({"reported": data["message"]})
