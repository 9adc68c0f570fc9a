"""A match between people opens with a ready-check (issue 43): its clocks
stand still until every seat a person holds said they are there; when its
time runs out with someone absent nobody loses by it, and a moderator may
then declare the no-show (TOURNAMENTS.md: a forfeit for a no-show is
declared by a moderator). A bracket's series between people open with it."""

import io
import random

import pytest
from django.core.management import call_command

from clocks.enforce import sweep
from eventlog.store import read
from games import services
from games.core.protocol import RuleError
from games.models import Match
from tournaments import bracket_services as bs
from tournaments.models import BracketSeriesRecord

T0 = 2_000_000.0
FAST = {"decision_s": 5, "reserve_s": 10, "reserve_step_s": 5, "first_to": 1}


def types(match):
    return [r.type for r in read(match.stream)]


@pytest.fixture
def people(django_user_model):
    return [django_user_model.objects.create_user(n, password="pw-pw-pw-1") for n in ("ana", "ben")]


def bracket_of_two(people, now=T0, ready_s=None):
    ana, ben = people
    options = {"decision_s": 5, "reserve_s": 10, "reserve_step_s": 5}
    if ready_s is not None:
        options["ready_check_s"] = ready_s
    stream = bs.create_bracket(
        name="Cup",
        game="doubting-love-letter",
        format="single",
        entrants=["ana", "ben"],
        first_to=1,
        holders={"ana": ana.pk, "ben": ben.pk},
        match_options=options,
        rng=random.Random(3),
        now=now,
    )
    return stream, Match.objects.get(show_stream=stream)


@pytest.mark.django_db
def test_a_bracket_series_between_people_waits_for_them_and_nobody_loses_on_time(people, settings):
    settings.MATCH_READY_CHECK_S = 600  # the default for matches between people
    stream, match = bracket_of_two(people)
    assert types(match)[-1] != "ready_check_passed"
    assert match.next_deadline.timestamp() == pytest.approx(T0 + 600)
    # nobody came for nine minutes: nothing happens
    assert sweep(now=T0 + 599) == 0
    # the time is up: recorded once, and nobody loses by it
    assert sweep(now=T0 + 601) >= 1
    assert sweep(now=T0 + 5_000) == 0
    match.refresh_from_db()
    assert match.status == "live" and match.winners == [] and match.next_deadline is None
    assert types(match).count("ready_check_expired") == 1
    assert "timed_out" not in types(match) and "series_forfeited" not in types(match)
    # a latecomer may still say they are there; then the match waits for the other
    services.submit(match, "ben", {"type": "ready"}, now=T0 + 6_000)
    assert services.load(match).state.awaiting == ("ana",)


@pytest.mark.django_db
def test_one_arrives_the_other_never_a_moderator_declares_the_no_show(people):
    stream, match = bracket_of_two(people, ready_s=300)
    services.submit(match, "ana", {"type": "ready"}, now=T0 + 10)
    # ben's clock does not run: waiting long is no timeout
    assert sweep(now=T0 + 299) == 0
    no_show = {"type": "declare_no_show", "seat": "ben", "reason": "never came"}
    with pytest.raises(RuleError, match="not up yet"):
        services.submit(match, None, no_show, role="moderator", actor="mod", now=T0 + 200)
    sweep(now=T0 + 301)
    with pytest.raises(RuleError, match="absent seat"):
        services.submit(
            match, None, {**no_show, "seat": "ana"}, role="moderator", actor="mod", now=T0 + 400
        )
    with pytest.raises(RuleError, match="only a moderator"):
        services.submit(match, "ana", no_show, now=T0 + 400)
    services.submit(match, None, no_show, role="moderator", actor="mod", now=T0 + 400)
    match.refresh_from_db()
    assert match.status == "finished" and match.winners == ["ana"]
    forfeit = [r for r in read(match.stream) if r.type == "series_forfeited"][0]
    assert forfeit.data["reason"] == "no-show" and forfeit.data["loser"] == "ben"
    from games.core.protocol import Viewer
    from games.presenters.table import table_for

    said = [line.text for line in table_for(match, Viewer.of_seat("ana")).history]
    assert "ben did not come: a moderator declared a no-show; you won." in said
    assert any(t.startswith("The time to come is up: ben did not come") for t in said)
    # the bracket moves on with the one who came
    assert BracketSeriesRecord.objects.get(bracket__stream=stream, b__gt="").winner == "ana"


