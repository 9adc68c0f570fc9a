from django.apps import AppConfig


class RemindersConfig(AppConfig):
    name = "reminders"
    label = "reminders"
    verbose_name = "Reminders: on the site, by e-mail, by web push, and calendars"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from eventlog.store import on_append

        from .dispatch import remind_after_append

        on_append(remind_after_append)
