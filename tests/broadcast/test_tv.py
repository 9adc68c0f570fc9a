"""TV's choice, pure: what is at stake in a match, and the switching rule
that keeps the screen on one match until another is clearly better."""

from broadcast.tv import SWITCH_BY, Candidate, pick, stake


def c(key=1, kind="", scores=(0, 0), target=5, finished=False):
    return Candidate(key, kind, scores, target, finished)


def test_a_final_outranks_an_elimination_which_outranks_a_plain_match():
    assert stake(c(kind="final")) > stake(c(kind="death_match")) > stake(c(kind="main"))


def test_an_elimination_on_the_line_is_worth_more_than_a_fresh_one():
    fresh, on_the_line = c(kind="death_match"), c(kind="death_match", scores=(4, 2))
    assert stake(on_the_line) > stake(fresh)


def test_a_decider_beats_one_match_point_which_beats_a_close_score():
    decider = stake(c(scores=(4, 4)))
    match_point = stake(c(scores=(4, 3)))
    close = stake(c(scores=(2, 2)))
    assert decider > match_point > close


def test_a_close_score_beats_a_lopsided_one():
    assert stake(c(scores=(2, 2))) > stake(c(scores=(3, 0)))


def test_a_finished_match_is_worth_nothing():
    assert stake(c(kind="final", scores=(5, 4), finished=True)) == 0


def test_a_target_of_zero_or_no_scores_is_not_an_error():
    assert stake(c(scores=(), target=0)) >= 0


def test_pick_takes_the_best_and_nothing_when_nothing_is_live():
    assert pick(None, {}) is None
    assert pick(None, {3: 10.0, 2: 30.0, 5: 30.0}) == 2  # the lowest id among equals


def test_pick_keeps_the_screen_until_another_is_better_by_the_threshold():
    assert pick(1, {1: 20.0, 2: 20.0 + SWITCH_BY - 0.1}) == 1
    assert pick(1, {1: 20.0, 2: 20.0 + SWITCH_BY}) == 2
    assert pick(1, {2: 5.0}) == 2  # the current one ended: the best live one


def test_the_switching_sequence_of_a_show_does_not_flicker():
    """Two death matches whose stakes see-saw by less than the threshold keep
    the screen on the first; the final opening takes it at once; when the final
    ends, the best match left takes it."""
    a, b = 1, 2
    timeline = [
        {a: stake(c(a, "death_match", (0, 0), 5)), b: stake(c(b, "death_match", (0, 0), 5))},
        {a: stake(c(a, "death_match", (1, 0), 5)), b: stake(c(b, "death_match", (1, 1), 5))},
        {a: stake(c(a, "death_match", (2, 0), 5)), b: stake(c(b, "death_match", (1, 1), 5))},
        {a: stake(c(a, "death_match", (2, 1), 5)), b: stake(c(b, "death_match", (2, 1), 5))},
        # b reaches a decider: clearly more at stake
        {a: stake(c(a, "death_match", (2, 1), 5)), b: stake(c(b, "death_match", (4, 4), 5))},
        # a catches up a little: not enough to take the screen back
        {a: stake(c(a, "death_match", (3, 3), 5)), b: stake(c(b, "death_match", (4, 4), 5))},
        # b ended; a is all that is left
        {a: stake(c(a, "death_match", (3, 3), 5))},
        {a: stake(c(a, "death_match", (3, 3), 5)), 3: stake(c(3, "final", (0, 0), 5))},
    ]
    on, shown = None, []
    for stakes in timeline:
        on = pick(on, stakes)
        shown.append(on)
    assert shown == [a, a, a, a, b, b, a, 3]