@pytest.mark.django_db
def test_both_ready_the_clocks_start_from_then(people):
    stream, match = bracket_of_two(people, ready_s=300)
    with pytest.raises(RuleError, match="waits for its players"):
        services.submit(match, "ana", {"type": "choose_first", "seat": "ana"}, now=T0 + 1)
    services.submit(match, "ben", {"type": "ready"}, now=T0 + 50)
    with pytest.raises(RuleError, match="nobody waits for you"):
        services.submit(match, "ben", {"type": "ready"}, now=T0 + 60)
    services.submit(match, "ana", {"type": "ready"}, now=T0 + 100)
    assert types(match)[-2:] == ["player_ready", "ready_check_passed"]
    state = services.load(match).state
    assert state.awaiting == () and state.paused_since is None
    # the higher seed chooses who starts, then the first decision's clock
    # counts from the pass, not from the bracket's creation
    services.submit(match, "ana", {"type": "choose_first", "seat": "ana"}, now=T0 + 101)
    match.refresh_from_db()
    assert match.next_deadline.timestamp() == pytest.approx(T0 + 101 + 15)


@pytest.mark.django_db
def test_a_rebuild_in_the_middle_of_a_ready_check_gives_the_same_state(people):
    stream, match = bracket_of_two(people, ready_s=300)
    services.submit(match, "ana", {"type": "ready"}, now=T0 + 10)

    def rows():
        return list(
            Match.objects.filter(pk=match.pk).values(
                "status", "waiting_on", "next_deadline", "version", "winners"
            )
        )

    live = rows()
    state = services.load(match).state
    call_command("rebuild_read_models", stdout=io.StringIO())
    assert rows() == live
    folded = services.fold_rows(match.game, read(match.stream))
    assert folded == state and folded.awaiting == ("ben",)
    assert live[0]["waiting_on"] == ["ben"]


@pytest.mark.django_db
def test_who_gets_a_ready_check(people, settings):
    settings.MATCH_READY_CHECK_S = 600
    ana, ben = people
    one_person = services.create_match(
        "higher-lower", ["ana", "bot"], holders={"ana": ana.pk, "bot": "bot:level:0"}
    )
    assert services.load(one_person).state.awaiting == ()  # practice-like: they are there
    two = services.create_match(
        "higher-lower", ["ana", "ben"], holders={"ana": ana.pk, "ben": ben.pk}
    )
    assert services.load(two).state.awaiting == ("ana", "ben")
    asked = services.create_match(
        "higher-lower",
        ["ana", "bot"],
        holders={"ana": ana.pk, "bot": "bot:level:0"},
        options={"ready_check_s": 60},
    )
    assert services.load(asked).state.awaiting == ("ana",)
    for bad in (-1, 1e308, float("nan"), "60", True):
        with pytest.raises(RuleError, match="ready_check_s"):
            services.create_match(
                "higher-lower",
                ["ana", "ben"],
                holders={"ana": ana.pk, "ben": ben.pk},
                options={"ready_check_s": bad},
            )


