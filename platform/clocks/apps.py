from django.apps import AppConfig


class ClocksConfig(AppConfig):
    name = "clocks"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from reactors.follow import register

        from .arming import arm_after_append

        # follows the log (reactors): armed by the reactors, not by the request
        register("clocks", arm_after_append, prefixes=("match-",), with_matches=True, writes=False)
