"""A regrade compared with the run it replaces: changes.csv and the summary's lines."""

from __future__ import annotations

import csv
import json
from dataclasses import replace
from pathlib import Path

from grader.records.answers import Answer, Mark, row_of
from grader.records.results import SubmissionResult
from grader.regrade import Comparison, Points, Previous, compare, read_previous, read_regrade, write_changes


def points(score: float, **items: float) -> Points:
    return Points(score, tuple(items.items()))


PREVIOUS = Previous({"ada": points(10, a=5, b=5), "bob": points(4, a=4, b=0), "cy": points(7, a=2, b=5),
                     "gone": points(3, a=3, b=0)}, seed=1)


def test_who_changed_by_how_much_and_in_which_items():
    regrade = compare(PREVIOUS, {"ada": points(10, a=5, b=5), "bob": points(9, a=4, b=5),
                                 "cy": points(7, a=5, b=2), "new": points(1, a=1, b=0)}, seed=2)
    assert [(c.student, c.old, c.new, c.difference, c.items) for c in regrade.changes] == [
        ("bob", 4, 9, 5, (("b", 5),)), ("cy", 7, 7, 0, (("a", 3), ("b", -3))),
        ("gone", 3, None, None, ()), ("new", None, 1, None, ())]
    assert regrade.headline() == "regrade: 2 of 4 students changed, the largest by +5 (2 not in both runs)"
    assert regrade.lines()[1:] == ["  bob: 4 -> 9 (+5): b +5", "  cy: 7 -> 7 (+0): a +3, b -3",
                                   "  gone: not in this run (had 3)", "  new: new in this run, 1"]


def test_no_change_says_so_with_both_seeds():
    regrade = compare(PREVIOUS, dict(PREVIOUS.students), seed=2)
    assert regrade.changes == ()
    assert regrade.lines() == ["regrade: no change: all 4 students have the points of the earlier run "
                               "(seed 1, now 2)"]


def test_no_student_in_both_runs_says_so():
    regrade = compare(PREVIOUS, {"new": points(1, a=1, b=0), "newer": points(2, a=2, b=0)})
    assert regrade.headline() == "regrade: nothing to compare: no student is in both runs (6 not in both runs)"
    alone = compare(Previous({"ada": points(10, a=5, b=5)}, seed=1), {"ada": points(10, a=5, b=5)})
    assert alone.headline() == "regrade: no change: the 1 student has the points of the earlier run"


def test_the_largest_change_may_be_a_loss():
    regrade = compare(PREVIOUS, {**PREVIOUS.students, "ada": points(2, a=1, b=1), "bob": points(5, a=4, b=1)})
    assert regrade.headline() == "regrade: 2 of 4 students changed, the largest by -8"


def test_changes_csv_round_trips_into_the_class_reports_view(tmp_path: Path):
    regrade = compare(PREVIOUS, {"ada": points(10, a=5, b=5), "bob": points(9.5, a=4, b=5.5),
                                 "cy": points(7, a=2, b=5)})
    write_changes(regrade, tmp_path / "changes.csv")
    with open(tmp_path / "changes.csv", newline="") as handle:
        assert list(csv.reader(handle)) == [["student", "old", "new", "difference", "items"],
                                            ["bob", "4", "9.5", "+5.5", "b +5.5"], ["gone", "3", "", "", ""]]
    assert read_regrade(tmp_path, 3) == replace(regrade, previous_seed=None)  # the seeds are not in the file
    assert read_regrade(tmp_path / "nothing", 3) is None


def test_an_id_a_spreadsheet_would_run_is_text_in_changes_csv_and_read_back_as_itself(tmp_path: Path):
    regrade = compare(PREVIOUS, {**PREVIOUS.students, "=1+1": points(-1.5, a=-1.5, b=0)})
    write_changes(regrade, tmp_path / "changes.csv")
    with open(tmp_path / "changes.csv", newline="") as handle:
        assert ["'=1+1", "", "-1.5", "", ""] in list(csv.reader(handle))
    assert read_regrade(tmp_path, 5) == replace(regrade, previous_seed=None)
    (tmp_path / "grades.csv").write_text("student,score,max_score,a,b\n'=1+1,-1.5,10,-1.5,0\n''ada,3,10,3,0\n")
    assert read_previous(tmp_path) == Previous({"=1+1": points(-1.5, a=-1.5, b=0), "'ada": points(3, a=3, b=0)},
                                               None)


def test_the_previous_run_from_results_json_else_grades_csv(tmp_path: Path):
    assert read_previous(tmp_path) is None
    (tmp_path / "grades.csv").write_text("student,score,max_score,a,b,late\nada,10,10,5,5,true\n")
    assert read_previous(tmp_path) == Previous({"ada": points(10, a=5, b=5)}, None)
    results = {"students": [{"student": "ada", "score": 9, "items": [{"name": "a", "earned": 4},
                                                                      {"name": "b", "earned": 5}]}],
               "run": {"seed": 7}}
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert read_previous(tmp_path) == Previous({"ada": points(9, a=4, b=5)}, 7)
    results["students"][0]["seconds"] = 5.3  # what a regrade orders the class by
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert read_previous(tmp_path) == Previous({"ada": points(9, a=4, b=5)}, 7, {"ada": 5.3})
    results["students"][0]["seconds"] = "slow"  # a hand-edited file: the points still count
    (tmp_path / "results.json").write_text(json.dumps(results))
    assert read_previous(tmp_path) == Previous({"ada": points(9, a=4, b=5)}, 7, {})
    (tmp_path / "results.json").write_text("{not json")
    assert read_previous(tmp_path) is None  # an unreadable earlier run does not stop the new one


def answered(mark: float | None) -> SubmissionResult:
    """Ada's written answer to quadratic_cost, graded ``mark`` points or not graded (None)."""
    answer = Answer.of("ada", "quadratic_cost", "n by n")
    row = row_of(answer, None if mark is None else Mark("ada", "quadratic_cost", mark, (), "", answer.digest))
    return SubmissionResult("ada", 147.0 + (mark or 0.0), 159.0, (), (), 0.0, (row,), 4.0)


def test_changes_csv_names_the_written_answers_whose_marks_moved(tmp_path: Path):
    (tmp_path / "results.json").write_text(json.dumps({"students": [answered(None).to_json()], "run": {"seed": 1}}))
    for mark, items in ((2.0, "quadratic_cost +2"), (1.0, "quadratic_cost -1"), (None, "quadratic_cost -1")):
        comparison = Comparison(read_previous(tmp_path), tmp_path)
        comparison.add(answered(mark))
        comparison.close()
        with open(tmp_path / "changes.csv", newline="") as handle:
            assert [row["items"] for row in csv.DictReader(handle)] == [items]
        (tmp_path / "results.json").write_text(json.dumps({"students": [answered(mark).to_json()]}))


def test_a_written_answers_empty_cell_in_grades_csv_is_not_graded(tmp_path: Path):
    # grades.csv's written columns are empty until a person grades them: the earlier run is still read.
    (tmp_path / "grades.csv").write_text("student,score,max_score,a,quadratic_cost,luong_compare\nada,12,14,10,2,\n")
    assert read_previous(tmp_path) == Previous({"ada": points(12, a=10, quadratic_cost=2)}, None)
