"""The console offers the bots' levels (issue #46): a show's bot entrants and
a substitute's bot are picked by level, each level said in words; typed
entrants take ``bot:level:<n>`` and refuse anything else named like a bot."""

import pytest
from django.urls import reverse

from games import bot_levels
from tournaments import show_services
from tournaments.models import BracketRecord, ShowRecord

from .test_show_console import _show_form

pytestmark = pytest.mark.django_db


def test_the_show_form_offers_every_level_in_words(org_client):
    page = org_client.get(reverse("console:show_new")).content.decode()
    for level in bot_levels.levels():
        assert f'<option value="{level.value}"' in page
        assert str(level.words) in page
    assert '<option value="level:1" selected>' in page  # the default: level 1


@pytest.mark.parametrize("level", range(5))
def test_a_show_s_bots_play_at_the_level_picked(org_client, alice, level):
    resp = org_client.post(
        reverse("console:show_new"), _show_form([alice], bot_kind=f"level:{level}")
    )
    assert resp.status_code == 302
    _, _, holders = show_services.load(ShowRecord.objects.get().stream)
    assert holders["bot-1"] == holders["bot-3"] == f"bot:level:{level}"


@pytest.mark.parametrize("kind", ["level:5", "level:\u0663", "genius", "heuristic:2", "1e308"])
def test_a_level_the_picker_does_not_offer_is_refused(org_client, alice, kind):
    resp = org_client.post(reverse("console:show_new"), _show_form([alice], bot_kind=kind))
    assert resp.status_code in (200, 400) and "bot_kind" in resp.context["form"].errors
    assert not ShowRecord.objects.exists()


def test_typed_bracket_entrants_take_levels_and_refuse_nonsense(org_client):
    body = {"name": "Cup", "game": "love-me-not", "format": "single", "first_to": 1}
    entrants = "A = bot:level:0\nB = bot:level:4"
    resp = org_client.post(reverse("console:bracket_new"), {**body, "entrants": entrants})
    assert resp.status_code == 302
    assert BracketRecord.objects.get().name == "Cup"
    for bad in ("bot:x:9", "bot:love-letter:1e308", "bot:level:\uff12", "bot:level3"):
        resp = org_client.post(
            reverse("console:bracket_new"), {**body, "name": bad, "entrants": f"A = {bad}\nB"}
        )
        assert resp.status_code == 400
        assert "is not a bot: a bot is bot:level:0 to bot:level:4" in str(
            resp.context["form"].errors
        )
    assert BracketRecord.objects.count() == 1
