"""The chat's fold: messages, hidings, reports, timeouts (of a room or of a
show's rooms), slow mode, closed rooms, a show's word list and blocks, kept
in step with each append to a ``chat-`` stream and rebuilt from the log."""

from __future__ import annotations

from datetime import UTC, datetime

from eventlog.readmodels import read_model, unlogged

from .models import ChatBlock, ChatMessage, ChatReport, ChatRoomState, ChatTimeout

PREFIX = "chat-"
BLOCKS = "chat-blocks-"  # a person's blocks: chat-blocks-<account id>


def _forget(stream: str) -> None:
    if not stream.startswith(PREFIX):
        return
    for model in (ChatMessage, ChatRoomState, ChatTimeout, ChatBlock, ChatReport):
        model.objects.filter(stream=stream).delete()


def _prune() -> None:
    for model in (ChatMessage, ChatRoomState, ChatTimeout, ChatBlock, ChatReport):
        unlogged(model.objects.all()).delete()


def _writes(row) -> frozenset[str] | None:
    return None if row.stream.startswith(PREFIX) else frozenset()


def _moment(epoch) -> datetime | None:
    return None if epoch is None else datetime.fromtimestamp(float(epoch), tz=UTC)


@read_model(_forget, prune=_prune, writes=_writes)
def project_chat(row) -> None:
    if not row.stream.startswith(PREFIX):
        return
    data, stream = row.data, row.stream
    if row.type == "chat_message":
        ChatMessage.objects.create(
            id=row.id,
            stream=stream,
            author_id=data["author_id"],
            author=data.get("author", ""),
            text=data["text"],
            at=row.recorded_at,
            staff=bool(data.get("staff")),
        )
    elif row.type == "chat_message_hidden":
        ChatMessage.objects.filter(stream=stream, id=data["message_id"]).update(
            hidden=True, hidden_reason=data.get("reason", "")
        )
    elif row.type == "chat_message_reported":
        ChatReport.objects.get_or_create(
            message_id=data["message_id"],
            reporter_id=data["reporter_id"],
            defaults={
                "id": row.id,
                "stream": stream,
                "reporter": data.get("reporter", ""),
                "reason": data.get("reason", ""),
                "at": row.recorded_at,
            },
        )
    elif row.type == "chat_timed_out":
        ChatTimeout.objects.update_or_create(
            stream=stream,
            user_id=data["user_id"],
            defaults={"until": _moment(data.get("until")), "show_id": data.get("show_id")},
        )
    elif row.type == "chat_slow_mode":
        ChatRoomState.objects.update_or_create(
            stream=stream, defaults={"slow_s": int(data["seconds"])}
        )
    elif row.type in ("chat_room_closed", "chat_room_opened"):
        ChatRoomState.objects.update_or_create(
            stream=stream, defaults={"closed": row.type == "chat_room_closed"}
        )
    elif row.type == "chat_words_set":
        ChatRoomState.objects.update_or_create(
            stream=stream, defaults={"words": list(data["words"])}
        )
    elif row.type == "chat_blocked":
        ChatBlock.objects.get_or_create(
            stream=stream, blocker_id=data["blocker_id"], blocked_id=data["blocked_id"]
        )
    elif row.type == "chat_unblocked":
        ChatBlock.objects.filter(
            blocker_id=data["blocker_id"], blocked_id=data["blocked_id"]
        ).delete()
