"""`make run`'s demo (seed_demo) prints the live show's board, TV and an
overlay link, and each of them opens."""

import io
import re

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_demo_prints_working_broadcast_links(client):
    out = io.StringIO()
    call_command("seed_demo", stdout=out, stderr=io.StringIO())
    line = next(x for x in out.getvalue().splitlines() if x.startswith("broadcast of "))
    paths = re.findall(r"http://127\.0\.0\.1:8000(/\S+)", line)
    assert [p.split("/")[-2] for p in paths] == ["board", "tv", "scoreboard"]
    for path in paths:
        assert client.get(path).status_code == 200, path
    overlay = paths[-1]
    for kind in ("bracket", "featured", "hands"):
        assert client.get(overlay.replace("/scoreboard/", f"/{kind}/")).status_code == 200
