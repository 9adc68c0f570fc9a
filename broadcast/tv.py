"""TV: which match of a show is on screen. Pure: no Django, no clock.

``stake`` scores what a match has on the line (as of the spectators' cut);
``pick`` keeps the match on screen unless another beats it by a threshold,
so the screen does not flicker between two matches of nearly equal interest
(as Lichess TV does)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

FINAL = 40.0  # the final decides the champion
ELIMINATION = 25.0  # a death match: someone leaves the show
MATCH_POINT = 15.0  # a side is one bout from winning the series
DECIDER = 10.0  # both sides are: the next bout decides
CLOSE = 10.0  # at most, for level scores
PROGRESS = 5.0  # at most, for a series near its end
SWITCH_BY = 10.0  # how much more interesting another match must be to take the screen


@dataclass(frozen=True)
class Candidate:
    """What TV knows of a live match at the cut."""

    key: int  # the match's id
    kind: str  # "final", "death_match", "main", "bracket", ""
    scores: tuple[int, ...]  # every side's bouts won (crowns, tokens)
    target: int  # bouts to win the series
    finished: bool = False


def stake(c: Candidate) -> float:
    """How much is at stake in a match now; finished matches are worth nothing."""
    if c.finished:
        return 0.0
    score = {"final": FINAL, "death_match": ELIMINATION}.get(c.kind, 0.0)
    target = max(int(c.target or 1), 1)
    ranked = sorted(c.scores, reverse=True) + [0, 0]
    top, second = ranked[0], ranked[1]
    if top == target - 1:
        score += MATCH_POINT
        if second == target - 1:
            score += DECIDER
    score += CLOSE * (1 - min(top - second, target) / target)
    score += PROGRESS * min(top + second, 2 * target) / (2 * target)
    return round(score, 3)


def pick(current: int | None, stakes: Mapping[int, float], by: float = SWITCH_BY) -> int | None:
    """The match on screen next: the current one while it is live and no other
    beats it by ``by`` or more; else the match at the highest stake (the
    lowest id among equals). None when nothing is live."""
    if not stakes:
        return None
    best = min(stakes, key=lambda k: (-stakes[k], k))
    if current in stakes and stakes[best] < stakes[current] + by:
        return current
    return best


RATED_SWITCH_BY = 2.0  # the top-rated channel: how much higher another match must be rated


def rated(ratings: tuple[float | None, ...]) -> float:
    """How highly rated a match is: its seats' mean rating (an unrated seat
    counts as 0, so a match of rated players beats one with a newcomer)."""
    if not ratings:
        return 0.0
    return round(sum(r or 0.0 for r in ratings) / len(ratings), 3)
