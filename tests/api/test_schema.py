"""The OpenAPI schema validates, declares every response, and is documented
on a page that loads nothing from another site."""

import io
import re

import pytest
import yaml
from django.core.management import call_command
from drf_spectacular.validation import validate_schema

OPERATIONS = {
    ("/api/games/", "get"),
    ("/api/matches/", "get"),
    ("/api/matches/", "post"),
    ("/api/matches/{id}/", "get"),
    ("/api/matches/{id}/history", "get"),
    ("/api/matches/{id}/legal", "get"),
    ("/api/matches/{id}/commands", "post"),
    ("/api/matches/{id}/moderate", "post"),
    ("/api/matches/{id}/open", "post"),
    ("/api/matches/{id}/export", "get"),
    ("/api/shows/", "get"),
    ("/api/shows/", "post"),
    ("/api/shows/{id}/", "get"),
    ("/api/shows/{id}/commands", "post"),
    ("/api/shows/{id}/pending", "get"),
    ("/api/shows/{id}/items", "get"),
    ("/api/shows/{id}/disputes", "get"),
    ("/api/shows/{id}/log", "get"),
    ("/api/shows/{id}/export", "get"),
    ("/api/shows/{id}/webhooks", "get"),
    ("/api/shows/{id}/webhooks", "post"),
    ("/api/shows/{id}/webhooks/{hook_id}", "delete"),
    ("/api/shows/{id}/invitations", "get"),
    ("/api/shows/{id}/invitations", "post"),
    ("/api/shows/{id}/invitations/{invitation_id}", "delete"),
    ("/api/invitations/accept", "post"),
    ("/api/shows/{id}/audit", "get"),
    ("/api/brackets/", "get"),
    ("/api/brackets/", "post"),
    ("/api/brackets/{id}/", "get"),
    ("/api/brackets/{id}/check-in/", "post"),
    ("/api/brackets/{id}/draw/", "post"),
    ("/api/chat/rooms/{name}/messages", "get"),
    ("/api/chat/rooms/{name}/messages", "post"),
    ("/api/chat/rooms/{name}/hide", "post"),
    ("/api/chat/rooms/{name}/report", "post"),
    ("/api/chat/rooms/{name}/timeout", "post"),
    ("/api/chat/rooms/{name}/slow", "post"),
    ("/api/chat/rooms/{name}/close", "post"),
    ("/api/chat/rooms/{name}/open", "post"),
    ("/api/chat/block", "post"),
    ("/api/chat/unblock", "post"),
    ("/api/chat/shows/{id}/words", "get"),
    ("/api/chat/shows/{id}/words", "put"),
    ("/api/shows/{id}/register", "post"),
    ("/api/shows/{id}/template", "post"),
    ("/api/templates/", "get"),
    ("/api/templates/", "post"),
    ("/api/templates/{id}/", "get"),
    ("/api/templates/{id}/shows", "post"),
    ("/api/templates/{id}/recurrence", "put"),
    ("/api/players/{ref}/", "get"),
    ("/api/leaderboards/{game}/", "get"),
    ("/api/leaderboards/{game}/export", "get"),
    ("/api/head-to-head", "get"),
    ("/api/seasons/", "get"),
    ("/api/seasons/", "post"),
}


@pytest.fixture
def schema(client, db):
    resp = client.get("/api/schema/")
    assert resp.status_code == 200
    return yaml.safe_load(resp.content)


def test_the_schema_is_valid_openapi(schema):
    validate_schema(schema)
    ops = {(path, method) for path, item in schema["paths"].items() for method in item}
    assert ops == OPERATIONS


def test_every_response_has_a_declared_shape(schema):
    components = schema["components"]["schemas"]
    for path, item in schema["paths"].items():
        for method, op in item.items():
            for code, response in op["responses"].items():
                if method == "delete" and code == "204":  # no body
                    continue
                if path.endswith("/export") and code == "200":  # JSON lines, one event each
                    assert response["content"] == {
                        "application/x-ndjson": {"schema": {"type": "string"}}
                    }
                    continue
                body = response["content"]["application/json"]["schema"]
                ref = body.get("$ref") or body.get("items", {}).get("$ref")
                assert ref, (path, method, code, body)
                shape = components[ref.rsplit("/", 1)[1]]
                assert shape["type"] == "object" and shape["properties"], (path, code)
                if code >= "400":
                    assert ref.endswith("/Error"), (path, method, code)


def test_the_command_endpoint_has_examples(schema):
    op = schema["paths"]["/api/matches/{id}/commands"]["post"]
    request = op["requestBody"]["content"]["application/json"]["examples"]
    assert any(e["value"]["command"]["type"] for e in request.values())
    for code in ["201", "409", "422", "429"]:
        examples = op["responses"][code]["content"]["application/json"]["examples"]
        assert examples, code
    conflict = next(iter(op["responses"]["409"]["content"]["application/json"]["examples"]))
    assert (
        "current_version"
        in op["responses"]["409"]["content"]["application/json"]["examples"][conflict]["value"]
    )
    assert {"tokenAuth": []} in op["security"]


def test_the_schema_command_validates_without_warnings(tmp_path):
    out = tmp_path / "schema.yaml"
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(out), stderr=io.StringIO()
    )
    assert "/api/matches/{id}/commands" in yaml.safe_load(out.read_text())["paths"]


@pytest.mark.django_db
def test_the_docs_page_loads_nothing_from_elsewhere(client):
    resp = client.get("/api/docs/")
    assert resp.status_code == 200
    html = resp.content.decode()
    assert "swagger-ui" in html.lower()
    assert not re.search(r"(src|href)\s*=\s*[\"']?(https?:)?//", html), "an external asset"
    assert "cdn" not in html.lower()
    assets = re.findall(r"(?:src|href)=\"([^\"]+)\"", html)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:  # the start script is the split view's own (nothing inline: the CSP)
        assert asset.startswith("/static/") or asset == "/api/docs/?script=", asset
    assert not re.search(r"<script(?![^>]*\bsrc=)", html), "an inline script"
    assert "<style" not in html, "an inline style"
