"""Doubting Love Letter's table: the view as cards and controls, events in words."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from games.deal_check import deal_check
from games.engine_words import ITEMS, in_words
from games.love_letter_family.cards import countess_forced

from . import love_letter_family as family
from .base import (
    Board,
    Card,
    Choice,
    Control,
    Field,
    Pile,
    SeatPart,
)
from .love_letter_family import card_name, face, rank, who


def _discard_card(d: dict) -> Card:
    if d["kind"] == "forced":
        return face(d["card"], _("discarded"))
    note = _("claimed %(c)s") % {"c": rank(d["claim"])}
    if d.get("target"):
        note += " → " + (_("self") if d["target"] == "self" else _("opponent"))
    if "card" in d:
        note += " · " + (_("bluff") if d.get("bluff") else _("true"))
        return Card(str(d["card"]), card_name(d["card"]), f"ll r{d['card']}", note)
    return Card(str(d["claim"]), card_name(d["claim"]), "ll claim", note)


def board(view: dict, you: str | None, names: dict) -> Board:
    seats = {}
    opts = view.get("options", {})
    hands = view.get("hands") or {}
    for s in view["seats"]:
        facts = [_("lives: %(n)s of 2") % {"n": view["lives"].get(s, 0)}]
        left = (view.get("bluffs_left") or {}).get(s)
        if left is not None:
            facts.append(
                _("bluffs left: %(n)s of %(m)s") % {"n": left, "m": opts.get("bluffs_per_bout")}
            )
        facts.append(_("discards count %(n)s") % {"n": view["discard_sums"].get(s, 0)})
        if s in view.get("insurance_active", []):
            facts.append(_("Insurance active"))
        if s in view.get("plus_one_used", []):
            facts.append(_("Plus One used"))
        status = _("protected by a Handmaid") if s in view.get("immune", []) else ""
        if s == you:
            hand = tuple(face(c) for c in view.get("hand", []))
        elif s in hands:
            hand = tuple(face(c) for c in hands[s])
        else:
            hand = (Card("?", _("hidden"), "back"),)
        played = tuple(_discard_card(d) for d in view["discards"] if d["seat"] == s)
        seats[s] = SeatPart(
            facts=tuple(facts),
            hand=hand,
            piles=(Pile(_("Discards"), played),) if played else (),
            status=status,
            reserve=view.get("reserve", {}).get(s),
        )
    regions = [
        Pile(_("Removed, face up"), tuple(face(c) for c in view.get("removed", []))),
        Pile(
            _("Deck"),
            (),
            (
                ngettext("%(n)s card left", "%(n)s cards left", view.get("deck_count", 0))
                % {"n": view.get("deck_count", 0)},
                _("Deal fingerprint: %(h)s…") % {"h": (view.get("commitment") or "")[:16]},
            ),
        ),
    ]
    play = view.get("play")
    if play:
        line = _("%(who)s put down a card claiming %(claim)s") % {
            "who": names.get(play["seat"], play["seat"]),
            "claim": rank(play["claim"]),
        }
        if "card" in play and play["seat"] == you:
            line += " " + _("(it is your %(card)s)") % {"card": rank(play["card"])}
        regions.append(Pile(_("On the table"), (), (line,)))
    known = view.get("opponent_card")
    if you is not None and isinstance(known, int):
        regions.append(Pile(_("You know"), (face(known),), (_("your opponent holds this card"),)))
    sd = view.get("showdown")
    if sd:
        lines = [
            _("%(who)s showed %(card)s (+%(b)s), discards %(sum)s")
            % {
                "who": names.get(s, s),
                "card": rank(sd["hands"][s]),
                "b": sd["bonus"].get(s, 0),
                "sum": sd["sums"].get(s, 0),
            }
            for s in view["seats"]
        ]
        regions.append(Pile(_("Showdown"), (), tuple(lines)))
    for deal in view.get("revealed_deals", []):
        regions.append(Pile(_("Deal check"), (), (deal_check(deal),)))
    notices = []
    if view.get("over") and view.get("reason"):
        notices.append(in_words(view["reason"], names))
    return Board(seats, tuple(regions), tuple(notices))


def controls(view: dict, seat: str) -> list[Control]:
    out: list[Control] = []
    items = (view.get("items") or {}).get(seat, [])
    if (
        not view.get("over")
        and "insurance" in items
        and seat not in view.get("insurance_active", [])
        and not any(d["kind"] == "played" for d in view.get("discards", []))
    ):
        out.append(
            Control(
                "insurance",
                "use_item",
                _("Declare Insurance"),
                {"item": "insurance"},
                help=_("your first caught bluff this bout costs one life instead of the bout"),
            )
        )
    if view.get("asked") != seat or view.get("over"):
        return out
    phase = view["phase"]
    if phase == "deck_rigging":
        takes = tuple(Choice(str(c), rank(c)) for c in view.get("rig_takes", []))
        denies = (Choice("", _("nobody"), {}),) + tuple(
            Choice(str(c), rank(c)) for c in range(1, 9)
        )
        out.append(
            Control(
                "rig",
                "use_item",
                _("Rig the deck"),
                {"item": "deck_rigging"},
                (
                    Field("take", _("Card you take"), takes),
                    Field("deny", _("Value your opponent may not start with"), denies),
                ),
            )
        )
        out.append(Control("pass", "pass", _("Pass (no rigging)")))
    elif phase == "plus_one":
        out.append(Control("plus_one", "use_item", _("Use Plus One"), {"item": "plus_one"}))
        out.append(Control("pass", "pass", _("Pass (keep Plus One)")))
    elif phase == "challenge":
        out.append(Control("challenge", "challenge", _("Challenge")))
        out.append(Control("pass", "pass", _("Let it pass")))
    elif phase == "guess":
        out.append(
            Control(
                "guess",
                "guess",
                _("Guard: name their card"),
                fields=(
                    Field(
                        "card",
                        _("Card"),
                        tuple(Choice(str(c), rank(c)) for c in range(2, 9)),
                        widget="buttons",
                    ),
                ),
            )
        )
    elif phase == "play":
        out += _play_controls(view, seat)
    return out


def _play_controls(view: dict, seat: str) -> list[Control]:
    hand = view.get("hand", [])
    can_bluff = (view.get("bluffs_left") or {}).get(seat, 0) > 0
    other = next(s for s in view["seats"] if s != seat)
    targets = ("self",) if other in view.get("immune", []) else ("self", "opponent")
    out = []
    for c in sorted(set(hand)):
        if c == 8 or (countess_forced(hand) and c != 7):
            continue
        claims = []
        # the card's own rank first: the form's default is never a bluff
        for claim in sorted(range(1, 8), key=lambda claim: claim != c):
            if claim != c and not can_bluff:
                continue
            word = rank(claim) if claim == c else _("%(c)s (bluff)") % {"c": rank(claim)}
            if claim == 5:
                for t in targets:
                    where = _("yourself") if t == "self" else _("your opponent")
                    claims.append(
                        Choice(
                            f"5-{t}",
                            _("%(c)s on %(t)s") % {"c": word, "t": where},
                            {"claim": "5", "target": t},
                        )
                    )
            else:
                claims.append(Choice(str(claim), word))
        out.append(
            Control(
                f"play-{c}",
                "play",
                _("Put down %(c)s") % {"c": rank(c)},
                {"card": str(c)},
                (Field("claim", _("Claim"), tuple(claims)),),
            )
        )
    if view.get("can_mulligan"):
        out.append(
            Control("mulligan", "mulligan", _("Mulligan (DMO): re-deal from a fresh shuffle)"))
        )
    return out


# ---- history in words ------------------------------------------------------
ITEM_NAMES = {**ITEMS, "dmo": gettext_noop("the DMO mulligan")}


def _bout_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """A bout's deal, showdown and end, and what ends it early."""
    if t == "bout_started":
        if d.get("first") == you:
            return _("Bout %(n)s: you play first; removed %(removed)s; fingerprint %(h)s…") % {
                "n": d.get("bout_no"),
                "removed": ", ".join(rank(c) for c in d.get("removed", [])),
                "h": d.get("commitment", "")[:16],
            }
        return _("Bout %(n)s: %(first)s plays first; removed %(removed)s; fingerprint %(h)s…") % {
            "n": d.get("bout_no"),
            "first": names.get(d.get("first"), d.get("first")),
            "removed": ", ".join(rank(c) for c in d.get("removed", [])),
            "h": d.get("commitment", "")[:16],
        }
    if t == "bout_redealt":
        return _("The bout was re-dealt: removed %(removed)s; new fingerprint %(h)s…") % {
            "removed": ", ".join(rank(c) for c in d.get("removed", [])),
            "h": d.get("commitment", "")[:16],
        }
    if t == "showdown":
        return _("Showdown: %(hands)s.") % {"hands": family.hands_shown(d.get("hands", {}), names)}
    if t == "timed_out":
        return _("%(who)s ran out of time.") % {"who": who(d, names)}
    if t == "mulligan":
        return _("%(who)s called a mulligan.") % {"who": who(d, names)}
    if t == "bout_ended":
        winners = ", ".join(names.get(w, w) for w in d.get("winners", []))
        return _("The bout ended: %(why)s%(w)s.") % {
            "why": in_words(d.get("reason", ""), names),
            "w": (" — " + winners) if winners else "",
        }
    return None


