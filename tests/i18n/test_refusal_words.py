"""Every refusal the pure engines can raise reads in French: the source of
each engine (the games' rules, games/core, the show's rules) is walked, and
every RuleError's words must be a plain string (its values passed apart, so
the catalogs can hold the sentence) with a French translation that keeps the
same placeholders. A refusal added without its French fails here."""

import ast
import string
from pathlib import Path

from django.utils import translation
from django.utils.translation import gettext

from games.core.protocol import RoleRequired, RuleError
from games.engine_words import refusal

ROOT = Path(__file__).resolve().parents[2]
ENGINE_DIRS = [ROOT / "games", ROOT / "tournaments" / "shows"]
RAISED = {"RuleError", "RoleRequired"}


def _pure(tree: ast.Module) -> bool:
    """A module that imports nothing of Django: an engine's."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.startswith("django") for a in node.names):
            return False
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("django"):
            return False
    return True


def _engine_refusals():
    """(place, words or None when they are not a plain string) of every
    RuleError raised in a pure module."""
    found = []
    for folder in ENGINE_DIRS:
        for path in sorted(folder.rglob("*.py")):
            if {"migrations", "management", "locale"} & set(path.parts):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if not _pure(tree):
                continue
            for node in ast.walk(tree):
                if not (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Name)
                    and node.func.id in RAISED
                ):
                    continue
                place = f"{path.relative_to(ROOT)}:{node.lineno}"
                first = node.args[0] if node.args else None
                plain = isinstance(first, ast.Constant) and isinstance(first.value, str)
                found.append((place, first.value if plain else None))
    return found


def _fields(words: str) -> set[str]:
    return {
        f"{name}!{conv}:{spec}"
        for _, name, spec, conv in string.Formatter().parse(words)
        if name is not None
    }


def test_the_walk_finds_the_engines_refusals():
    found = _engine_refusals()
    places = {place.split(":")[0] for place, _ in found}
    assert len(found) > 300
    assert {"games/higher_lower/rules.py", "tournaments/shows/commands/disputes.py"} <= places


def test_every_engine_refusal_is_plain_words_with_its_french():
    not_plain, untranslated, lost = [], [], []
    with translation.override("fr"):
        for place, words in _engine_refusals():
            if words is None:
                not_plain.append(place)
                continue
            french = gettext(words)
            if french == words:
                untranslated.append(f"{place}: {words!r}")
            elif _fields(french) != _fields(words):
                lost.append(f"{place}: {words!r} -> {french!r}")
    assert not not_plain, "give RuleError its words as a plain string, values apart: " + ", ".join(
        not_plain
    )
    assert not untranslated, "run update_catalogs and translate:\n" + "\n".join(untranslated)
    assert not lost, "the French must keep every placeholder:\n" + "\n".join(lost)


def test_a_refusal_is_filled_in_the_readers_language():
    exc = RuleError("you have already picked your card for turn {turn}", turn=7)
    assert str(exc) == "you have already picked your card for turn 7"
    with translation.override("fr"):
        french = refusal(exc)
    assert "7" in french and french != str(exc)
    with translation.override("en"):
        assert refusal(exc) == str(exc)
    # a message no catalog knows is shown as it came
    assert refusal(RuleError("nothing {x} knows this", x=1)) == "nothing 1 knows this"
    assert (
        refusal(RoleRequired("only a moderator may pause, resume, add time or carry out a ruling"))
        != ""
    )
