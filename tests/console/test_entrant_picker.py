"""The console's entrant pickers offer only accounts that may hold a seat:
never the show's organizer or its moderators, nor an account holding an
entrant already (by account id); a forged post naming one is refused with
the form's words and writes nothing, and the show service refuses it too."""

import re

import pytest
from django.contrib.auth.models import User
from django.urls import reverse

from eventlog.models import StoredEvent as Event
from games.core.protocol import Ctx, RuleError
from tournaments import show_services, shows
from tournaments.models import ShowRecord

from .test_show_console import _post_step, _show_form


def _options(html: str, name: str) -> list[str]:
    """The values a picker (checkboxes or a select) named ``name`` offers."""
    if f'<select name="{name}"' in html:
        select = html.split(f'<select name="{name}"', 1)[1].split("</select>", 1)[0]
        return re.findall(r'<option value="([^"]*)"', select)
    return re.findall(rf'name="{name}" value="([^"]*)"', html)


@pytest.fixture
def running(org_client, organizer, alice):
    """Friday Night: alice and three bots; mo moderates; zed has an account."""
    org_client.post(reverse("console:show_new"), _show_form([alice]))
    record = ShowRecord.objects.get()
    User.objects.create_user("mo", password="pw-mo-12345")
    User.objects.create_user("zed", password="pw-zed-12345")
    assert _post_step(org_client, record, "appoint", {"username": "mo"}).status_code == 302
    return record


def test_the_new_show_picker_never_offers_the_organizer(org_client, organizer, alice):
    html = org_client.get(reverse("console:show_new")).content.decode()
    offered = _options(html, "players")
    assert str(alice.pk) in offered and str(organizer.pk) not in offered
    before = Event.objects.count()
    resp = org_client.post(reverse("console:show_new"), _show_form([organizer, alice]))
    assert resp.status_code == 400
    words = " ".join(resp.context["form"].errors["players"])
    assert f"account {organizer.pk} may not enter this show" in words
    assert Event.objects.count() == before and not ShowRecord.objects.exists()


def test_the_substitute_picker_offers_only_accounts_that_may_hold_a_seat(org_client, running):
    html = org_client.get(reverse("console:show", args=[running.pk])).content.decode()
    offered = _options(html, "substitute-holder")
    assert "zed" in offered and "bot:level:1" in offered and "" in offered
    for barred in ("olga", "mo", "alice"):  # organizer, moderator, holds an entrant
        assert barred not in offered, barred


@pytest.mark.parametrize("holder", ["olga", "mo", "alice"])
def test_a_forged_substitute_post_is_refused_and_writes_nothing(org_client, running, holder):
    before = Event.objects.count()
    resp = _post_step(
        org_client,
        running,
        "substitute",
        {"out": "bot-3", "new": "zoe", "holder": holder, "reason": "r", "confirm": "on"},
    )
    assert resp.status_code == 400
    words = " ".join(resp.context["steps"]["substitute"].errors["holder"])
    assert f"{holder} may not play in this show" in words
    assert Event.objects.count() == before
    assert "zoe" not in show_services.load(running.stream)[0].entrants


def test_the_show_service_refuses_staff_and_seat_holders_as_a_substitutes_player(running):
    stream = running.stream
    org = show_services.acting_for(stream, User.objects.get(username="olga"))
    before = Event.objects.count()

    def substitute(**extra):
        cmd = {"type": "substitute", "out": "bot-3", "in": "zoe", "reason": "r", **extra}
        return show_services.command(stream, cmd, org)

    with pytest.raises(RuleError, match="mo runs or moderates this show"):
        substitute(holder="mo")
    with pytest.raises(RuleError, match="play zoe holds an entrant of this show already"):
        substitute(holder="alice")
    # the rules themselves, given account ids: the moderator's and the organizer's
    state = show_services.load(stream)[0]
    ctx = Ctx(now=0.0, rng=None, role="system")
    for uid in (User.objects.get(username="mo").pk, state.organizer_id):
        cmd = {"type": "substitute", "out": "bot-3", "in": "zoe", "reason": "r", "holder": uid}
        with pytest.raises(RuleError, match="play zoe runs or moderates this show"):
            shows.decide(state, {**cmd, "actor": "olga", "role": shows.ORGANIZER}, ctx)
    assert Event.objects.count() == before
    substitute(holder="zed")  # an account that may hold a seat
    assert show_services.load(stream)[2]["zoe"] == User.objects.get(username="zed").pk
