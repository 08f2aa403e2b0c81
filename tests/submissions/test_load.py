import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grader.submissions.load import (
    ClassFolderError,
    discover,
    find_notebook,
    load_submission,
    read_cells,
)

ROOT = Path(__file__).resolve().parents[2]

NOTEBOOKS = ("attention_numpy", "attention_torch")


def notebook(*sources: str, markdown: str = "# title") -> str:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(markdown), *(nbformat.v4.new_code_cell(s) for s in sources)]
    return nbformat.writes(nb)


def test_discover_sorts_student_folders_and_skips_files_and_hidden(tmp_path: Path):
    for name in ("zoë", "Ada Lovelace", ".ipynb_checkpoints", "ünal"):
        (tmp_path / name).mkdir()
    (tmp_path / "notes.txt").write_text("x")
    found = discover(tmp_path)
    assert [p.name for p in found.students] == ["Ada Lovelace", "zoë", "ünal"]
    assert found.skipped == (".ipynb_checkpoints (its name begins with '.')",
                             "notes.txt (a file, not a student's folder)")
    with pytest.raises(ClassFolderError, match="not found"):
        discover(tmp_path / "nope")
    with pytest.raises(ClassFolderError, match="a file"):
        discover(tmp_path / "notes.txt")


def test_an_empty_class_is_an_error_naming_the_fix(tmp_path: Path):
    (tmp_path / ".hidden").mkdir()
    with pytest.raises(ClassFolderError, match="no student folders in it; give the folder that holds one folder"):
        discover(tmp_path, "attention", NOTEBOOKS)


@pytest.mark.parametrize("where", ["attention_numpy.ipynb", "Attention_Numpy (1).ipynb", "attention_torch.py"])
def test_a_single_students_folder_given_as_the_class_is_an_error(tmp_path: Path, where: str):
    (tmp_path / where).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / where).write_text(notebook("x = 1"))
    (tmp_path / "other").mkdir()
    with pytest.raises(ClassFolderError, match=f"looks like a single student.s folder .it holds {re.escape(where)}"):
        discover(tmp_path, "attention", NOTEBOOKS)


def test_a_folder_is_a_student_whatever_its_id(tmp_path: Path):
    # An id is data: a student named like the assignment (nbgrader's inner folder), like a
    # course's folders or like a notebook is a student, the notebooks in it its own.
    ids = ["attention", "submitted", "source", "attention_numpy", "attention_torch.ipynb"]
    for student in ids:
        (tmp_path / student).mkdir()
        (tmp_path / student / "attention_numpy.ipynb").write_text(notebook("x = 1"))
    found = discover(tmp_path, "attention", NOTEBOOKS)
    assert [p.name for p in found.students] == sorted(ids) and found.skipped == ()


