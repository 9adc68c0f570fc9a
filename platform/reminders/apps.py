from django.apps import AppConfig


class RemindersConfig(AppConfig):
    name = "reminders"
    label = "reminders"
    verbose_name = "Reminders: on the site, by e-mail, by web push, and calendars"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from reactors.follow import register

        from .dispatch import remind_after_append, wanted

        # follows the log (reactors): not in the request, nothing lost if it dies
        register(
            "reminders",
            remind_after_append,
            prefixes=("show-", "match-"),
            with_matches=True,
            needs=wanted,
        )
