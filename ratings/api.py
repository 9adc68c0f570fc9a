"""The players' API: profiles, leaderboards (and their JSON-lines export),
head-to-head and seasons; the same selectors as the pages."""

from __future__ import annotations

import json

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import exceptions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.fields import command_id_field
from eventlog.commands import command_args
from games.api import refusals, require_login
from games.core.protocol import RuleError
from games.core.registry import rules_for
from games.engine_words import refusal

from . import identity, seasons, selectors
from .models import Season

NDJSON = "application/x-ndjson"


def _player(ref: str) -> str:
    key = identity.key_for(ref)
    if key is None:
        raise exceptions.NotFound(f"no player goes by {ref[:150]!r}")
    return key


def _game(slug: str) -> str:
    try:
        return rules_for(slug).slug
    except RuleError as exc:
        raise exceptions.NotFound(refusal(exc)) from None


def _season(request) -> Season | None:
    sid = request.query_params.get("season") or ""
    if not sid:
        return None
    season = selectors.season_named(sid)
    if season is None:
        raise exceptions.NotFound(f"there is no season {sid[:20]!r}")
    return season


# ---- the shapes --------------------------------------------------------------
class RatingSerializer(serializers.Serializer):
    player = serializers.CharField(help_text="a username, or bot:<kind>")
    bot = serializers.BooleanField()
    game = serializers.CharField()
    rating = serializers.FloatField(help_text="mu - 3 sigma, what pages show")
    mu = serializers.FloatField()
    sigma = serializers.FloatField(help_text="after inactivity, as of now")
    games = serializers.IntegerField(help_text="rated matches played")
    provisional = serializers.BooleanField(help_text="fewer than five rated matches")
    last_played = serializers.DateTimeField(allow_null=True)


class PointSerializer(serializers.Serializer):
    at = serializers.DateTimeField(help_text="when the match ended")
    rating = serializers.FloatField()
    mu = serializers.FloatField()
    sigma = serializers.FloatField()
    games = serializers.IntegerField()


class RatingHistorySerializer(serializers.Serializer):
    game = serializers.CharField()
    points = PointSerializer(many=True)


class MatchLineSerializer(serializers.Serializer):
    match = serializers.IntegerField(allow_null=True, help_text="the match's id (its replay)")
    title = serializers.CharField()
    game = serializers.CharField()
    played_at = serializers.DateTimeField()
    rank = serializers.IntegerField(allow_null=True, help_text="1 best")
    won = serializers.BooleanField()
    opponents = serializers.ListField(child=serializers.CharField())
    rated = serializers.BooleanField()


class GameStatsSerializer(serializers.Serializer):
    game = serializers.CharField()
    matches = serializers.IntegerField()
    wins = serializers.IntegerField()
    counters = serializers.DictField(child=serializers.IntegerField())


class EntrySerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["show", "bracket"])
    id = serializers.IntegerField()
    name = serializers.CharField()
    entrant = serializers.CharField()
    champion = serializers.BooleanField()
    over = serializers.BooleanField()


class ProfileSerializer(serializers.Serializer):
    player = serializers.CharField()
    bot = serializers.BooleanField()
    ratings = RatingSerializer(many=True)
    history = RatingHistorySerializer(many=True)
    recent = MatchLineSerializer(many=True)
    stats = GameStatsSerializer(many=True)
    items = serializers.DictField(child=serializers.IntegerField(), help_text="item -> uses")
    entries = EntrySerializer(many=True, help_text="shows and brackets entered, titles won")


class DayField(serializers.CharField):
    """A day written YYYY-MM-DD (the service checks it; a date shown as such)."""

    def to_representation(self, value):
        return value.isoformat()


class SeasonSerializer(serializers.Serializer):
    id = serializers.CharField(source="season_id", read_only=True)
    name = serializers.CharField(max_length=seasons.NAME_MAX)
    starts = DayField(max_length=10, help_text="the first day, YYYY-MM-DD")
    ends = DayField(max_length=10, help_text="the last day, included, YYYY-MM-DD")
    command_id = command_id_field()


class LeaderboardSerializer(serializers.Serializer):
    game = serializers.CharField()
    season = SeasonSerializer(allow_null=True)
    people = RatingSerializer(many=True)
    bots = RatingSerializer(many=True)


