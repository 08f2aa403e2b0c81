"""A class run's start: its workers start from the bundle's YAML alone, before the bundle's
own code is imported, so that their imports (seconds of torch) overlap the rest; and the
order it deals its students out in."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from grader.assignment.bundle import load_bundle
from grader.assignment.config import DEFAULT_ASSIGNMENT, ConfigError
from grader.records.job import Job, SubmissionFailed
from grader.regrade import Previous
from grader.run import classrun

BUNDLE = load_bundle(DEFAULT_ASSIGNMENT)
REFERENCE = Path(__file__).resolve().parents[2] / "reference"


class Stop(Exception):
    """Ends the run at its hello: what came before it is what the test looks at."""


def one_student(tmp_path: Path) -> Path:
    folder = tmp_path / "class" / "ada"
    folder.mkdir(parents=True)
    for notebook in BUNDLE.assignment.notebooks:
        shutil.copyfile(REFERENCE / f"{notebook}.py", folder / f"{notebook}.py")
    return folder.parent


def test_the_workers_start_before_the_bundles_checks_are_imported(tmp_path, monkeypatch):
    events: list[object] = []

    class Pool:
        def hello(self, job: object) -> str:
            raise Stop

    @contextlib.contextmanager
    def local(jobs: int, warm: tuple[str, ...], for_students: tuple[str, ...], collapse: bool) -> Iterator[Pool]:
        events.append(("workers", warm, for_students))
        yield Pool()

    def load(path: object) -> object:
        events.append("checks")
        return load_bundle(path)  # type: ignore[arg-type]

    monkeypatch.setattr(classrun, "local", local)
    monkeypatch.setattr(classrun, "load_bundle", load)
    with pytest.raises(Stop):
        classrun.grade_class(one_student(tmp_path), tmp_path / "out", log=lambda line: None)
    assert events == [("workers", BUNDLE.warm, BUNDLE.warm_for_students), "checks"]


def test_checks_that_do_not_import_end_the_started_image_without_waiting_for_it(tmp_path, monkeypatch):
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "__init__.py").write_text("raise RuntimeError('no checks today')\n")
    config = yaml.safe_load(BUNDLE.assignment.path.read_text(encoding="utf-8"))
    config["bundle"].update(checks=str(broken), reference=str(BUNDLE.reference_dir),
                            catalogue=str(BUNDLE.catalogue_dir))
    (tmp_path / "assignment.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    started = []
    real = classrun.local

    @contextlib.contextmanager
    def local(jobs: int, warm: tuple[str, ...], for_students: tuple[str, ...], collapse: bool) -> Iterator[object]:
        with real(jobs, warm, for_students, collapse=collapse) as pool:
            started.append(pool.process)  # type: ignore[attr-defined]
            yield pool

    monkeypatch.setattr(classrun, "local", local)
    with pytest.raises(ConfigError, match="bundle.checks: importing .* failed: RuntimeError: no checks today"):
        classrun.grade_class(one_student(tmp_path), tmp_path / "out", assignment_path=tmp_path,
                             log=lambda line: None)
    (image,) = started
    # Asked nothing, it held no sandbox: it was ended, not waited for through its imports.
    assert image.returncode == -signal.SIGKILL
    assert not (tmp_path / "out").exists()


def test_a_first_run_keeps_the_folders_order_and_a_regrade_puts_last_runs_slowest_first(tmp_path):
    folders = [tmp_path / name for name in ("ada", "bob", "cy", "dee", "new")]
    assert classrun.slowest_first(folders, None) == folders
    assert classrun.slowest_first(folders, Previous({}, 1)) == folders  # grades.csv alone: no seconds
    previous = Previous({}, 1, {"ada": 0.2, "bob": 5.3, "cy": 0.3, "dee": 0.4})
    # "new" was not in that run: it counts as typical (the median, 0.35), between cy and dee
    assert [f.name for f in classrun.slowest_first(folders, previous)] == ["bob", "dee", "new", "cy", "ada"]


def test_a_regrade_deals_out_first_the_students_who_took_longest(tmp_path):
    """On the real sample class, one worker: results.json lists students as they were graded."""
    class_dir = tmp_path / "class"
    shutil.copytree(BUNDLE.root / "sample_class", class_dir)
    out = tmp_path / "out"

    def graded_order() -> list[str]:
        classrun.grade_class(class_dir, out, seed=3, jobs=1, log=lambda line: None)
        return [s["student"] for s in json.loads((out / "results.json").read_text(encoding="utf-8"))["students"]]

    first = graded_order()
    assert len(first) > 3
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    for student in results["students"]:  # as if the last student had looped, and the first were the quickest
        student["seconds"] = {first[-1]: 9.0, first[0]: 0.1}.get(student["student"], 1.0)
    (out / "results.json").write_text(json.dumps(results), encoding="utf-8")
    assert graded_order() == [first[-1], *first[1:-1], first[0]]


def test_a_regrade_finds_the_seconds_of_a_folder_whose_name_is_not_utf8(tmp_path):
    odd = tmp_path / os.fsdecode(b"z\xffe")  # results.json knows it as "z\ufffde"
    ada, bob, cy = (tmp_path / name for name in ("ada", "bob", "cy"))
    previous = Previous({}, 1, {"ada": 0.2, "bob": 5.3, "cy": 0.4, "z\ufffde": 0.1})
    # not found, it would count as typical (0.3) and come before ada
    assert classrun.slowest_first([ada, odd, bob, cy], previous) == [bob, cy, ada, odd]


def test_a_submission_that_failed_by_what_it_did_gets_a_row_that_says_why_and_the_run_goes_on(tmp_path):
    class Pool:
        def grade(self, folders: list[Path], job: object) -> Iterator[tuple[Path, object]]:
            yield folders[0], SubmissionFailed("the grading process was lost twice while grading this submission")
            yield folders[1], RuntimeError("a bug")

    lines: list[str] = []
    run = classrun.Run(BUNDLE, Job("a.yaml", 1, str(tmp_path), ()), classrun.Workers(Pool(), 1, "--jobs", "local"),
                       None)  # type: ignore[arg-type]
    rows = list(classrun.grade(run, [tmp_path / "ada", tmp_path / "bob"], log=lines.append))
    assert [(row.student, row.score) for row in rows] == [("ada", 0.0), ("bob", 0.0)]
    assert rows[0].items[0].error == "the grading process was lost twice while grading this submission"
    assert rows[1].items[0].error == "the grader itself failed (RuntimeError); ask your instructor"
    assert lines[0] == "error: ada: the grading process was lost twice while grading this submission"
