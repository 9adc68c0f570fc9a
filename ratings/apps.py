from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.player_ratings import register_player_ratings
        from reactors.follow import register
        from tournaments.console.rating_order import register_rating_order

        from .readmodels import changes_result, rate_changes
        from .seeding import by_rating
        from .selectors import player_ratings

        # follows the log (reactors): a match's result is rated after its
        # append commits, not in the move's or the timeout's transaction
        register("ratings", rate_changes, prefixes=("match-",), needs=changes_result)
        # the console seeds a new show or bracket by rating through this order
        register_rating_order(by_rating)
        # the practice picker (each bot level) and the tables (each seat) show
        # ratings through this source
        register_player_ratings(player_ratings)