def _item_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """The items: offered, declined, used."""
    if t == "item_window":
        return _("%(who)s may use %(item)s.") % {
            "who": who(d, names),
            "item": _(ITEM_NAMES[d["item"]]),
        }
    if t == "item_declined":
        return _("%(who)s did not use %(item)s.") % {
            "who": who(d, names),
            "item": _(ITEM_NAMES[d["item"]]),
        }
    if t == "item_used":
        text = _("%(who)s used %(item)s") % {
            "who": who(d, names),
            "item": _(ITEM_NAMES.get(d["item"], d["item"])),
        }
        if "take" in d:
            text += _(": took %(take)s") % {"take": rank(d["take"])}
            if d.get("deny"):
                text += _(" and denied %(deny)s") % {"deny": rank(d["deny"])}
        return text + "."
    if t == "insurance_spent":
        return _("Insurance: %(who)s kept the bout.") % {"who": who(d, names)}
    return None


def _card_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """Cards dealt, drawn and discarded."""
    if t == "turn_started":
        if "card" in d:
            return _("Turn %(n)s: %(who)s drew %(card)s.") % {
                "n": d.get("turn"),
                "who": who(d, names),
                "card": rank(d["card"]),
            }
        return _("Turn %(n)s: %(who)s drew a card.") % {"n": d.get("turn"), "who": who(d, names)}
    if t == "card_drawn":
        return family.seen_or_not(
            d, names, _("%(who)s drew %(card)s."), _("%(who)s drew a new card.")
        )
    return None


