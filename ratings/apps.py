from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from games.bot_levels import register_level_ratings
        from games.seat_ratings import register_seat_ratings
        from reactors.follow import register
        from tournaments.console.rating_order import register_rating_order

        from .readmodels import changes_result, rate_changes
        from .seeding import by_rating
        from .selectors import level_ratings, seat_ratings

        # follows the log (reactors): a match's result is rated after its
        # append commits, not in the move's or the timeout's transaction
        register("ratings", rate_changes, prefixes=("match-",), needs=changes_result)
        # the console seeds a new show or bracket by rating through this order
        register_rating_order(by_rating)
        # the practice picker shows each bot level's rating through this source
        register_level_ratings(level_ratings)
        # TV shows each seat's rating through this source
        register_seat_ratings(seat_ratings)
