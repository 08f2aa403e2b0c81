"""The autograded notebooks are read from the submission as hostile files: a link, a file that
is not a notebook or one too deep for the parser gives no notebook, never an error."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.nbgrader.autograded import MAX_CELLS, _trimmed, build_notebook, write_autograded
from grader.nbgrader.course import Course

pytest.importorskip("nbgrader")


@pytest.fixture
def course(tmp_path: Path) -> Course:
    (tmp_path / "submitted" / "eve" / "attention").mkdir(parents=True)
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / "secret.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, '
                                                      '"nbformat_minor": 5}')
    return Course(tmp_path, "c", f"sqlite:///{tmp_path / 'gradebook.db'}", tmp_path / "submitted", "attention")


@pytest.mark.parametrize("content", ["{not json", "[" * 100_000 + "]" * 100_000, '{"cells": 3}', "\udcff"])
def test_a_file_that_is_not_a_notebook_gives_none(course: Course, content: str):
    path = course.submission("eve") / "attention_numpy.ipynb"
    path.write_bytes(content.encode("utf-8", "surrogateescape"))
    assert build_notebook(course, "eve", "attention_numpy", ("quadratic_cost",)) is None


def test_a_link_is_not_followed_and_a_stale_notebook_goes(course: Course):
    (course.submission("eve") / "attention_numpy.ipynb").symlink_to(course.root / "source" / "secret.ipynb")
    assert build_notebook(course, "eve", "attention_numpy", ()) is None
    assert build_notebook(course, "eve", "attention_torch", ()) is None  # absent
    (course.submission("eve") / "timestamp.txt").symlink_to(course.root / "source" / "secret.ipynb")
    folder = course.root / "autograded" / "eve" / "attention"
    folder.mkdir(parents=True)
    (folder / "attention_numpy.ipynb").write_text("an earlier run's")
    write_autograded(course, "eve", [], ("attention_numpy", "attention_torch"))
    assert list(folder.iterdir()) == []  # neither the stale notebook nor the linked timestamp


def test_only_what_formgrader_shows_reaches_nbformat():
    padding = [{}] * 1000
    doc = {"nbformat": 4, "nbformat_minor": 5,
           "metadata": {"kernelspec": {"name": "python3", "env": padding}, "widgets": padding},
           "cells": [{"cell_type": "markdown", "id": "a1", "source": ["An ", "answer"], "padding": padding,
                      "metadata": {"nbgrader": {"grade_id": "q", "grade": True, "points": 2, "x": padding},
                                   "tags": padding},
                      "attachments": {"a.png": {"image/png": ["aGVs", "bG8="], "x": padding}}},
                     {"cell_type": "code", "source": "x = 1", "metadata": {}, "execution_count": 3,
                      "outputs": [{"output_type": "stream", "name": "stdout", "text": padding}]}]}
    assert _trimmed(doc) == {
        "nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"name": "python3"}},
        "cells": [{"cell_type": "markdown", "id": "a1", "source": "An answer",
                   "metadata": {"nbgrader": {"grade_id": "q", "grade": True, "points": 2}},
                   "attachments": {"a.png": {"image/png": "aGVsbG8="}}},
                  {"cell_type": "code", "source": "x = 1", "metadata": {}, "outputs": [], "execution_count": None}]}
    assert _trimmed({**doc, "cells": [{"cell_type": "raw", "source": ""}] * (MAX_CELLS + 1)}) is None
    assert _trimmed({**doc, "nbformat": 3}) is None
