"""The ``command_id`` every write of the API accepts: the event store's own
rule for a client's id. The same id again from the same account with the
same body is a retry (its first answer, nothing written); otherwise a 409."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from eventlog.store import CLIENT_ID, CLIENT_ID_RULE

COMMAND_ID = rf"^{CLIENT_ID.pattern}\Z"


def command_id_field() -> serializers.RegexField:
    return serializers.RegexField(
        COMMAND_ID,
        required=False,
        write_only=True,
        max_length=64,
        help_text="your id for this command (letters, digits, _.:-; up to 64): "
        "a retry with the same id is applied once",
        error_messages={"invalid": CLIENT_ID_RULE},
    )


class CommandIdQuery(serializers.Serializer):
    """A DELETE's command id, sent as ``?command_id=``."""

    command_id = command_id_field()


COMMAND_ID_PARAMETER = OpenApiParameter(
    "command_id",
    OpenApiTypes.STR,
    OpenApiParameter.QUERY,
    required=False,
    description="your id for this command (letters, digits, _.:-; up to 64): "
    "a retry with the same id is applied once",
)
