"""A student whose grading failed gets the id every other output gives that folder: the one of
``grader.submissions.load.student_id``, also for a folder name that is not UTF-8."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from grader.records.job import SubmissionFailed
from grader.run import classrun

pytest.importorskip("torch")

REFERENCE = Path(__file__).resolve().parents[2] / "reference"
LOST = "the grading process was lost twice while grading this submission"


def test_a_folder_named_in_no_utf8_whose_grading_failed_gets_its_row_and_the_run_ends(tmp_path: Path, monkeypatch):
    class_dir = tmp_path / "class"
    for name in (b"ada", b"z\xffe"):
        folder = class_dir / os.fsdecode(name)
        folder.mkdir(parents=True)
        for module in ("attention_numpy.py", "attention_torch.py"):
            shutil.copyfile(REFERENCE / module, folder / module)
    real = classrun.local

    class Lost:
        """The real workers, started and warm, whose every student is lost twice."""

        def __init__(self, pool: classrun.Pool) -> None:
            self.pool = pool

        def hello(self, job: object) -> str:
            return self.pool.hello(job)  # type: ignore[arg-type]

        def grade(self, folders: list[Path], job: object) -> Iterator[tuple[Path, object]]:
            return iter([(folder, SubmissionFailed(LOST)) for folder in folders])

    @contextlib.contextmanager
    def local(jobs: int, warm: tuple[str, ...], for_students: tuple[str, ...], collapse: bool) -> Iterator[Lost]:
        with real(jobs, warm, for_students, collapse=collapse) as pool:
            yield Lost(pool)

    monkeypatch.setattr(classrun, "local", local)
    lines: list[str] = []
    classrun.grade_class(class_dir, tmp_path / "out", seed=1, jobs=1, log=lines.append)
    with open(tmp_path / "out" / "grades.csv", newline="", encoding="utf-8") as handle:
        assert [row["student"] for row in csv.DictReader(handle)] == ["ada", "z\ufffde"]
    results = json.loads((tmp_path / "out" / "results.json").read_text(encoding="utf-8"))
    assert [s["student"] for s in results["students"]] == ["ada", "z\ufffde"]
    assert f"error: z\ufffde: {LOST}" in lines
