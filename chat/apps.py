from django.apps import AppConfig


class ChatConfig(AppConfig):
    name = "chat"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from hooks.sources import register_source
        from tournaments.dashboard import register_audit_source, register_report_source

        from . import readmodels  # noqa: F401  (the projector)
        from .audit import audit_rows
        from .hooks import SOURCE
        from .reports import report_rows

        # the chat's moderation in each show's audit, in words
        register_audit_source(audit_rows)
        # the reported messages, with their context, on the moderators' dashboard
        register_report_source(report_rows)
        # a show room forwarded by the show's webhooks (the kind "chat": Discord...)
        register_source(SOURCE)
