"""A table to look at: a person against a bot in Doubting Love Letter, with a
known deal (tests/games/test_table_cards.py, test_table_seats.py and the
phone's browser test tests/e2e/test_table_seats_cards.py)."""

import random

from games import services

# the person's hand: a Guard (1), then a Priest (2) drawn first; 3, 5, 7 set aside
GUARD_AND_PRIEST = {"removed": ["3", "5", "7"], "deck": ["1", "4", "2", "6"]}


def person_against_bot(
    user,
    *,
    seat="ana",
    bot_seat="bot-L2",
    bot="bot:level:2",
    game="doubting-love-letter",
    dealt=True,
    seed=1,
    options=None,
):
    """A match of ``user`` (in ``seat``) against ``bot`` (in ``bot_seat``),
    no decision clock unless ``options`` say; ``dealt``: the Guard and Priest deal, the person first."""
    setup = {**GUARD_AND_PRIEST, "first": seat} if dealt else None
    return services.create_match(
        game,
        [seat, bot_seat],
        options={"decision_s": 0, **(options or {})},
        holders={seat: user.pk, bot_seat: bot},
        setup=setup,
        rng=random.Random(seed),
    )
