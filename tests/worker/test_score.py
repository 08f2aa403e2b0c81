"""The item loop: partial credit, and a crash or hang costing only its own item."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from grader import wire
from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT
from grader.integrity.fingerprints import definitions
from grader.records.results import SubmissionResult
from grader.runners.inprocess import InProcessRunner
from grader.runners.protocol import ItemOutput, ItemTimeout, LoadOutcome, RunnerLost
from grader.submissions.load import Cell, SourceFile, Submission
from grader.worker import score
from grader.worker.score import grade_submission, seed_for

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
A = BUNDLE.assignment
REFERENCE = BUNDLE.reference_source("attention_numpy")


class Flaky:
    """An in-process runner that dies (or hangs) when ``poison`` is called."""

    opened = 0

    def __init__(self, source: SourceFile, poison: str, kind: type[RunnerLost]):
        Flaky.opened += 1
        self.inner = InProcessRunner.from_source(source)
        self.load = self.inner.load
        self.poison, self.kind = poison, kind
        self.closed = False

    def begin_item(self, item: str) -> None:
        self.item = item

    def request(self, message: wire.Request) -> Any:
        if message.name == self.poison:
            raise self.kind("it was killed" if self.kind is RunnerLost else "the time limit of 10 s ran out")
        return self.inner.request(message)

    def end_item(self) -> ItemOutput:
        return ItemOutput("printed", 0)

    def close(self) -> None:
        self.closed = True


def submission(source: str) -> Submission:
    files = (SourceFile("attention_numpy", "attention_numpy.py", (Cell(1, source),)),
             SourceFile("attention_torch", None, (), "attention_torch.ipynb was not submitted"))
    return Submission("s", DEFAULT_ASSIGNMENT.parent, files)


def test_seeds_differ_by_check_and_run():
    assert seed_for(1, "softmax", "a") != seed_for(1, "softmax", "b") != seed_for(2, "softmax", "b")
    assert seed_for(1, "softmax", "a") == seed_for(1, "softmax", "a")


def test_reference_gets_every_numpy_point_and_a_missing_notebook_none():
    result = grade_submission(submission(REFERENCE), BUNDLE, 3, InProcessRunner.from_source)
    by_item = {i.name: i for i in result.items}
    assert all(by_item[i.name].earned == i.points for i in A.items_of("attention_numpy"))
    assert all(by_item[i.name].earned == 0 for i in A.items_of("attention_torch"))
    assert by_item["MultiHeadAttention"].checks[0].message == "attention_torch.ipynb was not submitted"
    assert result.score == sum(i.points for i in A.items_of("attention_numpy"))


def test_the_code_of_each_item_comes_with_the_result_only_when_asked():
    # The integrity report's evidence, fingerprinted where the file was read (the worker), from
    # every cell as read: the crash that drops a copy's cells changes nothing of it.
    source = REFERENCE + "\n\ndef helper_only(x):\n    return x\n"
    asked = grade_submission(submission(source), BUNDLE, 3, lambda s: Flaky(s, "causal_mask", RunnerLost), code=True)
    expected = definitions((Cell(1, source),), [item.name for item in A.items_of("attention_numpy")])
    assert asked.notebooks[0].code == tuple(expected[name] for name in sorted(expected)) and expected
    assert asked.notebooks[1].code is None  # not submitted: nothing read
    sent = json.loads(json.dumps(asked.to_json()))
    assert SubmissionResult.from_json(sent) == asked
    prints = [value for code in sent["notebooks"][0]["code"] for p in code["prints"] for value in p]
    assert prints and all(type(value) is int for value in prints)  # plain JSON, never pickled
    plain = grade_submission(submission(source), BUNDLE, 3, InProcessRunner.from_source)
    assert all(nb.code is None for nb in plain.notebooks) and "code" not in plain.to_json()["notebooks"][0]
    assert [i.earned for i in plain.items] == [i.earned for i in grade_submission(
        submission(source), BUNDLE, 3, InProcessRunner.from_source, code=True).items]


def test_code_too_large_to_send_is_not_sent_and_the_grade_is_the_same(monkeypatch):
    monkeypatch.setattr(score, "CODE_BYTES", 1000)
    big = grade_submission(submission(REFERENCE), BUNDLE, 3, InProcessRunner.from_source, code=True)
    assert big.notebooks[0].code is None
    assert big.items == grade_submission(submission(REFERENCE), BUNDLE, 3, InProcessRunner.from_source).items


def test_a_crash_costs_its_item_and_a_fresh_runner_grades_the_rest():
    for kind, word in ((RunnerLost, "killed"), (ItemTimeout, "time limit")):
        Flaky.opened = 0
        result = grade_submission(submission(REFERENCE), BUNDLE, 3, lambda s, k=kind: Flaky(s, "causal_mask", k))
        causal = result.item("causal_mask")
        assert causal.earned == 0 and word in causal.checks[0].message
        assert all(c.message.startswith("not run:") for c in causal.checks[1:])
        assert result.item("padding_mask").earned == A.item("padding_mask").points
        assert result.item("relative_shift_matrix").earned == A.item("relative_shift_matrix").points
        assert Flaky.opened == 2  # one reload after the crash, not one per item


def test_partial_credit_and_cell_errors_are_reported():
    source = REFERENCE + "\n\ndef softmax(x, axis=-1):\n    return x\n\nraise RuntimeError('oops')\n"
    runner = InProcessRunner.from_source(SourceFile("attention_numpy", "a.py", (Cell(4, source),)))
    assert runner.load.cell_errors[0][0] == 4 and "RuntimeError: oops" in runner.load.cell_errors[0][1]
    result = grade_submission(submission(source), BUNDLE, 3, InProcessRunner.from_source)
    softmax = result.item("softmax")
    assert 0 < softmax.earned < softmax.points
    assert result.notebooks[0].cell_errors and result.notebooks[1].failure


def test_a_notebook_that_cannot_load_zeroes_its_items_only():
    class Broken(Flaky):
        def __init__(self, source: SourceFile):
            super().__init__(source, "", RunnerLost)
            self.load = LoadOutcome((), "", "running the notebook's cells took longer than 60 s (stopped in cell 2)")

    result = grade_submission(submission(REFERENCE), BUNDLE, 3, Broken)
    assert result.score == 0
    assert result.item("softmax").checks[0].message.startswith("running the notebook's cells took longer")


def test_a_cell_stopped_while_loading_is_left_out_of_every_later_copy():
    sources: list[tuple[int, ...]] = []

    class StopsCellTwo(Flaky):
        def __init__(self, source: SourceFile):
            sources.append(tuple(c.number for c in source.cells))
            kept = SourceFile(source.notebook, source.path, tuple(c for c in source.cells if c.number != 2))
            super().__init__(kept, "causal_mask", RunnerLost)
            self.load = LoadOutcome(((2, "stopped: ..."),), "", None, stopped=(2,) if 2 in sources[-1] else ())

    cells = (Cell(1, REFERENCE), Cell(2, "while True: pass"), Cell(3, "x = 1"))
    files = (SourceFile("attention_numpy", "a.ipynb", cells),)
    result = grade_submission(Submission("s", DEFAULT_ASSIGNMENT.parent, files), BUNDLE, 3, StopsCellTwo)
    assert sources == [(1, 2, 3), (1, 3)]  # the copy after causal_mask's crash never ran cell 2
    assert result.item("padding_mask").earned == A.item("padding_mask").points
    assert result.notebooks[0].cell_errors == (("code cell 2 (while True: pass)", "stopped: ..."),)


ONE_AHEAD = (BUNDLE.catalogue_dir / "mutants" / "causal_mask_one_ahead.py").read_text(encoding="utf-8")


def test_public_examples_run_only_when_asked_and_change_no_score_or_output():
    plain = grade_submission(submission(REFERENCE + "\n\n" + ONE_AHEAD), BUNDLE, 3, InProcessRunner.from_source)
    drawn = grade_submission(submission(REFERENCE + "\n\n" + ONE_AHEAD), BUNDLE, 3, InProcessRunner.from_source,
                             examples=True)
    assert all(item.examples == () for item in plain.items)
    assert [replace(item, examples=()) for item in drawn.items] == list(plain.items)
    [mask] = drawn.item("causal_mask").examples
    assert mask.title == "causal_mask(5)" and mask.kind == "mask"
    assert mask.wrong == tuple((i, i + 1) for i in range(4))  # each query also sees the next key
    assert [p.wrong for p in drawn.item("scaled_dot_product_attention").examples] == [(), ()]
    assert drawn.item("MultiHeadAttention").examples == ()  # its notebook was not submitted


def test_examples_that_kill_the_runner_cost_no_point_and_a_crashed_item_gets_no_picture():
    class DiesInExamples(Flaky):
        def begin_item(self, item: str) -> None:
            if item == "(public examples)":
                self.poison = "padding_mask"  # the third picture
            super().begin_item(item)

    Flaky.opened = 0
    plain = grade_submission(submission(REFERENCE), BUNDLE, 3, lambda s: Flaky(s, "", RunnerLost))
    result = grade_submission(submission(REFERENCE), BUNDLE, 3, lambda s: DiesInExamples(s, "", RunnerLost),
                              examples=True)
    assert [replace(item, examples=()) for item in result.items] == list(plain.items)
    assert [bool(item.examples) for item in result.items[:4]] == [True, True, False, False]
    assert Flaky.opened == 2  # one per grading: the examples ran in the runner of the checks

    crashed = grade_submission(submission(REFERENCE), BUNDLE, 3, lambda s: Flaky(s, "causal_mask", RunnerLost),
                               examples=True)
    assert crashed.item("causal_mask").examples == () and crashed.item("causal_mask").earned == 0
    assert crashed.item("softmax").examples and crashed.item("relative_shift_matrix").examples


class Warns(Flaky):
    """Prints what a warning in the student's cell prints: the cell as Python names it."""

    def end_item(self) -> ItemOutput:
        return ItemOutput("<cell 1>:2: RuntimeWarning: overflow encountered in exp\n  e = np.exp(x)\n", 0)


def test_printed_output_names_a_cell_as_everything_else_does():
    result = grade_submission(submission(REFERENCE), BUNDLE, 3, lambda source: Warns(source, "-", RunnerLost))
    output = result.item("softmax").output
    label = Cell(1, REFERENCE).label
    assert output.startswith(f"{label}, line 2: RuntimeWarning: overflow") and "<cell" not in output, output
