"""The one presenter of a match's table: what a viewer sees and may do.

``table_for(match, viewer, at=None)`` asks the services what this viewer may
see (``view_for``, ``history_for``), then the game's own presenter
(``games/presenters/<game>.py``, found in ``GAME_PRESENTERS``) for the
cards, piles and controls, and the words of each event. Templates only
render the ``Table`` it returns.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext, pgettext

from games import services, visibility
from games.bot_levels import bot_in_words
from games.core.deal import REVEAL
from games.core.protocol import MODERATOR_VIEW, SEAT, RuleError, Viewer
from games.core.registry import rules_for, series_for
from games.core.series import NO_SHOW, RESIGNED, resign_refusal
from games.deal_check import deal_check
from games.engine_words import in_words, item_name, refusal
from games.holders import row_key
from games.models import Match
from games.player_ratings import ShownRating, ratings_of

from . import bleven, doubting_love_letter, higher_lower, love_letter, love_me_not
from .base import Board, Choice, Control, Field, SeatPart


@dataclass(frozen=True)
class Sitter:
    """Who sits in a seat, as people read it: a person's name, "Bot, level
    2" (never a bot's stored name), or the seat's own name while it is open."""

    name: str
    bot: bool = False
    open: bool = False
    key: str = ""  # whose rating it is ("u:<id>", "bot:level:2"); "" for none


@dataclass(frozen=True)
class SeatRow:
    seat: str
    name: str
    you: bool
    holder: str  # "open seat", or ""
    score: int
    status: str
    deciding: tuple[str, ...]  # what this seat must decide now
    deadline: float | None
    reserve: float | None
    items: tuple[str, ...]
    part: SeatPart
    picks: tuple[CardPick | None, ...] = ()  # per card of the hand: what clicking it does
    sitter: Sitter | None = None  # who sits there (None: the seat's name is all)
    rating: ShownRating | None = None  # the sitter's rating in this game, if rated

    @property
    def who(self) -> str:
        """Who sits there in words: a person's name, "Bot, level 2"."""
        return self.sitter.name if self.sitter is not None else self.seat

    @property
    def bot(self) -> bool:
        return self.sitter is not None and self.sitter.bot

    @property
    def hand(self) -> list[dict]:
        """The hand's cards, each with what clicking it does (your own)."""
        picks = self.picks or (None,) * len(self.part.hand)
        return [{"card": c, "pick": p} for c, p in zip(self.part.hand, picks, strict=True)]


@dataclass(frozen=True)
class CardPick:
    """Clicking a card of your hand: the control it plays, and the value it
    sets there when the control asks which card (``field``)."""

    control: str
    field: str = ""
    value: str = ""


@dataclass(frozen=True)
class Resign:
    """The table's resign button for its seat: ``refused``, why it is not
    open in this match (in words), else "" and the button is shown."""

    refused: str = ""


# the resign form's control name (games.table_moves): not a game's control,
# so never offered among the moves nor played by a bot
RESIGN_CONTROL = "resign"


@dataclass(frozen=True)
class Line:
    version: int
    text: str
    void: bool = False
    kind: str = ""  # the event's type


@dataclass
class Table:
    match: Match
    game_name: str
    viewer: Viewer
    you: str | None
    version: int  # the version shown
    latest: int  # the newest version this viewer may see
    seats: list[SeatRow]
    board: Board
    controls: list[Control]
    history: list[Line]
    bout_no: int
    target: int
    finished: bool
    result: str
    paused: bool
    waiting: str  # whose decision it is, in words
    replay_open: bool
    at: int | None = None
    errors: dict[str, str] = field(default_factory=dict)
    dispute_places: list = field(default_factory=list)  # where "you" may dispute a line
    # the moment the table's clocks stand at, on the server's clock: now, the
    # cut for a delayed spectator, the step's time in a replay
    server_now: float = field(default_factory=time.time)
    delayed_s: float | None = None  # how late a spectator sees it
    resign: Resign | None = None  # for a seat of a match in play

    @property
    def resign_error(self) -> str:
        return self.errors.get(RESIGN_CONTROL, "")

    @property
    def actions(self) -> list[dict]:
        """Each control with its refusal, if the last try was refused."""
        return [
            {
                "control": c,
                "error": self.errors.get(c.key, ""),
                # the last field's buttons send the form; other fields come before
                "buttons_only": bool(c.fields) and c.fields[-1].shown_as == "buttons",
            }
            for c in self.controls
        ]

    @property
    def last_move(self) -> Line | None:
        """The newest line still standing (what just happened)."""
        return next((line for line in reversed(self.history) if not line.void), None)

    @property
    def last_bout(self) -> Line | None:
        """How the last bout ended, while the match goes on."""
        return next(
            (
                line
                for line in reversed(self.history)
                if line.kind == "bout_scored" and not line.void
            ),
            None,
        )

    @property
    def your_turn(self) -> bool:
        return bool(self.controls) and self.at is None

    @property
    def general_error(self) -> str:
        return self.errors.get("", "")

    @property
    def polling(self) -> bool:
        return self.at is None and not self.finished


