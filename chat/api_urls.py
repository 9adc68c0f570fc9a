from django.urls import path

from . import api

urlpatterns = [
    path("chat/rooms/<str:name>/messages", api.RoomMessages.as_view(), name="api-chat-room"),
    path("chat/rooms/<str:name>/report", api.ReportMessage.as_view(), name="api-chat-report"),
    path("chat/rooms/<str:name>/hide", api.HideMessage.as_view(), name="api-chat-hide"),
]
