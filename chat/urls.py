from django.urls import path

from . import views

app_name = "chat"

urlpatterns = [
    path("rooms/<str:name>/messages", views.messages, name="messages"),
    path("rooms/<str:name>/post", views.post, name="post"),
    path("rooms/<str:name>/hide", views.hide, name="hide"),
    path("rooms/<str:name>/report", views.report, name="report"),
    path("rooms/<str:name>/timeout", views.time_out, name="time_out"),
    path("rooms/<str:name>/slow", views.slow, name="slow"),
    path("rooms/<str:name>/close", views.close, name="close"),
    path("rooms/<str:name>/open", views.reopen, name="open"),
    path("shows/<int:pk>/words", views.words, name="words"),
    path("block", views.block, name="block"),
]