# game slug -> the module that draws its table; the pure registry
# (games/core/registry.py) lists the rules of the same games
GAME_PRESENTERS: dict[str, ModuleType] = {
    "doubting-love-letter": doubting_love_letter,
    "love-letter": love_letter,
    "love-me-not": love_me_not,
    "higher-lower": higher_lower,
    "bleven": bleven,
}


def table_module(game: str) -> ModuleType:
    return GAME_PRESENTERS[game]


# what a seat is deciding, in words ("to play, guess")
DECISIONS = {
    "ready": gettext_noop("say they are here"),
    "choose_first": gettext_noop("choose who plays first"),
    "deck_rigging": gettext_noop("use Deck Rigging or pass"),
    "play": gettext_noop("play"),
    "challenge": gettext_noop("challenge or pass"),
    "guess": gettext_noop("guess"),
    "plus_one": gettext_noop("use Plus One or pass"),
    "auction": gettext_noop("bid or let the auction close"),
    "show": gettext_noop("show the opening card"),
    "pick": gettext_noop("pick a card"),
    "choose": gettext_noop("choose"),
    "turn": gettext_noop("draw or declare"),
    "draw": gettext_noop("draw"),
    "discard": gettext_noop("discard"),
    "review": gettext_noop("answer the bid"),
    "confirm": gettext_noop("confirm the raise"),
}


def decision_words(kind: str) -> str:
    return _(DECISIONS[kind]) if kind in DECISIONS else kind.replace("_", " ")


class Names(dict):
    """How each seat reads in sentences, and which seat is the viewer's
    (``you``), for the sentences whose verb agrees with "you"."""

    you: str | None = None


def names_for(seats, you: str | None) -> Names:
    """How each seat reads in sentences: the viewer's own is "you" (a
    language may keep the seat's name in it, so its verbs agree)."""
    # Translators: may name the seat as %(seat)s
    yours = pgettext("the viewer's own seat in a sentence", "you")
    names = Names({s: (yours % {"seat": s} if s == you else s) for s in seats})
    names.you = you
    return names


def as_sentence(text: str, names: dict) -> str:
    """A line that opens with the viewer's "you" starts with a capital."""
    you = getattr(names, "you", None)
    own = names.get(you, "") if you is not None else ""
    if own and text.startswith(own) and not own.startswith(str(you)):
        return capfirst(text)
    return text


def sitters(match: Match) -> dict[str, Sitter]:
    """Who sits in each seat the match row names (a seat without a row is open)."""
    out = {}
    for h in match.holders.all().select_related("user"):
        if h.bot:
            out[h.seat] = Sitter(bot_in_words(h.bot), bot=True, key=row_key(h))
        elif h.user is not None:
            out[h.seat] = Sitter(h.user.username, key=row_key(h))
        else:  # nobody named, or an account deleted since: the seat's own name
            out[h.seat] = Sitter(h.seat)
    return out


def _seat_ratings(match: Match, held: dict[str, Sitter]) -> dict[str, ShownRating]:
    """Each seat's rating in this match's game, as everyone may see it."""
    rated = ratings_of(match.game, {s.key for s in held.values()})
    return {seat: rated[s.key] for seat, s in held.items() if s.key in rated}


