from django.urls import path

from . import api, api_people, api_schedule

urlpatterns = [
    path("shows/", api.ShowList.as_view(), name="api-shows"),
    path("shows/<int:pk>/", api.ShowView.as_view(), name="api-show"),
    path("shows/<int:pk>/commands", api.ShowCommand.as_view(), name="api-show-command"),
    path("shows/<int:pk>/pending", api.ShowPending.as_view(), name="api-show-pending"),
    path("shows/<int:pk>/items", api.ShowItems.as_view(), name="api-show-items"),
    path("shows/<int:pk>/disputes", api.ShowDisputes.as_view(), name="api-show-disputes"),
    path("shows/<int:pk>/log", api.ShowLog.as_view(), name="api-show-log"),
    path("shows/<int:pk>/export", api.ShowExport.as_view(), name="api-show-export"),
    path("shows/<int:pk>/webhooks", api.ShowWebhooks.as_view(), name="api-show-webhooks"),
    path(
        "shows/<int:pk>/webhooks/<int:hook_id>",
        api.ShowWebhook.as_view(),
        name="api-show-webhook",
    ),
    path(
        "shows/<int:pk>/invitations", api_people.ShowInvitations.as_view(), name="api-invitations"
    ),
    path(
        "shows/<int:pk>/invitations/<str:invitation_id>",
        api_people.ShowInvitation.as_view(),
        name="api-invitation",
    ),
    path("invitations/accept", api_people.AcceptInvitation.as_view(), name="api-accept"),
    path("shows/<int:pk>/audit", api_people.ShowAudit.as_view(), name="api-show-audit"),
    path("matches/<int:pk>/export", api.MatchExport.as_view(), name="api-match-export"),
    path("shows/<int:pk>/register", api_schedule.ShowRegister.as_view(), name="api-register"),
    path(
        "shows/<int:pk>/template", api_schedule.ShowSaveTemplate.as_view(), name="api-save-template"
    ),
    path("templates/", api_schedule.TemplateList.as_view(), name="api-templates"),
    path("templates/<int:pk>/", api_schedule.TemplateView.as_view(), name="api-template"),
    path(
        "templates/<int:pk>/shows", api_schedule.TemplateShows.as_view(), name="api-template-shows"
    ),
    path(
        "templates/<int:pk>/recurrence",
        api_schedule.TemplateRecurrence.as_view(),
        name="api-template-recurrence",
    ),
    path("brackets/", api.BracketList.as_view(), name="api-brackets"),
    path("brackets/<int:pk>/", api.BracketView.as_view(), name="api-bracket"),
    path("brackets/<int:pk>/check-in/", api.BracketCheckIn.as_view(), name="api-bracket-check-in"),
    path("brackets/<int:pk>/draw/", api.BracketDraw.as_view(), name="api-bracket-draw"),
]
