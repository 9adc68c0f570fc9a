"""The ratings computed straight from the log with openskill, without the
project's code: the reference the pages must agree with."""

from __future__ import annotations

from django.contrib.auth.models import User
from openskill.models import PlackettLuce

from eventlog.models import StoredEvent

ENDS = ("series_ended", "series_forfeited", "series_overturned")


def results_from_log(game: str, *, skip=()) -> list[tuple[list[list[str]], list[int]]]:
    """(teams of usernames, ranks) of each finished match of ``game``, in
    the order they first ended; a later overturn changes who won, not when."""
    names = dict(User.objects.values_list("pk", "username"))
    first_end, winners = {}, {}
    for e in StoredEvent.objects.filter(type__in=ENDS).order_by("id"):
        first_end.setdefault(e.stream, e.id)
        winners[e.stream] = e.data["winners"]
    out = []
    for stream in sorted(first_end, key=first_end.get):
        if stream in skip:
            continue
        created = StoredEvent.objects.get(stream=stream, version=1).data
        if created["game"] != game:
            continue
        seats = created["seats"]
        sides = (
            [[seats[0], seats[2]], [seats[1], seats[3]]]
            if len(seats) == 4 and game == "bleven"
            else [[s] for s in seats]
        )
        won = winners[stream]
        ranks = [1 if all(s in won for s in side) else 2 for side in sides]
        out.append(([[names[created["holders"][s]] for s in side] for side in sides], ranks))
    return out


def replay(results) -> dict[str, tuple[float, float, int]]:
    """username -> (mu, sigma, games) after rating ``results`` in order."""
    model = PlackettLuce()
    ratings, games = {}, {}
    for teams, ranks in results:
        rated = model.rate(
            [[ratings.get(p) or model.rating(name=p) for p in team] for team in teams], ranks=ranks
        )
        for team, new in zip(teams, rated, strict=True):
            for p, r in zip(team, new, strict=True):
                ratings[p] = r
                games[p] = games.get(p, 0) + 1
    return {p: (r.mu, r.sigma, games[p]) for p, r in ratings.items()}
