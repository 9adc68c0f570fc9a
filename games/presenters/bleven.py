"""Bleven's table: showrooms, the bid and its answers, the duel card by card."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext

from games.bleven.rules import MAX_STONES
from games.engine_words import in_words

from .base import Board, Card, Choice, Control, Field, Pile, SeatPart, seat_name

SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
# a reviewer's answer as the engine records it
ANSWERS = (gettext_noop("believe"), gettext_noop("disbelieve"), gettext_noop("ignore"))
SUBSETS = [(), (1,), (2,), (3,), (1, 2), (1, 3), (2, 3), (1, 2, 3)]


def face(c: str, note: str = "") -> Card:
    return Card(c[:-1] + SYMBOLS[c[-1]], "", f"suit-{c[-1]}", note, c)


def bid_words(tricks, positions, stones) -> str:
    text = ngettext("%(t)s trick for %(s)s stones", "%(t)s tricks for %(s)s stones", tricks) % {
        "t": tricks,
        "s": stones,
    }
    if positions:
        text += " " + _("(positions %(p)s)") % {"p": ", ".join(str(p) for p in positions)}
    return text


def board(view: dict, you: str | None, names: dict) -> Board:
    if not view:
        return Board()
    seats = {}
    fields = view.get("fields") or {}
    teams = view.get("teams")
    for s in view["seats"]:
        facts = []
        if teams:
            k = next(i for i, t in enumerate(teams) if s in t)
            facts.append(_("team %(n)s") % {"n": k + 1})
        if s == view.get("cutter"):
            facts.append(_("cutter"))
        if view["bidding_open"].get(s):
            facts.append(_("may declare"))
        if s in fields:
            hand = tuple(
                face(c, _("just drawn") if c == view.get("drawn") and s == view.get("turn") else "")
                for c in fields[s]
            )
        else:
            hand = tuple(Card("?", "", "back") for _n in range(view["field_counts"][s]))
        room = tuple(face(c) for c in view["showrooms"].get(s, []))
        seats[s] = SeatPart(
            facts=tuple(facts), hand=hand, piles=(Pile(_("Showroom"), room),) if room else ()
        )
    regions = [
        Pile(
            _("Draw pile"),
            (),
            (
                ngettext("%(n)s card", "%(n)s cards", view.get("pile_count") or 0)
                % {"n": view.get("pile_count")},
            ),
        )
    ]
    bid = view.get("bid")
    if bid:
        lines = [
            _("%(d)s declared %(bid)s; %(r)s reviews")
            % {
                "d": names.get(bid["declarer"]),
                "bid": bid_words(bid["tricks"], bid["positions"], bid["stones"]),
                "r": names.get(bid["reviewer"]),
            }
        ]
        if bid.get("hijacked"):
            lines.append(_("a hijacked bid"))
        if bid.get("ignored"):
            lines.append(
                _("ignored by %(who)s")
                % {"who": ", ".join(names.get(s, s) for s in bid["ignored"])}
            )
        if bid.get("answer"):
            lines.append(
                _("answer: %(a)s, raised by %(r)s") % {"a": _(bid["answer"]), "r": bid["raise"]}
            )
        regions.append(Pile(_("The bid"), (), tuple(lines)))
    result = view.get("result")
    if result:
        regions.append(duel_pile(result, names))
    return Board(seats, tuple(regions), ())


def duel_pile(r: dict, names: dict) -> Pile:
    if "declarer" not in r:
        return Pile(_("Round annulled"), (), (in_words(r.get("reason", ""), names),))
    d, rv = r["declarer"], r["reviewer"]
    lines = []
    cards = []
    for k, (a, b) in enumerate(zip(r["fields"][d], r["fields"][rv], strict=False)):
        winner = r["trick_winners"][k]
        cards += [face(a, names.get(d, d)), face(b, names.get(rv, rv))]
        lines.append(
            _("trick %(k)s: %(a)s against %(b)s, %(w)s")
            % {
                "k": k + 1,
                "a": a,
                "b": b,
                "w": (_("won by %(who)s") % {"who": names.get(winner, winner)})
                if winner
                else _("tied"),
            }
        )
    lines.append(
        _("%(d)s %(hit)s")
        % {"d": names.get(d, d), "hit": _("hit the bid") if r["hit"] else _("missed the bid")}
    )
    if r.get("x") is not None:
        mult = r.get("multiplier") or {}
        lines.append(
            _("X = %(t)s² + %(s)s = %(x)s; %(d)s × %(md)s, %(r)s × %(mr)s")
            % {
                "t": r["tricks"],
                "s": r["stones"],
                "x": r["x"],
                "d": names.get(d, d),
                "md": mult.get(d),
                "r": names.get(rv, rv),
                "mr": mult.get(rv),
            }
        )
    lines.append(in_words(r.get("reason", ""), names))
    return Pile(_("The duel"), tuple(cards), tuple(lines))


def _declaration_controls(prefix: str, kind: str, label: str, allowed) -> list[Control]:
    """One control per number of tricks: positions and stones as pickers;
    ``allowed(tricks, stones)`` says which bids may be made."""
    out = []
    for tricks in range(4):
        stones = tuple(
            Choice(str(s), str(s), {"stones": s})
            for s in range(0, MAX_STONES + 1, 3)
            if allowed(tricks, s)
        )
        if not stones:
            continue
        fields = []
        subsets = [p for p in SUBSETS if len(p) <= tricks]
        if len(subsets) > 1:
            fields.append(
                Field(
                    "positions",
                    _("Positions"),
                    tuple(
                        Choice(
                            ",".join(map(str, p)) or "none",
                            ", ".join(map(str, p)) or _("none named"),
                            {"positions": list(p)} if p else {},
                        )
                        for p in subsets
                    ),
                )
            )
        fields.append(Field("stones", _("Stones"), stones))
        out.append(
            Control(
                f"{prefix}-{tricks}",
                kind,
                label(tricks) % {"n": tricks},
                {"tricks": tricks},
                tuple(fields),
            )
        )
    return out


def controls(view: dict, seat: str) -> list[Control]:
    pending = view.get("pending") if view else None
    if not pending or pending["seat"] != seat:
        return []
    kind = pending["kind"]
    if kind in ("draw", "turn"):
        out = [Control("draw", "draw", _("Draw a card"))]
        if kind == "turn":
            out += _declaration_controls(
                "declare",
                "declare",
                lambda n: ngettext("Declare %(n)s trick", "Declare %(n)s tricks", n),
                lambda t, s: True,
            )
        return out
    if kind == "discard":
        cards = tuple(Choice(c, c) for c in view.get("hand") or [])
        return [
            Control(
                "discard",
                "discard",
                _("Discard a card to your showroom"),
                fields=(Field("card", _("Card"), cards, widget="buttons"),),
            )
        ]
    if kind == "confirm":
        return [Control("confirm", "confirm", _("Confirm the raise"))]
    bid = view["bid"]
    out = []
    if bid.get("may_ignore"):
        out.append(Control("ignore", "respond", _("Ignore the bid"), {"answer": "ignore"}))
    raises = (Choice("0", _("no raise"), {}),) + tuple(
        Choice(str(r), f"+{r}", {"raise": r}) for r in range(3, MAX_STONES - bid["stones"] + 1, 3)
    )
    for answer, label in (("believe", _("Believe")), ("disbelieve", _("Disbelieve"))):
        out.append(
            Control(
                answer,
                "respond",
                label,
                {"answer": answer},
                (Field("raise", _("Raise by"), raises),),
            )
        )
    out += _declaration_controls(
        "hijack",
        "hijack",
        lambda n: ngettext("Hijack with %(n)s trick", "Hijack with %(n)s tricks", n),
        lambda t, s: s > bid["stones"] or t > bid["tricks"],
    )
    return out


def describe(event: dict, you: str | None, names: dict) -> str | None:
    t, d = event["type"], event["data"]
    who = seat_name(names, d.get("seat"))
    if t == "round_dealt":
        if d.get("cutter") == you:
            return _("Round %(n)s dealt; you cut.") % {"n": d.get("bout")}
        return _("Round %(n)s dealt; %(c)s cuts.") % {
            "n": d.get("bout"),
            "c": names.get(d.get("cutter"), d.get("cutter")),
        }
    if t == "field_dealt":
        if "cards" in d:
            cards = ", ".join(face(c).text for c in d["cards"])
            return _("%(who)s got %(cards)s.") % {"who": who, "cards": cards}
        return _("%(who)s got three cards.") % {"who": who}
    if t == "card_drawn":
        if "card" in d:
            return _("%(who)s drew %(c)s.") % {"who": who, "c": face(d["card"]).text}
        return _("%(who)s drew a card.") % {"who": who}
    if t == "card_discarded":
        return _("%(who)s put %(c)s in the showroom.") % {"who": who, "c": face(d["card"]).text}
    if t == "bid_declared":
        return _("%(who)s declared %(bid)s.") % {
            "who": who,
            "bid": bid_words(d["tricks"], d["positions"], d["stones"]),
        }
    if t == "bid_ignored":
        return _("%(who)s ignored the bid.") % {"who": who}
    if t == "bid_answered":
        text = _("%(who)s answered: %(a)s") % {"who": who, "a": _(d["answer"])}
        if d.get("raise"):
            text += " " + _("and raised by %(r)s") % {"r": d["raise"]}
        return text + "."
    if t == "bid_hijacked":
        return _("%(who)s hijacked with %(bid)s.") % {
            "who": who,
            "bid": bid_words(d["tricks"], d["positions"], d["stones"]),
        }
    if t == "raise_confirmed":
        return _("%(who)s confirmed: %(s)s stones.") % {"who": who, "s": d["stones"]}
    if t == "duel_fought":
        return _("The duel: %(why)s.") % {"why": in_words(d.get("reason", ""), names)}
    if t == "round_annulled":
        return in_words(d.get("reason", ""), names)
    if t == "timed_out":
        return _("%(who)s ran out of time; a random move was made.") % {"who": who}
    return None
