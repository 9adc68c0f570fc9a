"""Love Letter's table: 2 to 4 seats, targets, the Guard's guess, events in words."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.engine_words import in_words
from games.love_letter_family.cards import TARGETED, countess_forced

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
from .love_letter_family import face, rank, who


def board(view: dict, you: str | None, names: dict) -> Board:
    seats = {}
    for s in view["seats"]:
        out = s in view.get("out", [])
        status = ""
        if out:
            status = _("out of this round")
        elif s in view.get("protected", []):
            status = _("protected by the Handmaid")
        hand = (view.get("hands") or {}).get(s)
        if hand is not None:
            cards = tuple(face(c) for c in hand)
        else:
            cards = tuple(Card("?", _("hidden"), "back") for _n in range(view["hand_sizes"][s]))
        discards = tuple(face(c) for c in view["discards"].get(s, []))
        facts = (_("discards count %(n)s") % {"n": view["discard_totals"].get(s, 0)},)
        seats[s] = SeatPart(
            facts=facts,
            hand=cards,
            piles=(Pile(_("Discards"), discards),) if discards else (),
            status=status,
            out=out,
        )
    regions = []
    if view.get("removed"):
        regions.append(Pile(_("Set aside, face up"), tuple(face(c) for c in view["removed"])))
    deck_lines = [
        ngettext("%(n)s card in the deck", "%(n)s cards in the deck", view.get("deck_size", 0))
        % {"n": view.get("deck_size", 0)}
    ]
    hidden = view.get("hidden")
    if hidden:
        regions.append(Pile(_("The face-down card"), (face(hidden),)))
    elif view.get("hidden_set_aside"):
        deck_lines.append(_("one card set aside face down"))
    regions.append(Pile(_("Deck"), (), tuple(deck_lines)))
    you_hand = view.get("hand") or []
    notices = []
    if view.get("turn") == you and countess_forced([int(c) for c in you_hand]):
        notices.append(
            _("You hold the Countess with the King or a Prince: you must play the Countess.")
        )
    if view.get("finished") and view.get("reason"):
        notices.append(in_words(view["reason"], names))
    sd = view.get("showdown")
    if sd:
        lines = tuple(
            _("%(who)s: %(card)s, discards %(sum)s")
            % {
                "who": names.get(s, s),
                "card": rank(c) if c else "-",
                "sum": sd.get("discard_totals", {}).get(s, 0),
            }
            for s, c in sd.get("hands", {}).items()
        )
        regions.append(Pile(_("Showdown"), (), lines))
    return Board(seats, tuple(regions), tuple(notices))


def controls(view: dict, seat: str) -> list[Control]:
    if view.get("finished") or view.get("turn") != seat:
        return []
    hand = [int(c) for c in view.get("hand") or []]
    live = [s for s in view["seats"] if s not in view.get("out", [])]
    others = [s for s in live if s != seat and s not in view.get("protected", [])]
    out = []
    for c in sorted(set(hand)):
        if c != 7 and countess_forced(hand):
            continue
        label = _("Play %(c)s") % {"c": rank(c)}
        if c not in TARGETED or (c != 5 and not others):
            out.append(Control(f"play-{c}", "play", label, {"card": str(c)}))
            continue
        targets = others + [seat] if c == 5 else others
        target = Field(
            "target",
            _("Target"),
            tuple(Choice(t, _("yourself") if t == seat else t) for t in targets),
            widget="buttons" if c != 1 else "select",
        )
        fields: tuple[Field, ...] = (target,)
        if c == 1:
            guesses = tuple(Choice(str(g), rank(g)) for g in range(2, 9))
            fields = (target, Field("guess", _("Guess"), guesses))
        out.append(Control(f"play-{c}", "play", label, {"card": str(c)}, fields))
    return out


def _round_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """A round begun and ended, and the players dropping out of it."""
    if t == "round_started":
        removed = ", ".join(rank(c) for c in d.get("removed", []))
        if d.get("first") == you:
            text = _("Round %(n)s: you play first.") % {"n": d.get("bout")}
        else:
            text = _("Round %(n)s: %(first)s plays first.") % {
                "n": d.get("bout"),
                "first": names.get(d.get("first"), d.get("first")),
            }
        if removed:
            text += " " + _("Set aside face up: %(cards)s.") % {"cards": removed}
        return text
    if t == "player_out":
        cards = ", ".join(rank(c) for c in d.get("cards", []))
        text = _("%(who)s dropped out of the round (%(why)s)") % {
            "who": who(d, names),
            "why": in_words(d.get("reason", ""), names),
        }
        if cards:
            text += ", " + _("showing %(cards)s") % {"cards": cards}
        return text + "."
    if t == "round_ended":
        winners = ", ".join(names.get(w, w) for w in d.get("winners", []))
        text = _("The round ended: %(why)s — %(w)s.") % {
            "why": in_words(d.get("reason", ""), names),
            "w": winners,
        }
        if d.get("hidden"):
            text += " " + _("The face-down card was %(card)s.") % {"card": rank(d["hidden"])}
        return text
    return None


def _card_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """Cards dealt, drawn, played and discarded."""
    if t == "turn_started":
        return family.seen_or_not(d, names, _("%(who)s drew %(card)s."), _("%(who)s drew a card."))
    if t == "card_played":
        text = _("%(who)s played %(card)s") % {"who": who(d, names), "card": rank(d["card"])}
        if d.get("target"):
            text += " " + _("on %(t)s") % {"t": who(d, names, "target")}
        if d.get("guess"):
            text += " " + _("naming %(g)s") % {"g": rank(d["guess"])}
        if d.get("timeout"):
            text += " " + _("(played for them: time ran out)")
        return text + "."
    if t == "card_replaced":
        src = _("the face-down card") if d.get("from") == "hidden" else _("the deck")
        if "card" in d:
            return _("%(who)s drew %(card)s from %(src)s.") % {
                "who": who(d, names),
                "card": rank(d["card"]),
                "src": src,
            }
        return _("%(who)s drew a new card from %(src)s.") % {"who": who(d, names), "src": src}
    return None


def _effect_words(t: str, d: dict, you: str | None, names: dict) -> str | None:
    """The played cards' effects."""
    if t == "guard_guessed":
        return (_("Right!") if d.get("hit") else _("Wrong guess.")) + ""
    if t == "card_seen":
        return family.looked_at(d, names, you, "target", _("%(who)s saw %(whose)s: %(card)s."))
    if t == "cards_compared":
        loser = d.get("loser")
        end = (
            _("%(who)s had the lower card") % {"who": names.get(loser, loser)}
            if loser
            else _("a tie")
        )
        cards = d.get("cards")
        if cards:
            return _("Baron: %(shown)s; %(end)s.") % {
                "shown": family.hands_shown(cards, names),
                "end": end,
            }
        return _("%(who)s compared hands with %(t)s: %(end)s.") % {
            "who": who(d, names),
            "t": who(d, names, "target"),
            "end": end,
        }
    if t == "hands_traded":
        mine = _("%(who)s traded hands with %(t)s: you now hold %(card)s.")
        theirs = _("%(who)s traded hands with %(t)s.")
        return family.traded(d, names, you, mine, theirs, t=who(d, names, "target"))
    return None


describe = family.describer(_round_words, family.dealt_or_discarded, _card_words, _effect_words)
