from django.apps import AppConfig


class HooksConfig(AppConfig):
    name = "hooks"
    label = "hooks"
    verbose_name = "Webhooks of show hosts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from reactors.follow import register

        from .dispatch import deliveries_of, hooked

        # follows the log (reactors): not in the append's transaction nor its request;
        # a show room's chat too (chat-s<pk>-show), through the source chat.apps
        # registers (hooks.sources)
        register("webhooks", deliveries_of, prefixes=("show-", "match-", "chat-s"), needs=hooked)
