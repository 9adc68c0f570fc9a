"""bench/ modules in the tests' process, loaded as bench/run.py loads them,
without leaving bench/ on the import path (the project must not see the
benchmarks' site: tests/config/test_bench_site.py)."""

from __future__ import annotations

import importlib.util
import sys
from contextlib import contextmanager
from pathlib import Path

from games.core import search

BENCH = Path(__file__).resolve().parents[2] / "bench"


def load_bench(name: str):
    """bench/<name>.py as a module, bench/ off the import path afterwards."""
    saved = list(sys.path)
    try:
        spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCH / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module
    finally:
        sys.path[:] = saved


@contextmanager
def bench_modules():
    """bench/run.py and the benchmark modules it would run (name -> module),
    every trace of them gone afterwards: bench/ off the import path, bench/'s
    modules out of ``sys.modules``, and the bots' search clock as it was
    (bench_bots makes it CPU time)."""
    saved, clock = list(sys.path), search.CLOCK
    try:
        run = load_bench("run")
        yield run, run.runnable(run.discover())
    finally:
        sys.path[:] = saved
        search.CLOCK = clock
        for name, module in list(sys.modules.items()):
            if Path(getattr(module, "__file__", None) or "/").parent == BENCH:
                del sys.modules[name]
