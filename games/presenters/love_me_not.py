"""Love Me Not's table: the simultaneous keep/discard, tableaus, piles, scores."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from games.love_me_not.rules import SUITS

from .base import SUIT_NAMES, Board, Card, Choice, Control, Field, Pile, SeatPart, seat_name

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def face(c: str | None) -> Card:
    if c is None:
        return Card("?", _("face down"), "back")
    return Card(c[:-1] + SYMBOLS[c[-1]], _(SUIT_NAMES[c[-1]]), f"suit-{c[-1]}", value=c)


def board(view: dict, you: str | None, names: dict) -> Board:
    seats = {}
    scores = view.get("scores") or {}
    for s in view["seats"]:
        facts = []
        if s in view.get("waiting_for", []):
            facts.append(_("choosing…"))
        elif not view.get("finished") and view.get("turn"):
            facts.append(_("has chosen"))
        hand = (view.get("hands") or {}).get(s)
        choice = (view.get("choices") or {}).get(s)
        cards: tuple[Card, ...] = ()
        if choice:
            cards = (face(choice["keep"]),)
            facts.append(
                _("keep %(k)s, discard %(d)s")
                % {"k": face(choice["keep"]).text, "d": face(choice["discard"]).text}
            )
        elif hand:
            cards = tuple(face(c) for c in hand)
        tableau = tuple(face(c) for c in view["tableaus"].get(s, []))
        pile = view["piles"].get(s)
        piles = [Pile(_("Tableau"), tableau)] if tableau else []
        if pile is not None:
            piles.append(Pile(_("Pile"), tuple(face(c) for c in pile)))
        else:
            piles.append(
                Pile(
                    _("Pile"),
                    (),
                    (
                        ngettext(
                            "%(n)s card, face down", "%(n)s cards, face down", view["pile_sizes"][s]
                        )
                        % {"n": view["pile_sizes"][s]},
                    ),
                )
            )
        if s in scores:
            sc = scores[s]
            lines = [
                _("%(suit)s: %(t)s in tableau × %(p)s in pile = %(pts)s")
                % {"suit": _(SUIT_NAMES[k]), "t": v["tableau"], "p": v["pile"], "pts": v["points"]}
                for k, v in ((k, sc["suits"][k]) for k in SUITS)
            ]
            lines += [
                _("Jack %(card)s: %(pts)s") % {"card": face(j["card"]).text, "pts": j["points"]}
                for j in sc.get("jacks", [])
            ]
            lines.append(_("total %(n)s") % {"n": sc["total"]})
            piles.append(Pile(_("Score"), (), tuple(lines)))
        seats[s] = SeatPart(facts=tuple(facts), hand=cards, piles=tuple(piles))
    regions = (
        Pile(
            _("Turn"),
            (),
            (
                _("turn %(n)s of %(m)s") % {"n": view.get("turn"), "m": view.get("turns")},
                ngettext(
                    "%(n)s card left to draw",
                    "%(n)s cards left to draw",
                    view.get("deck_size") or 0,
                )
                % {"n": view.get("deck_size")},
            ),
        ),
    )
    notices = []
    waiting = view.get("waiting_for") or []
    if you is not None and waiting and you not in waiting and not view.get("finished"):
        # that they have not chosen is all anyone learns
        notices.append(_("Waiting for your opponent to choose."))
    return Board(seats, regions, tuple(notices))


def controls(view: dict, seat: str) -> list[Control]:
    hand = view.get("hand") or []
    if view.get("finished") or seat not in view.get("waiting_for", []) or len(hand) != 2:
        return []
    if view.get("choice"):
        return []
    a, b = hand
    shown = {c: face(c).text for c in hand}  # "2♠", never the stored "2S"
    keep = _("Keep %(k)s, discard %(d)s")
    choices = (
        Choice(a, keep % {"k": shown[a], "d": shown[b]}, {"keep": a, "discard": b}),
        Choice(b, keep % {"k": shown[b], "d": shown[a]}, {"keep": b, "discard": a}),
    )
    return [
        Control(
            "choose",
            "choose",
            _("Keep one card for your tableau, discard the other to your pile"),
            fields=(Field("keep", _("Keep"), choices, widget="buttons"),),
        )
    ]


def describe(event: dict, you: str | None, names: dict) -> str | None:
    t, d = event["type"], event["data"]
    who = seat_name(names, d.get("seat"))
    if t == "match_started":
        return _("Match %(n)s of the game began.") % {"n": d.get("bout")}
    if t == "turn_started":
        return _("Turn %(n)s began.") % {"n": d.get("turn")}
    if t == "cards_drawn":
        if "cards" in d:
            cards = _(" and ").join(face(c).text for c in d["cards"])
            return _("%(who)s drew %(cards)s.") % {"who": who, "cards": cards}
        return _("%(who)s drew two cards.") % {"who": who}
    if t == "card_chosen":
        text = _("%(who)s kept %(k)s and discarded %(d)s") % {
            "who": who,
            "k": face(d["keep"]).text,
            "d": face(d["discard"]).text,
        }
        if d.get("timeout"):
            text += " " + _("(chosen for them: time ran out)")
        return text + "."
    if t == "turn_resolved":
        revealed = d.get("revealed", {}).items()
        shown = ", ".join(f"{names.get(s, s)} {face(c).text}" for s, c in revealed)
        text = _("Turn %(n)s done.") % {"n": d.get("turn")}
        if shown:
            text += " " + _("Revealed from the turn before: %(cards)s.") % {"cards": shown}
        late = ", ".join(names.get(s, s) for s in d.get("timed_out", []))
        if late:
            text += " " + _("Out of time: %(who)s.") % {"who": late}
        return text
    if t == "match_revealed":
        scores = ", ".join(
            f"{names.get(s, s)} {v['total']}" for s, v in d.get("scores", {}).items()
        )
        winners = ", ".join(names.get(w, w) for w in d.get("winners", [])) or _("nobody (a tie)")
        return _("All cards revealed: %(scores)s; won by %(w)s.") % {"scores": scores, "w": winners}
    return None
