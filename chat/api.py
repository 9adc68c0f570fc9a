"""The chat's API: read a room, post a message (with a command id), report
a message; moderate it (hide a message, time a person out of the room or of
the show's rooms, slow mode, close and open it, the show's word list);
block and unblock a person. The same services and rights as the pages
(chat.services, chat.rooms)."""

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
from .services import SCOPES, SLOW_MAX_S, TIMEOUTS, WORDS_MAX

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


class AsciiIntegerField(serializers.IntegerField):
    """An integer whose digits are ASCII: IntegerField would read "٣" as 3."""

    def to_internal_value(self, data):
        if isinstance(data, str) and not data.isascii():
            self.fail("invalid")
        return super().to_internal_value(data)


def _id_field(help_text: str):
    return AsciiIntegerField(min_value=1, max_value=2**62, help_text=help_text)


class HideSerializer(serializers.Serializer):
    message = _id_field("the message's id")
    reason = serializers.CharField(max_length=200)
    command_id = command_id_field()


class ReportSerializer(serializers.Serializer):
    message = _id_field("the message's id")
    reason = serializers.CharField(max_length=200, required=False, allow_blank=True)
    command_id = command_id_field()


class TimeoutSerializer(serializers.Serializer):
    user = _id_field("the account id of someone who wrote in this room")
    length = serializers.ChoiceField(
        choices=list(TIMEOUTS), help_text="5m, 1h, or show (until the show or match is over)"
    )
    scope = serializers.ChoiceField(
        choices=list(SCOPES),
        default="room",
        help_text="room: this room; show: every room of its show (the show's organizer, "
        "its moderators and staff only)",
    )
    command_id = command_id_field()


class SlowSerializer(serializers.Serializer):
    seconds = AsciiIntegerField(
        min_value=0, max_value=SLOW_MAX_S, help_text="one message every this many seconds; 0: off"
    )
    command_id = command_id_field()


class ChatCommandSerializer(serializers.Serializer):
    command_id = command_id_field()


class BlockSerializer(serializers.Serializer):
    user = _id_field("the account id of the person to block or unblock")
    command_id = command_id_field()


class WordsSerializer(serializers.Serializer):
    words = serializers.ListField(
        child=serializers.CharField(max_length=200, allow_blank=True),
        max_length=WORDS_MAX,
        help_text="the whole list (an empty list clears it); each word is compared "
        "NFKC-normalised and casefolded, as a whole word",
    )
    command_id = command_id_field()


class WordListSerializer(serializers.Serializer):
    show = serializers.IntegerField()
    words = serializers.ListField(child=serializers.CharField(), help_text="as kept: folded")


class TimedOutSerializer(serializers.Serializer):
    timed_out = serializers.IntegerField(help_text="the account timed out")


class SlowModeSerializer(serializers.Serializer):
    slow_s = serializers.IntegerField(help_text="the room's slow mode now (0: off)")


class ClosedSerializer(serializers.Serializer):
    closed = serializers.BooleanField(help_text="whether the room is closed now")


class BlockedSerializer(serializers.Serializer):
    user = serializers.IntegerField()
    blocked = serializers.BooleanField(help_text="whether you block them now")


class ReportedSerializer(serializers.Serializer):
    reported = serializers.IntegerField(help_text="the reported message's id")


class HiddenSerializer(serializers.Serializer):
    hidden = serializers.ListField(child=serializers.IntegerField())


WRITES = refusals(400, 401, 403, 404, 409, 413, 422)


def _input(request, serializer, doing: str, name: str | None = None):
    """The caller logged in, their room (404 when ``name`` names none) and
    their body checked: (room, fields), the same for every write."""
    require_login(request, doing)
    room = _room(name) if name is not None else None
    body = serializer(data=request.data)
    body.is_valid(raise_exception=True)
    return room, body.validated_data


def _show(pk: int):
    from tournaments.models import ShowRecord

    show = ShowRecord.objects.filter(pk=pk).first()
    if show is None:
        raise exceptions.NotFound("there is no such show")
    return show


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
        parameters=[ROOM], request=PostSerializer, responses={201: MessageSerializer, **WRITES}
    )
    def post(self, request, name):
        """Write a message in a room (at most 500 characters by default; a new
        account waits its first minutes; a burst, then one at a time; the
        room's own rate, slow mode and closing; the show's word list)."""
        room, data = _input(request, PostSerializer, "write in the chat", name)
        row = services.post(room, request.user, data["text"], command_id=data.get("command_id"))
        message = as_json(ChatMessage.objects.get(pk=row.id), request.user)
        return Response(message, status=status.HTTP_201_CREATED)


