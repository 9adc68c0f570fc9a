"""Higher or Lower's table: the open auction, the Dealer's pick, the Guesser's stake."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from games.engine_words import in_words
from games.higher_lower.rules import FIRST_BID_STEP, bid_step

from .base import Board, Card, Choice, Control, Field, Pile, SeatPart, seat_name

# a guess's direction as the engine records it
DIRECTIONS = (gettext_noop("higher"), gettext_noop("lower"))


def face(c, note: str = "") -> Card:
    return Card(str(c), "", "hl", note, str(c))


def board(view: dict, you: str | None, names: dict) -> Board:
    seats = {}
    committed = view.get("committed", {})
    for s in view["seats"]:
        facts = []
        if s == view.get("guesser"):
            facts.append(_("Guesser"))
            facts.append(
                _("chips: %(n)s (target %(t)s)")
                % {"n": view.get("chips"), "t": view.get("declared")}
            )
            if view.get("phase") == "turns":
                facts.append(_("has guessed") if committed.get("guesser") else _("guessing…"))
        elif s == view.get("dealer"):
            facts.append(_("Dealer"))
            if view.get("phase") == "turns":
                facts.append(_("has picked") if committed.get("dealer") else _("picking…"))
        if view["auction"].get("high_bidder") == s and view["auction"].get("open"):
            facts.append(_("holds the standing bid"))
        hand: tuple[Card, ...] = ()
        if s == view.get("dealer") and view.get("pick") is not None:
            hand = (face(view["pick"], _("your secret pick") if s == you else _("picked")),)
        if s == view.get("guesser") and view.get("guess"):
            g = view["guess"]
            facts.append(_("guess: %(d)s, stake %(s)s") % {"d": _(g["direction"]), "s": g["stake"]})
        seats[s] = SeatPart(facts=tuple(facts), hand=hand)
    auction = view["auction"]
    regions = []
    if auction.get("open"):
        lines = [
            _("standing bid: %(b)s by %(who)s")
            % {"b": auction["standing_bid"], "who": names.get(auction["high_bidder"])}
            if auction.get("standing_bid") is not None
            else _("no bid yet"),
            _("the next bid is at least %(n)s") % {"n": auction.get("min_bid")},
            _("%(n)s s without a bid close the auction")
            % {"n": view["options"]["auction_close_s"]},
        ]
        regions.append(Pile(_("Auction"), (), tuple(lines)))
    elif view.get("guesser"):
        how = _("by the highest bid") if auction.get("how") == "bid" else _("by a coin flip")
        regions.append(
            Pile(
                _("Roles"),
                (),
                (
                    _("Guesser: %(g)s, Dealer: %(d)s; declared target %(t)s chips (%(how)s)")
                    % {
                        "g": names.get(view["guesser"]),
                        "d": names.get(view["dealer"]),
                        "t": view.get("declared"),
                        "how": how,
                    },
                ),
            )
        )
    if view.get("revealed"):
        cards = tuple(face(c) for c in view["revealed"])
        lines = (_("turn %(n)s of %(m)s") % {"n": view.get("turn"), "m": view.get("turns")},)
        regions.append(Pile(_("Cards shown"), cards, lines))
    if view.get("history"):
        lines = tuple(
            _("turn %(t)s: %(p)s → %(c)s, %(d)s for %(s)s: %(ok)s, chips %(chips)s")
            % {
                "t": r["turn"],
                "p": r["previous"],
                "c": r["card"],
                "d": _(r["direction"]),
                "s": r["stake"],
                "ok": _("right") if r["correct"] else _("wrong"),
                "chips": r["chips"],
            }
            for r in view["history"][-5:]
        )
        regions.append(Pile(_("Last turns"), (), lines))
    if view.get("phase") != "auction" and view.get("remaining"):
        regions.append(Pile(_("Not yet shown"), (), (" ".join(str(c) for c in view["remaining"]),)))
    notices = (in_words(view["result"], names),) if view.get("result") else ()
    return Board(seats, tuple(regions), notices)


def controls(view: dict, seat: str) -> list[Control]:
    phase = view.get("phase")
    if phase == "auction":
        auction = view["auction"]
        if auction.get("high_bidder") == seat:
            return []
        lo = auction["min_bid"]
        standing = auction.get("standing_bid")
        step = FIRST_BID_STEP if standing is None else bid_step(standing)
        quick = tuple(Choice(str(lo + k * step), str(lo + k * step)) for k in (0, 1, 2, 5, 10))
        return [
            Control(
                "bid-quick",
                "bid",
                _("Bid"),
                fields=(Field("amount", _("Bid"), quick, widget="buttons"),),
            ),
            Control(
                "bid",
                "bid",
                _("Bid another amount"),
                fields=(Field("amount", _("Chips"), lo=lo, step=step),),
                help=_("at least %(lo)s, in steps of %(step)s") % {"lo": lo, "step": step},
            ),
        ]
    remaining = view.get("remaining", [])
    cards = tuple(Choice(str(c), str(c)) for c in remaining)
    if phase == "show" and seat == view.get("dealer"):
        return [
            Control(
                "show",
                "show",
                _("Show the opening card"),
                fields=(Field("card", _("Card"), cards, widget="buttons"),),
            )
        ]
    if phase != "turns":
        return []
    committed = view.get("committed", {})
    if seat == view.get("dealer") and not committed.get("dealer"):
        return [
            Control(
                "pick",
                "pick",
                _("Pick the next card, secretly"),
                fields=(Field("card", _("Card"), cards, widget="buttons"),),
            )
        ]
    if seat == view.get("guesser") and not committed.get("guesser"):
        chips = view.get("chips") or 0
        directions = (Choice("higher", _("Higher")), Choice("lower", _("Lower")))
        return [
            Control(
                "guess",
                "guess",
                _("Higher or lower than %(p)s?") % {"p": view.get("previous")},
                fields=(
                    Field("stake", _("Stake"), lo=0, hi=chips, widget="slider"),
                    Field("direction", _("Guess"), directions, widget="buttons"),
                ),
            )
        ]
    return []


def describe(event: dict, you: str | None, names: dict) -> str | None:
    t, d = event["type"], event["data"]
    who = seat_name(names, d.get("seat"))
    if t == "game_started":
        return _("The auction opened.")
    if t == "bid_made":
        return _("%(who)s bid %(n)s.") % {"who": who, "n": d["amount"]}
    if t == "passed":
        return _("%(who)s passed.") % {"who": who}
    if t == "auction_closed":
        how = _("by the highest bid") if d.get("how") == "bid" else _("by a coin flip")
        return _(
            "The auction closed %(how)s: Guesser %(g)s, Dealer %(dl)s, target %(n)s chips."
        ) % {
            "how": how,
            "g": names.get(d["guesser"], d["guesser"]),
            "dl": names.get(d["dealer"], d["dealer"]),
            "n": d["declared"],
        }
    if t == "card_shown":
        late = " " + _("(time ran out)") if d.get("timeout") else ""
        return _("%(who)s showed the opening card: %(c)s.%(late)s") % {
            "who": who,
            "c": d["card"],
            "late": late,
        }
    if t == "card_picked":
        if "card" in d:
            return _("%(who)s picked %(c)s for turn %(n)s.") % {
                "who": who,
                "c": d["card"],
                "n": d.get("turn"),
            }
        return _("%(who)s picked a card for turn %(n)s.") % {"who": who, "n": d.get("turn")}
    if t == "guess_made":
        if "direction" in d:
            return _("%(who)s guessed %(dir)s, staking %(s)s.") % {
                "who": who,
                "dir": _(d["direction"]),
                "s": d["stake"],
            }
        return _("%(who)s made a guess for turn %(n)s.") % {"who": who, "n": d.get("turn")}
    if t == "turn_revealed":
        return _(
            "Turn %(t)s: %(c)s after %(p)s; %(d)s for %(s)s was %(ok)s; chips now %(chips)s."
        ) % {
            "t": d["turn"],
            "c": d["card"],
            "p": d["previous"],
            "d": _(d["direction"]),
            "s": d["stake"],
            "ok": _("right") if d["correct"] else _("wrong"),
            "chips": d["chips"],
        }
    return None
