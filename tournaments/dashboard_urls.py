from django.urls import path

from . import dashboard

app_name = "dashboard"
urlpatterns = [
    path("dashboards/", dashboard.my_dashboards, name="mine"),
    path("<int:pk>/dashboard/", dashboard.dashboard, name="show"),
    path("<int:pk>/dashboard/live", dashboard.dashboard_live, name="live"),
    path("<int:pk>/dashboard/act", dashboard.dashboard_action, name="act"),
    path("<int:pk>/disputes/<int:no>/rule", dashboard.rule_form, name="rule"),
    path("<int:pk>/disputes/file", dashboard.file_dispute, name="file_dispute"),
    path("disputes/file/<int:match_pk>", dashboard.file_dispute_for_match, name="file_for_match"),
]
