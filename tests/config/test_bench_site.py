"""The benchmarks' reference endpoints (bench/benchsite) exist only in the
benchmarks' own site: the project serves no such address and cannot import it."""

import importlib.util

import pytest


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/bench/insert", "/bench/insert-token"])
def test_the_project_does_not_serve_the_benchmarks_endpoints(client, path):
    resp = client.post(path, {"n": 1}, content_type="application/json")
    assert resp.status_code == 404


def test_the_benchmarks_site_is_not_on_the_projects_import_path():
    assert importlib.util.find_spec("benchsite") is None
