"""The games in French: the catalog is whole, every table (labels, controls,
cards, the history in words, a refusal beside a control) reads in French
under fr and stays English under en, the rules pages come in both
languages, and no French word reveals a card its viewer may not see."""

import random
import re
import shutil
import subprocess
import time
import types
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.utils import translation
from django.utils.translation.reloader import translation_file_changed

from eventlog.store import read
from games import services
from games.core.adapt import as_game_event
from games.core.protocol import SPECTATOR_VIEW, Viewer
from games.engine_words import REASONS, in_words
from games.presenters import love_letter_family as ll_words
from games.presenters.table import describe_row, names_for, table_for, table_module

CATALOG = Path(__file__).resolve().parents[2] / "games" / "locale" / "fr" / "LC_MESSAGES"
PLACEHOLDER = re.compile(r"%\((\w+)\)s")

# a live table per game: ana (a person) against a bot, and what its French
# page must show (words of the game's own board and controls)
GAMES = {
    "doubting-love-letter": [
        "vies : 2 sur 2",  # the text below makes its spaces plain
        "Pioche",
        "Empreinte de la donne",
        "Poser",
        "Annonce",
    ],
    "love-letter": ["Écartées, face visible", "Pioche", "Jouer", "défausses"],
    "love-me-not": ["Gardez une carte pour votre tableau", "Garder", "Pile"],
    "higher-lower": ["Enchères", "Enchérir", "enchère en cours"],
    "bleven": ["Pioche", "Piocher une carte", "coupeur"],
}
# English that must never be left in a French table (whole words)
ENGLISH = [
    "the", "and", "you", "your", "History", "Your move", "Bout", "first to", "Discards",
    "Deck", "played", "drew", "claiming", "Waiting", "decision", "left", "cards", "Guard",
    "Priest", "Handmaid", "King", "Countess", "Princess", "Challenge", "Showroom", "Draw",
    "Bid", "Keep", "Turn", "chips", "stones", "tricks", "protected", "round", "bid", "card",
]  # fmt: skip
# each rules page: words only its French page has, words only its English one has
RULES = {
    "doubting-love-letter": ("Les cartes", "The cards"),
    "love-letter": ("La donne", "The deal"),
    "love-me-not": ("Un tour", "A turn"),
    "higher-lower": ("Les enchères", "The auction"),
    "bleven": ("Cartes et vocabulaire", "Cards and words"),
}
SEED_NAMES = ["Garde", "Prêtre", "Baron", "Servante", "Prince", "Roi", "Comtesse", "Princesse"]


def _entries(po: str):
    """(msgctxt, msgid, [msgstr...]) for every entry but the header."""
    for block in po.strip().split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("#")]
        parts: dict[str, list[str]] = {}
        key = None
        for line in lines:
            m = re.match(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[\d\])?) (".*")$', line)
            if m:
                key = m.group(1)
                parts[key] = [m.group(2)]
            elif line.startswith('"') and key:
                parts[key].append(line)
        text = {k: "".join(eval(s) for s in v) for k, v in parts.items()}  # noqa: S307
        if text.get("msgid", "") == "":
            continue
        strs = [v for k, v in sorted(text.items()) if k.startswith("msgstr")]
        yield text.get("msgctxt"), text["msgid"], text.get("msgid_plural"), strs, block


@pytest.fixture(scope="module", autouse=True)
def french_catalog():
    """The compiled catalog (``make install`` compiles it; a fresh checkout
    or an edited .po is compiled here), then Django's caches forgotten."""
    po, mo = CATALOG / "django.po", CATALOG / "django.mo"
    if not mo.exists() or mo.stat().st_mtime < po.stat().st_mtime:
        msgfmt = shutil.which("msgfmt")
        if msgfmt is None:
            pytest.fail(
                "msgfmt (GNU gettext) is needed to compile games/locale: apt-get install gettext"
            )
        subprocess.run([msgfmt, "--check-format", "-o", str(mo), str(po)], check=True)
    translation_file_changed(sender=None, file_path=mo)
    yield
    translation_file_changed(sender=None, file_path=mo)


