"""The rating model: openskill's Plackett-Luce (Weng-Lin), with its own
defaults (mu 25, sigma 25/3, beta 25/6, tau 25/300). Pure: no Django.

A rating is shown conservatively as its ordinal, mu - 3 sigma, and marked
provisional until ``PROVISIONAL_GAMES`` rated matches. Inactivity is handled
as the library's FAQ recommends: a small sigma increase for every day a
player has not played (after ``GRACE_DAYS``), never above the starting sigma;
it is applied when the player next plays, and to what a page shows now."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

MODEL = PlackettLuce()
MU = MODEL.mu
SIGMA = MODEL.sigma
PROVISIONAL_GAMES = 5
GRACE_DAYS = 14  # no change while a player has played within this many days
SIGMA_PER_IDLE_DAY = 0.05  # then sigma grows this much a day, up to SIGMA
DAY_S = 86_400.0


@dataclass(frozen=True)
class Skill:
    mu: float = MU
    sigma: float = SIGMA
    games: int = 0
    last_at: float | None = None  # when the player last played a rated match (Unix time)

    @property
    def ordinal(self) -> float:
        return ordinal(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES


def ordinal(mu: float, sigma: float) -> float:
    return mu - 3 * sigma


def idle_sigma(sigma: float, last_at: float | None, now: float) -> float:
    """``sigma`` after the inactivity between ``last_at`` and ``now``."""
    if last_at is None:
        return sigma
    idle_days = (now - last_at) / DAY_S - GRACE_DAYS
    if idle_days <= 0:
        return sigma
    return max(sigma, min(SIGMA, sigma + SIGMA_PER_IDLE_DAY * idle_days))


def as_of(skill: Skill, now: float) -> Skill:
    """The skill as shown at ``now``: its inactivity counted."""
    return Skill(skill.mu, idle_sigma(skill.sigma, skill.last_at, now), skill.games, skill.last_at)


def rate(
    skills: Mapping[str, Skill],
    teams: Sequence[Sequence[str]],
    ranks: Sequence[int],
    at: float,
) -> dict[str, Skill]:
    """The new skills of every player in ``teams`` (lists of player keys)
    after a match that ended at ``at`` with ``ranks`` (1 best, ties equal).
    Players not in ``skills`` start at the model's defaults."""
    before = {p: as_of(skills.get(p, Skill()), at) for team in teams for p in team}
    rated = MODEL.rate(
        [
            [MODEL.rating(mu=before[p].mu, sigma=before[p].sigma, name=p) for p in team]
            for team in teams
        ],
        ranks=list(ranks),
    )
    out = {}
    for team, new in zip(teams, rated, strict=True):
        for p, r in zip(team, new, strict=True):
            out[p] = Skill(r.mu, r.sigma, before[p].games + 1, at)
    return out


@dataclass(frozen=True)
class Rated:
    """One rated match in the fold: its key, when it ended, teams and ranks."""

    key: str
    at: float
    teams: Sequence[Sequence[str]]
    ranks: Sequence[int]


def fold(results: Iterable[Rated], start: Mapping[str, Skill] | None = None):
    """Every result in order: yields (result, skills before, skills after) for
    the players of each, so a caller can keep the whole history. ``start``:
    the skills before the first result (else everyone at the defaults)."""
    skills: dict[str, Skill] = dict(start or {})
    for res in results:
        players = [p for team in res.teams for p in team]
        before = {p: skills.get(p, Skill()) for p in players}
        after = rate(skills, res.teams, res.ranks, res.at)
        skills.update(after)
        yield res, before, after
