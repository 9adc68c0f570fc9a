"""A bracket waiting on its check-in before its draw: one person's entrant
and two bots (the form fuzz, the accessibility sweep and CSP walk)."""

from tournaments import bracket_services
from tournaments.models import BracketRecord


def checking_in(person, organizer_id: int, *, entrant="ana", game="love-me-not") -> BracketRecord:
    """A single-elimination bracket of ``entrant`` (held by ``person``) and two
    bots, created by the organizer's account with its check-in open."""
    stream = bracket_services.create_bracket(
        name="Late cup",
        game=game,
        format="single",
        entrants=[entrant, "bot-a", "bot-b"],
        holders={entrant: person.pk, "bot-a": "bot:level:1", "bot-b": "bot:level:1"},
        organizer_id=organizer_id,
        actor="organizer",
        check_in=True,
    )
    return BracketRecord.objects.get(stream=stream)