def test_the_catalog_translates_every_entry_with_its_placeholders():
    po = (CATALOG / "django.po").read_text(encoding="utf-8")
    entries = list(_entries(po))
    assert len(entries) > 400
    assert "#, fuzzy" not in po
    for _ctx, msgid, plural, strs, block in entries:
        assert strs and all(strs), f"untranslated: {msgid!r}"
        if "python-format" in block:
            wanted = set(PLACEHOLDER.findall(msgid)) | set(PLACEHOLDER.findall(plural or ""))
            for s in strs:
                assert set(PLACEHOLDER.findall(s)) == wanted, (msgid, s)


def test_card_names_are_the_french_text_s():
    with translation.override("fr"):
        assert [ll_words.card_name(r) for r in range(1, 9)] == SEED_NAMES
        assert ll_words.rank(4) == "Servante (4)"
    with translation.override("en"):
        assert ll_words.rank(4) == "Handmaid (4)"


def test_engine_sentences_are_put_in_french_by_their_shape():
    names = {"ana": "ana (vous)"}
    cases = {
        "the auction is over": "les enchères sont closes",
        "ana lost both lives (caught bluffing)": "ana (vous) a perdu ses deux vies (bluff démasqué)",
        "ben is protected by a Handmaid": "ben est protégé par une Servante",
        "the Guesser ana ended with 30 chips, short of the declared 120": (
            "le Devineur ana (vous) finit avec 30 jetons, en deçà des 120 annoncés"
        ),
        "ana hit and ben disbelieved: X = 16, ana gets 48, ben gets 0": (
            "ana (vous) a réussi et ben n'a pas cru\u00a0: X = 16, ana (vous) reçoit 48, ben reçoit 0"
        ),
        "7 to 8": "7 à 8",
        "tied match, 9 to 9: nobody scores": "manche nulle, 9 à 9\u00a0: personne ne marque",
        "something no engine says": "something no engine says",
    }
    with translation.override("fr"):
        for english, french in cases.items():
            assert in_words(english, names) == french
    with translation.override("en"):
        assert in_words("ana lost both lives (caught bluffing)") == (
            "ana lost both lives (caught bluffing)"
        )


def _seated(game, seed=3):
    user = User.objects.create_user(f"fr_{game}", password="pw-123456")
    match = services.create_match(
        game,
        ["ana", "ben"],
        options={"decision_s": 0, "auction_close_s": 3600}
        if game == "higher-lower"
        else {"decision_s": 0},
        holders={"ana": user.pk, "ben": "bot:random"},
        rng=random.Random(seed),
    )
    services.play_bots(match, rng=random.Random(seed))
    client = Client()
    client.force_login(user)
    return match, client


def _get(client, url, language, **extra):
    """A page in ``language``: asked for by the browser and active in the
    thread, whichever the site's middleware reads."""
    with translation.override(language):
        return client.get(url, HTTP_ACCEPT_LANGUAGE=language, **extra)


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).replace("&#x27;", "'")


@pytest.mark.django_db
@pytest.mark.parametrize("game", list(GAMES))
def test_a_table_reads_in_french_and_stays_english_by_default(game):
    match, client = _seated(game)
    url = f"/games/matches/{match.pk}/"
    page = _get(client, url, "fr").content.decode()
    fragment = _get(client, url, "fr", HTTP_HX_REQUEST="true").content.decode()
    text = _text(fragment)
    assert "vous jouez" in page and ">règles</a>" in page
    for words in ["Historique", "À vous de jouer", "Manche 1", "le premier à", *GAMES[game]]:
        assert words in text, (game, words, text)
    assert "a reçu" in text or "a pioché" in text or "a enchéri" in text  # the history
    left = [w for w in ENGLISH if re.search(rf"\b{re.escape(w)}\b", text)]
    assert not left, (game, left, text)
    english = _text(_get(client, url, "en", HTTP_HX_REQUEST="true").content.decode())
    assert "History" in english and "Your move" in english and "Historique" not in english


