"""The rules engines' own fixed words (refusals, reasons), for translation.

The engines stay pure and English; what they say in a fixed sentence is
listed here (so it is in the catalog) and put in the reader's language when
it is shown: ``in_words(message)``. A few formatted sentences are matched by
their shape and rebuilt in words; any other message is shown as it came.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop as N_

# refusals: a command the rules said no to, in the rules' own words
REFUSALS = (
    N_("say how many tricks you will win: a whole number from 0 to 3"),
    N_("positions must be a list of trick numbers (1, 2 or 3)"),
    N_("positions are trick numbers: 1, 2 or 3"),
    N_("name each position only once"),
    N_("a bid of 0 tricks cannot name positions"),
    N_("bid a number of stones: a multiple of 3 from 0 to 30"),
    N_("no round is in progress"),
    N_("the round is over"),
    N_("a command needs a type"),
    N_("only a seated player can play"),
    N_("your time for this decision has run out"),
    N_("a bid stands: no more cards are drawn"),
    N_("a bid stands: there is nothing to discard now"),
    N_("say which card to discard"),
    N_("a bid already stands: answer it instead"),
    N_("you may declare once your showroom holds at least 3 cards"),
    N_("your bid was ignored: finish your turn with a draw and a discard"),
    N_("the bid was raised: your only answer is confirm"),
    N_("there is no bid to answer"),
    N_("answer ignore, believe or disbelieve"),
    N_("there is no bid to hijack"),
    N_("there is no raise to confirm"),
    N_("you have drawn already: discard a card to your showroom"),
    N_("draw a card first, then discard"),
    N_("you have drawn this turn: you can only declare at the start of a turn"),
    N_("you cannot raise a bid you ignore"),
    N_("a hijacked bid cannot be ignored"),
    N_("you may ignore only while your showroom has fewer than 5 cards"),
    N_("a raise must be a positive multiple of 3 stones"),
    N_("the match is over"),
    N_("the match's clocks are paused by a moderator; wait until they resume"),
    N_("the first player has already been chosen"),
    N_("only the holder of the advantage chooses who plays first"),
    N_("no bout is in progress: wait until the first player is chosen"),
    N_("only a moderator may pause, resume, add time or carry out a ruling"),
    N_("no deadline has passed"),
    N_("the clocks are already paused"),
    N_("the clocks are not paused"),
    N_("no bout is in progress"),
    N_("use_item needs item: plus_one, deck_rigging or insurance"),
    N_("the bout is over"),
    N_("too late: the time for this decision has run out"),
    N_("there is nothing to decide right now"),
    N_("say which card you play (card: 1 to 7)"),
    N_("say which card you claim (claim: 1 to 7)"),
    N_("you may not play the Princess (8)"),
    N_("you may not claim the Princess (8)"),
    N_(
        "you hold the Countess (7) with a Prince (5) or King (6): the Countess is the card you must play (your claim may differ)"
    ),
    N_("name a card from 2 to 8 (card)"),
    N_("a Guard may not name a 1 (Guard): name a card from 2 to 8"),
    N_("Advantage works by itself: it chose who plays first and wins ties on discard sums"),
    N_("the DMO advantage is used with the mulligan command"),
    N_("only the DMO may mulligan, once per match"),
    N_("a mulligan is only allowed on your first turn, when you go first"),
    N_("a Prince (5) needs a target: self or opponent"),
    N_("your Insurance is already active this bout"),
    N_("you do not hold Insurance"),
    N_("Insurance can only be declared before the bout's first play"),
    N_("you do not hold Deck Rigging"),
    N_("Deck Rigging needs take: the card (1 to 8) you want to start with"),
    N_("you do not hold Plus One"),
    N_("deny must be a card value from 1 to 8, or left out"),
    N_("name a card from 1 to 25"),
    N_("only a seated player can do that"),
    N_("the game is over"),
    N_("there is no pass in Higher or Lower: to let the auction close, simply do not bid"),
    N_("the auction is over"),
    N_("the auction is still open; the cards come after it closes"),
    N_("the first card has already been shown"),
    N_("guess higher or lower"),
    N_("the first bid must be a multiple of 10, at least 10"),
    N_("you are out of this round"),
    N_("say which card you play"),
    N_("you must play the Countess (7) while you hold the King (6) or the Prince (5)"),
    N_("the target must be a player's name"),
    N_("a command must be an object"),
    N_("name the card you guess (2 to 8)"),
    N_("you may not name the Guard (1): guess a card from 2 to 8"),
    N_("only a seated player can choose"),
    N_("you have already chosen this turn; your choice is final"),
    N_("say which card you keep and which you discard"),
    N_("keep one card and discard the other: they must be different"),
    N_("a command must be an object with a type"),
    N_("this match was taken out of play by a ruling"),
)

# why a bout or a round ended, or why a life was lost
REASONS = (
    N_("caught bluffing (insured)"),
    N_("caught bluffing"),
    N_("challenged a true claim"),
    N_("named by a Guard"),
    N_("discarded the Princess"),
    N_("lost a Baron comparison"),
    N_("the deck is empty"),
    N_("higher card at the showdown"),
    N_("tie at the showdown won with Plus One"),
    N_("higher total of discards at the showdown"),
    N_("tie on discards won with the Advantage"),
    N_("tied at the showdown: the bout is drawn"),
    N_("guard"),
    N_("baron"),
    N_("princess"),
    N_("last player in the round"),
    N_("highest card"),
    N_("highest discard total"),
    N_("tied: every tied player wins"),
    N_("score"),
    N_("forfeit"),
    N_("overturned"),
    N_("awarded by a ruling"),
    N_("round annulled"),
    N_("duel"),
)

_FIXED = frozenset(REFUSALS) | frozenset(REASONS)
_SEAT = r"(?P<%s>[^\s']+)"


def _shape(pattern: str) -> re.Pattern:
    return re.compile("^" + pattern.replace("{", "(?P<").replace("}", ">[^\\s']+)") + "$")


# formatted sentences: their shape, and the words each language gives them
_SHAPES: tuple[tuple[re.Pattern, dict[str, str] | str, tuple[str, ...]], ...] = (
    (
        re.compile(r"^(?P<who>[^\s']+) lost both lives \((?P<why>.+)\)$"),
        N_("%(who)s lost both lives (%(why)s)"),
        ("who",),
    ),
    (_shape("{who} ran out of time"), N_("%(who)s ran out of time"), ("who",)),
    (
        _shape("{who} is protected by a Handmaid"),
        N_("%(who)s is protected by a Handmaid"),
        ("who",),
    ),
    (
        _shape("the Guesser {who} ended with {n} chips, at least the declared {t}"),
        N_("the Guesser %(who)s ended with %(n)s chips, at least the declared %(t)s"),
        ("who",),
    ),
    (
        _shape("the Guesser {who} ended with {n} chips, short of the declared {t}"),
        N_("the Guesser %(who)s ended with %(n)s chips, short of the declared %(t)s"),
        ("who",),
    ),
    (
        _shape("both fields add up to less than {n}: the round is annulled"),
        N_("both fields add up to less than %(n)s: the round is annulled"),
        (),
    ),
    (
        _shape("{who}'s field adds up to {sum}, less than {min}: {rival} takes the {s} bid stones"),
        N_(
            "%(who)s's field adds up to %(sum)s, less than %(min)s: %(rival)s takes the %(s)s bid stones"
        ),
        ("who", "rival"),
    ),
    (
        _shape(
            "the draw pile ran out before {who} could draw while no bid stood: the round is annulled"
        ),
        N_(
            "the draw pile ran out before %(who)s could draw while no bid stood: the round is annulled"
        ),
        ("who",),
    ),
    (
        _shape("{d} {hit} and {rv} {answer}d: X = {x}, {d2} gets {gd}, {rv2} gets {gr}"),
        {
            "hit believe": N_(
                "%(d)s hit and %(rv)s believed: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "hit disbelieve": N_(
                "%(d)s hit and %(rv)s disbelieved: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "missed believe": N_(
                "%(d)s missed and %(rv)s believed: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
            "missed disbelieve": N_(
                "%(d)s missed and %(rv)s disbelieved: X = %(x)s, %(d)s gets %(gd)s, %(rv)s gets %(gr)s"
            ),
        },
        ("d", "rv"),
    ),
)


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
        for key in seats:
            parts[key] = (names or {}).get(parts[key], parts[key])
        if "why" in parts:
            parts["why"] = in_words(parts["why"], names)
        return _(words) % parts
    return message
