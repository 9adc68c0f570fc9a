"""Statistics from the log, checked against small scripted matches counted
by hand; they show only once each match's full replay is open to everyone,
and a profile names no card."""

import time

import pytest

from games import services, visibility
from ratings.models import Participation
from tests.ratings.helpers import DAY, accounts, rated_match

DLL_SETUP = {"removed": ["3", "5", "7"], "deck": ["2", "4", "6", "1", "2"], "first": "ana"}
DLL_STEPS = [
    ("ana", {"type": "play", "card": "2", "claim": "4"}),  # a bluff, not challenged
    ("ben", {"type": "pass"}),
    ("ben", {"type": "play", "card": "1", "claim": "1"}),  # true: ana is immune, no guess
    ("ana", {"type": "challenge"}),  # a wrong challenge: ana loses a life
    ("ana", {"type": "play", "card": "6", "claim": "3"}),  # a bluff...
    ("ben", {"type": "challenge"}),  # ...caught: ana loses her last life and the bout
]
# counted by hand from the steps above
DLL_ANA = {"bluffs": 2, "bluffs_caught": 1, "challenges": 1, "challenges_right": 0, "lives_lost": 2}
DLL_BEN = {"bluffs": 0, "bluffs_caught": 0, "challenges": 1, "challenges_right": 1, "lives_lost": 0}

LL_SETUP = {
    "hidden": "6",
    "removed": ["1", "1", "4"],
    "deck": ["3", "5", "1", "2", "1"],
    "first": "ana",
}
LL_STEPS = [
    ("ana", {"type": "play", "card": "1", "target": "ben", "guess": "2"}),  # wrong: ben holds 5
    ("ben", {"type": "play", "card": "2", "target": "ana"}),
    ("ana", {"type": "play", "card": "1", "target": "ben", "guess": "5"}),  # right: ben is out
]

BLEVEN_SETUP = {
    "deck": ["7H", "6H", "5H", "AS", "2S", "3S", "KH", "QS", "2C", "JS", "3C", "7S"],
    "cutter": "ana",
    "seed": 1,
}
BLEVEN_STEPS = [
    ("ana", {"type": "draw"}),
    ("ana", {"type": "discard", "card": "5H"}),
    ("ben", {"type": "draw"}),
    ("ben", {"type": "discard", "card": "AS"}),
    ("ana", {"type": "draw"}),
    ("ana", {"type": "discard", "card": "2C"}),
    ("ben", {"type": "draw"}),
    ("ben", {"type": "discard", "card": "2S"}),
    ("ana", {"type": "draw"}),
    ("ana", {"type": "discard", "card": "3C"}),
    ("ben", {"type": "draw"}),
    ("ben", {"type": "discard", "card": "3S"}),
    ("ana", {"type": "declare", "tricks": 1, "positions": [3], "stones": 12}),
    ("ben", {"type": "respond", "answer": "disbelieve"}),  # ana hits: a bid made good
]


def _play(match, steps, now):
    t = now
    for seat, command in steps:
        t += 1
        assert services.submit(match, seat, command, now=t), (seat, command)
    return t


def _higher_lower(users, now):
    """ana bids 10, ben 20, ana 30: ana is the Guesser with 30 declared, and
    guesses higher each turn with a stake of 1 while ben deals 1 up to 25:
    24 right guesses, 49 chips, the declared 30 reached."""
    m = rated_match("higher-lower", {n: users[n].pk for n in ("ana", "ben")}, now=now, options={})
    t = _play(
        m,
        [
            ("ana", {"type": "bid", "amount": 10}),
            ("ben", {"type": "bid", "amount": 20}),
            ("ana", {"type": "bid", "amount": 30}),
        ],
        now,
    )
    t += 16  # the auction closes 15 s after the last bid
    services.submit(m, None, {"type": "timeout"}, role="system", now=t)
    steps = [("ben", {"type": "show", "card": 1})]
    for card in range(2, 26):
        steps += [
            ("ben", {"type": "pick", "card": card}),
            ("ana", {"type": "guess", "direction": "higher", "stake": 1}),
        ]
    _play(m, steps, t)
    return m


def _scripted(users, start):
    holders = {n: users[n].pk for n in ("ana", "ben")}
    dll = rated_match("doubting-love-letter", holders, now=start, setup=DLL_SETUP)
    _play(dll, DLL_STEPS, start)
    ll = rated_match("love-letter", holders, now=start + DAY, setup=LL_SETUP)
    _play(ll, LL_STEPS, start + DAY)
    hl = _higher_lower(users, start + 2 * DAY)
    bleven = rated_match("bleven", holders, now=start + 3 * DAY, setup=BLEVEN_SETUP)
    _play(bleven, BLEVEN_STEPS, start + 3 * DAY)
    matches = (dll, ll, hl, bleven)
    for m in matches:
        assert services.load(m).state.finished, m.game
    return matches