def table_for(
    match: Match, viewer: Viewer, at: int | None = None, *, now: float | None = None
) -> Table:
    """The table as ``viewer`` sees it now (or at ``now``), or (``at``: a
    version) as it stood then, for a replay the visibility policy has opened."""
    now = visibility.clock() if now is None else now
    view = services.view_for(match, viewer, now=now)
    rows = services.history_for(match, viewer, now=now)
    delayed_s = view.get("delayed_s")
    clock_at = now - delayed_s if delayed_s is not None else now
    latest = rows[-1]["version"] if rows else view.get("version", 0)
    you = viewer.seat if viewer.kind == SEAT else None
    if at is not None:
        if not view.get("replay"):
            raise RuleError(_("the replay of this match is not open yet"))
        at = max(2, min(int(at), latest))  # 1 is the match's creation: no table yet
        view = _view_at(match, at)
        clock_at = view.pop("recorded_at")
        rows = [r for r in rows if r["version"] <= at]
    module = table_module(match.game)
    game_view = view.get("bout") or {}
    names = names_for(view["seats"], you)
    board = module.board(game_view, you, names) if game_view else Board()
    pending = view.get("pending") or []
    controls: list[Control] = []
    resign = None
    if you is not None and at is None and not view.get("finished") and not view.get("replay"):
        controls = series_controls(view, you, names)
        if game_view and not view.get("ready_check"):
            controls += module.controls(game_view, you)
        refused = resign_refusal(view["seats"], you, False)
        resign = Resign(refusal(refused) if refused is not None else "")
    seats = _seat_rows(match, view, board, you, names, controls)
    history = [
        Line(r["version"], describe_row(module, r, you, names), bool(r.get("void")), r["type"])
        for r in rows
    ]
    return Table(
        match=match,
        game_name=rules_for(match.game).name,
        viewer=viewer,
        you=you,
        version=at if at is not None else view.get("version", latest),
        latest=latest,
        seats=seats,
        board=board,
        controls=controls,
        history=history,
        bout_no=view.get("bout_no", 0),
        target=view.get("target", 0),
        finished=bool(view.get("finished")),
        result=_result(view, names),
        paused=bool(view.get("paused")),
        waiting=_waiting(pending, you, names, view),
        replay_open=bool(view.get("replay")),
        at=at,
        server_now=clock_at,
        delayed_s=delayed_s,
        resign=resign,
    )


def _seat_rows(match: Match, view: dict, board: Board, you, names, controls) -> list[SeatRow]:
    """Each seat: who sits there, their rating, score, clock and cards."""
    pending = view.get("pending") or []
    held = sitters(match)
    ratings = _seat_ratings(match, held)
    seats = []
    for s in view["seats"]:
        mine = [d for d in pending if d["seat"] == s]
        deadlines = [d["deadline"] for d in mine if d.get("deadline")]
        part = board.seats.get(s, SeatPart())
        seats.append(
            SeatRow(
                seat=s,
                name=names[s],
                you=s == you,
                holder="" if s in held else _("open seat"),
                score=view["scores"].get(s, 0),
                status=part.status,
                deciding=tuple(decision_words(d["kind"]) for d in mine),
                deadline=min(deadlines) if deadlines else None,
                reserve=part.reserve,
                items=tuple(item_name(i) for i in view.get("items", {}).get(s, ())),
                part=part,
                picks=card_picks(part.hand, controls) if s == you else (),
                sitter=held.get(s),
                rating=ratings.get(s),
            )
        )
    return seats


def _view_at(match: Match, at: int) -> dict:
    """The open replay as it stood at version ``at``: everything revealed."""
    loaded = services.load(match)
    series = series_for(match.game)
    state = services.fold_rows(match.game, [r for r in loaded.events if r.version <= at])
    if state is None:
        raise RuleError(_("nothing had happened yet at that point"))
    out = series.view(state, MODERATOR_VIEW)
    out["version"] = at
    out["replay"] = True
    step = next(r for r in reversed(loaded.events) if r.version <= at)
    out["recorded_at"] = visibility.recorded(step)  # its clocks as they stood then
    return out


def _result(view: dict, names: dict) -> str:
    if not view.get("finished"):
        return ""
    winners = [names.get(w, w) for w in view.get("winners", [])]
    if not winners:
        return _("The match ended without a winner.")
    return _("The match is over: won by %(who)s.") % {"who": ", ".join(winners)}


def _waiting(pending: list, you: str | None, names: dict, view: dict) -> str:
    if view.get("finished"):
        return ""
    if view.get("paused"):
        return _("The clocks are paused by a moderator.")
    if view.get("ready_check"):
        return _ready_words(view["ready_check"], you, names)
    if not pending:
        return ""
    seats = sorted({d["seat"] for d in pending}, key=view["seats"].index)
    if you in seats and len(seats) == 1:
        return _("Your decision.")
    others = [names[s] for s in seats if s != you]
    if you in seats:
        return _("Your decision (and %(who)s).") % {"who": ", ".join(others)}
    return _("Waiting for %(who)s.") % {"who": ", ".join(others)}


