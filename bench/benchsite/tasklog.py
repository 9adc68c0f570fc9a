"""Benchmarks only: log lines written inside a Celery task carry
``task_id = "<task name>:<id>"`` (runtime.logging's context)."""

from __future__ import annotations


def tag_task_logs() -> None:
    from celery.signals import task_postrun, task_prerun

    from runtime import logging as applog

    tokens: dict[str, object] = {}

    def started(task_id=None, task=None, **kw):
        ctx = {**(applog._context.get() or {}), "task_id": f"{task.name}:{task_id}"}
        tokens[task_id] = applog._context.set(ctx)

    def ended(task_id=None, **kw):
        token = tokens.pop(task_id, None)
        if token is not None:
            applog._context.reset(token)

    task_prerun.connect(started, weak=False)
    task_postrun.connect(ended, weak=False)
