"""The manual cannot drift from the code: every management command, make
target, environment setting and URL it names exists, it builds strictly, and
the site serves the built manual at /docs/."""

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.conf import settings
from django.core.management import get_commands
from django.urls import Resolver404, resolve
from markdown.extensions.toc import slugify

from api.reference import markdown, schema
from games.core.registry import GAME_MODULES
from games.rules_manual import pages
from live.routing import websocket_urlpatterns

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md"]


def _text() -> str:
    return "\n".join(p.read_text() for p in PAGES)


def _code_spans(text: str) -> list[str]:
    return re.findall(r"`([^`\n]+)`", text)


def _nav_pages(nav) -> list[str]:
    pages = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += _nav_pages(value) if isinstance(value, list) else [value]
    return pages


def _mkdocs_nav() -> list[str]:
    # mkdocs.yml names a Python function for the Mermaid fences: read the nav alone
    text = (ROOT / "mkdocs.yml").read_text()
    nav = text[text.index("\nnav:\n") :]
    nav = nav[: re.search(r"\n[a-z_]+:", nav[1:]).start() + 1]
    return _nav_pages(yaml.safe_load(nav)["nav"])


def test_the_manual_has_its_pages():
    """Every page issue #45 asks for is in the site's navigation, and every
    page the navigation names exists."""
    names = {p.relative_to(ROOT / "docs").as_posix() for p in PAGES if "docs" in p.parts}
    nav = _mkdocs_nav()
    assert not sorted(set(nav) - names), "the navigation names pages that do not exist"
    for page in (
        "index.md",
        "guides/organizers.md",
        "guides/moderators.md",
        "guides/players.md",
        "guides/spectators.md",
        "guides/bots.md",
        "games.md",
        *(f"games/{slug}.md" for slug in GAME_MODULES),
        "api/index.md",
        "api/reference.md",
        "operations/configuration.md",
        "operations/production.md",
        "operations/security.md",
        "operations/backup.md",
        "operations/monitoring.md",
        "operations/upgrades.md",
        "architecture/index.md",
        "benchmarks/index.md",
        "benchmarks/results.md",
        "benchmarks/learned.md",
        "development/index.md",
    ):
        assert page in names and page in nav, page


def _anchors(page: Path) -> set[str]:
    """The ids a page's headings get in the built site (the toc extension's
    own slugs), and those given by hand ({#id})."""
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, re.M):
        given = re.search(r"\{#([\w-]+)\}\s*$", heading)
        found.add(given.group(1) if given else slugify(heading, "-"))
    return found | set(re.findall(r"\{#([\w-]+)\}", text))