def _ready_words(check: dict, you: str | None, names: dict) -> str:
    """The ready-check in words: who it waits for, and what its end means."""
    others = ", ".join(names[s] for s in check["awaiting"] if s != you)
    if check.get("expired"):
        return _(
            "The match waits for %(who)s, who did not come in time; the clocks "
            "stand still until they come or a moderator declares a no-show."
        ) % {"who": ", ".join(names[s] for s in check["awaiting"])}
    if you in check["awaiting"]:
        if others:
            return _(
                "Press “I am here” to start: the clocks stand still until every "
                "player is there (still waiting for %(who)s too)."
            ) % {"who": others}
        return _("Press “I am here” to start: the clocks stand still until then.")
    return ngettext(
        "The match starts when %(who)s is there; the clocks stand still until then.",
        "The match starts when %(who)s are there; the clocks stand still until then.",
        len(check["awaiting"]),
    ) % {"who": others}


def series_controls(view: dict, you: str, names: dict) -> list[Control]:
    """What the series layer itself asks: that you are there (the
    ready-check), who plays first in bout 1."""
    if you in ((view.get("ready_check") or {}).get("awaiting") or ()):
        return [Control("ready", "ready", _("I am here"))]
    if any(d["seat"] == you and d["kind"] == "choose_first" for d in view.get("pending", [])):
        choices = tuple(Choice(s, names[s]) for s in view["seats"])
        return [
            Control(
                "choose_first",
                "choose_first",
                _("Choose who plays first"),
                fields=(Field("seat", _("Who plays first"), choices, widget="buttons"),),
            )
        ]
    return []


def card_picks(hand, controls: list[Control]) -> tuple[CardPick | None, ...]:
    """For each card of your hand, the control that plays it: one whose
    fixed card it is, or one that asks which card (a choice naming it)."""
    picks = []
    for card in hand:
        pick = None
        for c in controls if card.value else ():
            if str(c.fixed.get("card", "")) == card.value:
                pick = CardPick(c.key)
                break
            f = next((f for f in c.fields if any(ch.value == card.value for ch in f.choices)), None)
            if f is not None and f.name in ("card", "keep"):
                pick = CardPick(c.key, f.name, card.value)
                break
        picks.append(pick)
    return tuple(picks)


def find_control(table: Table, key: str) -> Control | None:
    return next((c for c in table.controls if c.key == key), None)


# ---- history in words ------------------------------------------------------
def describe_row(module: ModuleType, row: dict, you: str | None, names: dict) -> str:
    """One redacted history row in words (the series' and platform's own
    events here, the game's in its presenter)."""
    data = row.get("data") or {}
    text = _describe_series(row["type"], data, names, you)
    if text is None:
        text = module.describe({"type": row["type"], "data": data}, you, names)
    return as_sentence(text, names) if text else row["type"].replace("_", " ")


def _who(names: dict, seat: Any) -> str:
    return names.get(seat, str(seat))


def _describe_series(kind: str, d: dict, names: dict, you: str | None = None) -> str | None:
    for words in (_series_words, _clock_words, _ruling_words):
        text = words(kind, d, names, you)
        if text is not None:
            return text
    return None


