"""The one model of a written answer's state (``grader.records.answers``): what each state counts,
and the one tally every output shows."""

from __future__ import annotations

import pytest

from grader.records.answers import (
    AWAITING,
    CHANGED,
    GRADED,
    UNANSWERED,
    Answer,
    Mark,
    WrittenCounts,
    answer_digest,
    count,
    row_of,
    state_of,
)

TEXT = "Every query meets every key: n·n scores."


def mark(digest: str, points: float = 1.5) -> Mark:
    return Mark("ada", "quadratic_cost", points, (), "", digest)


@pytest.mark.parametrize("text", [None, "", "  \n", "YOUR ANSWER HERE", "\nYOUR ANSWER HERE\n"])
def test_a_cell_absent_empty_or_left_as_released_is_no_answer_worth_0(text):
    # As nbgrader gives it: 0 points and nothing for a person to grade, never "awaiting a grader".
    answer = Answer.of("ada", "quadratic_cost", text)
    assert answer.text is None and state_of(text, None) == UNANSWERED
    row = row_of(answer, None)
    assert (row.status, row.earned, row.awaits_grader) == (UNANSWERED, 0.0, False)


def test_an_answer_is_awaiting_graded_or_changed_by_the_mark_it_has():
    answer = Answer.of("ada", "quadratic_cost", TEXT)
    assert (row_of(answer, None).status, row_of(answer, None).earned) == (AWAITING, None)
    graded = row_of(answer, mark(answer.digest))
    assert (graded.status, graded.earned, graded.awaits_grader) == (GRADED, 1.5, False)
    changed = row_of(answer, mark(answer_digest("an earlier text")))
    assert (changed.status, changed.earned, changed.awaits_grader) == (CHANGED, None, True)


def test_points_a_person_gave_to_no_answer_count_and_an_answer_since_removed_is_no_answer():
    none = Answer.of("ada", "quadratic_cost", "YOUR ANSWER HERE")
    assert row_of(none, mark(answer_digest(""), 0.5)).earned == 0.5  # given for no answer: graded
    gone = row_of(none, mark(answer_digest(TEXT)))
    assert (gone.status, gone.earned) == (UNANSWERED, 0.0)  # the text graded is no longer there


def test_the_tally_counts_each_answer_once_and_says_so_in_one_line():
    counts = count([(AWAITING, 2), (UNANSWERED, 2), (UNANSWERED, 2), (GRADED, 2), (CHANGED, 1.5), (AWAITING, 2)])
    assert counts == WrittenCounts(unanswered=2, awaiting=2, graded=1, changed=1, points_awaiting=5.5)
    assert counts.answers == 6 and counts.to_grade == 3
    assert counts.describe() == ("6 written answers: 1 graded, 3 await a grader (5.5 points; 1 of them changed "
                                 "since graded), 2 with no answer (0 points)")
    assert (counts + counts).answers == 12
    assert count([(AWAITING, 1)]).describe() == "1 written answer: 1 awaits a grader (1 point)"
