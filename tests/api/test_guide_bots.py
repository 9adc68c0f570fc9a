"""The bot "in a few lines" of the API guide (docs/api/index.md, "Bots over
HTTP"), run as printed against a live server on loopback, its address and
token filled in and its one-second pause standing for the other seat's bot:
it plays its seat of a match to the end, each move with its command id."""

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import User

from api.models import ApiToken
from eventlog.models import StoredEvent
from games import services
from games.models import Match

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "api" / "index.md"


class Over(Exception):
    """The match is over: the guide's bot loops for ever, the test stops it."""


def the_guides_bot(section: str) -> str:
    page = GUIDE.read_text()
    return re.search(r"```python\n(.*?)```", page[page.index(section) :], re.S).group(1)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_the_guides_http_bot_plays_its_seat_to_the_end(live_server):
    ana = User.objects.create_user("ana_user")
    _, secret = ApiToken.issue(ana, "the guide's bot")
    match = services.create_match(
        "love-me-not",
        ["ana", "robo"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": ana.pk, "robo": "bot:random"},
    )
    code = the_guides_bot("## Bots over HTTP")
    for printed, here in (
        ('"http://127.0.0.1:8000/api"', repr(f"{live_server.url}/api")),
        ('"your-token"', repr(secret)),
        ("time.sleep(1)", "pause()"),
    ):
        assert code.count(printed) == 1, printed
        code = code.replace(printed, here)
    rounds = []

    def pause():
        live = Match.objects.get(pk=match.pk)
        services.play_bots(live)  # the other seat, as the clock worker would
        rounds.append(live.version)
        if Match.objects.get(pk=match.pk).status == "finished" or len(rounds) > 300:
            raise Over

    with pytest.raises(Over):
        exec(compile(code, str(GUIDE), "exec"), {"__name__": "the_guides_bot", "pause": pause})
    assert Match.objects.get(pk=match.pk).status == "finished", f"{len(rounds)} rounds"
    ids = StoredEvent.objects.filter(
        stream=match.stream, command_id__startswith=f"c:{match.pk}-ana-"
    )
    assert ids.values("command_id").distinct().count() >= 5  # one choice a turn, at least
