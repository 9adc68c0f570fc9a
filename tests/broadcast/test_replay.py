"""The replay page: opened by the policy only, one step per ``?v=N``, the
step alone for a fetch, and a spoiler-free start."""

import re

import pytest

from tests.broadcast.helpers import finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def finished():
    return finished_match()


def test_a_live_match_has_no_replay_yet(client, make_live_show):
    _record, match, _olga, _t0 = make_live_show(delay=0)
    resp = client.get(f"/games/matches/{match.pk}/replay/")
    assert resp.status_code == 403 and b"replay of this match is not open yet" in resp.content


def test_each_step_has_its_link(client, finished):
    match, last = finished
    page = client.get(f"/games/matches/{match.pk}/replay/?v=3").content.decode()
    assert f"step 3 of {last}" in page and 'aria-current="step"' in page
    assert 'href="?v=3"' in page  # the link to this step
    assert len(re.findall(r'<li value="\d+" data-v=', page)) == last  # every line, to click
    assert 'class="result"' not in page  # the result belongs to the last step
    end = client.get(f"/games/matches/{match.pk}/replay/?spoilers=on").content.decode()
    assert f"step {last} of {last}" in end and 'class="result"' in end
    step = client.get(f"/games/matches/{match.pk}/replay/?v=4", headers={"HX-Request": "true"})
    body = step.content.decode()
    assert body.startswith('<div id="replay-step" data-v="4"') and "<html" not in body


def test_spoiler_free_starts_at_the_start_and_hides_the_rest(client, finished):
    match, last = finished
    page = client.get(f"/games/matches/{match.pk}/replay/?spoilers=off").content.decode()
    assert f"step 2 of {last}" in page and 'class="result"' not in page
    hidden = re.findall(r'<li value="(\d+)" data-v="\d+" hidden>', page)
    assert [int(v) for v in hidden] == list(range(3, last + 1))
    assert "won" not in re.sub(r"<li value[^>]*hidden>.*?</li>", "", page)


def test_a_replay_opened_as_it_is_starts_spoiler_free(client, finished):
    """Opened from a result (a list, the board, the match's page): the first
    step, the result and the later lines hidden; a shared step link still
    opens its step with every line."""
    match, last = finished
    page = client.get(f"/games/matches/{match.pk}/replay/").content.decode()
    assert f"step 2 of {last}" in page and 'class="result"' not in page
    assert 'name="spoilers" value="off" checked' in page
    assert len(re.findall(r'<li value="\d+" data-v="\d+" hidden>', page)) == last - 2
    assert f'href="/games/matches/{match.pk}/?spoilers=off"' in page  # the match's page too
    step = client.get(f"/games/matches/{match.pk}/replay/?v=5").content.decode()
    assert f"step 5 of {last}" in step and " hidden>" not in step
    assert 'name="spoilers" value="off">' in step  # not checked: the link said no spoilers=off


def test_the_match_page_hides_the_result_in_spoiler_free_mode(client, finished):
    match, last = finished
    shown = client.get(f"/games/matches/{match.pk}/").content.decode()
    assert 'class="result"' in shown and "won" in shown  # the page as it always was
    page = client.get(f"/games/matches/{match.pk}/?spoilers=off").content.decode()
    assert 'class="result"' not in page and "won" not in page
    assert f"replay at move 2 of {last}" in page


@pytest.mark.parametrize("bad", ["x", "-1", "1e3", "١", "9" * 20])
def test_a_bad_step_is_a_400(client, finished, bad):
    match, _last = finished
    resp = client.get(f"/games/matches/{match.pk}/replay/", {"v": bad})
    assert resp.status_code == 400 and b"v must be a step number" in resp.content


def test_steps_out_of_range_are_the_ends(client, finished):
    match, last = finished
    assert (
        f"step 2 of {last}" in client.get(f"/games/matches/{match.pk}/replay/?v=0").content.decode()
    )
    assert (
        f"step {last} of {last}"
        in client.get(f"/games/matches/{match.pk}/replay/?v=99999").content.decode()
    )
