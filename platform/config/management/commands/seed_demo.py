"""`manage.py seed_demo`: the demo seeded across every app (shows, a bracket,
matches of every game, the broadcast's overlay link, rated leagues and a
season), so it lives with config, the layer above them all."""

import datetime
import random
import secrets
import time

from django.conf import settings
from django.contrib.auth.models import User
from django.core.management.base import BaseCommand
from django.db import transaction

from broadcast import overlays
from games import services as match_services
from games.core.playout import level_holder
from games.core.protocol import RuleError
from games.core.registry import available
from games.core.search import Budget, thinking_at_most
from games.models import Match
from ratings import demo as ratings_demo
from ratings import seasons
from tournaments import autopilot, show_templates, shows
from tournaments import bracket_services as bs
from tournaments import show_services as ss
from tournaments.bot_steps import held
from tournaments.demo import LIVE_DEMO, SCHEDULED_DEMO
from tournaments.models import ShowRecord

ORGANIZER = "organizer"
MODERATORS = ("moderator1", "moderator2")
PLAYER = "player"
PLAYER2 = "player2"
SPECTATOR = "spectator"
ENTRANTS = ["player", "ada", "bo", "cy", "di", "ed", "flo", "gil"]
CUP = ["player2", "hal", "ivy", "jo", "kim", "lu", "mo", "ned"]
LEAGUE = ["lea", "max"]  # accounts that play the rated demo leagues


def level_bots(names, levels=(1, 2, 3)) -> dict[str, str]:
    """Bots named by level, ``levels`` in turn: {"ada": "bot:level:1", ...}."""
    return {n: level_holder(levels[i % len(levels)]) for i, n in enumerate(names)}


OPTIONS = {
    "death_match_first_to": 2,
    "final_first_to": 2,
    "game_pool": ["doubting-love-letter", "love-me-not", "higher-lower", "bleven"],
}

# the demo's history (the finished show, the cup's first series, the leagues, the
# live show's steps up to its death match) is played here, at seeding, where
# nobody watches a bot think: every level searches at most this (a few playouts,
# ten milliseconds). The levels keep their own budgets once the demo runs.
HISTORY_THINKING = Budget(iterations=12, cap_s=0.01)

# the finished show: one bout (one of Bleven's crowns) a death match and the final,
# a history of some hundreds of moves rather than thousands, its final replayable
FINISHED_OPTIONS = {**OPTIONS, "death_match_first_to": 1, "final_first_to": 1}

# a match a demo person plays waits for them: no decision clock times them out
# before they arrive (the bots move at once all the same)
WAITS_FOR_ITS_PERSON = {"decision_s": 0}

# what each demo account is for, and where to start, printed with its login
ROLES = {
    ORGANIZER: ("organizes the demo shows", "/console/"),
    "moderator1": ("moderates the demo shows", "Moderate, then the live show's dashboard"),
    "moderator2": ("moderates the demo shows", "approves moderator1's overturn"),
    PLAYER: ("plays in the live show and one match of every game", "the home page: Your turn"),
    PLAYER2: ("plays in the demo cup and against player", "the demo cup, and the weekly cup"),
    SPECTATOR: ("has no role: watches", "a show's board and TV"),
}


