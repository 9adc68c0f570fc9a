"""The manual's diagrams are drawn offline (mkdocs_hooks.py): at /docs/ the
theme draws ```mermaid blocks with the manual's own pinned Mermaid, under the
site's Content-Security-Policy, and fetches nothing from anywhere else; a site
built without that copy shows the diagrams' text, still fetching nothing."""

import shutil
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest

import mkdocs_hooks

from .csp import WATCH

ROOT = Path(__file__).resolve().parents[2]
PAGE = "/docs/architecture/index.html"
DRAW = "async () => (await mermaid.render('probe', 'flowchart TD; a-->b')).svg.slice(0, 4)"


@pytest.fixture(scope="module")
def built_manual(tmp_path_factory) -> Path:
    site = tmp_path_factory.mktemp("manual") / "site"
    mkdocs = Path(sys.executable).parent / "mkdocs"
    run = subprocess.run(
        [mkdocs, "build", "--strict", "--quiet", "--site-dir", site],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert run.returncode == 0, run.stderr
    return site


def _open_manual(contexts, site_dir, settings):
    settings.DOCS_SITE_DIR = site_dir
    page = contexts()
    page.context.add_init_script(WATCH)
    hosts = []
    page.on("request", lambda request: hosts.append(urlsplit(request.url).hostname))
    page.goto(PAGE)
    page.locator("div.mermaid").first.wait_for(state="attached")
    return page, hosts


def test_the_diagrams_are_drawn_by_the_manuals_own_mermaid(contexts, built_manual, settings):
    assert mkdocs_hooks.COPY.is_file(), (
        f"{mkdocs_hooks.COPY} is missing: `make install` fetches it with npm"
    )
    assert (built_manual / mkdocs_hooks.IN_SITE).read_bytes() == mkdocs_hooks.COPY.read_bytes()
    page, hosts = _open_manual(contexts, built_manual, settings)
    assert page.locator("pre.mermaid").count() == 0  # every block became a drawing
    assert page.evaluate(DRAW) == "<svg"
    assert set(hosts) == {"localhost"} or set(hosts) == {"127.0.0.1"}, hosts
    assert page.evaluate("window.__csp") == []


def test_without_it_the_diagrams_show_their_text_and_nothing_is_fetched(
    contexts, built_manual, settings, tmp_path
):
    bare = tmp_path / "site"
    shutil.copytree(built_manual, bare)
    (bare / mkdocs_hooks.IN_SITE).unlink(missing_ok=True)
    page, hosts = _open_manual(contexts, bare, settings)
    assert page.evaluate(DRAW) == "<pre"
    assert set(hosts) == {"localhost"} or set(hosts) == {"127.0.0.1"}, hosts
    assert page.evaluate("window.__csp") == []
