"""A round's steps: ranking, tokens of life, candidates, DMOs, bans, the game."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.core.protocol import RuleError

from ...items import game_knows
from ..builder import (
    _Builder,
    _need_organizer,
    _player,
    _round_in_progress,
    _self_field,
    _started,
)
from ..options import _name_ok, death_match_first_to
from ..state import (
    ACTIVE,
    Round,
    ShowState,
    _duel_of,
    active,
    ban_options,
    candidate_split,
    current_round,
    next_round,
)
from . import ready_opening


def _parse_ranking(raw: Any, live: Sequence[str]) -> list[list[str]]:
    if not isinstance(raw, (list, tuple)) or not raw:
        raise RuleError(
            'ranking must be a list of places, best first, e.g. [["ana"], ["ben", "cal"]]'
        )
    groups: list[list[str]] = []
    for g in raw:
        if isinstance(g, str):
            g = [g]
        if not isinstance(g, (list, tuple)) or not g or not all(isinstance(x, str) for x in g):
            raise RuleError("every place of the ranking is a non-empty list of usernames")
        groups.append(list(g))
    flat = [x for g in groups for x in g]
    dups = sorted({x for x in flat if flat.count(x) > 1})
    if dups:
        raise RuleError("the ranking lists {dups} more than once", dups=", ".join(dups))
    extra = [x for x in flat if x not in live]
    if extra:
        raise RuleError("not active entrants: {extra}", extra=", ".join(extra))
    missing = [x for x in live if x not in flat]
    if missing:
        raise RuleError(
            "the ranking must place every active entrant; missing: {missing}",
            missing=", ".join(missing),
        )
    if len(groups) < 2:
        raise RuleError("a ranking with everyone tied has no last place")
    return groups


def _enter_ranking(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "enter_ranking")
    s = b.state
    _started(s)
    if s.final is not None:
        raise RuleError("the final is under way: no more rounds")
    cur = current_round(s)
    if cur is not None:
        raise RuleError("round {id} ({title}) is still in progress", id=cur.id, title=cur.title)
    nxt = next_round(s)
    if nxt is None:
        raise RuleError("no round left to play: add one with add_round")
    rid = c.get("round", nxt.id)
    if rid != nxt.id:
        raise RuleError(
            "the next round is {id} ({title}), not {rid}", id=nxt.id, title=nxt.title, rid=rid
        )
    live = active(s)
    groups = _parse_ranking(c.get("ranking"), live)
    winners = groups[0]
    n = len(live)
    sole = len(winners) == 1
    gift_due = sole and n >= 4
    immune_count = len(winners) + (1 if gift_due else 0)
    needed = max(0, min(s.options["candidates_per_round"], (n - immune_count) // 2, n - 2))
    note = ""
    if sole and not gift_due:
        note = "only three entrants remain: the second token of life is not given"
    b.emit(
        "ranking_entered",
        {
            "round": nxt.id,
            "ranking": groups,
            "winners": winners,
            "tokens": {w: (2 if sole else 1) for w in winners},
            "gift_due": gift_due,
            "needed": needed,
            "note": note,
        },
    )
    _advance(b)


def _advance(b: _Builder) -> None:
    """Take every step that follows by itself: name forced candidates, finish
    a round with nothing left, open the final."""
    rnd = current_round(b.state)
    if rnd is not None:
        if rnd.needed == 0:
            b.emit(
                "round_finished",
                {"round": rnd.id, "eliminated": []},
                reason="no elimination: fewer than two entrants without a token of life",
            )
        elif not rnd.gift_due and not rnd.named:
            forced, pool, _r = candidate_split(b.state, rnd)
            if not pool:
                b.emit(
                    "candidates_named",
                    {"round": rnd.id, "candidates": list(forced), "chosen_by": None},
                    reason="last place of the ranking",
                )
        elif rnd.named and rnd.duels and all(d.decided for d in rnd.duels):
            b.emit(
                "round_finished",
                {"round": rnd.id, "eliminated": [d.loser for d in rnd.duels]},
                reason="every death match of the round is decided",
            )
    _maybe_open_final(b)


def _maybe_open_final(b: _Builder) -> None:
    s = b.state
    if s.final is not None or s.champion is not None or current_round(s) is not None:
        return
    live = active(s)
    if len(live) != 2:
        return
    game = s.options["final_game"]
    b.emit(
        "final_opened",
        {
            "players": list(live),
            "game": game,
            "first_to": s.options.get("final_first_to"),
            **ready_opening.deadline(s, b.ctx.now),
        },
        reason="two entrants remain",
    )
    ready_opening.pass_if_nobody_awaited(b, {"final": True})


def _give_token(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "give_token")
    rnd = _round_in_progress(b, c)
    _self_field(b, c, "giver", who)
    if not rnd.gift_due:
        raise RuleError("no token of life is waiting to be given this round")
    giver = rnd.winners[0]
    if who != giver:
        raise RuleError(
            "only the sole winner {giver} may give the second token of life", giver=giver
        )
    to = c.get("to")
    if not _name_ok(to):
        raise RuleError("give_token needs to: the entrant who receives the token")
    _check_gift(b.state, rnd, to)
    b.emit("token_given", {"round": rnd.id, "giver": giver, "to": to})
    _advance(b)


def _check_gift(s: ShowState, rnd: Round, to: str) -> None:
    if to == rnd.winners[0]:
        raise RuleError("the second token must go to another entrant")
    if s.status.get(to) != ACTIVE:
        raise RuleError("{to} is not an active entrant", to=to)
    forced, _pool, _r = candidate_split(s, rnd)
    if to in forced:
        raise RuleError(
            "{to} is the elimination candidate and cannot receive a token of life", to=to
        )


def _choose_candidate(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "choose_candidate")
    rnd = _round_in_progress(b, c)
    if rnd.gift_due:
        raise RuleError(
            "first {winners} must give the second token of life", winners=rnd.winners[0]
        )
    if rnd.named:
        raise RuleError("the elimination candidates are already named")
    forced, pool, r = candidate_split(b.state, rnd)
    if not pool:
        raise RuleError("the candidates follow from the ranking: there is nothing to choose")
    if who not in rnd.winners:
        raise RuleError(
            "only the winners of the main match ({winners}) may choose the candidate",
            winners=", ".join(rnd.winners),
        )
    raw = c.get("candidates", c.get("candidate"))
    chosen = [raw] if isinstance(raw, str) else raw
    if not isinstance(chosen, (list, tuple)) or not all(isinstance(x, str) for x in chosen):
        raise RuleError("choose_candidate needs candidates: a list of usernames")
    chosen = list(chosen)
    if len(set(chosen)) != len(chosen):
        raise RuleError("a candidate is named twice")
    if len(chosen) != r:
        raise RuleError("choose exactly {r} candidate(s) among {pool}", r=r, pool=", ".join(pool))
    bad = [x for x in chosen if x not in pool]
    if bad:
        imm = [x for x in bad if x in rnd.immune]
        if imm:
            raise RuleError(
                "{imm} hold(s) a token of life and cannot be a candidate", imm=", ".join(imm)
            )
        raise RuleError(
            "{bad} cannot be chosen; choose among {pool}", bad=", ".join(bad), pool=", ".join(pool)
        )
    b.emit(
        "candidates_named",
        {"round": rnd.id, "candidates": list(forced) + chosen, "chosen_by": who},
    )
    _advance(b)


def _nominate(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "nominate")
    rnd = _round_in_progress(b, c)
    _self_field(b, c, "candidate", who)
    if not rnd.named:
        raise RuleError("the elimination candidates are not named yet")
    duel = rnd.duel(who)
    if duel is None:
        raise RuleError(
            "only an elimination candidate may nominate a death-match opponent; {who} is not one in round {id}",
            who=who,
            id=rnd.id,
        )
    if duel.dmo is not None:
        raise RuleError("{who} has already nominated {dmo}", who=who, dmo=duel.dmo)
    dmo = c.get("dmo")
    if not _name_ok(dmo):
        raise RuleError("nominate needs dmo: the entrant you challenge")
    if dmo == who:
        raise RuleError("you cannot nominate yourself")
    if b.state.status.get(dmo) != ACTIVE:
        raise RuleError("{dmo} is not an active entrant", dmo=dmo)
    if dmo in rnd.immune:
        raise RuleError("{dmo} holds a token of life this round and cannot be nominated", dmo=dmo)
    if dmo in rnd.candidates:
        raise RuleError("{dmo} is an elimination candidate too", dmo=dmo)
    for d in rnd.duels:
        if d.dmo == dmo:
            raise RuleError(
                "{dmo} is already the death-match opponent of {candidate}",
                dmo=dmo,
                candidate=d.candidate,
            )
    b.emit("dmo_nominated", {"round": rnd.id, "candidate": who, "dmo": dmo})


def _ban_game(b: _Builder, c: Mapping[str, Any]) -> None:
    who = _player(b, "ban_game")
    rnd = _round_in_progress(b, c)
    if b.state.options["game_pick"] != "pool_with_bans":
        raise RuleError("this show has no bans: the organizer picks the death-match game")
    duel = _duel_of(rnd, who)
    cand = c.get("candidate")
    if cand is not None and (duel is None or duel.candidate != cand):
        raise RuleError("you may only act for yourself")
    if duel is None or duel.dmo is None:
        raise RuleError(
            "only an elimination candidate or their death-match opponent may ban a game"
        )
    if duel.game is not None:
        raise RuleError("the game of this death match is already picked: {game}", game=duel.game)
    if who in duel.bans:
        raise RuleError("{who} has already banned {bans}", who=who, bans=duel.bans[who])
    game = c.get("game")
    if game not in b.state.options["game_pool"]:
        raise RuleError(
            "{game!r} is not in the show's pool: {options}",
            game=game,
            options=", ".join(b.state.options["game_pool"]),
        )
    if game in duel.bans.values():
        raise RuleError("{game} is already banned", game=game)
    b.emit("game_banned", {"round": rnd.id, "candidate": duel.candidate, "by": who, "game": game})


def _pick_game(b: _Builder, c: Mapping[str, Any]) -> None:
    _need_organizer(b, "pick_game")
    rnd = _round_in_progress(b, c)
    s = b.state
    ready = [d for d in rnd.duels if d.dmo is not None and d.game is None]
    cand = c.get("candidate")
    if cand is None:
        if len(ready) != 1:
            raise RuleError("name the candidate whose death match this game is for")
        duel = ready[0]
    else:
        duel = rnd.duel(cand)
        if duel is None:
            raise RuleError(
                "{cand} is not an elimination candidate in round {id}", cand=cand, id=rnd.id
            )
    if duel.dmo is None:
        raise RuleError(
            "{candidate} has not nominated a death-match opponent yet", candidate=duel.candidate
        )
    if duel.game is not None:
        raise RuleError(
            "the death match of {candidate} is already set: {game}",
            candidate=duel.candidate,
            game=duel.game,
        )
    bans = s.options["game_pick"] == "pool_with_bans"
    if bans:
        waiting = [w for w in (duel.candidate, duel.dmo) if w not in duel.bans]
        if waiting:
            raise RuleError("waiting for the ban of {waiting}", waiting=", ".join(waiting))
    game = c.get("game")
    remaining = ban_options(s, duel)
    if game not in remaining:
        if game in duel.bans.values():
            raise RuleError(
                "{game} is banned for this death match; pick among {remaining}",
                game=game,
                remaining=", ".join(remaining),
            )
        raise RuleError("pick the game among {remaining}", remaining=", ".join(remaining))
    b.emit("game_picked", {"round": rnd.id, "candidate": duel.candidate, "game": game})
    first_to = death_match_first_to(s, game)
    dmo_item = "dmo" if game_knows(game, "dmo") else None
    b.emit(
        "death_match_opened",
        {
            "round": rnd.id,
            "candidate": duel.candidate,
            "dmo": duel.dmo,
            "seats": [duel.candidate, duel.dmo],
            "game": game,
            "first_to": first_to,
            "advantage": duel.dmo,
            "advantage_item": dmo_item,
            **ready_opening.deadline(s, b.ctx.now),
        },
        reason=c.get("reason") or "",
    )
    ready_opening.pass_if_nobody_awaited(b, {"round": rnd.id, "candidate": duel.candidate})


HANDLERS = {
    "enter_ranking": _enter_ranking,
    "give_token": _give_token,
    "choose_candidate": _choose_candidate,
    "nominate": _nominate,
    "ban_game": _ban_game,
    "pick_game": _pick_game,
}
