"""The API of who takes part in a show and who did what: invitations
(organizer; any account accepts) and the audit log (organizer and
moderators). Thin views over tournaments.invitations and the dashboard's
audit rows; refusals go through the one handler (api.exceptions.handle)."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from api.exceptions import Forbidden
from api.fields import COMMAND_ID_PARAMETER, CommandIdQuery, command_id_field
from api.throttling import COMMAND_THROTTLES
from eventlog.commands import command_args
from games.api import refusals, require_login

from . import invitations, show_services, shows
from .api import MAX_NAME, get_show
from .dashboard import audit_rows
from .models import ShowRecord

MAX_TOKEN = 400  # a signed invitation is about 100 characters
MAX_ID = 40


def require_role(request, record: ShowRecord, roles: tuple[str, ...], doing: str):
    require_login(request, doing)
    acting = show_services.acting_for(record.stream, request.user)
    if acting.role not in roles:
        who = "the organizer" if roles == (shows.ORGANIZER,) else "the organizer and moderators"
        raise Forbidden(f"only {who} of this show may {doing}; you are a {acting.role}")
    return acting


# ---- invitations --------------------------------------------------------------------
class InvitationSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="e.g. invitation-1")
    entrant = serializers.CharField()
    status = serializers.ChoiceField(choices=["open", "accepted", "revoked"])
    invited_by = serializers.CharField()
    username = serializers.CharField(
        allow_null=True, help_text="the account that accepted it (none while open)"
    )


class NewInvitationSerializer(serializers.Serializer):
    id = serializers.CharField()
    entrant = serializers.CharField()
    status = serializers.CharField()
    token = serializers.CharField(
        help_text="shown once: the invited person sends it to POST /api/invitations/accept"
    )


class CreateInvitationSerializer(serializers.Serializer):
    command_id = command_id_field()
    entrant = serializers.CharField(
        max_length=MAX_NAME, help_text="the entrant the invited person will hold"
    )


class AcceptInvitationSerializer(serializers.Serializer):
    command_id = command_id_field()
    token = serializers.CharField(max_length=MAX_TOKEN)


class AcceptedSerializer(serializers.Serializer):
    show = serializers.IntegerField(help_text="the show's id")
    entrant = serializers.CharField(help_text="the entrant the caller now holds")


def _invitation(inv: shows.Invitation) -> dict:
    return {
        "id": inv.id,
        "entrant": inv.entrant,
        "status": inv.status,
        "invited_by": inv.invited_by,
        "username": inv.username,
    }


class ShowInvitations(APIView):
    @extend_schema(responses={200: InvitationSerializer(many=True), **refusals(401, 403, 404)})
    def get(self, request, pk):
        """The show's invitations (organizer only)."""
        record = get_show(pk)
        require_role(request, record, (shows.ORGANIZER,), "see its invitations")
        return Response([_invitation(i) for i in invitations.listing(record.stream)])

    @extend_schema(
        request=CreateInvitationSerializer,
        responses={201: NewInvitationSerializer, **refusals(400, 401, 403, 404, 409, 413, 422)},
        examples=[OpenApiExample("Invite a person to hold ana", {"entrant": "ana"})],
    )
    def post(self, request, pk):
        """Invite a person to hold an active entrant no account holds yet
        (organizer only). The answer's token is shown once."""
        record = get_show(pk)
        acting = require_role(request, record, (shows.ORGANIZER,), "invite")
        body = CreateInvitationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        inv = invitations.invite(
            record.stream,
            body.validated_data["entrant"],
            acting,
            **command_args(request, body.validated_data),
        )
        return Response(
            {
                "id": inv.invitation_id,
                "entrant": inv.entrant,
                "status": inv.status,
                "token": inv.token,
            },
            status=status.HTTP_201_CREATED,
        )


class ShowInvitation(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter("invitation_id", OpenApiTypes.STR, OpenApiParameter.PATH),
            COMMAND_ID_PARAMETER,
        ],
        responses={204: None, **refusals(400, 401, 403, 404, 409, 422)},
    )
    def delete(self, request, pk, invitation_id):
        """Revoke an open invitation (organizer only)."""
        record = get_show(pk)
        acting = require_role(request, record, (shows.ORGANIZER,), "revoke an invitation")
        if len(invitation_id) > MAX_ID:
            raise serializers.ValidationError({"invitation_id": "no invitation has so long an id"})
        query = CommandIdQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        invitations.revoke(
            record.stream, invitation_id, acting, **command_args(request, query.validated_data)
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class AcceptInvitation(APIView):
    throttle_classes = COMMAND_THROTTLES

    @extend_schema(
        request=AcceptInvitationSerializer,
        responses={200: AcceptedSerializer, **refusals(400, 401, 409, 413, 422, 429)},
    )
    def post(self, request):
        """Accept a show invitation: the caller's account (logged in, or an
        API token) holds the invited entrant from now on."""
        require_login(request, "accept an invitation")
        body = AcceptInvitationSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        inv = invitations.accept(
            body.validated_data["token"],
            request.user,
            command_args(request, body.validated_data)["command_id"],
        )
        record = ShowRecord.objects.get(stream=inv.show_stream)
        return Response({"show": record.pk, "entrant": inv.entrant})


# ---- the audit log ------------------------------------------------------------------
class AuditEntrySerializer(serializers.Serializer):
    version = serializers.IntegerField(help_text="the event's version in its stream")
    kind = serializers.CharField(help_text="the event type, e.g. item_granted")
    actor = serializers.CharField(allow_null=True)
    role = serializers.CharField()
    reason = serializers.CharField(allow_blank=True)
    at = serializers.FloatField(allow_null=True, help_text="Unix time")
    text = serializers.CharField()
    void = serializers.BooleanField()


class AuditQuerySerializer(serializers.Serializer):
    kind = serializers.CharField(required=False, max_length=64, help_text="only this event type")
    actor = serializers.CharField(required=False, max_length=MAX_NAME, help_text="only this actor")


class ShowAudit(APIView):
    @extend_schema(
        parameters=[AuditQuerySerializer],
        responses={200: AuditEntrySerializer(many=True), **refusals(400, 401, 403, 404)},
    )
    def get(self, request, pk):
        """Every organizer and moderator action of the show and its matches,
        newest first, with actor, reason and time (the organizer and the
        show's moderators only)."""
        record = get_show(pk)
        require_role(request, record, (shows.ORGANIZER, shows.MODERATOR), "read its audit log")
        query = AuditQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        state, _, _ = show_services.load(record.stream)
        rows = audit_rows(record, state, **query.validated_data)
        return Response(AuditEntrySerializer(rows, many=True).data)
