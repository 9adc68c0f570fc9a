import random
import secrets
import time

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from games import services as match_services
from games.core.protocol import RuleError
from games.core.registry import available
from games.models import Match
from tournaments import autopilot, shows
from tournaments import show_services as ss
from tournaments.models import ShowRecord

ORGANIZER = "organizer"
PLAYER = "player"
ENTRANTS = ["player", "ada", "bo", "cy", "di", "ed", "flo", "gil"]
OPTIONS = {
    "death_match_first_to": 2,
    "final_first_to": 2,
    "game_pool": ["doubting-love-letter", "love-me-not", "higher-lower", "bleven"],
}


class Command(BaseCommand):
    help = (
        "Seed the demo: an organizer and a player login, a finished show whose "
        "final can be replayed, a live show with a death match in progress, and "
        "one match of every game. Safe to run again."
    )

    def handle(self, *args, **options):
        self._user(ORGANIZER, superuser=True)
        player = self._user(PLAYER)
        if ShowRecord.objects.filter(name__startswith="Demo").exists():
            self.stdout.write("demo already seeded")
            return
        rng = random.SystemRandom()
        self._finished_show(rng)
        self._live_show(player, rng)
        self._game_matches(player, rng)
        self.stdout.write(self.style.SUCCESS("demo seeded: open http://127.0.0.1:8000/"))

    def _user(self, name, superuser=False):
        user = User.objects.filter(username=name).first()
        if user is not None:
            self.stdout.write(
                f"demo login: {name} (password printed when created; "
                f"`manage.py changepassword {name}` resets it)"
            )
            return user
        password = secrets.token_urlsafe(9)
        if superuser:
            user = User.objects.create_superuser(name, f"{name}@example.org", password)
        else:
            user = User.objects.create_user(name, f"{name}@example.org", password)
        self.stdout.write(self.style.SUCCESS(f"demo login: {name} / {password}"))
        return user

    def _finished_show(self, rng):
        """Played to the end by bots (on a simulated clock, in the past)."""
        start = time.time() - 3 * 3600
        stream = ss.create_show(
            name="Demo: season one (finished, replay the final)",
            organizer=ORGANIZER,
            entrants=ENTRANTS,
            options=OPTIONS,
            holders={e: "bot:heuristic" for e in ENTRANTS},
            now=start,
            rng=rng,
        )
        autopilot.run(stream, rng, start=start)
        self.stdout.write(f"seeded a finished show, champion {ss.load(stream)[0].champion}")

    def _live_show(self, player, rng):
        """Bots on every seat but one; the organizer's steps are automated up
        to the first death match, which then plays live."""
        now = time.time()
        stream = ss.create_show(
            name="Demo: season two (live)",
            organizer=ORGANIZER,
            entrants=ENTRANTS,
            options={
                **OPTIONS,
                # lengths in each game's unit: five bouts, or two of Bleven's crowns
                "death_match_first_to": {
                    "doubting-love-letter": 5,
                    "love-me-not": 5,
                    "higher-lower": 5,
                    "bleven": 2,
                },
            },
            holders={e: (player.pk if e == PLAYER else "bot:heuristic") for e in ENTRANTS},
            now=now,
            rng=rng,
        )
        org = ss.Acting(ORGANIZER, shows.ORGANIZER)
        ss.command(
            stream,
            {
                "type": "grant_item",
                "entrant": PLAYER,
                "item": "insurance",
                "scope": "death_match",
                "given_by": "Adalbert",
                "reason": "welcome gift",
            },
            org,
            now=now,
        )
        # the player shares the main-match win (immune), the bots sort out the rest
        ranking = [[PLAYER, ENTRANTS[1]]] + [[e] for e in ENTRANTS[2:]]
        ss.command(stream, {"type": "enter_ranking", "ranking": ranking}, org, now=now)
        for _ in range(20):
            if any(m.kind == "death_match" for m in Match.objects.filter(show_stream=stream)):
                break
            if not autopilot.step(stream, rng, now=now):
                break
        live = Match.objects.filter(show_stream=stream, kind="death_match", status="live").first()
        if live is not None:
            self.stdout.write(f"seeded a live show: {live} is being played by bots now")
        else:
            self.stdout.write("seeded a live show (waiting for its next step)")

    def _game_matches(self, player, rng):
        for rules in available():
            seats = ["player", "ben", "cal", "dee"][: max(rules.min_seats, 2)]
            try:
                match_services.create_match(
                    rules.slug,
                    seats,
                    holders={"player": player.pk, **{s: "bot:heuristic" for s in seats[1:]}},
                    title=f"Demo: {rules.name} (you are player)",
                    actor="seed_demo",
                    rng=rng,
                )
            except RuleError as exc:
                self.stderr.write(f"could not seed {rules.slug}: {exc}")
        match_services.create_match(
            "doubting-love-letter",
            ["ana", "ben"],
            options={"decision_s": 10, "reserve_s": 20, "reserve_step_s": 10, "first_to": 2},
            title="Demo: clocked match nobody plays (watch it time out)",
            actor="seed_demo",
            rng=rng,
        )
