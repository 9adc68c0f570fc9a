import json as jsonlib
import re
from datetime import UTC, datetime

from django.core.management.base import BaseCommand, CommandError

from games import services
from games.core.protocol import MODERATOR_VIEW
from games.models import Match


class Command(BaseCommand):
    help = (
        "Print a match's event history (everything, as moderators see it), with "
        "each timeout's lateness behind its deadline."
    )

    def add_arguments(self, parser):
        parser.add_argument("match", help="match id or stream (match-...)")
        parser.add_argument("--json", action="store_true", help="one JSON object per line")

    def handle(self, *args, match, json: bool, **options):
        # ASCII digits only, within a bigint: "²" or a 4,300-digit id is a stream name, not an id
        found = (
            Match.objects.filter(pk=int(match)).first()
            if re.fullmatch(r"[0-9]{1,18}", match)
            else Match.objects.filter(stream=match).first()
        )
        if found is None:
            raise CommandError(f"no match {match!r} (give its id or its stream)")
        for e in services.history_for(found, MODERATOR_VIEW):
            if json:
                self.stdout.write(_json(e))
                continue
            line = (
                f"{e['version']:>5}  {e['recorded_at'][11:23]}  {e['type']:<22} {e['actor'] or ''}"
            )
            if e["type"] == "timed_out" and isinstance(e["data"].get("at"), (int, float)):
                recorded = datetime.fromisoformat(e["recorded_at"]).timestamp()
                deadline = datetime.fromtimestamp(e["data"]["at"], tz=UTC).isoformat()[11:23]
                line += f"  deadline {deadline}, {1000 * (recorded - e['data']['at']):.0f} ms late"
            if e.get("void"):
                line += "  (voided)"
            self.stdout.write(line)


def _json(e):
    return jsonlib.dumps(e)