class HideMessage(APIView):
    @extend_schema(
        parameters=[ROOM], request=HideSerializer, responses={200: HiddenSerializer, **WRITES}
    )
    def post(self, request, name):
        """A moderator hides a message, with a reason: it leaves every open page."""
        room, data = _input(request, HideSerializer, "moderate the chat", name)
        services.hide(
            room, request.user, data["message"], data["reason"], command_id=data.get("command_id")
        )
        return Response({"hidden": [data["message"]]})


class ReportMessage(APIView):
    @extend_schema(
        parameters=[ROOM], request=ReportSerializer, responses={200: ReportedSerializer, **WRITES}
    )
    def post(self, request, name):
        """Report a message you may read to the show's moderators (once per
        person and message, an optional reason): their dashboard lists it."""
        room, data = _input(request, ReportSerializer, "report a chat message", name)
        reason, command_id = data.get("reason", ""), data.get("command_id")
        services.report(room, request.user, data["message"], reason, command_id=command_id)
        return Response({"reported": data["message"]})


class TimeOut(APIView):
    @extend_schema(
        parameters=[ROOM], request=TimeoutSerializer, responses={200: TimedOutSerializer, **WRITES}
    )
    def post(self, request, name):
        """A moderator times a person who wrote in the room out of it, or
        (``scope`` show) out of every room of its show: 5 min, 1 h or the show.
        They still read; their messages are refused in words until it ends."""
        room, data = _input(request, TimeoutSerializer, "moderate the chat", name)
        services.time_out(
            room,
            request.user,
            data["user"],
            data["length"],
            scope=data["scope"],
            command_id=data.get("command_id"),
        )
        return Response({"timed_out": data["user"]})


class SlowMode(APIView):
    @extend_schema(
        parameters=[ROOM], request=SlowSerializer, responses={200: SlowModeSerializer, **WRITES}
    )
    def post(self, request, name):
        """A moderator sets the room's slow mode: one message every ``seconds``
        per person (its moderators excepted); 0 turns it off."""
        room, data = _input(request, SlowSerializer, "moderate the chat", name)
        seconds = data["seconds"]
        services.slow_mode(room, request.user, seconds, command_id=data.get("command_id"))
        return Response({"slow_s": seconds})


def _closing(request, name, closed: bool) -> Response:
    room, data = _input(request, ChatCommandSerializer, "moderate the chat", name)
    services.close_room(room, request.user, closed, command_id=data.get("command_id"))
    return Response({"closed": closed})


class CloseRoom(APIView):
    @extend_schema(
        parameters=[ROOM],
        request=ChatCommandSerializer,
        responses={200: ClosedSerializer, **WRITES},
    )
    def post(self, request, name):
        """A moderator closes the room: only its moderators write in it (a
        message of anyone else is refused in words); everyone still reads it."""
        return _closing(request, name, True)


class OpenRoom(APIView):
    @extend_schema(
        parameters=[ROOM],
        request=ChatCommandSerializer,
        responses={200: ClosedSerializer, **WRITES},
    )
    def post(self, request, name):
        """A moderator opens a closed room again."""
        return _closing(request, name, False)


def _blocking(request, blocked: bool) -> Response:
    _, data = _input(request, BlockSerializer, "block someone")
    command_id = data.get("command_id")
    services.block(request.user, data["user"], blocked=blocked, command_id=command_id)
    return Response({"user": data["user"], "blocked": blocked})


class Block(APIView):
    @extend_schema(request=BlockSerializer, responses={200: BlockedSerializer, **WRITES})
    def post(self, request):
        """Block a person: their messages are hidden for you in every room, at
        once and later, and their mentions of you never reach you."""
        return _blocking(request, True)


class Unblock(APIView):
    @extend_schema(request=BlockSerializer, responses={200: BlockedSerializer, **WRITES})
    def post(self, request):
        """Unblock a person: their messages are shown to you again."""
        return _blocking(request, False)


SHOW = OpenApiParameter("id", int, OpenApiParameter.PATH, description="the show's id")


class ShowWords(APIView):
    @extend_schema(
        parameters=[SHOW], responses={200: WordListSerializer, **refusals(401, 403, 404)}
    )
    def get(self, request, pk):
        """The show's word list (its organizer, its moderators and staff only)."""
        require_login(request, "read the show's word list")
        show = _show(pk)
        return Response({"show": show.pk, "words": services.words_for(show, request.user)})

    @extend_schema(
        parameters=[SHOW], request=WordsSerializer, responses={200: WordListSerializer, **WRITES}
    )
    def put(self, request, pk):
        """Set the show's word list, all of it: a message of its rooms (but the
        staff room) holding a listed word as a whole word, in any case or width
        ("ＢＡＤ", "Bad"), is refused in words that do not name the word."""
        _, data = _input(request, WordsSerializer, "set the show's word list")
        show = _show(pk)
        services.set_words(show, request.user, data["words"], command_id=data.get("command_id"))
        return Response({"show": show.pk, "words": services.show_words(show)})
