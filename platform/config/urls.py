from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ratings import home as player_home
from reminders import views as reminder_views
from reminders.urls import show_urlpatterns as show_calendar_urlpatterns
from tournaments import urls as show_urls

from . import token_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.healthz, name="healthz"),
    path("home/", player_home.my_home, name="my_home"),  # a player's own home
    re_path(r"^docs/(?P<path>.*)$", views.manual, name="manual"),
    path("favicon.ico", views.favicon),
    path("i18n/", include("django.conf.urls.i18n")),  # set_language: the language switcher
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password_reset/", views.LimitedPasswordResetView.as_view()),  # rate-limited
    path("accounts/", include("django.contrib.auth.urls")),  # password change and reset
    path("", include("broadcast.urls")),  # the show board, TV, overlays, replays
    path("console/", include("tournaments.console.urls")),
    path("games/", include("games.urls")),
    # the shows' pages and, in their namespace, each show's calendar feed (reminders)
    path("shows/", include((show_urls.urlpatterns + show_calendar_urlpatterns, "tournaments"))),
    path("shows/", include("tournaments.dashboard_urls")),
    path("players/", include("ratings.urls")),
    path("chat/", include("chat.urls")),  # the chat rooms of matches and shows
    path("api/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("api/docs/", SpectacularSwaggerSplitView.as_view(url_name="schema"), name="api-docs"),
    path("api/", include("ratings.api_urls")),  # before games' (its last route is a 404)
    path("api/", include("chat.api_urls")),  # so is the chat's
    path("api/", include("games.api_urls")),
    path("account/tokens/", token_views.tokens, name="api-tokens"),
    path("account/reminders/", include("reminders.urls")),
    path("sw.js", reminder_views.service_worker, name="service-worker"),
    path("account/tokens/<int:pk>/revoke", token_views.revoke, name="api-token-revoke"),
]

handler404 = "config.views.not_found"
handler403 = "config.views.forbidden"
# handler500 is Django's: it renders templates/500.html, which needs no context
