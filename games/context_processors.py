"""What every page shows its visitor: the matches waiting on one of their seats."""

from django.urls import reverse
from django.utils.functional import SimpleLazyObject


def _waiting_for(user) -> list[dict]:
    from .models import Match, SeatHolder

    # one query: the user's own seats in live matches that wait on someone;
    # a seat is the user's own, so its live waiting is theirs to see
    rows = (
        SeatHolder.objects.filter(user=user, match__status="live")
        .exclude(match__waiting_on=[])
        .values_list(
            "match_id",
            "seat",
            "match__waiting_on",
            "match__title",
            "match__game",
            "match__title_words",
            "match__kind",
            "match__seats",
        )
        .order_by("match_id")
    )
    out: dict[int, dict] = {}
    for pk, seat, waiting, title, game, words, kind, seats in rows:
        if seat in waiting:
            entry = out.setdefault(
                pk,
                {
                    "pk": pk,
                    # the title in the reader's words (games.titles), not its row's
                    "name": str(
                        Match(title=title, game=game, title_words=words, kind=kind, seats=seats)
                    ),
                    "seats": [],
                    "url": reverse("games:match", args=[pk]),
                },
            )
            entry["seats"].append(seat)
    return list(out.values())


def your_turn(request):
    """``your_turn``: the logged-in user's matches waiting on them, computed
    once per request and only if a template asks."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"your_turn": []}
    if not hasattr(request, "_your_turn"):
        request._your_turn = SimpleLazyObject(lambda: _waiting_for(user))
    return {"your_turn": request._your_turn}
