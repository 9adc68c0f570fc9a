"""Statistics of one match per seat, counted from its standing events. Pure.

They are shown only once the match's full replay is open to everyone (see
selectors.published), so they never tell more than that replay does; no
counter names a card."""

from __future__ import annotations

from collections.abc import Iterable

# game -> the counters it keeps, in the order pages show them
COUNTERS: dict[str, tuple[str, ...]] = {
    "doubting-love-letter": (
        "bluffs",
        "bluffs_caught",
        "challenges",
        "challenges_right",
        "lives_lost",
    ),
    "love-letter": ("guard_guesses", "guard_guesses_right"),
    "higher-lower": ("bids", "auctions_won", "bids_made", "declared", "chips"),
    "bleven": ("bids", "duels_declared", "bids_hit", "bids_missed"),
    "love-me-not": (),
}


def count(game: str, seats: Iterable[str], events) -> dict[str, dict[str, int]]:
    """seat -> counter -> value, from ``events`` (rows with type and data)."""
    names = COUNTERS.get(game, ())
    out = {s: dict.fromkeys(names, 0) for s in seats}
    counter = _COUNTERS.get(game)
    if counter is not None:
        counter(out, events)
    return out


def _add(out, seat, name, n=1):
    if seat in out:
        out[seat][name] += n


def _dll(out, events):
    for e in events:
        d = e.data
        if e.type == "card_played" and d.get("bluff"):
            _add(out, d["seat"], "bluffs")
        elif e.type == "challenged":
            _add(out, d["seat"], "challenges")
            if d.get("bluff"):
                _add(out, d["seat"], "challenges_right")
                _add(out, d["of"], "bluffs_caught")
        elif e.type == "life_lost":
            _add(out, d["seat"], "lives_lost", int(d.get("lost", 1)))


def _love_letter(out, events):
    for e in events:
        if e.type == "guard_guessed":
            _add(out, e.data["seat"], "guard_guesses")
            if e.data.get("hit"):
                _add(out, e.data["seat"], "guard_guesses_right")


def _higher_lower(out, events):
    """Each bout: the bids each side made, who won the auction with a bid,
    and the Guesser's declared amount against the chips it ended with."""
    guesser, chips = None, 0
    for e in events:
        d = e.data
        if e.type == "bid_made":
            _add(out, d["seat"], "bids")
        elif e.type == "auction_closed":
            guesser, chips = d["guesser"], 0
            if d.get("how") == "bid":
                _add(out, guesser, "auctions_won")
            _add(out, guesser, "declared", int(d.get("declared", 0)))
        elif e.type == "turn_revealed":
            chips = int(d.get("chips", 0))
        elif e.type == "bout_scored" and guesser is not None:
            _add(out, guesser, "chips", chips)
            if guesser in d.get("winners", ()):
                _add(out, guesser, "bids_made")
            guesser = None


def _bleven(out, events):
    for e in events:
        d = e.data
        if e.type in ("bid_declared", "bid_hijacked"):
            _add(out, d["seat"], "bids")
        elif e.type == "duel_fought" and d.get("kind") == "matrix":
            _add(out, d["declarer"], "duels_declared")
            _add(out, d["declarer"], "bids_hit" if d.get("hit") else "bids_missed")


_COUNTERS = {
    "doubting-love-letter": _dll,
    "love-letter": _love_letter,
    "higher-lower": _higher_lower,
    "bleven": _bleven,
}


def items_used(seats: Iterable[str], events) -> dict[str, list[str]]:
    """seat -> the items it used, in order."""
    out = {s: [] for s in seats}
    for e in events:
        if e.type == "item_used" and e.data.get("seat") in out:
            out[e.data["seat"]].append(e.data["item"])
    return out
