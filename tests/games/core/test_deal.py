"""Fair deals (issue 13): every shuffled deal of every game publishes a
commitment when it is dealt and reveals order and salt when its bout or
round ends; one checker (games.core.deal.verify_deal) verifies them all.

Random bot matches of each game, seeded, are checked deal by deal: the
revealed order hashes to the commitment published at that deal, the cards
dealt and drawn are the ones in that order, and neither order nor salt
reaches a player or a spectator before the reveal."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from games.core.deal import commitment_of, verify_deal
from games.core.playout import play_match
from games.core.protocol import MODERATOR_VIEW, SPECTATOR_VIEW, Viewer
from games.core.registry import series_for

DEAL_EVENTS = {
    "doubting-love-letter": ("bout_started", "bout_redealt"),
    "love-letter": ("round_started",),
    "love-me-not": ("match_started",),
    "bleven": ("round_dealt",),
}

# game, seats, options, items: short matches, items that redeal and rig
MATCHES = [
    ("doubting-love-letter", ("ana", "ben"), {"first_to": 2}, None),
    (
        "doubting-love-letter",
        ("ana", "ben"),
        {"first_to": 2},
        {"ana": ["dmo", "deck_rigging", "insurance"], "ben": ["deck_rigging", "plus_one"]},
    ),
    ("love-letter", ("ana", "ben"), {"first_to": 2}, None),
    ("love-letter", ("ana", "ben", "cy", "di"), {"first_to": 1}, None),
    ("love-me-not", ("ana", "ben"), {"first_to": 1}, None),
    ("bleven", ("ana", "ben"), {"first_to": 30}, None),
    ("bleven", ("ana", "ben", "cy", "di"), {"first_to": 30}, None),
]


def test_verify_deal_checks_order_and_salt():
    order = ["3", "5", "7", "1"]
    c = commitment_of(order, "ab12")
    assert verify_deal(c, order, "ab12")
    assert verify_deal(c, [3, 5, 7, 1], "ab12")  # cards written as ints or strings alike
    assert not verify_deal(c, ["5", "3", "7", "1"], "ab12")
    assert not verify_deal(c, order, "ab13")
    assert not verify_deal(c.upper(), order, "ab12")
    assert not verify_deal(None, order, "ab12")


class Deal:
    """One deal as the moderator's events record it, and what was done with it."""

    def __init__(self, game, event):
        d = event.data
        self.game = game
        self.public_commitment = event.for_viewer(SPECTATOR_VIEW)["commitment"]
        self.salt = d["salt"]
        if game == "doubting-love-letter":
            self.order = [str(c) for c in d["order"]]
            self.removed = [str(c) for c in d["removed"]]
            self.set_aside = self.order[:3]
            self.deck = self.order[3:]
        elif game == "love-letter":
            self.order = list(d["order"])
            self.removed = list(d["removed"])
            self.set_aside = self.order[: 1 + len(self.removed)]
            self.deck = self.order[1 + len(self.removed) :]
            assert [d["hidden"], *d["removed"], *d["deck"]] == self.order
        else:
            self.order = list(d["deck"])
            self.removed = []
            self.set_aside = []
            self.deck = self.order
        self.cutter = d.get("cutter")
        self.seats = list(d["seats"]) if "seats" in d else None
        self.dealt: list[str] = []  # from the deck at the deal, in deal order
        self.fields: dict[str, list[str]] = {}
        self.drawn: list[str] = []  # from the deck afterwards, in order
        self.from_hidden: list[str] = []
        self.rigged = False

    def see(self, event):
        t, d = event.type, event.data
        g = self.game
        if t == "card_dealt":
            self.dealt.append(str(d["card"]))
        elif t == "field_dealt":
            self.fields[d["seat"]] = list(d["cards"])
        elif t == "item_used" and d.get("item") == "deck_rigging":
            self.rigged = True
        elif t == "turn_started" and "card" in d:
            self.drawn.append(str(d["card"]))
        elif t in ("card_drawn",) and g in ("doubting-love-letter", "bleven"):
            self.drawn.append(str(d["card"]))
        elif t == "card_replaced":
            (self.drawn if d["from"] == "deck" else self.from_hidden).append(str(d["card"]))
        elif t == "cards_drawn":
            self.drawn += list(d["cards"])

    def check_reveal(self, data):
        assert data["commitment"] == self.public_commitment, "reveal of another deal"
        assert data["salt"] == self.salt
        assert [str(c) for c in data["order"]] == self.order
        assert verify_deal(data["commitment"], data["order"], data["salt"])
        assert self.set_aside[len(self.set_aside) - len(self.removed) :] == self.removed
        if self.game == "love-letter":
            assert self.from_hidden in ([], self.order[:1])
        dealt = self.dealt
        if self.game == "bleven":
            n = len(self.fields)
            c = self.seats.index(self.cutter)
            dealt = sum((self.fields[self.seats[(c + k) % n]] for k in range(n)), [])
        rest = list(self.deck)
        for card in dealt:
            rest.remove(card)  # a rig takes the topmost copy; others keep their order
        if not self.rigged:
            assert dealt == self.deck[: len(dealt)]
        assert self.drawn == rest[: len(self.drawn)], "a card drawn out of the committed order"