def _bots_match(game, seed):
    seats = ["ana", "ben"]
    options = {"decision_s": 5}
    if game in ("love-letter", "love-me-not", "doubting-love-letter"):
        options["first_to"] = 1
    if game == "bleven":
        options["first_to"] = 30
    return services.create_match(
        game,
        seats,
        options=options,
        holders={s: "bot:random" for s in seats},
        rng=random.Random(seed),
    )


CARD_KEYS = {"card", "cards", "hidden", "hands", "fields", "keep", "discard", "take", "deny"}
CARD_KEYS |= {"pick", "direction", "stake", "order", "salt", "deck"}
PUBLIC_CARD_KEYS = CARD_KEYS | {"removed", "claim", "guess"}


def _leaves(data, keys=CARD_KEYS, inside=False):
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, keys, inside or k in keys)
    elif isinstance(data, (list, tuple)):
        for v in data:
            yield from _leaves(v, keys, inside)
    elif inside and data is not None and not isinstance(data, (bool, float)):
        yield str(data)


def _spelled_fr(game, token):
    """How a French sentence would print a hidden card."""
    if game in ("doubting-love-letter", "love-letter") and token in {str(r) for r in range(1, 9)}:
        return [ll_words.rank(token)]
    if game == "higher-lower":
        return [f"choisi {token} ", f"parié {translation.gettext(token)}", f"misant {token}"]
    return [token] if len(token) >= 2 else []


def _told(match, seen: dict, reasons: set) -> int:
    """The new history rows for a seat and a spectator, in French: each
    differs from its English, none spells a card the viewer was not shown.
    Returns how many hidden cards were looked for."""
    module = table_module(match.game)
    raw = {r.version: r for r in read(match.stream)}
    looked = 0
    for viewer in [Viewer.of_seat("ana"), SPECTATOR_VIEW]:
        for row in services.history_for(match, viewer, after=seen.get(viewer, 0)):
            seen[viewer] = row["version"]
            with translation.override("en"):
                english = describe_row(
                    module, row, viewer.seat, names_for(match.seats, viewer.seat)
                )
            with translation.override("fr"):
                names = names_for(match.seats, viewer.seat)
                french = describe_row(module, row, viewer.seat, names)
                full = as_game_event(raw[row["version"]]).data
                hidden = set()
                if dict(full) != row["data"]:
                    hidden = set(_leaves(full)) - set(_leaves(row["data"], PUBLIC_CARD_KEYS))
                for token in hidden:
                    for spelled in _spelled_fr(match.game, token):
                        looked += 1
                        assert spelled not in french, (viewer, row, french)
            assert french != english, (row["type"], english)
            reason = (row.get("data") or {}).get("reason")
            if isinstance(reason, str) and reason:
                reasons.add(reason)
    return looked


@pytest.mark.django_db
@pytest.mark.parametrize("game", list(GAMES))
def test_the_history_is_told_in_french_and_keeps_hidden_cards_hidden(game):
    match = _bots_match(game, seed=11)
    seen: dict = {}
    reasons: set = set()
    looked = 0
    clock = 1_000_000.0
    for _ in range(400):  # a few moves at a time, told while the match is live
        if services.load(match).state.finished:
            break
        looked += _told(match, seen, reasons)
        clock = services.run_bots(match, start=clock, max_moves=4, rng=random.Random(clock))
    else:
        raise AssertionError("the match did not end")
    _told(match, {}, reasons)  # and the whole replay, once it is open
    assert looked  # hidden cards were there to give away, and none was
    assert reasons  # every game ends with a reason: each one has French words
    with translation.override("fr"):
        for reason in reasons:
            # French words for it (or a word French shares, like "score")
            assert in_words(reason) != reason or reason in REASONS, (game, reason)