class Command(BaseCommand):
    help = (
        "Seed the demo: one login per role (organizer, moderator1, moderator2, player, "
        "player2, spectator), a finished show whose final can be replayed, a live show "
        "that keeps moving, a running bracket, and a live match of every game for "
        "`player`. Every run prints each login with a fresh password. Safe to run again."
    )

    def handle(self, *args, **options):
        self.logins = []
        org = self._user(ORGANIZER, superuser=True)
        mods = [self._user(m) for m in MODERATORS]
        player = self._user(PLAYER)
        player2 = self._user(PLAYER2)
        self._user(SPECTATOR)
        if ShowRecord.objects.filter(name__startswith="Demo").exists():
            self.stdout.write("demo already seeded")
        else:
            self._seed(org, mods, player, player2)
        self._print_logins()

    def _seed(self, org, mods, player, player2):
        rng = random.SystemRandom()
        with thinking_at_most(HISTORY_THINKING):
            with transaction.atomic():  # played to its end by bots: one commit, not one a move
                self._finished_show(org, mods, rng)
            with held():  # the scene is set step by step; the autopilot takes over after
                self._live_show(org, mods, player, rng)
            self._broadcast(org)
            self._bracket(player2, mods, rng)
            self._game_matches(player, player2, rng)
            self._scheduled_show(org, mods)
            self._leagues(org, player, player2, rng)
        self.stdout.write(self.style.SUCCESS("demo seeded"))

    def _user(self, name, superuser=False):
        """The account, with a fresh password (the old one stops working),
        printed at the end with the others."""
        password = secrets.token_urlsafe(9)
        user = User.objects.filter(username=name).first()
        if user is None:
            make = User.objects.create_superuser if superuser else User.objects.create_user
            user = make(name, f"{name}@example.org", password)
        else:
            user.set_password(password)
            user.save(update_fields=["password"])
        self.logins.append((name, password))
        return user

    def _print_logins(self):
        """The logins last, in one block: what each account is for and where
        to start (a private window per account keeps the sessions apart)."""
        self.stdout.write(
            f"\nThe demo at {settings.SITE_URL}/ (fresh passwords each run; "
            "one private window per account):"
        )
        for name, password in self.logins:
            role, start = ROLES[name]
            self.stdout.write(
                self.style.SUCCESS(f"demo login: {name} / {password}") + f"  ({role}; {start})"
            )

    def _appoint(self, stream, mods, now):
        org = ss.Acting(ORGANIZER, shows.ORGANIZER)
        for m in mods:
            ss.command(stream, {"type": "appoint_moderator", "username": m.username}, org, now=now)

    def _finished_show(self, org, mods, rng):
        """Played to the end by bots (on a simulated clock, in the past)."""
        start = time.time() - 3 * 3600
        stream = ss.create_show(
            name="Demo: season one (finished, replay the final)",
            organizer=ORGANIZER,
            entrants=ENTRANTS,
            # played on a simulated clock but recorded now: a spectator delay would
            # show it running for the delay's first minutes
            options={**FINISHED_OPTIONS, "spectator_delay_s": 0},
            # played out here, thousands of moves: level 1 thinks in a millisecond
            holders=level_bots(ENTRANTS, levels=(1,)),
            now=start,
            rng=rng,
            organizer_id=org.pk,
        )
        self._appoint(stream, mods, start)
        autopilot.run(stream, rng, start=start)
        self.stdout.write(f"seeded a finished show, champion {ss.load(stream)[0].champion}")

    def _live_show(self, org_user, mods, player, rng):
        """Bots on every seat but one; the organizer's steps are automated up
        to the first death match, which then plays live."""
        now = time.time()
        stream = ss.create_show(
            name=LIVE_DEMO,
            organizer=ORGANIZER,
            entrants=ENTRANTS,
            options={
                **OPTIONS,
                "match_clock": WAITS_FOR_ITS_PERSON,
                # lengths in each game's unit: five bouts, or two of Bleven's crowns
                "death_match_first_to": {
                    "doubting-love-letter": 5,
                    "love-me-not": 5,
                    "higher-lower": 5,
                    "bleven": 2,
                },
            },
            holders={**level_bots(ENTRANTS), PLAYER: player.pk},
            now=now,
            rng=rng,
            organizer_id=org_user.pk,
        )
        self._appoint(stream, mods, now)
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

    def _broadcast(self, org):
        """The live show's board, TV and a stream overlay link (made now: only
        its hash is kept, so this is the one time it is printed)."""
        record = ShowRecord.objects.get(name=LIVE_DEMO)
        token = overlays.rotate(record, org)
        site = settings.SITE_URL
        self.stdout.write(
            f"broadcast of {record.name}: board {site}/shows/{record.pk}/board/ , "
            f"TV {site}/shows/{record.pk}/tv/ , overlay (e.g. in OBS) "
            f"{site}/overlay/{token}/scoreboard/ (also bracket, featured, hands)"
        )

    def _scheduled_show(self, org, mods):
        """A weekly template, and its next show open for registration now: check-in
        opens five minutes from now, it starts itself in thirty, bots hold five of
        its eight seats (absentees' seats go to the waiting list, else a bot)."""
        template = show_templates.create(
            org,
            name=SCHEDULED_DEMO,
            options={
                "registration": "open",
                "cap": 8,
                "check_in_s": 25 * 60,
                "absentees": "waiting_list_then_bot",
                "replacement_bot": "level:2",
                "ready_check_s": 180,
                "step_deadline_s": 600,
                "spectator_delay_s": 30,
                "death_match_first_to": 1,
                "final_first_to": 1,
                "final_game": "love-letter",
                "game_pool": ["higher-lower", "love-letter", "love-me-not"],
            },
            moderators=[m.username for m in mods],
        )
        show_templates.set_recurrence(
            template, weekday=4, start_time=datetime.time(20, 0), time_zone="Europe/Paris"
        )
        now = time.time()
        bots = [f"bot-{i}" for i in range(1, 6)]
        stream = ss.create_show(
            name=f"{SCHEDULED_DEMO} (this week)",
            organizer=ORGANIZER,
            organizer_id=org.pk,
            entrants=bots,
            holders=level_bots(bots),
            options=template.options,
            now=now,
            starts_at=now + 30 * 60,
        )
        self._appoint(stream, mods, now)
        record = ShowRecord.objects.get(stream=stream)
        self.stdout.write(
            f"seeded a scheduled show to register for: {record.name} (/shows/{record.pk}/), "
            "check-in opens in 5 minutes, it starts in 30"
        )

    def _bracket(self, player2, mods, rng):
        """A single elimination of eight, running: bots play it out in `make
        run`, except player2's series, which waits for player2."""
        host = ShowRecord.objects.get(name=LIVE_DEMO)
        stream = bs.create_bracket(
            name="Demo: cup (running bracket)",
            game="love-me-not",
            format="single",
            entrants=CUP,
            first_to=2,
            holders={**level_bots(CUP, levels=(1, 2)), PLAYER2: player2.pk},
            match_options=WAITS_FOR_ITS_PERSON,
            actor=ORGANIZER,
            rng=rng,
            # the live show's moderators take the cup's disputes (README, "Security")
            host_show=host.stream,
            organizer_id=host.organizer_id,
        )
        # the first series not player2's are played now: the next round is open
        played = list(Match.objects.filter(show_stream=stream, status="live").order_by("id")[1:3])
        for m in played:
            with transaction.atomic():  # one commit a series, not one a move
                match_services.play_bots(m, rng=rng)
        self._dispute(host, played[0], mods[0])
        self.stdout.write("seeded a running bracket")

    def _dispute(self, host, match, moderator):
        """One dispute waiting for the moderators, about a cup series the bots
        played out: an overturn of it stays possible for as long as the demo
        runs (it resets the series that depended on it), unlike one about the
        live show's death match, which the show soon moves past."""
        match.refresh_from_db()
        ss.command(
            host.stream,
            {
                "type": "file_dispute",
                "target_stream": match.stream,
                "target_version": match.version,
                "text": "demo: was this cup series played fairly?",
            },
            ss.Acting(moderator.username, shows.MODERATOR, moderator.pk),
        )

    def _leagues(self, org, player, player2, rng):
        """Rated players with history: two finished round robins of people
        (and a bot) played over the past weeks, and a season around them."""
        # accounts nobody logs in to: their seats are played for them here
        people = [player, player2] + [User.objects.get_or_create(username=n)[0] for n in LEAGUE]
        holders = {u.username: u.pk for u in people}
        start = time.time() - 16 * ratings_demo.DAY
        ratings_demo.league(
            "Demo: Love Me Not league (rated, finished)",
            "love-me-not",
            {**holders, "robo": level_holder(1)},  # played as level 1 plays
            rng,
            start=start,
            step=ratings_demo.DAY / 2,
            double_round=True,  # eight games each: past the provisional mark
        )
        ratings_demo.league(
            "Demo: Doubting Love Letter league (rated, finished)",
            "doubting-love-letter",
            dict(list(holders.items())[:3]),
            rng,
            start=start + ratings_demo.DAY / 4,
            step=2 * ratings_demo.DAY,
        )
        today = datetime.date.today()
        seasons.name_season(
            org,
            name="Demo season",
            starts=(today - datetime.timedelta(days=30)).isoformat(),
            ends=(today + datetime.timedelta(days=60)).isoformat(),
        )
        self.stdout.write("seeded two rated leagues: see /players/")

    def _game_matches(self, player, player2, rng):
        for rules in available():
            seats = ["player", "ben", "cal", "dee"][: max(rules.min_seats, 2)]
            try:
                match_services.create_match(
                    rules.slug,
                    seats,
                    holders={"player": player.pk, **level_bots(seats[1:], levels=(2,))},
                    options=WAITS_FOR_ITS_PERSON,
                    title=f"Demo: {rules.name} (you are player)",
                    actor="seed_demo",
                    rng=rng,
                )
            except RuleError as exc:
                self.stderr.write(f"could not seed {rules.slug}: {exc}")
        match_services.create_match(
            "love-me-not",
            ["player", "player2"],
            holders={"player": player.pk, "player2": player2.pk},
            options=WAITS_FOR_ITS_PERSON,
            title="Demo: Love Me Not, player v player2 (two people)",
            actor="seed_demo",
            rng=rng,
        )
        match_services.create_match(
            "doubting-love-letter",
            ["ana", "ben"],
            options={"decision_s": 10, "reserve_s": 20, "reserve_step_s": 10, "first_to": 2},
            title="Demo: clocked match nobody plays (watch it time out)",
            actor="seed_demo",
            rng=rng,
        )
