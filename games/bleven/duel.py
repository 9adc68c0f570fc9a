"""The duel and the round's stones (RULES.md section 5), shared by the rules
and the bots."""

from __future__ import annotations

from .cards import lowest_first, total, value

MIN_FIELD = 15  # a field adding up to less loses the round


def fight(
    declarer: str,
    reviewer: str,
    field_d,
    field_r,
    tricks: int,
    positions,
    stones: int,
    answer: str,
) -> dict:
    """The duel and the round's stones for the two duelists (RULES.md 5)."""
    fd, fr = lowest_first(field_d), lowest_first(field_r)
    winners = []
    for a, b in zip(fd, fr, strict=True):
        va, vb = value(a), value(b)
        winners.append(declarer if va > vb else reviewer if vb > va else None)
    won = [k + 1 for k, w in enumerate(winners) if w == declarer]
    hit = len(won) == tricks and all(p in won for p in positions)
    sd, sr = total(fd), total(fr)
    x = None
    mult = None
    if sd < MIN_FIELD and sr < MIN_FIELD:
        kind = "annulled"
        gains = {declarer: 0, reviewer: 0}
    elif sd < MIN_FIELD:
        kind = "under_15"
        gains = {declarer: 0, reviewer: stones}
    elif sr < MIN_FIELD:
        kind = "under_15"
        gains = {declarer: stones, reviewer: 0}
    else:
        kind = "matrix"
        x = tricks * tricks + stones
        believed = answer == "believe"
        md = ((2 if believed else 3) + len(positions)) if hit else 0
        mr = 1 if believed else (0 if hit else 3)
        mult = {declarer: md, reviewer: mr}
        gains = {declarer: x * md, reviewer: x * mr}
    return {
        "fields": {declarer: fd, reviewer: fr},
        "trick_winners": winners,
        "won": won,
        "hit": hit,
        "sums": {declarer: sd, reviewer: sr},
        "kind": kind,
        "x": x,
        "multiplier": mult,
        "gains": gains,
    }
