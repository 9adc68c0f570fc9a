"""Every French catalog of the project (locale/, and each app's, e.g.
games/locale/) is complete: no fuzzy entry, no empty translation, the same
placeholders as the English; and compile_catalogs makes .mo files that
translate, with msgfmt or, on a machine without it, with Babel."""

import gettext
import re
import shutil
from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from django.core.management import CommandError, call_command
from django.utils import translation

ROOT = Path(__file__).resolve().parents[2]
SKIP = {".venv", "var", "node_modules"}
CATALOGS = sorted(
    po
    for po in ROOT.glob("**/locale/fr/LC_MESSAGES/django.po")
    if SKIP.isdisjoint(po.relative_to(ROOT).parts)
)
PLACEHOLDER = re.compile(r"%\([a-z_]+\)[sdr]|%[sdr]|\{[a-z_]*\}")


def test_the_site_catalog_is_there():
    assert ROOT / "locale/fr/LC_MESSAGES/django.po" in CATALOGS


@pytest.mark.parametrize("po", CATALOGS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_entry_is_translated_with_the_same_placeholders(po):
    with po.open("rb") as f:
        catalog = read_po(f)
    assert catalog.locale and str(catalog.locale) == "fr"
    assert catalog.plural_forms.startswith("nplurals=2;")
    messages = [m for m in catalog if m.id]
    assert len(messages) > 20
    problems = []
    for m in messages:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.fuzzy:
            problems.append(f"fuzzy: {ids[0]!r}")
        if not all(strings):
            problems.append(f"untranslated: {ids[0]!r}")
        want = sorted(PLACEHOLDER.findall(ids[-1]))
        for s in strings:
            if s and sorted(PLACEHOLDER.findall(s)) != want:
                problems.append(f"placeholders differ: {ids[0]!r} -> {s!r}")
    assert not problems, "\n".join(problems)


def test_the_compiled_catalog_translates():
    with translation.override("fr"):
        assert translation.gettext("Shows") == "Émissions"
        assert translation.gettext("Log out %(name)s") % {"name": "ana"} == "Déconnexion (ana)"
        assert (
            translation.ngettext(
                "Choose %(pick)s elimination candidate among",
                "Choose %(pick)s elimination candidates among",
                2,
            )
            % {"pick": 2}
            == "Choisir 2 candidats à l’élimination parmi"
        )


@pytest.fixture
def project(tmp_path, settings):
    """A copy of the project's two kinds of catalog (the site's, an app's) in a
    folder of its own, as compile_catalogs's root."""
    site = tmp_path / "locale/fr/LC_MESSAGES"
    app = tmp_path / "someapp/locale/fr/LC_MESSAGES"
    for folder in (site, app):
        folder.mkdir(parents=True)
        shutil.copy(ROOT / "locale/fr/LC_MESSAGES/django.po", folder / "django.po")
    (tmp_path / ".venv/lib/locale/fr/LC_MESSAGES").mkdir(parents=True)  # never touched
    (tmp_path / ".venv/lib/locale/fr/LC_MESSAGES/django.po").write_text("not a catalog")
    settings.BASE_DIR = tmp_path
    settings.LOCALE_PATHS = [tmp_path / "locale"]
    return tmp_path, [site / "django.mo", app / "django.mo"]


def _translates(mo: Path) -> None:
    with mo.open("rb") as f:
        fr = gettext.GNUTranslations(f)
    assert fr.gettext("Shows") == "Émissions"
    assert fr.ngettext("Choose %(pick)s elimination candidate among", "x", 1).startswith(
        "Choisir %(pick)s candidat "
    )


def test_without_msgfmt_babel_compiles_every_catalog(project, monkeypatch, capsys):
    root, mos = project
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)  # a machine without gettext
    call_command("compile_catalogs")
    out = capsys.readouterr().out
    assert out.count("(Babel, no msgfmt)") == 2 and ".venv" not in out
    for mo in mos:
        _translates(mo)
    assert not (root / ".venv/lib/locale/fr/LC_MESSAGES/django.mo").exists()
    # up to date: a second run compiles nothing
    call_command("compile_catalogs")
    assert "all compiled and up to date" in capsys.readouterr().out


@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="GNU gettext's msgfmt is not here")
def test_with_msgfmt_django_compiles_every_catalog(project, capsys):
    root, mos = project
    call_command("compile_catalogs")
    assert capsys.readouterr().out.count("(msgfmt)") == 2
    for mo in mos:
        _translates(mo)


def test_a_broken_catalog_is_named_and_nothing_is_written(project, monkeypatch):
    root, mos = project
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    broken = mos[1].with_suffix(".po")
    broken.write_text('msgid "a"\nmsgstr "b"\nmsgid unquoted\n', encoding="utf-8")
    with pytest.raises(CommandError, match="someapp/locale/fr/LC_MESSAGES/django.po"):
        call_command("compile_catalogs")
    assert not mos[1].exists()


def test_every_install_compiles_the_catalogs():
    """`make install` (so `make run`, `make test`, CI) and the production image
    both compile them; .mo files are never committed."""
    makefile = (ROOT / "Makefile").read_text()
    install = makefile.split("\ninstall:", 1)[1].split("\n\n", 1)[0]
    assert "manage.py compile_catalogs" in install
    dockerfile = (ROOT / "docker/Dockerfile").read_text()
    assert "COPY locale ./locale" in dockerfile and "manage.py compile_catalogs" in dockerfile
    assert "*.mo" in (ROOT / ".gitignore").read_text().split()
