"""The games' rules in the manual (docs/games/<slug>.md), as players read
them on the site: each page is the rules page's own text (the template's
``content`` block, in English), so the manual and the site cannot say two
things. ``manage.py rules_manual`` writes them; a test checks they are
current."""

from __future__ import annotations

import re
from pathlib import Path

from django.template import Context
from django.template.loader import get_template
from django.template.loader_tags import BlockNode

from .core.registry import GAME_MODULES, rules_for

FOLDER = Path("docs") / "games"


def rules_html(template_name: str) -> str:
    """The ``content`` block of a rules template, rendered (it needs no context)."""
    template = get_template(template_name).template
    block = next(
        node for node in template.nodelist.get_nodes_by_type(BlockNode) if node.name == "content"
    )
    context = Context()
    with context.render_context.push_state(template), context.bind_template(template):
        html = block.nodelist.render(context)
    return "\n".join(line.rstrip() for line in html.strip().splitlines())


def page(slug: str) -> str:
    rules = rules_for(slug)
    html = re.sub(r"\s*<h1>.*?</h1>", "", rules_html(rules.rules_template), count=1, flags=re.S)
    return (
        f"# {rules.name}\n\n"
        f"<!-- written by `manage.py rules_manual` from {rules.rules_template}: "
        "edit the template, then run it again -->\n\n"
        f"The rules as the site shows them at `/games/rules/{slug}/` (in French too); "
        "a summary of the five games is on [The games](../games.md).\n\n"
        f"{html}\n"
    )


def pages() -> dict[str, str]:
    """File name (under docs/games/) -> its text, for every game."""
    return {f"{slug}.md": page(slug) for slug in GAME_MODULES}
