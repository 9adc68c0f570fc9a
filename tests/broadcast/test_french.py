"""The broadcast's pages in French."""

import pytest

from tests.broadcast.helpers import finished_match

pytestmark = pytest.mark.django_db


def test_the_board_tv_and_replay_speak_french(client, make_live_show):
    record, _match, olga, _t0 = make_live_show(delay=0)
    client.cookies["django_language"] = "fr"
    board = client.get(f"/shows/{record.pk}/board/").content.decode()
    assert "Diffusion en direct, sans différé." in board and "Qui est encore en lice" in board
    assert "Who is still in" not in board and "Being played" not in board
    tv = client.get(f"/shows/{record.pk}/tv/").content.decode()
    assert "La TV montre le match où l'enjeu est le plus grand" in tv
    assert ">Meilleures cotes</a>" in tv and "Chaînes de la TV" in tv and "encore 1:" in tv
    assert "jeton de vie" in board and "objet" in board
    top = client.get("/tv/").content.decode()
    assert "dont les joueurs ont les meilleures cotes" in top and "Top rated" not in top
    client.force_login(olga)
    links = client.get(f"/shows/{record.pk}/overlays/").content.decode()
    assert "Réglages et aperçu" in links and "en haut à gauche" in links and "top left" not in links
    bad = client.get(f"/shows/{record.pk}/overlays/preview/scoreboard/?size=xl").content.decode()
    assert bad.startswith("Le réglage « size » prend l'une de ces valeurs")
    match, _last = finished_match()
    replay = client.get(f"/games/matches/{match.pk}/replay/?v=3").content.decode()
    assert "étape 3 sur" in replay and "Lecture automatique" in replay
    assert "sans divulgâchage" in replay