def _series_words(kind: str, d: dict, names: dict, you: str | None) -> str | None:
    """The series: set up, begun, its bouts scored and ended; items and the deal."""
    if kind == REVEAL:
        return _("The deal was revealed. %(check)s") % {"check": deal_check(d)}
    if kind == "match_created":
        return _("The match was set up: %(seats)s.") % {
            "seats": ", ".join(_who(names, s) for s in d.get("seats", []))
        }
    if kind == "series_started":
        return _("The series began (first to %(n)s).") % {
            "n": d.get("options", {}).get("first_to", "?")
        }
    if kind == "first_player_chosen":
        how = d.get("how")
        if how == "coin":
            return _("A coin flip chose %(who)s to play first.") % {"who": _who(names, d["seat"])}
        if how == "setup":
            if d["seat"] == you:
                return _("You play first.")
            return _("%(who)s plays first.") % {"who": _who(names, d["seat"])}
        if how == d["seat"] == you:
            return _("You chose to play first.")
        return _("%(chooser)s chose %(who)s to play first.") % {
            "chooser": _who(names, how),
            "who": _who(names, d["seat"]),
        }
    if kind == "bout_scored":
        winners = ", ".join(_who(names, w) for w in d.get("winners", []))
        if not winners:
            return _("Bout %(n)s was drawn (%(why)s).") % {
                "n": d.get("bout"),
                "why": in_words(d["reason"], names),
            }
        return _("Bout %(n)s went to %(who)s (%(why)s).") % {
            "n": d.get("bout"),
            "who": winners,
            "why": in_words(d.get("reason", ""), names),
        }
    if kind == "series_forfeited" and d.get("reason") == RESIGNED:
        winners = ", ".join(_who(names, w) for w in d.get("winners", []))
        if d.get("loser") == you:
            return _("You resigned: %(who)s won the match.") % {"who": winners}
        return _("%(loser)s resigned: %(who)s won the match.") % {
            "loser": _who(names, d.get("loser")),
            "who": winners,
        }
    if kind in ("series_ended", "series_forfeited", "series_overturned"):
        winners = ", ".join(_who(names, w) for w in d.get("winners", []))
        if kind == "series_forfeited" and d.get("reason") == NO_SHOW:
            return _("%(who)s did not come: a moderator declared a no-show; %(winners)s won.") % {
                "who": _who(names, d.get("loser")),
                "winners": winners,
            }
        reasons = {
            "series_ended": _("The match is over: %(who)s won."),
            "series_forfeited": _("The match was forfeited: %(who)s won."),
            "series_overturned": _("A ruling gave the match to %(who)s."),
        }
        return reasons[kind] % {"who": winners or _("nobody")}
    if kind == "item_received":
        at = {"n": d.get("from_bout"), "who": _who(names, d.get("seat"))}
        if d.get("seat") == you and "item" in d:
            return _("You received %(item)s: it applies from bout %(n)s.") % {
                **at,
                "item": item_name(d["item"]),
            }
        if "item" in d:  # a moderator's eyes
            return _("%(who)s received %(item)s: it applies from bout %(n)s.") % {
                **at,
                "item": item_name(d["item"]),
            }
        return _("%(who)s received an item: it applies from bout %(n)s.") % at
    return None


def _clock_words(kind: str, d: dict, names: dict, you: str | None) -> str | None:
    """The moderators' hands on the clocks."""
    if kind == "clock_paused":
        return _("A moderator paused the clocks.")
    if kind == "player_ready":
        if d.get("seat") == you:
            return _("You said you are here.")
        return _("%(who)s is here.") % {"who": _who(names, d.get("seat"))}
    if kind == "ready_check_passed":
        return _("Everyone is here: the clocks start.")
    if kind == "ready_check_expired":
        return _(
            "The time to come is up: %(who)s did not come; a moderator may declare a no-show."
        ) % {"who": ", ".join(_who(names, s) for s in d.get("absent", []))}
    if kind == "clock_resumed":
        return _("A moderator resumed the clocks.")
    if kind == "time_added":
        seconds = d.get("seconds") or 0
        if d.get("seat") is not None and d["seat"] == you:
            return ngettext(
                "A moderator added %(s)s second to your clock.",
                "A moderator added %(s)s seconds to your clock.",
                seconds,
            ) % {"s": seconds}
        if d.get("seat") is not None:
            return ngettext(
                "A moderator added %(s)s second to %(who)s's clock.",
                "A moderator added %(s)s seconds to %(who)s's clock.",
                seconds,
            ) % {"s": seconds, "who": _who(names, d["seat"])}
        return ngettext(
            "A moderator added %(s)s second.", "A moderator added %(s)s seconds.", seconds
        ) % {"s": seconds}
    if kind == "time_credit_used":
        return _("%(who)s used %(s)s seconds of added time.") % {
            "who": ", ".join(_who(names, s) for s in d.get("seats", {})),
            "s": f"{d.get('seconds', 0):.0f}",
        }
    return None


def _ruling_words(kind: str, d: dict, names: dict, you: str | None) -> str | None:
    """Rulings on the match's course."""
    if kind == "bout_replayed":
        return _("A ruling replays bout %(n)s.") % {"n": d.get("bout")}
    if kind == "match_voided":
        return _("A ruling voided moves %(a)s to %(b)s.") % {
            "a": d.get("from_version"),
            "b": d.get("to_version"),
        }
    if kind == "match_abandoned":
        return _("A ruling took this match out of play.")
    return None
