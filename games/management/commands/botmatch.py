import json
import random

from django.core.management.base import BaseCommand, CommandError

from games import services
from games.core.protocol import MODERATOR_VIEW, RuleError
from games.core.registry import GAME_MODULES
from games.holders import is_bot


class Command(BaseCommand):
    help = (
        "Play a whole match between bots through the services and the event "
        "store, then print its result (and optionally its history)."
    )

    def add_arguments(self, parser):
        parser.add_argument("game", choices=list(GAME_MODULES))
        parser.add_argument("--seats", default="ana,ben", help="comma-separated seat names")
        parser.add_argument(
            "--bots", default="heuristic", help="bot per seat, comma-separated (random|heuristic)"
        )
        parser.add_argument("--options", default="{}", help="match options as JSON")
        parser.add_argument("--seed", type=int, default=None, help="seeded deals (tests only)")
        parser.add_argument("--history", action="store_true", help="print the full event history")

    def handle(self, *args, game, seats, bots, options, seed, history, **kw):
        seat_list = [s.strip() for s in seats.split(",") if s.strip()]
        bot_list = [b.strip() for b in bots.split(",")]
        if len(bot_list) == 1:
            bot_list *= len(seat_list)
        if len(bot_list) != len(seat_list):
            raise CommandError("give one bot for every seat, or one bot for all")
        try:
            opts = json.loads(options)
        except json.JSONDecodeError as exc:
            raise CommandError(f"--options is not valid JSON: {exc}") from None
        rng = random.Random(seed) if seed is not None else None
        try:
            match = services.create_match(
                game,
                seat_list,
                options=opts,
                holders={s: f"bot:{b}" for s, b in zip(seat_list, bot_list, strict=True)},
                title=f"bot match: {' v '.join(seat_list)}",
                actor="botmatch",
                rng=rng,
            )
            # a simulated clock: one second a move, deadlines fire as they fall
            services.run_bots(match, start=match.created_at.timestamp(), rng=rng)
            moves = sum(
                1 for e in services.history_for(match, MODERATOR_VIEW) if is_bot(e["actor"])
            )
        except RuleError as exc:
            raise CommandError(str(exc)) from None
        view = services.view_for(match, MODERATOR_VIEW)
        self.stdout.write(
            json.dumps(
                {
                    "match": match.stream,
                    "moves": moves,
                    "finished": view["finished"],
                    "winners": view["winners"],
                    "scores": view["scores"],
                    "bouts": len(view["history"]),
                },
                indent=1,
            )
        )
        if history:
            for e in services.history_for(match, MODERATOR_VIEW):
                self.stdout.write(json.dumps(e))