def secrets_hidden(deal, event, views):
    """Neither the salt nor the order reaches a seat or a spectator."""
    for data in views:
        text = json.dumps(data)
        assert deal.salt not in text, f"the salt leaked in {event.type}"
        if isinstance(data, dict):
            assert "order" not in data and "salt" not in data


def check_deals(game, seats, events) -> int:
    """Check every deal of a finished match's log; returns how many there were."""
    series = series_for(game)
    rules = series.rules
    viewers = [Viewer.of_seat(s) for s in seats] + [SPECTATOR_VIEW]
    deal, state, deals, reveals = None, None, 0, 0
    for e in events:
        state = series.evolve(state, e)
        if e.type in DEAL_EVENTS[game]:
            assert deal is None, "a new deal before the last one was revealed"
            deal = Deal(game, e)
            deals += 1
            assert len(deal.public_commitment) == 64
        elif e.type == "deal_revealed":
            assert e.visible_to is None
            deal.check_reveal(e.data)
            deal, reveals = None, reveals + 1
            continue
        elif deal is not None:
            deal.see(e)
        if deal is None:
            continue
        seen = [e.for_viewer(v) for v in viewers]
        bout = state.bout if state.bout is not None else state.last_bout
        if bout is not None and not state.finished:
            seen += [rules.view(bout, v) for v in viewers]
        secrets_hidden(deal, e, seen)
    assert deal is None, "the last deal was never revealed"
    assert deals == reveals >= 1
    return deals


def bot_match(game, seats, options, items, seed):
    rng = random.Random(seed)
    kinds = ["random", "heuristic"] if seed % 2 else ["heuristic", "random"]
    bots = {s: kinds[i % 2] for i, s in enumerate(seats)}
    events, final = play_match(series_for(game), seats, bots, rng, options=options, items=items)
    assert final.finished
    return events


@pytest.mark.parametrize("game,seats,options,items", MATCHES, ids=lambda x: str(x)[:24])
@pytest.mark.parametrize("seed", range(3))
def test_every_deal_is_committed_then_revealed(game, seats, options, items, seed):
    check_deals(game, seats, bot_match(game, seats, options, items, seed))


def test_a_mulligan_reveals_the_voided_deal_and_commits_to_the_new_one():
    game, seats, options, _ = MATCHES[1]
    items = {"ana": ["dmo", "insurance"], "ben": ["deck_rigging"]}
    for seed in range(3, 60):
        events = bot_match(game, seats, options, items, seed)
        if any(e.type == "bout_redealt" for e in events):
            break
    else:
        pytest.fail("no bot match used the mulligan")
    bouts = sum(1 for e in events if e.type == "bout_scored")
    assert check_deals(game, seats, events) > bouts


def test_moderators_see_the_order_and_salt_at_once():
    for game, seats, options, _items in MATCHES[::2]:
        series = series_for(game)
        events, _ = play_match(
            series, seats, {s: "random" for s in seats}, random.Random(1), options=options
        )
        start = next(e for e in events if e.type in DEAL_EVENTS[game])
        mod = start.for_viewer(MODERATOR_VIEW)
        assert "salt" in mod and verify_deal(
            start.public["commitment"], mod.get("order", mod.get("deck")), mod["salt"]
        )


@pytest.mark.parametrize("game", [*DEAL_EVENTS, "higher-lower"])
def test_every_rules_page_says_how_its_deal_is_checked(game):
    page = Path(__file__).parents[3] / "templates" / series_for(game).rules.rules_template
    text = " ".join(page.read_text().split())
    if game == "higher-lower":
        assert "no shuffled deck" in text
    else:
        assert "<code>salt:order</code>" in text and "sha256" in text
