from django.apps import AppConfig


class BroadcastConfig(AppConfig):
    name = "broadcast"
    default_auto_field = "django.db.models.BigAutoField"
