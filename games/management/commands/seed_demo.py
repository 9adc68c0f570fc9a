import random
import secrets

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand

from games import services
from games.core.protocol import RuleError
from games.core.registry import available
from games.models import Match

DEMO_USER = "organizer"


class Command(BaseCommand):
    help = "Seed the demo (an organizer login and live bot matches); safe to run again."

    def handle(self, *args, **options):
        user = User.objects.filter(username=DEMO_USER).first()
        if user is None:
            password = secrets.token_urlsafe(9)
            user = User.objects.create_superuser(DEMO_USER, "organizer@example.org", password)
            self.stdout.write(self.style.SUCCESS(f"demo login: {DEMO_USER} / {password}"))
        else:
            self.stdout.write(f"demo login: {DEMO_USER} (password printed when it was created; "
                              f"reset with `manage.py changepassword {DEMO_USER}`)")
        if Match.objects.filter(title__startswith="Demo:").exists():
            self.stdout.write("demo matches already seeded")
            return
        self._seed(user)

    def _seed(self, user):
        rng = random.SystemRandom()
        for rules in available():
            seats = ["ana", "ben", "cal", "dee"][: max(rules.min_seats, 2)]
            try:
                match = services.create_match(
                    rules.slug,
                    seats,
                    holders={seats[0]: user.pk, **{s: "bot:heuristic" for s in seats[1:]}},
                    title=f"Demo: {rules.name} (you are {seats[0]})",
                    actor="seed_demo",
                    rng=rng,
                )
                services.play_bots(match, max_moves=50, rng=rng)
            except RuleError as exc:
                self.stderr.write(f"could not seed {rules.slug}: {exc}")
                continue
            self.stdout.write(f"seeded {match}")
        if any(r.slug == "doubting-love-letter" for r in available()):
            clocked = services.create_match(
                "doubting-love-letter",
                ["ana", "ben"],
                options={"decision_s": 10, "reserve_s": 20, "reserve_step_s": 10, "first_to": 2},
                title="Demo: clocked match left alone (watch it time out)",
                actor="seed_demo",
                rng=rng,
            )
            self.stdout.write(f"seeded {clocked}")
