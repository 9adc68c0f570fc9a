"""The REST API: thin views over the services."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from eventlog.store import ConcurrencyError
from games.core.protocol import MODERATOR, SEAT, RuleError

from . import services
from .models import Match


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


class CommandSerializer(serializers.Serializer):
    command = serializers.DictField(help_text='the move, e.g. {"type": "pass"}')
    command_id = serializers.CharField(required=False, allow_blank=True, max_length=100)


class CreateMatchSerializer(serializers.Serializer):
    game = serializers.CharField()
    seats = serializers.ListField(child=serializers.CharField(max_length=100), min_length=2)
    options = serializers.DictField(required=False, help_text="e.g. time controls: decision_s")
    holders = serializers.DictField(
        required=False, help_text='seat -> user id, or "bot:random" / "bot:heuristic"'
    )
    title = serializers.CharField(required=False, allow_blank=True, max_length=200)
    spectator_delay_s = serializers.FloatField(
        required=False, min_value=0, help_text="spectators see the match this late (default 0)"
    )


class MatchList(APIView):
    @extend_schema(responses=MatchSummarySerializer(many=True))
    def get(self, request):
        rows = services.summaries_for(Match.objects.all()[:100], request.user)
        return Response(MatchSummarySerializer(rows, many=True).data)

    @extend_schema(request=CreateMatchSerializer, responses=MatchSummarySerializer)
    def post(self, request):
        """Organizers (the permission games.add_match) create a match, time
        controls included; its creator moderates it."""
        if not request.user.has_perm("games.add_match"):
            return Response(
                {"error": "creating a match needs an organizer's permission (games.add_match)"},
                status=403,
            )
        body = CreateMatchSerializer(data=request.data)
        if not body.is_valid():
            return Response({"error": "invalid match", "fields": body.errors}, status=400)
        data = body.validated_data
        try:
            match = services.create_match(
                data["game"],
                data["seats"],
                options=data.get("options"),
                holders=data.get("holders"),
                title=data.get("title", ""),
                actor=request.user.username,
                moderators=[request.user.pk],
                spectator_delay_s=data.get("spectator_delay_s", 0),
            )
        except RuleError as exc:
            return Response({"error": str(exc)}, status=400)
        return Response(MatchSummarySerializer(match).data, status=status.HTTP_201_CREATED)


class MatchView(APIView):
    @extend_schema(responses=dict)
    def get(self, request, pk):
        match = get_object_or_404(Match, pk=pk)
        return Response(services.view_for(match, services.viewer_for(match, request.user)))


class MatchHistory(APIView):
    @extend_schema(responses=dict)
    def get(self, request, pk):
        match = get_object_or_404(Match, pk=pk)
        try:
            after = int(request.query_params.get("after", 0))
        except ValueError:
            return Response({"error": "after must be a version number"}, status=400)
        viewer = services.viewer_for(match, request.user, record=after == 0)
        return Response({"events": services.history_for(match, viewer, after)})


class MatchCommand(APIView):
    @extend_schema(request=CommandSerializer, responses=dict)
    def post(self, request, pk):
        match = get_object_or_404(Match, pk=pk)
        viewer = services.viewer_for(match, request.user, record=False)
        if viewer.kind != SEAT:
            return Response({"error": "only a seated player may send moves"}, status=403)
        body = CommandSerializer(data=request.data)
        if not body.is_valid():
            return Response({"error": 'send {"command": {...}}', "fields": body.errors}, status=400)
        try:
            rows = services.submit(
                match,
                viewer.seat,
                body.validated_data["command"],
                actor=request.user.username,
                command_id=body.validated_data.get("command_id") or None,
            )
        except RuleError as exc:
            return Response({"error": str(exc)}, status=422)
        except ConcurrencyError:
            return Response({"error": "the match moved on; fetch it again"}, status=409)
        versions = [r.version for r in rows]
        return Response(
            {"appended": versions, "view": services.view_for(match, viewer)},
            status=status.HTTP_201_CREATED,
        )


class ModerateSerializer(serializers.Serializer):
    type = serializers.ChoiceField(choices=["pause", "resume", "add_time"])
    reason = serializers.CharField(max_length=500)
    seconds = serializers.FloatField(required=False, min_value=0.001)


class MatchModerate(APIView):
    @extend_schema(request=ModerateSerializer, responses=dict)
    def post(self, request, pk):
        """Moderators pause or resume a match's clocks, or add time, with a reason."""
        match = get_object_or_404(Match, pk=pk)
        if not services.moderates(match, request.user):
            return Response(
                {
                    "error": "only a moderator of this match may do that (its show's organizer "
                    "or moderators, or those named when it was created)"
                },
                status=403,
            )
        body = ModerateSerializer(data=request.data)
        if not body.is_valid():
            return Response(
                {"error": "send type, reason (and seconds)", "fields": body.errors}, status=400
            )
        try:
            rows = services.submit(
                match, None, dict(body.validated_data), actor=request.user.username, role=MODERATOR
            )
        except RuleError as exc:
            return Response({"error": str(exc)}, status=422)
        except ConcurrencyError:
            return Response({"error": "the match moved on; try again"}, status=409)
        return Response({"appended": [r.version for r in rows]}, status=status.HTTP_201_CREATED)
