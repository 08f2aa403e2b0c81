"""Which answer a manual score is for, run after run (``grader.nbgrader.manual``): kept while
the answer stays, flagged again when it changes, until a person reviews it."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.nbgrader.course import Course
from grader.nbgrader.manual import Seen, read_state, settle, state_path, write_state


def runs(steps: list[tuple[str | None, float | None, bool | None]]) -> list[Seen]:
    """Each step: the answer's digest submitted, the manual score in the gradebook, and whether a
    person cleared the flag since (None: the gradebook's flag is the one the last run left)."""
    seen: Seen | None = None
    out = []
    for current, manual, cleared in steps:
        flagged = (seen.flagged if seen is not None else True) and not cleared
        seen = settle(seen, None, manual, flagged, current)
        out.append(seen)
    return out


def test_an_answer_awaits_a_grader_until_scored_and_then_keeps_its_score():
    first, scored, again = runs([("a1", None, None), ("a1", 1.5, True), ("a1", 1.5, None)])
    assert first.flagged and first.graded is None
    assert not scored.flagged and scored.graded == "a1"
    assert again == scored


def test_a_changed_answer_is_flagged_until_a_person_reviews_it():
    *_, changed, still, reviewed = runs([("a1", None, None), ("a1", 2.0, True), ("a2", 2.0, None),
                                          ("a2", 2.0, None), ("a2", 2.0, True)])
    assert changed.flagged and changed.graded == "a1" and changed.manual == 2.0
    assert still.flagged and still.graded == "a1"
    assert not reviewed.flagged and reviewed.graded == "a2"


def test_a_resubmission_before_the_grader_saved_is_flagged_as_the_grader_read_the_older_answer():
    *_, resubmitted = runs([("a1", None, None), ("a2", 1.0, True)])  # scored while formgrader showed a1
    assert resubmitted.flagged and resubmitted.graded == "a1"


def test_an_untouched_or_missing_answer_scores_zero_and_awaits_no_one():
    assert not settle(None, 0.0, None, True, "released").flagged
    assert not settle(None, 0.0, None, True, None).flagged


def test_a_score_given_before_any_run_is_taken_as_for_the_answer_submitted_now():
    assert settle(None, None, 1.0, False, "a1") == Seen("a1", "a1", 1.0, False)


def test_the_state_is_written_whole_and_a_damaged_one_is_a_one_line_error(tmp_path: Path):
    course = Course(tmp_path, "c", "sqlite:///x.db", tmp_path / "submitted", "attention")
    state = {("ada", "q1"): Seen("a1", "a1", 1.5, False), ("zoe", "q1"): Seen(None, None, None, False)}
    write_state(course, state)
    assert read_state(course) == state
    assert [p.name for p in state_path(course).parent.iterdir()] == ["written.json"]
    state_path(course).write_text('{"answers": [{"student": "ada"}]}')
    with pytest.raises(ValueError, match=r"written.json is damaged") as raised:
        read_state(course)
    assert "\n" not in str(raised.value)
