from django.urls import path

from . import api

urlpatterns = [
    path("chat/rooms/<str:name>/messages", api.RoomMessages.as_view(), name="api-chat-room"),
    path("chat/rooms/<str:name>/report", api.ReportMessage.as_view(), name="api-chat-report"),
    path("chat/rooms/<str:name>/hide", api.HideMessage.as_view(), name="api-chat-hide"),
    path("chat/rooms/<str:name>/timeout", api.TimeOut.as_view(), name="api-chat-timeout"),
    path("chat/rooms/<str:name>/slow", api.SlowMode.as_view(), name="api-chat-slow"),
    path("chat/rooms/<str:name>/close", api.CloseRoom.as_view(), name="api-chat-close"),
    path("chat/rooms/<str:name>/open", api.OpenRoom.as_view(), name="api-chat-open"),
    path("chat/block", api.Block.as_view(), name="api-chat-block"),
    path("chat/unblock", api.Unblock.as_view(), name="api-chat-unblock"),
    path("chat/shows/<int:pk>/words", api.ShowWords.as_view(), name="api-chat-words"),
]
