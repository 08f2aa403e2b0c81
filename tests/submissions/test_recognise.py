"""A notebook found by what it holds when its name does not say: the bundle's functions and
classes, and its source notebook's cells, which a student's copy of the release carries."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle
from grader.submissions.load import load_submission
from grader.submissions.recognise import MAX_READ, notebook_marks

BUNDLE = load_bundle(BUNDLE_PATH)
ASSIGNMENT = BUNDLE.assignment
ITEMS = tuple((nb, tuple(item.name for item in ASSIGNMENT.items_of(nb))) for nb in ASSIGNMENT.notebooks)
MARKS = notebook_marks(BUNDLE.root, ITEMS)
SOLVED = BUNDLE.root / "sample_class" / "Ada Lovelace" / ASSIGNMENT.name
RELEASED = BUNDLE.root / "sample_class" / "Blank Student" / ASSIGNMENT.name  # the release, untouched
NUMPY, TORCH = ASSIGNMENT.notebooks


def put(folder: Path, files: dict[str, Path | str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(source, Path):
            shutil.copyfile(source, folder / name)
        else:
            (folder / name).write_text(source)
    return folder


def load(folder: Path):
    return load_submission(folder, ASSIGNMENT.name, ASSIGNMENT.notebooks, None, MARKS)


def test_misnamed_notebooks_are_graded_for_the_notebook_they_hold(tmp_path: Path):
    folder = put(tmp_path / "ada", {"Attention_Numpy_final.ipynb": SOLVED / f"{NUMPY}.ipynb",
                                    "work/attention torch.ipynb": SOLVED / f"{TORCH}.ipynb"})
    submission = load(folder)
    numpy, torch = submission.file(NUMPY), submission.file(TORCH)
    assert (numpy.path, torch.path) == ("Attention_Numpy_final.ipynb", "work/attention torch.ipynb")
    assert numpy.problem is None and numpy.cells == load(put(tmp_path / "named", {
        f"{NUMPY}.ipynb": SOLVED / f"{NUMPY}.ipynb"})).file(NUMPY).cells
    items = len(ASSIGNMENT.items_of(NUMPY))
    assert numpy.note is not None and numpy.note.startswith(
        f"graded Attention_Numpy_final.ipynb for {NUMPY}: its name is not {NUMPY}.ipynb, but it holds "
        f"{items} of the {items} functions and classes graded there and ")
    assert numpy.note.endswith(" of the release's cells")
    assert torch.note is not None and torch.note.startswith(f"graded work/attention torch.ipynb for {TORCH}: ")


def test_a_module_is_recognised_by_the_functions_it_defines(tmp_path: Path):
    folder = put(tmp_path / "s", {"my_solution.py": BUNDLE.reference_dir / f"{NUMPY}.py"})
    numpy = load(folder).file(NUMPY)
    assert numpy.path == "my_solution.py" and numpy.cells
    assert numpy.note is not None and "release's cells" not in numpy.note
    assert load(folder).file(TORCH).problem == f"{TORCH}.ipynb was not submitted"


def test_the_work_beats_an_untouched_release_and_the_release_is_named(tmp_path: Path):
    folder = put(tmp_path / "s", {"copy of release.ipynb": RELEASED / f"{NUMPY}.ipynb",
                                  "numpy work.ipynb": SOLVED / f"{NUMPY}.ipynb"})
    numpy = load(folder).file(NUMPY)
    assert numpy.path == "numpy work.ipynb"
    assert numpy.note is not None and numpy.note.endswith("; passed over copy of release.ipynb (fewer exercises "
                                                          "answered)")


def test_two_files_that_hold_a_notebook_as_much_as_each_other_are_one_line_not_a_guess(tmp_path: Path):
    doc = json.loads((SOLVED / f"{NUMPY}.ipynb").read_text(encoding="utf-8"))
    doc["cells"].append({"cell_type": "code", "id": "mine", "metadata": {}, "source": "# one more try",
                         "outputs": [], "execution_count": None})
    folder = put(tmp_path / "s", {"numpy v1.ipynb": SOLVED / f"{NUMPY}.ipynb", "numpy v2.ipynb": json.dumps(doc),
                                  f"{TORCH}.ipynb": SOLVED / f"{TORCH}.ipynb"})
    numpy = load(folder).file(NUMPY)
    assert numpy.path is None and numpy.cells == ()
    assert numpy.problem == (f"{NUMPY}.ipynb was not submitted under its name, and 2 files hold it as much as each "
                             f"other (numpy v1.ipynb, numpy v2.ipynb): not graded; rename the one to grade "
                             f"{NUMPY}.ipynb")
    assert "\n" not in numpy.problem


def test_two_copies_of_one_file_are_one_answer(tmp_path: Path):
    folder = put(tmp_path / "s", {"numpy.ipynb": SOLVED / f"{NUMPY}.ipynb",
                                  "numpy (again).ipynb": SOLVED / f"{NUMPY}.ipynb"})
    numpy = load(folder).file(NUMPY)
    assert numpy.path == "numpy (again).ipynb" and numpy.cells
    assert numpy.note is not None and numpy.note.endswith("; passed over numpy.ipynb (the same file)")


def test_a_file_taken_by_its_name_is_not_taken_again_and_other_files_are_not_notebooks(tmp_path: Path):
    folder = put(tmp_path / "s", {f"{NUMPY}.ipynb": SOLVED / f"{NUMPY}.ipynb",
                                  "old numpy.ipynb": SOLVED / f"{NUMPY}.ipynb",
                                  "notes.py": "def helper():\n    return 1\n",
                                  "empty.ipynb": json.dumps({"cells": []})})
    submission = load(folder)
    assert submission.file(NUMPY).path == f"{NUMPY}.ipynb" and submission.file(NUMPY).note is None
    assert submission.file(TORCH).problem == f"{TORCH}.ipynb was not submitted"


def test_the_releases_check_script_is_never_a_notebook(tmp_path: Path):
    from grader.studentcheck.build import build_check_py

    folder = put(tmp_path / "s", {"check.py": build_check_py(BUNDLE)})
    assert [f.path for f in load(folder).files] == [None, None]


def test_marks_two_notebooks_share_tell_nothing(tmp_path: Path):
    for name, ids in (("a", ["intro", "a-only"]), ("b", ["intro", "b-only"])):
        cells = [{"cell_type": "code", "id": cell, "metadata": {}, "source": "", "outputs": [],
                  "execution_count": None} for cell in ids]
        (tmp_path / f"{name}.ipynb").write_text(json.dumps({"cells": cells}))
    marks = notebook_marks(tmp_path, (("a", ("f",)), ("b", ("g",)), ("c", ("h",))))
    assert [(m.notebook, sorted(m.cells), sorted(m.names)) for m in marks] == [
        ("a", ["a-only"], ["f"]), ("b", ["b-only"], ["g"]), ("c", [], ["h"])]


def test_no_more_than_a_bounded_number_of_files_are_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    import grader.submissions.recognise as recognise

    files = {f"scratch{n:02}.py": "x = 1\n" for n in range(MAX_READ + 10)}
    folder = put(tmp_path / "s", {**files, "zz/last.py": BUNDLE.reference_dir / f"{NUMPY}.py"})
    read: list[Path] = []
    real = recognise._read
    monkeypatch.setattr(recognise, "_read", lambda path, within: read.append(path) or real(path, within))
    load(folder)
    assert len(read) == MAX_READ


def test_a_file_is_taken_for_one_notebook_only(tmp_path: Path):
    numpy = [item.name for item in ASSIGNMENT.items_of(NUMPY)]
    torch = [item.name for item in ASSIGNMENT.items_of(TORCH)]
    both = min(len(numpy), len(torch))  # as many of each: it holds both notebooks as much
    text = "".join(f"def {name}():\n    pass\n" for name in numpy[:both]) + \
        "".join(f"class {name}:\n    pass\n" for name in torch[:both])
    submission = load(put(tmp_path / "s", {"everything.py": text}))
    assert submission.file(NUMPY).path == "everything.py"
    assert submission.file(TORCH).path is None


def test_the_release_untouched_under_its_name_gives_way_to_the_work_beside_it(tmp_path: Path):
    folder = put(tmp_path / "s", {f"{NUMPY}.ipynb": RELEASED / f"{NUMPY}.ipynb",
                                  f"Copy of {NUMPY}.ipynb": SOLVED / f"{NUMPY}.ipynb"})
    numpy = load(folder).file(NUMPY)
    assert numpy.path == f"Copy of {NUMPY}.ipynb"
    stubs = len(ASSIGNMENT.items_of(NUMPY))  # the release's stubs in every graded exercise, none elsewhere
    assert numpy.note is not None and numpy.note.endswith(
        f"; passed over {NUMPY}.ipynb (its name, but no exercise answered: {stubs} exercises still raising "
        "NotImplementedError there)")


def test_work_under_its_name_is_kept_beside_other_files(tmp_path: Path):
    partial = json.loads((RELEASED / f"{NUMPY}.ipynb").read_text(encoding="utf-8"))
    solved = json.loads((SOLVED / f"{NUMPY}.ipynb").read_text(encoding="utf-8"))
    partial["cells"][:6] = solved["cells"][:6]  # the first exercise answered, the rest as released
    folder = put(tmp_path / "s", {f"{NUMPY}.ipynb": json.dumps(partial),
                                  "finished later.ipynb": SOLVED / f"{NUMPY}.ipynb",
                                  "release.ipynb": RELEASED / f"{NUMPY}.ipynb"})
    numpy = load(folder).file(NUMPY)
    assert (numpy.path, numpy.note) == (f"{NUMPY}.ipynb", None)  # a name and some work: the student's choice