class HeadToHeadGameSerializer(serializers.Serializer):
    game = serializers.CharField()
    matches = serializers.IntegerField()
    a_wins = serializers.IntegerField()
    b_wins = serializers.IntegerField()


class HeadToHeadSerializer(serializers.Serializer):
    a = serializers.CharField()
    b = serializers.CharField()
    games = HeadToHeadGameSerializer(many=True)
    matches = MatchLineSerializer(many=True)


SEASON_PARAM = OpenApiParameter(
    "season", str, description="a season's id: only its matches, everyone starting afresh"
)


def profile_data(key: str) -> dict:
    p = selectors.profile(key)
    return {
        "player": p.name,
        "bot": p.is_bot,
        "ratings": [x.as_dict() for x in p.ratings],
        "history": [{"game": g, "points": pts} for g, pts in p.history.items()],
        "recent": p.recent,
        "stats": [vars(g) for g in p.stats],
        "items": p.items,
        "entries": p.entries,
    }


# ---- the operations ------------------------------------------------------------
class PlayerView(APIView):
    @extend_schema(responses={200: ProfileSerializer, **refusals(404)})
    def get(self, request, ref):
        """A player's profile (a username, or bot:<kind>): ratings with their
        history, statistics, recent matches, shows, titles and items used;
        only what everyone may see of each match."""
        return Response(ProfileSerializer(profile_data(_player(ref))).data)


def _board(game: str, season: Season | None) -> dict:
    return {
        "game": game,
        "season": season,
        "people": [x.as_dict() for x in selectors.leaderboard(game, season=season)],
        "bots": [x.as_dict() for x in selectors.leaderboard(game, bots=True, season=season)],
    }


class LeaderboardView(APIView):
    @extend_schema(
        parameters=[SEASON_PARAM], responses={200: LeaderboardSerializer, **refusals(404)}
    )
    def get(self, request, game):
        """A game's leaderboard, best first: people, and bots apart."""
        return Response(LeaderboardSerializer(_board(_game(game), _season(request))).data)


class LeaderboardExport(APIView):
    @extend_schema(
        parameters=[SEASON_PARAM],
        responses={
            (200, NDJSON): OpenApiResponse(
                OpenApiTypes.STR,
                description="one rating per line (as in the leaderboard), people then bots",
            ),
            **refusals(404),
        },
    )
    def get(self, request, game):
        """A game's leaderboard as JSON lines: one player a line, best first."""
        board = LeaderboardSerializer(_board(_game(game), _season(request))).data
        lines = [{"place": i, **x} for i, x in enumerate(board["people"], 1)]
        lines += [{"place": i, **x} for i, x in enumerate(board["bots"], 1)]
        body = "".join(json.dumps(x, separators=(",", ":")) + "\n" for x in lines)
        suffix = f"-{board['season']['id']}" if board["season"] else ""
        response = HttpResponse(body, content_type=NDJSON)
        response["Content-Disposition"] = f'attachment; filename="{game}{suffix}.jsonl"'
        return response


class HeadToHeadView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("a", str, required=True, description="a username or bot:<kind>"),
            OpenApiParameter("b", str, required=True, description="a username or bot:<kind>"),
        ],
        responses={200: HeadToHeadSerializer, **refusals(400, 404)},
    )
    def get(self, request):
        """Two players' matches against each other, per game."""
        a, b = request.query_params.get("a"), request.query_params.get("b")
        if not a or not b:
            raise exceptions.ValidationError({"a": "name two players: ?a=NAME&b=NAME"})
        return Response(HeadToHeadSerializer(selectors.head_to_head(_player(a), _player(b))).data)


class SeasonList(APIView):
    @extend_schema(responses=SeasonSerializer(many=True))
    def get(self, request):
        """The seasons organizers have named, latest first."""
        return Response(SeasonSerializer(Season.objects.all(), many=True).data)

    @extend_schema(
        request=SeasonSerializer,
        responses={201: SeasonSerializer, **refusals(400, 401, 403, 409, 413, 422)},
    )
    def post(self, request):
        """An organizer (permission games.add_match) names a season: a date range."""
        require_login(request, "name a season")
        body = SeasonSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        sid = seasons.name_season(
            request.user,
            name=data["name"],
            starts=data["starts"],
            ends=data["ends"],
            **command_args(request, data),
        )
        return Response(
            SeasonSerializer(Season.objects.get(season_id=sid)).data,
            status=status.HTTP_201_CREATED,
        )
