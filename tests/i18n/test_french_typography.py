"""French typography: a no-break space before ":" (U+00A0) and a narrow one
before ";", "?" and "!" (U+202F), never a plain space that a line may break
at, nor none where the English puts a colon after words. Checked in every
French catalog, in the games' French rules pages, and on French pages whose
words the code assembles (tests/i18n/test_no_english_left.py walks the rest)."""

import html as htmllib
import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.conf import settings
from django.utils import translation

from games.core.registry import available

from .test_catalogs import CATALOGS, ROOT

PLAIN = re.compile(r"(?<=\S) [:;?!](?=\s|<|$)")
# an English colon after words or a value ("Champion:", "%(name)s: ")
WORDS_COLON = re.compile(r"(?:[A-Za-z)]|%\([a-z_]+\)s):(?=\s|$)")


def plain_spaces(text: str) -> list[str]:
    """Each plain space before ":;?!" in ``text``, with what is around it."""
    return [text[max(0, m.start() - 25) : m.end() + 10] for m in PLAIN.finditer(text)]


def page_text(page: str) -> str:
    """What a page says, tags taken out without adding a space (a tag's
    edge is no space in what people read)."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S | re.I)
    return htmllib.unescape(re.sub(r"<[^>]+>", "", page))


def test_the_check_sees_a_plain_space_and_passes_the_right_ones():
    text = "Champion : ana ; fin ? oui !"
    assert [m.group().strip() for m in PLAIN.finditer(text)] == [":", ";", "?", "!"]
    assert len(plain_spaces(text)) == 4
    assert not plain_spaces("Champion\u00a0: ana\u202f; fin\u202f? 10:30 http://x ?page=2")


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_french_entry_puts_a_no_break_space_before_its_signs(po):
    with po.open("rb") as f:
        catalog = read_po(f)
    problems = []
    for m in catalog:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        for s in strings:
            problems += [f"plain space: {ids[0]!r} -> {x!r}" for x in plain_spaces(s)]
            # where the English puts a colon after words, French puts a space before it
            if WORDS_COLON.search(ids[0]) and not re.search("[\u00a0\u202f]:", s):
                if not s.startswith(("{", "<")) and "json" not in ids[0].lower():
                    problems.append(f"no space before the colon: {ids[0]!r} -> {s!r}")
    assert not problems, "\n".join(problems)


def test_the_french_rules_pages_put_a_no_break_space_before_their_signs(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "fr"
    found = []
    for rules in available():
        page = client.get(f"/games/rules/{rules.slug}/").content.decode()
        assert '<html lang="fr">' in page
        found += [f"{rules.slug}: {x!r}" for x in plain_spaces(page_text(page))]
    assert not found, "\n".join(found)
    for path in Path(settings.BASE_DIR, "templates", "games", "fr").glob("*.html"):
        assert not plain_spaces(path.read_text()), path.name


def test_assembled_french_words_put_a_no_break_space_before_the_colon():
    """Words the code joins around a colon (the console's bot levels) carry
    the colon in their msgid, so French spaces it."""
    from games.bot_levels import level_choices

    with translation.override("fr"):
        labels = [label for _value, label in level_choices()]
    assert labels and all("\u00a0: " in label for label in labels), labels
    assert not any(plain_spaces(label) for label in labels)
