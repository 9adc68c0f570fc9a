"""Love Me Not at levels (games.core.search): what the search needs of this game.

Hidden from a seat: the opponent's hand, their face-down keeps and discards,
and the deck. Nothing the opponent does reveals anything before the reveal
(their choices are secret), so level 4 is level 3 with a larger budget.
"""

from __future__ import annotations

from games.core.search import SearchSpec, level_bots

from .bots import heuristic_bot
from .rules import DECK, RULES, LoveMeNotState

# the clock is not in the view, only its deadline: any limit rebuilds it
CLOCK_S = 120


def sample_state(view, seat, rng) -> LoveMeNotState:
    seats = tuple(view["seats"])
    me = seats.index(seat)
    opp = 1 - me
    other = seats[opp]
    hand = tuple(view["hand"] or ())
    tableau = tuple(view["tableaus"][seat])
    pile = tuple(view["piles"][seat])
    opp_tab = list(view["tableaus"][other])
    seen = set(hand) | set(tableau) | set(pile) | {c for c in opp_tab if c is not None}
    unseen = [c for c in DECK if c not in seen]
    rng.shuffle(unseen)
    for i, c in enumerate(opp_tab):
        if c is None:
            opp_tab[i] = unseen.pop()
    opp_pile = tuple(unseen.pop() for _ in range(view["pile_sizes"][other]))
    opp_chose = other not in view["waiting_for"]
    opp_hand = () if opp_chose or view["turn"] == 0 else (unseen.pop(), unseen.pop())
    deck = tuple(unseen)
    mine = view["choice"]
    choices = [None, None]
    if mine is not None:
        choices[me] = (mine["keep"], mine["discard"], False)
    if opp_chose and view["turn"] > 0:
        choices[opp] = (opp_tab[-1], opp_pile[-1], False)
    deadline = view["deadline"]
    return LoveMeNotState(
        seats=seats,
        options={"decision_s": CLOCK_S if deadline is not None else 0},
        bout=view["bout"],
        deck=deck,
        turn=view["turn"],
        turn_at=deadline - CLOCK_S if deadline is not None else 0.0,
        hands=_pair(me, hand, opp_hand),
        choices=tuple(choices),
        tableaus=_pair(me, tableau, tuple(opp_tab)),
        piles=_pair(me, pile, opp_pile),
        revealed=view["revealed_turns"],
        finished=view["finished"],
        commitment=view["commitment"],
    )


def _pair(me: int, mine, theirs) -> tuple:
    return (mine, theirs) if me == 0 else (theirs, mine)


def _simultaneous(view, command) -> bool:
    return True  # both choose at once: a fixed choice is exploitable


SPEC = SearchSpec(
    rules=RULES,
    sample_state=sample_state,
    policy=heuristic_bot,
    mixed=_simultaneous,
)
LEVELS = level_bots(SPEC)
