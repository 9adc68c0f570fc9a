from django.urls import path

from . import views

app_name = "tournaments"
urlpatterns = [
    path("", views.show_list, name="index"),
    path("<int:pk>/", views.show_page, name="show"),
    path("<int:pk>/decide/", views.show_decide, name="decide"),
    path("brackets/<int:pk>/", views.bracket_page, name="bracket"),
]