def _claim_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """A card put down with its claim, and the claim challenged or let pass."""
    if t == "card_played":
        target = ""
        if d.get("target"):
            target = " " + (_("on themself") if d["target"] == "self" else _("on the opponent"))
        if "card" in d:
            return _("%(who)s put down %(card)s claiming %(claim)s%(target)s.") % {
                "who": who(d, names),
                "card": rank(d["card"]),
                "claim": rank(d["claim"]),
                "target": target,
            }
        return _("%(who)s played a card claiming %(claim)s%(target)s.") % {
            "who": who(d, names),
            "claim": rank(d["claim"]),
            "target": target,
        }
    if t == "challenged":
        verdict = _("a bluff") if d.get("bluff") else _("the truth")
        return _("%(who)s challenged: it was %(card)s, %(verdict)s.") % {
            "who": who(d, names),
            "card": rank(d["card"]),
            "verdict": verdict,
        }
    if t == "passed":
        return _("%(who)s let the claim pass.") % {"who": who(d, names)}
    if t == "life_lost":
        words = ngettext(
            "%(who)s lost %(n)s life (%(why)s): %(left)s left.",
            "%(who)s lost %(n)s lives (%(why)s): %(left)s left.",
            d.get("lost") or 0,
        )
        return words % {
            "who": who(d, names),
            "n": d.get("lost"),
            "why": in_words(d.get("reason", ""), names),
            "left": max(0, d.get("lives", 0)),
        }
    return None


def _effect_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """The claimed cards' effects."""
    if t == "guess_asked":
        return _("%(who)s must name a card for the Guard.") % {"who": who(d, names)}
    if t == "guessed":
        hit = _("right") if d.get("hit") else _("wrong")
        return _("%(who)s named %(card)s: %(hit)s.") % {
            "who": who(d, names),
            "card": rank(d["card"]),
            "hit": hit,
        }
    if t == "card_seen":
        return family.looked_at(d, names, you, "of", _("%(who)s looked at %(whose)s: %(card)s."))
    if t == "cards_compared":
        shown = family.hands_shown(d.get("cards", {}), names)
        loser = d.get("loser")
        end = (
            _("%(who)s lost the comparison") % {"who": names.get(loser, loser)}
            if loser
            else _("a tie")
        )
        return _("Baron: %(shown)s; %(end)s.") % {"shown": shown, "end": end}
    if t == "immunity_gained":
        return _("%(who)s gained a Handmaid's protection.") % {"who": who(d, names)}
    if t == "cards_swapped":
        mine = _("%(who)s swapped hands with %(of)s: you now hold %(card)s.")
        theirs = _("%(who)s swapped hands with %(of)s.")
        return family.traded(d, names, you, mine, theirs, of=who(d, names, "of"))
    if t == "no_effect":
        return _("%(claim)s had no effect: %(why)s.") % {
            "claim": rank(d["claim"]),
            "why": in_words(d.get("reason", ""), names),
        }
    return None


describe = family.describer(
    _bout_words, _item_words, family.dealt_or_discarded, _card_words, _claim_words, _effect_words
)
