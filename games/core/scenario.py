"""Scenario files (shared/scenarios/FORMAT.md): one bout from a stacked deal."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from .driver import MatchDriver
from .protocol import MODERATOR_VIEW, RuleError
from .registry import GAME_MODULES, series_for


class MalformedScenario(Exception):
    """The file itself is wrong (not a rejected move)."""


def _check_shape(doc: Any) -> None:
    if not isinstance(doc, dict):
        raise MalformedScenario("the file must hold a JSON object")
    if doc.get("game") not in GAME_MODULES:
        raise MalformedScenario(f"unknown game {doc.get('game')!r}")
    seats = doc.get("seats")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        raise MalformedScenario("seats must be a list of player names")
    for key in ("options", "items", "setup", "expect"):
        if key in doc and not isinstance(doc[key], dict):
            raise MalformedScenario(f"{key} must be an object")
    steps = doc.get("steps", [])
    if not isinstance(steps, list):
        raise MalformedScenario("steps must be a list")
    for i, step in enumerate(steps, 1):
        if not isinstance(step, dict):
            raise MalformedScenario(f"step {i} must be an object")
        if "wait" in step:
            w = step["wait"]
            if not isinstance(w, (int, float)) or isinstance(w, bool) or w < 0:
                raise MalformedScenario(f"step {i}: wait must be a number of seconds")
        elif not isinstance(step.get("by"), str) or not isinstance(step.get("do"), dict):
            raise MalformedScenario(f"step {i} needs either wait, or by and do")
        elif not isinstance(step["do"].get("type"), str):
            raise MalformedScenario(f"step {i}: the command needs a type")


def run(doc: Mapping[str, Any], name: str = "") -> dict:
    """Play a scenario; return the output object of FORMAT.md."""
    _check_shape(doc)
    series = series_for(doc["game"])
    rules = series.rules
    setup = dict(doc.get("setup") or {})
    try:
        match = MatchDriver(
            series, doc["seats"], doc.get("options"), doc.get("items"), setup, setup.get("seed", 0)
        )
    except RuleError as exc:
        raise MalformedScenario(str(exc)) from None
    steps_out = []

    def bout_over(st) -> bool:
        return st.finished or st.bout_no > 0

    for step in doc.get("steps", []):
        if "wait" in step:
            match.wait(float(step["wait"]), until=bout_over)  # a scenario is one bout
            steps_out.append({"ok": True})
            continue
        seat = step["by"]
        try:
            if seat not in match.state.seats:
                raise RuleError("{seat} is not seated in this match", seat=seat)
            if bout_over(match.state):
                raise RuleError("the bout is over")
            match.submit(seat, dict(step["do"]))
            steps_out.append({"ok": True})
        except RuleError as exc:
            steps_out.append({"ok": False, "error": str(exc)})

    state = match.state
    bout = state.bout if state.bout_no == 0 else _first_bout(state)
    finished = bout_over(state)
    result = {
        "file": name,
        "steps": steps_out,
        "finished": finished,
        "winner": rules.scenario_winner(bout) if (finished and bout is not None) else None,
        "scores": rules.scenario_scores(bout) if bout is not None else {s: 0 for s in state.seats},
        "state": series.view(state, MODERATOR_VIEW),
    }
    return result


def _first_bout(state):
    # the first bout's final state: the scored bout kept as last_bout, or the
    # bout in progress when the series ended within it
    return state.last_bout if state.last_bout is not None else state.bout


def compare(result: Mapping[str, Any], expect: Mapping[str, Any]) -> list[str]:
    """Every mismatch between a result and an ``expect`` object, in words."""
    problems = []
    for key, want in expect.items():
        if key == "steps":
            got = [s["ok"] for s in result["steps"]]
            if got != list(want):
                for i, (g, w) in enumerate(zip(got, want, strict=False), 1):
                    if g != w:
                        err = result["steps"][i - 1].get("error", "")
                        problems.append(f"step {i}: expected ok={w}, got ok={g} {err}".rstrip())
                if len(got) != len(want):
                    problems.append(f"steps: expected {len(want)} entries, got {len(got)}")
        elif key not in result:
            problems.append(f"unknown expect key {key!r}")
        elif result[key] != want:
            problems.append(f"{key}: expected {json.dumps(want)}, got {json.dumps(result[key])}")
    return problems


def run_file(path: str | Path) -> tuple[dict, list[str]]:
    """Run one file; (result, mismatches). Raises MalformedScenario."""
    path = Path(path)
    try:
        doc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise MalformedScenario(f"{path}: {exc}") from None
    try:
        result = run(doc, path.name)
    except MalformedScenario as exc:
        raise MalformedScenario(f"{path}: {exc}") from None
    return result, compare(result, doc.get("expect") or {})
