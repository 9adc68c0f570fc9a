"""The broadcast's pages in French."""

import pytest

from tests.broadcast.helpers import finished_match

pytestmark = pytest.mark.django_db


def test_the_board_tv_and_replay_speak_french(client, make_live_show):
    record, _match, _olga, _t0 = make_live_show(delay=0)
    client.cookies["django_language"] = "fr"
    board = client.get(f"/shows/{record.pk}/board/").content.decode()
    assert "Diffusion en direct, sans différé." in board and "Qui est encore en lice" in board
    assert "Who is still in" not in board and "Being played" not in board
    tv = client.get(f"/shows/{record.pk}/tv/").content.decode()
    assert "La TV montre le match où l'enjeu est le plus grand" in tv
    match, _last = finished_match()
    replay = client.get(f"/games/matches/{match.pk}/replay/?v=3").content.decode()
    assert "étape 3 sur" in replay and "Lecture automatique" in replay
    assert "sans divulgâchage" in replay
