"""The API reference of the manual (docs/api/reference.md), written from the
same OpenAPI schema that /api/docs/ shows, as Markdown the docs site renders
with no script: every operation with its parameters, body, example and
answers, then every schema with its fields."""

from __future__ import annotations

import json

from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")
HEADER = (
    "<!-- written by `manage.py api_reference` from the OpenAPI schema: "
    "edit the views, not this page -->\n"
)


def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _anchor(name: str) -> str:
    return f"schema-{name.lower()}"


def type_of(spec: dict) -> str:
    """A field's type in words, a schema named by a link to it."""
    if "$ref" in spec:
        name = _ref_name(spec["$ref"])
        return f"[{name}](#{_anchor(name)})"
    for combined in ("allOf", "oneOf", "anyOf"):
        if combined in spec:
            joiner = " and " if combined == "allOf" else " or "
            return joiner.join(type_of(s) for s in spec[combined])
    kind = spec.get("type", "object")
    if kind == "array":
        return f"list of {type_of(spec.get('items', {}))}"
    if "enum" in spec:
        return " \\| ".join(f"`{v}`" for v in spec["enum"] if v is not None) or kind
    # (an integer's width follows the database backend: int64 on PostgreSQL only)
    if spec.get("format") and spec["format"] not in ("int32", "int64"):
        return f"{kind} ({spec['format']})"
    return kind


def _parameters(op: dict) -> list[str]:
    params = op.get("parameters", [])
    if not params:
        return []
    lines = ["| parameter | in | type | required | meaning |", "|---|---|---|---|---|"]
    for p in params:
        lines.append(
            f"| `{p['name']}` | {p['in']} | {type_of(p.get('schema', {}))} | "
            f"{'yes' if p.get('required') else 'no'} | {_cell(p.get('description', ''))} |"
        )
    return ["", *lines]


def _example(value: object) -> str:
    flat = json.dumps(value, ensure_ascii=False)
    return flat if len(flat) <= 96 else json.dumps(value, indent=1, ensure_ascii=False)


def _body(op: dict) -> list[str]:
    content = op.get("requestBody", {}).get("content", {})
    media = content.get("application/json") or next(iter(content.values()), None)
    if not media:
        return []
    out = ["", f"Body: {type_of(media.get('schema', {}))}."]
    for example in media.get("examples", {}).values():
        out += [
            "",
            f"Example, {example.get('summary', '')}:".replace(", :", ":"),
            "",
            "```json",
            _example(example.get("value")),
            "```",
        ]
    return out


def _responses(op: dict) -> list[str]:
    lines = ["", "| answer | meaning | body |", "|---|---|---|"]
    for code, answer in op.get("responses", {}).items():
        media = next(iter(answer.get("content", {}).values()), None)
        body = type_of(media["schema"]) if media and "schema" in media else ""
        lines.append(f"| {code} | {_cell(answer.get('description', ''))} | {body} |")
    return lines


def _operation(path: str, method: str, op: dict) -> list[str]:
    out = ["", f"### `{method.upper()} {path}`", ""]
    if op.get("description"):
        out.append(op["description"].strip())
    return out + _parameters(op) + _body(op) + _responses(op)


def _schema_section(name: str, spec: dict) -> list[str]:
    out = ["", f"### {name} {{#{_anchor(name)}}}", ""]
    if spec.get("description"):
        out += [_cell(spec["description"]), ""]
    properties = spec.get("properties")
    if not properties:
        return out + [f"{type_of(spec)}."]
    required = set(spec.get("required", []))
    out += ["| field | type | required | meaning |", "|---|---|---|---|"]
    for field, prop in properties.items():
        out.append(
            f"| `{field}` | {type_of(prop)} | {'yes' if field in required else 'no'} | "
            f"{_cell(prop.get('description', ''))} |"
        )
    return out


def markdown(spec: dict) -> str:
    info = spec["info"]
    out = [HEADER, "# API reference", "", info.get("description", "").strip(), ""]
    out += [
        "The same schema is served by the site as OpenAPI at `/api/schema/` and "
        "browsable at `/api/docs/`; the [guide](index.md) says how to use it.",
    ]
    by_tag: dict[str, list[tuple[str, str, dict]]] = {}
    for path, item in spec["paths"].items():
        for method in METHODS:
            if method in item:
                tag = (item[method].get("tags") or ["other"])[0]
                by_tag.setdefault(tag, []).append((path, method, item[method]))
    for tag in sorted(by_tag):
        out += ["", f"## {tag}"]
        for path, method, op in by_tag[tag]:
            out += _operation(path, method, op)
    out += ["", "## Schemas"]
    for name, component in sorted(spec["components"]["schemas"].items()):
        out += _schema_section(name, component)
    return "\n".join(out).rstrip() + "\n"
