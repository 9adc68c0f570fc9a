"""The broadcast's pages in French."""

import random

import pytest

from games import services

pytestmark = pytest.mark.django_db


def test_the_board_tv_and_replay_speak_french(client, make_live_show):
    record, _match, _olga, _t0 = make_live_show(delay=0)
    client.cookies["django_language"] = "fr"
    board = client.get(f"/shows/{record.pk}/board/").content.decode()
    assert "Diffusion en direct, sans différé." in board and "Qui est encore en lice" in board
    assert "Who is still in" not in board and "Being played" not in board
    tv = client.get(f"/shows/{record.pk}/tv/").content.decode()
    assert "La TV montre le match où l'enjeu est le plus grand" in tv
    match = services.create_match(
        "love-letter",
        ["ana", "ben"],
        options={"decision_s": 0, "first_to": 1},
        holders={"ana": "bot:random", "ben": "bot:random"},
        rng=random.Random(4),
    )
    services.play_bots(match, rng=random.Random(4))
    replay = client.get(f"/games/matches/{match.pk}/replay/?v=3").content.decode()
    assert "étape 3 sur" in replay and "Lecture automatique" in replay
    assert "sans divulgâchage" in replay