@pytest.mark.parametrize("path, note", [
    ("attention_numpy.ipynb", None),
    ("attention/attention_numpy.ipynb", None),
    ("attention_numpy (1).ipynb", "its name is not attention_numpy.ipynb"),
    ("Attention_Numpy.ipynb", "its name is not attention_numpy.ipynb"),
    ("Attention_Numpy.IPYNB", "its name is not attention_numpy.ipynb"),
    ("attention_numpy-2.py", "its name is not attention_numpy.py"),
    ("attention_numpy copy.ipynb", "its name is not attention_numpy.ipynb"),
    ("submission/attention_numpy.ipynb", "it is not in the student's folder or its attention/ folder"),
    ("attention/attention/attention_numpy.ipynb", "it is not in the student's folder or its attention/ folder"),
])
def test_the_documented_rule_tolerates_upload_names_and_says_what_it_took(tmp_path: Path, path: str, note: str | None):
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(notebook("x = 1"))
    found = find_notebook(tmp_path, "attention", "attention_numpy")
    assert found is not None and found.path == tmp_path / path
    assert found.note == (None if note is None else f"graded {path}: {note}")
    source = load_submission(tmp_path, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.path == path and source.note == found.note and source.problem is None


@pytest.mark.parametrize("path", ["attention_numpy_v2.ipynb", "my_attention_numpy.ipynb", "a/b/c/attention_numpy.ipynb",
                                  ".ipynb_checkpoints/attention_numpy.ipynb", "attention_numpy.txt"])
def test_other_names_and_deeper_folders_are_not_taken(tmp_path: Path, path: str):
    (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / path).write_text(notebook("x = 1"))
    assert find_notebook(tmp_path, "attention", "attention_numpy") is None


def test_the_expected_file_beats_a_copy_and_the_newest_copy_wins(tmp_path: Path):
    import os

    for name, mtime in (("attention_numpy (1).ipynb", 100), ("attention_numpy (2).ipynb", 200)):
        (tmp_path / name).write_text(notebook("x = 1"))
        os.utime(tmp_path / name, (mtime, mtime))
    found = find_notebook(tmp_path, "attention", "attention_numpy")
    assert found is not None and found.path.name == "attention_numpy (2).ipynb"
    assert found.note is not None and "the newest of 2 such files" in found.note
    (tmp_path / "attention").mkdir()
    (tmp_path / "attention" / "attention_numpy.ipynb").write_text(notebook("x = 1"))
    found = find_notebook(tmp_path, "attention", "attention_numpy")
    assert found is not None and found.path == tmp_path / "attention" / "attention_numpy.ipynb"
    assert found.note == ("graded attention/attention_numpy.ipynb: passed over attention_numpy (2).ipynb (not the "
                          "expected name), attention_numpy (1).ipynb (not the expected name)")


def test_flat_and_nbgrader_layouts_notebook_beats_module(tmp_path: Path):
    flat = tmp_path / "flat"
    flat.mkdir()
    (flat / "attention_numpy.py").write_text("x = 1\n")
    nested = tmp_path / "nested" / "attention"
    nested.mkdir(parents=True)
    (nested / "attention_torch.ipynb").write_text(notebook("y = 2"))
    (nested / "attention_torch.py").write_text("y = 3\n")
    sub = load_submission(flat, "attention", NOTEBOOKS)
    assert sub.file("attention_numpy").path == "attention_numpy.py"
    assert sub.file("attention_numpy").cells[0].source == "x = 1\n"
    assert sub.file("attention_torch").problem == "attention_torch.ipynb was not submitted"
    sub = load_submission(tmp_path / "nested", "attention", NOTEBOOKS)
    torch_file = sub.file("attention_torch")
    assert torch_file.path == "attention/attention_torch.ipynb"
    assert [c.source for c in torch_file.cells] == ["y = 2"]  # as written: rewritten where it runs
    # Numbered among code cells: the student sees no number on a markdown cell.
    assert torch_file.cells[0].number == 1
    assert torch_file.cells[0].label == "code cell 1 (y = 2)"


def test_cells_are_read_as_written_their_magics_left_for_where_they_run(tmp_path: Path):
    path = tmp_path / "a.ipynb"
    path.write_text(notebook("%matplotlib inline\n!pip install numpy\nx = 1", "\n\nf(1)"))
    probe = ("import sys, pathlib; from grader.submissions.load import read_cells; "
             f"cells = read_cells(pathlib.Path({str(path)!r})); "
             "print([c.source for c in cells], 'IPython' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out == "['%matplotlib inline\\n!pip install numpy\\nx = 1', '\\n\\nf(1)'] False\n"


@pytest.mark.parametrize(
    "content, reason",
    [
        (b"{not json", "invalid JSON"),
        (b"\x89PNG\r\n\x1a\n\x00\x00", "not a UTF-8 text file"),
        (json.dumps({"cells": "nope"}).encode(), "no list of cells"),
        (b"abc\x00def", "NUL bytes"),
    ],
)
def test_broken_files_become_a_problem_not_an_exception(tmp_path: Path, content: bytes, reason: str):
    student = tmp_path / "student"
    student.mkdir()
    (student / "attention_numpy.ipynb").write_bytes(content)
    source = load_submission(student, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.cells == ()
    assert source.problem is not None and reason in source.problem
    assert source.problem.startswith("attention_numpy.ipynb could not be read")


def test_a_syntax_error_is_left_for_the_sandbox_to_report(tmp_path: Path):
    path = tmp_path / "attention_numpy.py"
    path.write_text("def softmax(x:\n")
    assert read_cells(path)[0].source == "def softmax(x:\n"


def test_nbgrader_test_cells_are_left_out_solutions_and_demos_kept(tmp_path: Path):
    nb = nbformat.v4.new_notebook()
    marks = [
        {"grade": False, "solution": True, "grade_id": "softmax_solution", "locked": False},
        {"grade": True, "solution": False, "grade_id": "test_softmax", "locked": True, "points": 1},
        {"grade": True, "solution": True, "grade_id": "answer", "locked": False, "points": 1},
        {"grade": False, "solution": False, "grade_id": "demo", "locked": True},
        None,
    ]
    for number, mark in enumerate(marks):
        cell = nbformat.v4.new_code_cell(f"cell_{number} = True")
        if mark is not None:
            cell.metadata["nbgrader"] = mark
        nb.cells.append(cell)
    path = tmp_path / "a.ipynb"
    path.write_text(nbformat.writes(nb))
    assert [c.number for c in read_cells(path)] == [1, 3, 4, 5]  # the test cell keeps its number


def test_the_released_test_cells_are_exactly_the_cells_left_out():
    source = Path(__file__).resolve().parents[2] / "assignments" / "attention" / "attention_numpy.ipynb"
    doc = json.loads(source.read_text(encoding="utf-8"))
    kept = {c.number for c in read_cells(source)}
    code_cells = [c for c in doc["cells"] if c["cell_type"] == "code"]
    tests = {n for n, c in enumerate(code_cells, start=1)
             if c["metadata"].get("nbgrader", {}).get("grade_id", "").startswith("test_")}
    code = set(range(1, len(code_cells) + 1))
    assert tests and kept == code - tests


def test_several_candidates_the_one_with_the_students_work_wins_and_the_rest_are_named(tmp_path: Path):
    stub = "def softmax(x):\n    # YOUR CODE HERE\n    raise NotImplementedError()\n"
    (tmp_path / "attention_numpy.ipynb").write_text(notebook(stub, stub.replace("softmax", "mask")))
    (tmp_path / "attention_numpy.py").write_text("def softmax(x):\n    return x\n")
    found = find_notebook(tmp_path, "attention", "attention_numpy")
    assert found is not None and found.path.name == "attention_numpy.py"
    assert found.note == ("graded attention_numpy.py: passed over attention_numpy.ipynb (2 exercises still "
                          "raising NotImplementedError there, 0 in the one graded)")
    (tmp_path / "attention_numpy.py").write_text(stub * 2)  # as unanswered: the notebook comes first
    found = find_notebook(tmp_path, "attention", "attention_numpy")
    assert found is not None and found.path.name == "attention_numpy.ipynb"
    assert found.note == ("graded attention_numpy.ipynb: passed over attention_numpy.py (a .py file: a notebook "
                          "comes first)")


def test_a_module_is_cut_into_its_top_level_statements_keeping_line_numbers(tmp_path: Path):
    path = tmp_path / "attention_numpy.py"
    path.write_text('"""doc"""\nimport os; x = 1\n\n@staticmethod\ndef f(x:\n    pass\n\nclass A:\n    y = 2\n')
    cells = read_cells(path)
    assert [c.label for c in cells] == ['line 1 ("""doc""")', "line 2 (import os; x = 1)",
                                        "line 4 (@staticmethod)", "line 8 (class A:)"]
    assert cells[2].source == "\n\n\n@staticmethod\ndef f(x:\n    pass\n\n"  # compiled, its error is on line 5
    with pytest.raises(SyntaxError) as error:
        compile(cells[2].source, "<cell>", "exec")
    assert error.value.lineno == 5


def test_a_module_with_cell_marks_runs_those_cells_and_keeps_future_imports(tmp_path: Path):
    path = tmp_path / "attention_numpy.py"
    path.write_text("from __future__ import annotations\n# %%\ndef f(x: Undefined) -> None:\n    pass\n"
                    "# %% demo\nf(1)\n")
    cells = read_cells(path)
    assert [c.label for c in cells] == ["line 1 (from __future__ import annotations)",
                                        "line 2 (def f(x: Undefined) -> None:)", "line 5 (f(1))"]
    namespace: dict[str, object] = {}
    for cell in cells:
        exec(compile(cell.source, "<cell>", "exec"), namespace)  # the annotation is never evaluated


def test_a_folder_without_any_notebook_says_what_it_holds(tmp_path: Path):
    only_notes = tmp_path / "notes_only"
    only_notes.mkdir()
    (only_notes / "notes.txt").write_text("I ran out of time")
    sub = load_submission(only_notes, "attention", NOTEBOOKS)
    for nb in NOTEBOOKS:
        assert sub.file(nb).problem == f"{nb}.ipynb was not submitted (the folder holds notes.txt)"
    empty = tmp_path / "empty"
    empty.mkdir()
    assert load_submission(empty, "attention", NOTEBOOKS).file(NOTEBOOKS[0]).problem.endswith("(the folder is empty)")


@pytest.mark.parametrize("mark", ["# %%\n", ""])
def test_a_module_of_many_short_cells_is_cut_into_a_bounded_amount_of_text(tmp_path, mark):
    # Each cell is padded with blank lines to its place in the file: 30,000 cells of a 1 MB
    # file once made 4.8 GB of text in the trusted worker. Both ways of cutting are bounded.
    path = tmp_path / "attention_numpy.py"
    path.write_text("".join(f"{mark}x{n} = {n}\n" for n in range(30_000)), encoding="utf-8")
    cells = read_cells(path)
    assert 1 < len(cells) <= 1000
    assert sum(len(cell.source) for cell in cells) <= 9 * 1024 * 1024
    assert cells[-1].source.rstrip().endswith("x29999 = 29999")  # nothing is lost: the rest runs as one


def test_a_short_module_keeps_a_cell_per_statement(tmp_path):
    path = tmp_path / "attention_numpy.py"
    path.write_text("".join(f"x{n} = {n}\n" for n in range(900)), encoding="utf-8")
    assert len(read_cells(path)) == 900


@pytest.mark.parametrize("cells", [[], [nbformat.v4.new_markdown_cell("# my answers")]])
def test_a_valid_notebook_with_no_code_is_called_empty_in_one_line(tmp_path: Path, cells: list):
    nbformat.write(nbformat.v4.new_notebook(cells=cells), tmp_path / "attention_numpy.ipynb")
    source = load_submission(tmp_path, "attention", NOTEBOOKS).file("attention_numpy")
    assert source.cells == () and source.problem == (
        "attention_numpy.ipynb is empty: it holds no code cells, so nothing could be graded; save it with the work "
        "in it and submit it again")