def test_the_readmes_links_into_the_manual_land():
    """The README is read on the forge, outside the strict build: each of its
    links to a page of docs/ names a page that exists, and a heading in it."""
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\((docs/[^)#\s]+)(?:#([^)\s]+))?\)", readme)
    assert len(links) > 20
    broken = []
    for path, anchor in links:
        target = ROOT / path
        if not target.is_file():
            broken.append(path)
        elif anchor and target.suffix == ".md" and anchor not in _anchors(target):
            broken.append(f"{path}#{anchor}")
    assert not broken, f"the README links to what the manual does not have: {broken}"


def test_the_anchors_are_read_as_the_site_makes_them():
    anchors = _anchors(ROOT / "docs/guides/spectators.md")
    assert "overlays-in-obs-step-by-step" in anchors and "who-sees-what-and-when" in anchors
    assert "bots-over-http" in _anchors(ROOT / "docs/api/index.md")
    assert "a-receiver-in-a-few-lines" in _anchors(ROOT / "docs/api/index.md")


def test_the_rules_pages_are_the_sites():
    """docs/games/<slug>.md is the site's rules page, written by
    `manage.py rules_manual`: a rules template changed without it fails here."""
    for name, text in pages().items():
        written = ROOT / "docs" / "games" / name
        assert written.is_file() and written.read_text() == text, (
            f"docs/games/{name} is out of date: run `manage.py rules_manual`"
        )
    assert "Insurance" in (ROOT / "docs/games/doubting-love-letter.md").read_text()


def test_every_management_command_named_exists():
    named = set(re.findall(r"manage\.py ([a-z_]+)", _text()))
    assert {"scenario", "rebuild_read_models", "runbots"} <= named  # the scan finds them
    missing = sorted(named - set(get_commands()))
    assert not missing, f"the manual names commands that do not exist: {missing}"


def test_every_make_target_named_exists():
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([a-z][a-z-]*):", makefile, re.M))
    named = set(re.findall(r"`make ([a-z][a-z-]*)", _text()))
    assert {"run", "test", "docs"} <= named
    missing = sorted(named - targets)
    assert not missing, f"the manual names make targets that do not exist: {missing}"


CODE_FOLDERS = (
    "platform",
    "games",
    "tournaments",
    "ratings",
    "broadcast",
    "chat",
    "bench",
    "docker",
)


def _code_files(folders):
    """(path, text) of every code file under ``folders`` (Python, shell,
    YAML, JavaScript, Dockerfiles)."""
    for folder in folders:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in {".py", ".sh", ".yaml", ".yml", ".js"} or path.name == "Dockerfile":
                yield path, path.read_text(errors="replace")


def _env_read_by_the_code() -> set[str]:
    """Every environment variable a file of the project or its scripts reads."""
    pattern = re.compile(
        r"""(?:environ(?:\.get|\.setdefault)?\s*[(\[]\s*|getenv\(\s*|\benv\w*\(\s*)["']([A-Z][A-Z0-9_]+)["']"""
    )
    found = set()
    for path, text in _code_files(CODE_FOLDERS):
        found |= set(pattern.findall(text))
        if path.suffix in {".sh", ".yaml", ".yml"} or path.name == "Dockerfile":
            found |= set(re.findall(r"\$\{?([A-Z][A-Z0-9_]+)", text))
    return found


def test_every_setting_in_the_configuration_table_is_read():
    page = (ROOT / "docs/operations/configuration.md").read_text()
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    named = {n for row in rows for n in re.findall(r"`([A-Z][A-Z0-9_]+)`", row.split("|")[1])}
    assert {"DATABASE_URL", "REDIS_URL", "DJANGO_SECRET_KEY"} <= named
    missing = sorted(named - _env_read_by_the_code())
    assert not missing, f"the configuration page lists settings nothing reads: {missing}"


# names the manual writes in capitals that are not the project's: gettext's
# folder, boardgame.io's action, a placeholder for the operator's own role
NOT_OURS = {"LC_MESSAGES", "MAKE_MOVE", "APP_ROLE"}


def _names_in_the_code() -> set[str]:
    """Every capitalised name the project's code assigns or reads by name
    (settings, the environment, constants)."""
    found = _env_read_by_the_code()
    for _path, text in _code_files((*CODE_FOLDERS, "tests")):
        found |= set(re.findall(r"^\s*([A-Z][A-Z0-9_]+)\s*[:=]", text, re.M))
        found |= set(re.findall(r"[\"']([A-Z][A-Z0-9]*_[A-Z0-9_]+)[\"']", text))
    return found


def test_every_setting_named_anywhere_exists():
    """A setting, environment variable or constant the manual names in
    code (e.g. `BOT_PAUSE_MIN_S`, `HOOKS_MAX_ATTEMPTS`, `PROD_CHECK_PG`), on
    any page: the code reads or defines it, so a rename cannot leave the
    manual behind."""
    named = {
        name
        for span in _code_spans(_text())
        for name in re.findall(r"(?<![\w.$])([A-Z][A-Z0-9]*_[A-Z0-9_]*[A-Z0-9])(?![\w(*])", span)
    }
    assert {"BOT_PAUSE_MIN_S", "HOOKS_MAX_ATTEMPTS", "CHAT_ROOM_RATE"} <= named
    missing = sorted(named - _names_in_the_code() - NOT_OURS - set(dir(settings)))
    assert not missing, f"the manual names settings nothing reads: {missing}"


def _paths_named(text: str) -> set[str]:
    paths = set()
    for span in _code_spans(text):
        for word in span.split():
            if re.fullmatch(r"/(?:[a-z0-9_.<>:-]+/?)+(?:\?\S*)?", word) and not word.startswith(
                ("/usr/", "/etc/", "/proc", "/var/", "/tmp/")
            ):
                paths.add(word.split("?")[0])
    return paths


def _sample(path: str) -> str:
    """A name standing for an id or a slug made a value the URL accepts."""
    path = re.sub(r"<(?:int:)?(?:id|pk|n|match id|event|hook|invitation-id)[^>]*>", "1", path)
    return re.sub(r"<[^>]+>", "x", path)


def test_every_url_named_resolves():
    paths = _paths_named(_text())
    assert {"/console/", "/api/docs/", "/account/reminders/"} <= paths
    unresolved = []
    for path in sorted(paths):
        if path.startswith("/ws/"):  # the sockets' routes (Channels)
            if not any(p.resolve(_sample(path)[1:]) for p in websocket_urlpatterns):
                unresolved.append(path)
            continue
        try:
            resolve(_sample(path))
        except Resolver404:
            unresolved.append(path)
    assert not unresolved, f"the manual names addresses the site does not serve: {unresolved}"


def test_the_manual_builds_strictly(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    run = subprocess.run(
        [mkdocs, "build", "--strict", "--quiet", "--site-dir", tmp_path / "site"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "site" / "guides" / "spectators.html").is_file()


@pytest.fixture
def built(tmp_path, settings):
    site = tmp_path / "site"
    (site / "guides").mkdir(parents=True)
    (site / "index.html").write_text("<h1>the manual's home</h1>")
    (site / "guides" / "players.html").write_text("<h1>players</h1>")
    (tmp_path / "secret.txt").write_text("outside the site")
    settings.DOCS_SITE_DIR = site
    return site


@pytest.mark.django_db
def test_the_site_serves_the_built_manual(client, built):
    assert b"the manual's home" in b"".join(client.get("/docs/").streaming_content)
    page = client.get("/docs/guides/players.html")
    assert page.status_code == 200 and b"players" in b"".join(page.streaming_content)
    assert client.get("/docs/guides/nothing.html").status_code == 404
    for outside in ("/docs/../secret.txt", "/docs/%2e%2e/secret.txt", "/docs//etc/passwd"):
        answer = client.get(outside)
        assert answer.status_code in (400, 404), outside
        assert b"outside the site" not in answer.getvalue()
    assert client.post("/docs/").status_code == 405
    # the theme's own inline scripts run here, and nowhere else on the site
    assert "'unsafe-inline'" in client.get("/docs/")["Content-Security-Policy"]
    assert "'unsafe-inline'" not in client.get("/")["Content-Security-Policy"]


@pytest.mark.django_db
def test_a_manual_not_built_says_how_to_build_it(client, tmp_path, settings):
    settings.DOCS_SITE_DIR = tmp_path / "none"
    page = client.get("/docs/")
    assert page.status_code == 404
    assert "make docs" in page.content.decode()


def test_the_api_reference_is_the_schemas():
    """docs/api/reference.md is written from the OpenAPI schema; an endpoint
    changed without `manage.py api_reference` fails here."""
    written = (ROOT / "docs/api/reference.md").read_text()
    assert written == markdown(schema())
    assert "### `POST /api/matches/{id}/commands`" in written
    assert "[Error](#schema-error)" in written and "{#schema-error}" in written