@pytest.mark.django_db
@pytest.mark.parametrize("game", ["bleven", "love-me-not"])
def test_a_french_page_shows_a_seats_cards_to_that_seat_only(game):
    users = {s: User.objects.create_user(f"frp_{s}", password="pw-123456") for s in ("ana", "ben")}
    match = services.create_match(
        game,
        ["ana", "ben"],
        options={"decision_s": 0},
        holders={s: u.pk for s, u in users.items()},
        rng=random.Random(9),
    )
    hand = services.view_for(match, Viewer.of_seat("ana"))["bout"]["hand"]
    face = table_module(game).face
    pages = {}
    for seat, user in users.items():
        client = Client()
        client.force_login(user)
        pages[seat] = _get(client, f"/games/matches/{match.pk}/", "fr").content.decode()
    pages["spectator"] = _get(Client(), f"/games/matches/{match.pk}/", "fr").content.decode()
    assert "Historique" in pages["ben"] and "Historique" in pages["spectator"]
    for card in hand:
        shown = f"<b>{face(card).text}</b>"
        assert shown in pages["ana"]
        assert shown not in pages["ben"] and shown not in pages["spectator"]


@pytest.mark.django_db
def test_a_refusal_beside_a_control_is_in_french(monkeypatch):
    match, client = _seated("doubting-love-letter")
    play = next(c for c in table_for(match, Viewer.of_seat("ana")).controls if c.type == "play")
    url = f"/games/matches/{match.pk}/command"
    before = services.load(match).version
    with translation.override("fr"):
        resp = client.post(
            url,
            {"control": play.key, "claim": "8"},
            HTTP_HX_REQUEST="true",
            HTTP_ACCEPT_LANGUAGE="fr",
        )
    html = resp.content.decode()
    assert resp.status_code == 422
    assert "ne fait pas partie des choix pour\u00a0: annonce" in html and 'class="error"' in html
    assert services.load(match).version == before

    # the rules' own fixed words: a bid once the auction's silence ran out
    match, client = _seated("higher-lower")
    bid = next(c for c in table_for(match, Viewer.of_seat("ana")).controls if c.key == "bid")
    before = services.load(match).version
    real = time.time
    monkeypatch.setattr(services, "time", types.SimpleNamespace(time=lambda: real() + 7200))
    url = f"/games/matches/{match.pk}/command"
    with translation.override("fr"):
        resp = client.post(
            url,
            {"control": "bid", "amount": str(bid.fields[0].lo)},
            HTTP_HX_REQUEST="true",
            HTTP_ACCEPT_LANGUAGE="fr",
        )
    html = resp.content.decode()
    assert resp.status_code == 422
    assert re.search(r'class="error" role="alert">les enchères sont closes<', html), html
    assert "the auction is over" not in html
    assert services.load(match).version == before  # nothing was written


@pytest.mark.django_db
def test_a_refusal_with_values_reads_in_french_beside_the_control():
    # a bid over the most a Guesser can hold: the engine's words, filled with its number
    match, client = _seated("higher-lower")
    before = services.load(match).version
    with translation.override("fr"):
        resp = client.post(
            f"/games/matches/{match.pk}/command",
            {"control": "bid", "amount": "10000000000"},
            HTTP_HX_REQUEST="true",
            HTTP_ACCEPT_LANGUAGE="fr",
        )
    html = resp.content.decode().replace("&#x27;", "'")
    assert resp.status_code == 422
    assert "une enchère ne peut pas dépasser 419,430,400 jetons" in html, html
    assert "may not exceed" not in html
    assert services.load(match).version == before


@pytest.mark.django_db
@pytest.mark.parametrize("game", list(RULES))
def test_each_rules_page_comes_in_french_and_in_english(client, game):
    french_words, english_words = RULES[game]
    fr = _get(client, f"/games/rules/{game}/", "fr")
    en = _get(client, f"/games/rules/{game}/", "en")
    assert fr.status_code == en.status_code == 200
    fr_html, en_html = fr.content.decode(), en.content.decode()
    assert 'lang="fr"' in fr_html and french_words in fr_html and english_words not in fr_html
    assert english_words in en_html and french_words not in en_html
    assert "règles" in fr_html.split("<title>")[1].split("</title>")[0]
