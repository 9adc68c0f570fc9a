"""A Django site for the benchmarks only: the project's own settings with a
URLconf that adds the reference endpoints (bench/benchsite/urls.py).

It exists only when a benchmark starts the production processes with
``DJANGO_SETTINGS_MODULE=benchsite.settings`` and bench/ on PYTHONPATH; the
project's URLconf and settings never import it, so the endpoints cannot be
switched on in production by a flag."""
