"""The manual's diagrams, offline. Material for MkDocs draws ```mermaid blocks
with Mermaid and fetches it from a CDN unless a `mermaid` is already defined:
the manual ships its own copy instead, pinned by version and checksum.

`python mkdocs_hooks.py fetch` (run by `make install`) downloads that copy once
into var/mermaid/ with npm (the registry's tarball, its integrity checked);
the build hook below copies it into the site. Without it (no npm on the
machine) docs/javascripts/mermaid-fallback.js shows each diagram's text, and
still nothing is fetched from elsewhere."""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

VERSION = "11.17.2"
INTEGRITY = "sha512-V6K3C8EBdEsPFZXSKMJe6ppQOENxuHARr9GvHX4hh47lAbhMRD9qf4oEK7LoaRQxULMa80/qt5gHO73aCleBBg=="
ROOT = Path(__file__).resolve().parent
COPY = ROOT / "var" / "mermaid" / f"mermaid-{VERSION}.min.js"
IN_SITE = "javascripts/mermaid.min.js"
log = logging.getLogger("mkdocs.hooks.mermaid")


def on_post_build(config, **kwargs) -> None:
    if COPY.is_file():
        target = Path(config["site_dir"]) / IN_SITE
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(COPY, target)
    else:
        log.info("no %s: the diagrams show as text (make install fetches it)", COPY.name)


def _integrity(tarball: Path) -> str:
    digest = hashlib.sha512(tarball.read_bytes()).digest()
    return "sha512-" + base64.b64encode(digest).decode()


def fetch() -> int:
    if COPY.is_file():
        return 0
    npm = shutil.which("npm")
    if npm is None:
        print("npm not found: the manual's diagrams will show as text")
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run(
            [npm, "pack", f"mermaid@{VERSION}", "--json", "--silent"],
            cwd=tmp,
            capture_output=True,
            text=True,
            timeout=300,
        )
        if out.returncode != 0:
            print(f"npm could not fetch mermaid {VERSION}: the diagrams will show as text")
            return 0
        tarball = Path(tmp) / json.loads(out.stdout)[0]["filename"]
        if _integrity(tarball) != INTEGRITY:
            print(f"mermaid {VERSION} from npm does not match its pinned checksum: not used")
            return 1
        with tarfile.open(tarball) as archive:
            member = archive.extractfile("package/dist/mermaid.min.js")
            COPY.parent.mkdir(parents=True, exist_ok=True)
            COPY.write_bytes(member.read())
    print(f"fetched mermaid {VERSION} for the manual's diagrams")
    return 0


if __name__ == "__main__":
    sys.exit(fetch() if sys.argv[1:] == ["fetch"] else 2)