def _stats(client, name):
    body = client.get(f"/api/players/{name}/").json()
    return {g["game"]: g for g in body["stats"]}


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_statistics_match_hand_counted_scripted_matches(client):
    users = accounts("ana", "ben")
    dll, ll, hl, bleven = _scripted(users, time.time() - 5 * DAY)
    ana, ben = _stats(client, "ana"), _stats(client, "ben")
    assert ana["doubting-love-letter"]["counters"] == DLL_ANA
    assert ben["doubting-love-letter"]["counters"] == DLL_BEN
    assert ben["doubting-love-letter"]["wins"] == 1 and ana["doubting-love-letter"]["wins"] == 0
    assert ana["love-letter"]["counters"] == {"guard_guesses": 2, "guard_guesses_right": 1}
    assert ben["love-letter"]["counters"] == {"guard_guesses": 0, "guard_guesses_right": 0}
    assert ana["higher-lower"]["counters"] == {
        "bids": 2,
        "auctions_won": 1,
        "bids_made": 1,
        "declared": 30,
        "chips": 49,
    }
    assert ben["higher-lower"]["counters"] == {
        "bids": 1,
        "auctions_won": 0,
        "bids_made": 0,
        "declared": 0,
        "chips": 0,
    }
    assert ana["bleven"]["counters"] == {
        "bids": 1,
        "duels_declared": 1,
        "bids_hit": 1,
        "bids_missed": 0,
    }
    assert ben["bleven"]["counters"]["bids"] == 0
    # the page says the same, with the challenge accuracy
    page = client.get("/players/ben/").content.decode()
    assert "<dt>challenges that caught a bluff</dt><dd>1</dd>" in page
    assert "<dt>challenge accuracy</dt><dd>100 %</dd>" in page
    # head to head: one match of each game
    h2h = client.get("/api/head-to-head", {"a": "ana", "b": "ben"}).json()
    games = {g["game"]: (g["matches"], g["a_wins"], g["b_wins"]) for g in h2h["games"]}
    assert games == {
        "doubting-love-letter": (1, 0, 1),
        "love-letter": (1, 1, 0),
        "higher-lower": (1, 1, 0),
        "bleven": (1, 1, 0),
    }
    assert client.get("/players/head-to-head/", {"a": "ana", "b": "ben"}).status_code == 200


def _keys(value):
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _keys(v)
    elif isinstance(value, list):
        for v in value:
            yield from _keys(v)


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_profile_tells_nothing_of_a_match_before_its_replay_is_open(client, monkeypatch):
    users = accounts("ana", "ben")
    start = time.time()
    holders = {n: users[n].pk for n in ("ana", "ben")}
    dll = rated_match(
        "doubting-love-letter", holders, now=start, setup=DLL_SETUP, spectator_delay_s=600
    )
    # live: ana has bluffed, unseen (ben passed): nothing of it on her profile
    _play(dll, DLL_STEPS[:2], start)
    live = client.get("/api/players/ana/").json()
    assert live["stats"] == [] and live["recent"] == [] and live["ratings"] == []
    assert "bluff" not in client.get("/players/ana/").content.decode().replace("bluffs made", "")
    # over, but its end younger than the delay: still nothing (ratings neither)
    _play(dll, DLL_STEPS[2:], start + 10)
    assert Participation.objects.filter(played__stream=dll.stream).count() == 2
    shown = client.get("/api/players/ana/").json()
    assert shown["stats"] == [] and shown["recent"] == [] and shown["ratings"] == []
    assert client.get("/api/leaderboards/doubting-love-letter/").json()["people"] == []
    # once the replay is open to everyone, it counts
    monkeypatch.setattr(visibility, "clock", lambda: time.time() + 601)
    later = client.get("/api/players/ana/").json()
    assert later["stats"][0]["counters"]["bluffs"] == 2
    assert [r["game"] for r in later["ratings"]] == ["doubting-love-letter"]
    # no card is named anywhere on a profile, in its API or its page
    assert not {"card", "cards", "hand", "hands", "order", "deck", "claim"} & set(_keys(later))
    page = client.get("/players/ana/").content.decode()
    for word in ("Princess", "Countess", "Guard", "Baron", "Handmaid"):
        assert word not in page


@pytest.mark.django_db(transaction=True)  # the ratings reactor runs after the commit
def test_a_show_final_counts_with_its_title_and_a_dispute_holds_its_details_back(client):
    import random

    from ratings.demo import play_out
    from tournaments import show_services as ss
    from tournaments.models import ShowRecord

    users = accounts("ana", "ben", "olga")
    stream = ss.create_show(
        name="Final night",
        organizer="olga",
        organizer_id=users["olga"].pk,
        entrants=["ana", "ben"],
        options={
            "step_deadline_s": 0,
            "spectator_delay_s": 0,
            "final_game": "love-me-not",
            "final_first_to": 1,
            "game_pool": ["love-me-not", "higher-lower", "bleven"],
        },
        holders={"ana": users["ana"].pk, "ben": users["ben"].pk},
        rng=random.Random(2),
    )
    from games.models import Match

    final = Match.objects.get(show_stream=stream, kind="final")
    play_out(final, random.Random(3), now=time.time())
    champion = ShowRecord.objects.get(stream=stream).champion
    assert champion in ("ana", "ben")
    body = client.get(f"/api/players/{champion}/").json()
    assert [e["champion"] for e in body["entries"]] == [True]
    assert [m["match"] for m in body["recent"]] == [final.pk]
    assert body["ratings"][0]["game"] == "love-me-not"
    loser = "ben" if champion == "ana" else "ana"
    assert client.get(f"/api/players/{loser}/").json()["entries"][0]["champion"] is False
    # a dispute filed against the final: its replay closes, and so do its details
    ss.command(
        stream,
        {"type": "file_dispute", "target_stream": final.stream, "target_version": 3, "text": "?"},
        ss.acting_for(stream, users[loser]),
    )
    held = client.get(f"/api/players/{champion}/").json()
    assert held["recent"] == [] and held["stats"] == []
    assert held["ratings"][0]["games"] == 1  # the result itself is public: the show tells it
