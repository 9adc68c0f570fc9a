"""The reactors in embedded mode (`make run`): one thread of the server
follows the log like `manage.py run_reactors` does, woken by each append
(and catching up every POLL_S), so what a crash between an append's commit
and its inline run left undone is done on the next start."""

from __future__ import annotations

from runtime.background import Background

from .follow import POLL_S, Follower, default_owner

_state: dict = {}


def follow_step() -> float:
    follower = _state.get("follower")
    if follower is None:
        follower = _state["follower"] = Follower(owner=default_owner("embedded-"))
    return follower.step()


_background = Background("reactors", follow_step, retry_s=POLL_S)
wake, start = _background.wake, _background.start
