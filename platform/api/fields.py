"""The ``command_id`` every write of the API accepts: the event store's own
rule for a client's id. The same id again from the same account with the
same body is a retry (its first answer, nothing written); otherwise a 409."""

from rest_framework import serializers

from eventlog.store import CLIENT_ID, CLIENT_ID_RULE

COMMAND_ID = rf"^{CLIENT_ID.pattern}\Z"


def command_id_field() -> serializers.RegexField:
    return serializers.RegexField(
        COMMAND_ID,
        required=False,
        max_length=64,
        help_text="your id for this command (letters, digits, _.:-; up to 64): "
        "a retry with the same id is applied once",
        error_messages={"invalid": CLIENT_ID_RULE},
    )
