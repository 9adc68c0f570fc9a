"""The rules engines' own fixed words (refusals, reasons), for translation.

The engines stay pure and English. A refusal is ``RuleError(words, **values)``:
its words are a msgid (update_catalogs extracts RuleError's first argument),
shown in the reader's language by ``refusal(exc)``. Other sentences (reasons,
results) are listed here so they are in the catalog and put in the reader's
language by ``in_words(message)``; a few formatted ones are matched by their
shape and rebuilt in words; any other message is shown as it came.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

# refusals: a command the rules said no to, in the rules' own words
REFUSALS = (
    gettext_noop("say how many tricks you will win: a whole number from 0 to 3"),
    gettext_noop("positions must be a list of trick numbers (1, 2 or 3)"),
    gettext_noop("positions are trick numbers: 1, 2 or 3"),
    gettext_noop("name each position only once"),
    gettext_noop("a bid of 0 tricks cannot name positions"),
    gettext_noop("bid a number of stones: a multiple of 3 from 0 to 30"),
    gettext_noop("no round is in progress"),
    gettext_noop("the round is over"),
    gettext_noop("a command needs a type"),
    gettext_noop("only a seated player can play"),
    gettext_noop("your time for this decision has run out"),
    gettext_noop("a bid stands: no more cards are drawn"),
    gettext_noop("a bid stands: there is nothing to discard now"),
    gettext_noop("say which card to discard"),
    gettext_noop("a bid already stands: answer it instead"),
    gettext_noop("you may declare once your showroom holds at least 3 cards"),
    gettext_noop("your bid was ignored: finish your turn with a draw and a discard"),
    gettext_noop("the bid was raised: your only answer is confirm"),
    gettext_noop("there is no bid to answer"),
    gettext_noop("answer ignore, believe or disbelieve"),
    gettext_noop("there is no bid to hijack"),
    gettext_noop("there is no raise to confirm"),
    gettext_noop("you have drawn already: discard a card to your showroom"),
    gettext_noop("draw a card first, then discard"),
    gettext_noop("you have drawn this turn: you can only declare at the start of a turn"),
    gettext_noop("you cannot raise a bid you ignore"),
    gettext_noop("a hijacked bid cannot be ignored"),
    gettext_noop("you may ignore only while your showroom has fewer than 5 cards"),
    gettext_noop("a raise must be a positive multiple of 3 stones"),
    gettext_noop("the match is over"),
    gettext_noop("the match's clocks are paused by a moderator; wait until they resume"),
    gettext_noop("the first player has already been chosen"),
    gettext_noop("only the holder of the advantage chooses who plays first"),
    gettext_noop("no bout is in progress: wait until the first player is chosen"),
    gettext_noop("only a moderator may pause, resume, add time or carry out a ruling"),
    gettext_noop("no deadline has passed"),
    gettext_noop("the clocks are already paused"),
    gettext_noop("the clocks are not paused"),
    gettext_noop("no bout is in progress"),
    gettext_noop("use_item needs item: plus_one, deck_rigging or insurance"),
    gettext_noop("the bout is over"),
    gettext_noop("too late: the time for this decision has run out"),
    gettext_noop("there is nothing to decide right now"),
    gettext_noop("say which card you play (card: 1 to 7)"),
    gettext_noop("say which card you claim (claim: 1 to 7)"),
    gettext_noop("you may not play the Princess (8)"),
    gettext_noop("you may not claim the Princess (8)"),
    gettext_noop(
        "you hold the Countess (7) with a Prince (5) or King (6): the Countess is the card you must play (your claim may differ)"
    ),
    gettext_noop("name a card from 2 to 8 (card)"),
    gettext_noop("a Guard may not name a 1 (Guard): name a card from 2 to 8"),
    gettext_noop(
        "Advantage works by itself: it chose who plays first and wins ties on discard sums"
    ),
    gettext_noop("the DMO advantage is used with the mulligan command"),
    gettext_noop("only the DMO may mulligan, once per match"),
    gettext_noop("a mulligan is only allowed on your first turn, when you go first"),
    gettext_noop("a Prince (5) needs a target: self or opponent"),
    gettext_noop("your Insurance is already active this bout"),
    gettext_noop("you do not hold Insurance"),
    gettext_noop("Insurance can only be declared before the bout's first play"),
    gettext_noop("you do not hold Deck Rigging"),
    gettext_noop("Deck Rigging needs take: the card (1 to 8) you want to start with"),
    gettext_noop("you do not hold Plus One"),
    gettext_noop("deny must be a card value from 1 to 8, or left out"),
    gettext_noop("name a card from 1 to 25"),
    gettext_noop("only a seated player can do that"),
    gettext_noop("the game is over"),
    gettext_noop(
        "there is no pass in Higher or Lower: to let the auction close, simply do not bid"
    ),
    gettext_noop("the auction is over"),
    gettext_noop("the auction is still open; the cards come after it closes"),
    gettext_noop("the first card has already been shown"),
    gettext_noop("guess higher or lower"),
    gettext_noop("the first bid must be a multiple of 10, at least 10"),
    gettext_noop("you are out of this round"),
    gettext_noop("say which card you play"),
    gettext_noop("you must play the Countess (7) while you hold the King (6) or the Prince (5)"),
    gettext_noop("the target must be a player's name"),
    gettext_noop("a command must be an object"),
    gettext_noop("name the card you guess (2 to 8)"),
    gettext_noop("you may not name the Guard (1): guess a card from 2 to 8"),
    gettext_noop("only a seated player can choose"),
    gettext_noop("you have already chosen this turn; your choice is final"),
    gettext_noop("say which card you keep and which you discard"),
    gettext_noop("keep one card and discard the other: they must be different"),
    gettext_noop("a command must be an object with a type"),
    gettext_noop("this match was taken out of play by a ruling"),
)

# why a bout or a round ended, or why a life was lost
REASONS = (
    gettext_noop("caught bluffing (insured)"),
    gettext_noop("caught bluffing"),
    gettext_noop("challenged a true claim"),
    gettext_noop("named by a Guard"),
    gettext_noop("discarded the Princess"),
    gettext_noop("lost a Baron comparison"),
    gettext_noop("the deck is empty"),
    gettext_noop("higher card at the showdown"),
    gettext_noop("tie at the showdown won with Plus One"),
    gettext_noop("higher total of discards at the showdown"),
    gettext_noop("tie on discards won with the Advantage"),
    gettext_noop("tied at the showdown: the bout is drawn"),
    gettext_noop("guard"),
    gettext_noop("baron"),
    gettext_noop("princess"),
    gettext_noop("last player in the round"),
    gettext_noop("highest card"),
    gettext_noop("highest discard total"),
    gettext_noop("tied: every tied player wins"),
    gettext_noop("score"),
    gettext_noop("forfeit"),
    gettext_noop("resigned"),
    gettext_noop("no-show"),
    gettext_noop("overturned"),
    gettext_noop("awarded by a ruling"),
    gettext_noop("round annulled"),
    gettext_noop("duel"),
)

# the items a moderator grants, as the engines name them
ITEMS = {
    "plus_one": gettext_noop("Plus One"),
    "deck_rigging": gettext_noop("Deck Rigging"),
    "insurance": gettext_noop("Insurance"),
    "advantage": gettext_noop("Advantage"),
    "dmo": gettext_noop("DMO advantage"),
}


def item_name(item: str) -> str:
    return _(ITEMS[item]) if item in ITEMS else item.replace("_", " ")


_FIXED = frozenset(REFUSALS) | frozenset(REASONS)
_SEAT = r"(?P<%s>[^\s']+)"


def _shape(pattern: str) -> re.Pattern:
    return re.compile("^" + pattern.replace("{", "(?P<").replace("}", ">[^\\s']+)") + "$")


# formatted sentences: their shape, and the words each language gives them
_SHAPES: tuple[tuple[re.Pattern, dict[str, str] | str, tuple[str, ...]], ...] = (
    (
        re.compile(r"^(?P<who>[^\s']+) lost both lives \((?P<why>.+)\)$"),
        gettext_noop("%(who)s lost both lives (%(why)s)"),
        ("who",),
    ),
    (re.compile(r"^(?P<a>\d+) to (?P<b>\d+)$"), gettext_noop("%(a)s to %(b)s"), ()),
    # a ruling's reason as tournaments.show_services.carry_out writes it ("dispute d-3: award_bout")
    (
        re.compile(r"^dispute d-(?P<n>\d+): [a-z_]+$"),
        gettext_noop("ruling on dispute %(n)s"),
        (),
    ),
    (
        re.compile(r"^tied match, (?P<a>\d+) to (?P<b>\d+): nobody scores$"),
        gettext_noop("tied match, %(a)s to %(b)s: nobody scores"),
        (),
    ),
    (_shape("{who} ran out of time"), gettext_noop("%(who)s ran out of time"), ("who",)),
    (
        _shape("{who} is protected by a Handmaid"),
        gettext_noop("%(who)s is protected by a Handmaid"),
        ("who",),
    ),
    (
        _shape("the Guesser {who} ended with {n} chips, at least the declared {t}"),
        gettext_noop("the Guesser %(who)s ended with %(n)s chips, at least the declared %(t)s"),
        ("who",),
    ),
    (
        _shape("the Guesser {who} ended with {n} chips, short of the declared {t}"),
        gettext_noop("the Guesser %(who)s ended with %(n)s chips, short of the declared %(t)s"),
        ("who",),
    ),
    (
        _shape("both fields add up to less than {n}: the round is annulled"),
        gettext_noop("both fields add up to less than %(n)s: the round is annulled"),
        (),
    ),
    (
        _shape("{who}'s field adds up to {sum}, less than {min}: {rival} takes the {s} bid stones"),
        gettext_noop(
            "%(who)s's field adds up to %(sum)s, less than %(min)s: %(rival)s takes the %(s)s bid stones"
        ),
        ("who", "rival"),
    ),
    (
        _shape(
            "the draw pile ran out before {who} could draw while no bid stood: the round is annulled"
        ),
        gettext_noop(
            "the draw pile ran out before %(who)s could draw while no bid stood: the round is annulled"
        ),
        ("who",),
    ),
    (
        _shape("{d} {hit} and {rv} {answer}d: X = {x}, {d2} gets {gd}, {rv2} gets {gr}"),
        {
            "hit believe": gettext_noop(
                "%(d)s hit and %(rv)s believed: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "hit disbelieve": gettext_noop(
                "%(d)s hit and %(rv)s disbelieved: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "missed believe": gettext_noop(
                "%(d)s missed and %(rv)s believed: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "missed disbelieve": gettext_noop(
                "%(d)s missed and %(rv)s disbelieved: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
        },
        ("d", "rv"),
    ),
)


# the same sentences when the viewer is their subject
_YOURS = {
    "%(who)s is protected by a Handmaid": gettext_noop("you are protected by a Handmaid"),
    "%(who)s lost both lives (%(why)s)": gettext_noop("you lost both lives (%(why)s)"),
    "%(who)s ran out of time": gettext_noop("you ran out of time"),
    "%(who)s's field adds up to %(sum)s, less than %(min)s: %(rival)s takes the %(s)s bid stones": gettext_noop(
        "your field adds up to %(sum)s, less than %(min)s: %(rival)s takes the %(s)s bid stones"
    ),
    "the draw pile ran out before %(who)s could draw while no bid stood: the round is annulled": gettext_noop(
        "the draw pile ran out before you could draw while no bid stood: the round is annulled"
    ),
}


def in_words(message: str, names: dict | None = None) -> str:
    """An engine's message in the reader's language (``names``: how seats
    read, "you" for the viewer's own); unknown messages come back as they are."""
    message = str(message)
    if message in _FIXED:
        return _(message)
    for pattern, words, seats in _SHAPES:
        m = pattern.match(message)
        if m is None:
            continue
        parts = m.groupdict()
        if isinstance(words, dict):
            words = words.get(f"{parts['hit']} {parts['answer']}")
            if words is None:
                continue
        yours = _YOURS.get(words if isinstance(words, str) else "")
        you = getattr(names, "you", None)
        if yours and you is not None and parts.get(seats[0]) == you:
            words = yours  # the viewer is the subject: the verb agrees with "you"
        for key in seats:
            parts[key] = (names or {}).get(parts[key], parts[key])
        if "why" in parts:
            parts["why"] = in_words(parts["why"], names)
        return _(words) % parts
    return message


def refusal(exc: Exception) -> str:
    """A refused command's words in the reader's language: a RuleError's
    words from the catalogs, filled with its values (which stay as the
    engine gave them: names, numbers, cards)."""
    words = getattr(exc, "words", None)
    if not words:
        return in_words(str(exc))
    translated = _(words)
    if translated == words:
        return in_words(str(exc))
    values = getattr(exc, "values", None)
    if not values:
        return translated
    # a refusal that quotes another (an option's) has it in words too
    values = {k: refusal(v) if isinstance(v, Exception) else v for k, v in values.items()}
    try:
        return translated.format(**values)
    except (KeyError, IndexError, ValueError):  # a catalog entry that lost a placeholder
        return str(exc)