@pytest.mark.django_db
def test_the_table_asks_each_person_in_words_and_one_click_says_they_are_here(client, people):
    ana, ben = people
    stream, match = bracket_of_two(people, ready_s=300, now=None)
    client.force_login(ana)
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert "I am here" in page and "the clocks stand still" in page
    assert "Choose who plays first" not in page  # nothing else before the check
    client.cookies["django_language"] = "fr"
    fr = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert "Je suis là" in fr
    client.cookies.pop("django_language")
    resp = client.post(f"/games/matches/{match.pk}/command", {"control": "ready"})
    assert resp.status_code == 302
    assert services.load(match).state.awaiting == ("ben",)
    page = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert "I am here" not in page and "You said you are here." in page
    # the other seat's click from ana's session is refused, nothing written
    before = len(read(match.stream))
    client.post(f"/games/matches/{match.pk}/command", {"control": "ready"})
    assert len(read(match.stream)) == before


@pytest.mark.django_db
def test_each_person_is_told_their_match_is_ready(people, django_capture_on_commit_callbacks):
    from reminders.models import MATCH_READY, Reminder

    with django_capture_on_commit_callbacks(execute=True):
        bracket_of_two(people, ready_s=300, now=None)
    told = Reminder.objects.filter(kind=MATCH_READY).order_by("user__username")
    assert [r.user.username for r in told] == ["ana", "ben"]
    assert "I am here" in told[0].text and "300 s" in told[0].text


@pytest.mark.django_db
def test_the_bracket_s_organizer_declares_the_no_show_through_the_api(
    client, people, django_user_model
):
    olga = django_user_model.objects.create_user("olga", password="pw-pw-pw-1")
    ana, ben = people
    stream = bs.create_bracket(
        name="Cup",
        game="higher-lower",
        format="single",
        entrants=["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        match_options={"ready_check_s": 60},
        organizer_id=olga.pk,
        now=T0,
    )
    match = Match.objects.get(show_stream=stream)
    url = f"/api/matches/{match.pk}/moderate"
    body = {"type": "declare_no_show", "seat": "ben", "reason": "never came"}
    client.force_login(ana)  # a player never moderates their own match
    assert client.post(url, body, content_type="application/json").status_code == 403
    client.force_login(olga)
    early = client.post(url, body, content_type="application/json")
    assert early.status_code == 422 and "not up yet" in early.content.decode()
    services.submit(match, "ana", {"type": "ready"}, now=T0 + 5)
    sweep(now=T0 + 61)
    for bad in ({**body, "seat": "nobody"}, {**body, "seat": 1e308}, {**body, "seat": "ana"}):
        assert client.post(url, bad, content_type="application/json").status_code in (400, 422)
    assert client.post(url, body, content_type="application/json").status_code == 201
    match.refresh_from_db()
    assert match.winners == ["ana"]


@pytest.mark.django_db
def test_the_moderator_declares_the_no_show_on_the_match_page(client, people, django_user_model):
    olga = django_user_model.objects.create_user("olga", password="pw-pw-pw-1")
    ana, ben = people
    match = services.create_match(
        "higher-lower",
        ["ana", "ben"],
        holders={"ana": ana.pk, "ben": ben.pk},
        options={"ready_check_s": 60},
        moderators=[olga.pk],
    )
    url = f"/games/matches/{match.pk}/"
    client.force_login(olga)
    assert "Declare the no-show" not in client.get(url).content.decode()  # not yet
    early = client.post(url + "no-show", {"seat": "ben", "reason": "late"}, follow=True)
    assert "not up yet" in early.content.decode() and "series_forfeited" not in types(match)
    services.submit(match, "ana", {"type": "ready"})
    sweep(now=services.load(match).state.ready_by + 1)
    page = client.get(url).content.decode()
    assert "Declare the no-show" in page and '<option value="ben">' in page
    client.force_login(ana)  # a player is refused, nothing written
    assert client.post(url + "no-show", {"seat": "ben", "reason": "x"}).status_code == 403
    client.force_login(olga)
    client.post(url + "no-show", {"seat": "ben", "reason": ""})  # a reason is required
    assert "series_forfeited" not in types(match)
    client.post(url + "no-show", {"seat": "ben", "reason": "never came"})
    match.refresh_from_db()
    assert match.winners == ["ana"]
