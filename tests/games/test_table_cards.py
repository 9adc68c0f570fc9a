"""Cards drawn as cards (issue #43, point 5): every card of every game is drawn
from the project's own sprite (static/cards/cards.svg) with its name in words
for a screen reader, and a card its viewer may not see is a back whose markup
says nothing of it: checked on the page as each seat and as a spectator."""

import random
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation

from games import services
from games.core.protocol import MODERATOR_VIEW, Viewer
from games.presenters import bleven, higher_lower, love_letter_family, love_me_not
from games.presenters.base import HIDDEN, Card
from games.presenters.table import table_for
from tests.helpers.tables import person_against_bot

SPRITE = Path(settings.BASE_DIR) / "static" / "cards" / "cards.svg"
# the games whose hands are secret: (game, seats)
SECRET_HANDS = [
    ("doubting-love-letter", ["ana", "ben"]),
    ("love-letter", ["ana", "ben", "cal"]),
    ("love-me-not", ["ana", "ben"]),
    ("bleven", ["ana", "ben"]),
]
CARD = re.compile(
    r'<(?:span|button)[^>]*\bclass="card ([^"]*)"([^>]*)>(.*?)</(?:span|button)>', re.S
)


def test_every_face_of_every_game_is_in_the_sprite_and_named_in_words():
    symbols = set(re.findall(r'<symbol id="([\w-]+)"', SPRITE.read_text()))
    faces = [love_letter_family.face(r) for r in range(1, 9)]
    faces += [love_me_not.face(f"{r}{s}") for r in "2345J" for s in "CDHS"]
    faces += [bleven.face(f"{r}{s}") for r in "A234567JQK" for s in "CDHS"]
    faces += [higher_lower.face(n) for n in range(1, 26)]
    faces += [HIDDEN, love_me_not.face(None)]
    for card in faces:
        assert card.art in symbols, card
    assert {f.art for f in faces} >= {"back", "hl", "suit-H", "ll-8"}
    assert "style=" not in SPRITE.read_text()  # the CSP allows no inline style
    assert love_letter_family.face(3).label == "Baron (3)"
    assert bleven.face("JS").label == "Jack of spades"
    assert love_me_not.face("4H").label == "4 of hearts"
    assert higher_lower.face(14, "shown").label == "card 14, shown"
    with translation.override("fr"):
        assert bleven.face("QD").label == "Dame de carreau"
        assert love_letter_family.face(8).label == "Princesse (8)"
        assert HIDDEN.label == "carte cachée"


def _page(match, user) -> str:
    client = Client()
    if user is not None:
        client.force_login(user)
    return client.get(f"/games/matches/{match.pk}/").content.decode()


def _hand_html(page: str, seat: str) -> str:
    """The hand of ``seat`` on a page ("" when the page shows it no hand)."""
    for article in re.findall(r'<article class="seat[^"]*">.*?</article>', page, re.S):
        if re.search(rf"<b class=\"seat-name\">{seat}</b>", article):
            hand = re.search(r'<div class="hand cards".*?</div>', article, re.S)
            return hand.group(0) if hand else ""
    raise AssertionError(f"no seat {seat}")


@pytest.mark.django_db
@pytest.mark.parametrize(("game", "seats"), SECRET_HANDS, ids=[g for g, _ in SECRET_HANDS])
def test_a_hidden_card_is_a_back_that_says_nothing_as_each_seat_and_a_spectator(game, seats):
    users = {s: User.objects.create_user(s, password="pw-123456") for s in seats}
    match = services.create_match(
        game,
        seats,
        options={"decision_s": 0},
        holders={s: u.pk for s, u in users.items()},
        rng=random.Random(11),
    )
    everything = {s.seat: s.part.hand for s in table_for(match, MODERATOR_VIEW).seats}
    assert any(everything.values()), "the deal gave hands"
    for viewer in [*seats, None]:
        page = _page(match, users.get(viewer))
        for seat in seats:
            hand = _hand_html(page, seat)
            secret = [c for c in everything[seat] if c.value]
            if seat == viewer:
                for card in secret:  # one's own cards, drawn and named
                    assert f'aria-label="{card.label}"' in hand and f"#{card.art}" in hand
                continue
            for card in secret:
                assert f'aria-label="{card.label}"' not in hand, (viewer, seat, card)
                assert f'data-value="{card.value}"' not in hand, (viewer, seat, card)
            for look, attrs, inner in CARD.findall(hand):
                assert look.split()[0] == "back", (viewer, seat, look)
                assert "#back" in inner and "<b>?</b>" in inner and "data-value" not in attrs
        for look, attrs, inner in CARD.findall(page):  # every back anywhere alike
            if "back" in look.split():
                assert re.search(r'#back"', inner) and "data-value" not in attrs


@pytest.mark.django_db
def test_ones_own_cards_are_buttons_named_in_words():
    ana = User.objects.create_user("ana", password="pw-123456")
    match = person_against_bot(ana, bot_seat="ben", bot="bot:level:1")
    seat = next(s for s in table_for(match, Viewer.of_seat("ana")).seats if s.you)
    assert [c.label for c in seat.part.hand] == ["Guard (1)", "Priest (2)"]
    page = _page(match, ana)
    hand = _hand_html(page, "ana")
    assert 'aria-label="Guard (1)"' in hand and "cards.svg#ll-1" in hand
    assert Card("?", "", "back").art == "back"
