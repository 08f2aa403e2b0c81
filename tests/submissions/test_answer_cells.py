"""Written answers read from a submission's notebook or .py file: text only, bounded, and an
untouched or odd cell never taken for an answer."""

from __future__ import annotations

import json
from pathlib import Path

from grader.submissions.answer_cells import MAX_ANSWER_CHARS, Extracted, module_answers, notebook_answers
from grader.submissions.load import load_submission, read_source

QUESTIONS = ("quadratic_cost", "luong_compare")


def answer_cell(grade_id: object, source: object, cell_type: str = "markdown") -> dict[str, object]:
    return {"cell_type": cell_type, "source": source, "metadata": {
        "nbgrader": {"grade": True, "solution": True, "grade_id": grade_id, "points": 2}}}


def test_a_notebook_answer_is_the_markdown_cell_with_the_question_as_grade_id():
    cells = [answer_cell("quadratic_cost", ["Every query meets\n", "every key."]),
             answer_cell("luong_compare", "YOUR ANSWER HERE\n"),  # as released: unanswered
             answer_cell("other", "not a question of ours"),
             answer_cell("quadratic_cost", "print('code')", cell_type="code")]  # not an answer cell
    assert notebook_answers(cells, QUESTIONS) == (
        Extracted("quadratic_cost", "Every query meets\nevery key."), Extracted("luong_compare", None))


def test_a_hostile_notebook_gives_bounded_text_or_none_and_says_why():
    long = "x" * (MAX_ANSWER_CHARS + 5)
    cells = [answer_cell("quadratic_cost", {"not": "text"}), answer_cell("quadratic_cost", long),
             answer_cell(["quadratic_cost"], "an id that is not a string"), "not a cell", 7,
             answer_cell("luong_compare", ""), answer_cell("luong_compare", "  \n")]
    cost, luong = notebook_answers(cells, QUESTIONS)
    assert cost.text == "x" * MAX_ANSWER_CHARS
    assert "2 cells hold this answer" in cost.note and "not text" in cost.note
    assert f"cut at {MAX_ANSWER_CHARS:,} characters (it has {MAX_ANSWER_CHARS + 5:,})" in cost.note
    assert luong.text is None and "2 cells" in luong.note
    assert notebook_answers("not a list", QUESTIONS) == (Extracted("quadratic_cost", None),
                                                         Extracted("luong_compare", None))


def test_a_module_answer_is_a_markdown_cell_whose_first_line_names_it():
    text = ("import numpy as np\n\n# %% [markdown]\n# answer: quadratic_cost\n#\n# n queries times\n"
            "#   n keys: **n²**\nx = 1  # not a comment line: not the answer\n"
            "# %%\n# answer: luong_compare\n# a code cell: not an answer\n"
            "# %% [markdown]\n# The luong_compare question, not its id line\n# answer: luong_compare\n")
    assert module_answers(text, QUESTIONS) == (
        Extracted("quadratic_cost", "n queries times\n  n keys: **n²**"), Extracted("luong_compare", None))
    assert module_answers("def f():\n    return 1\n", QUESTIONS) == (Extracted("quadratic_cost", None),
                                                                    Extracted("luong_compare", None))


def test_the_worker_reads_the_answers_with_the_cells_and_only_for_its_own_notebook(tmp_path: Path):
    student = tmp_path / "ada"
    student.mkdir()
    notebook = {"cells": [{"cell_type": "code", "source": "x = 1", "metadata": {}},
                          answer_cell("quadratic_cost", "Quadratic.")], "metadata": {}, "nbformat": 4,
                "nbformat_minor": 5}
    (student / "attention_numpy.ipynb").write_text(json.dumps(notebook), encoding="utf-8")
    (student / "attention_torch.py").write_text("# %% [markdown]\n# answer: quadratic_cost\n# elsewhere\n")
    sub = load_submission(student, "attention", ("attention_numpy", "attention_torch"),
                          {"attention_numpy": QUESTIONS})
    assert sub.file("attention_numpy").answers == (Extracted("quadratic_cost", "Quadratic."),
                                                   Extracted("luong_compare", None))
    assert sub.file("attention_torch").answers == ()
    cells, answers = read_source(student / "attention_numpy.ipynb")
    assert [c.source for c in cells] == ["x = 1"] and answers == ()
