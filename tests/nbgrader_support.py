"""An nbgrader course as an instructor has it, for the tests of ``grade --nbgrader``: nbgrader's
own command line run in it, and the grader's."""

from __future__ import annotations

import inspect
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle

BUNDLE = load_bundle(BUNDLE_PATH)
SAMPLE = BUNDLE.root / "sample_class"
ASSIGNMENT = "attention"
COURSE_ID = "attention-course"
NUMPY = "attention_numpy"
QUESTIONS = [question.id for question in BUNDLE.assignment.written_of(NUMPY)]


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``nbgrader ARGS`` run in ``course`` (it reads the course's nbgrader_config.py)."""
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
               JUPYTER_PATH=str(course / "jupyter"), JUPYTER_DATA_DIR=str(course / "jupyter"))
    done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, text=True,
                          capture_output=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def grade(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "grader", "grade", *args], capture_output=True, text=True,
                          timeout=600)


def generated_course(course: Path) -> Path:
    """``course`` with its nbgrader_config.py and the bundle's source notebooks generated
    (``nbgrader generate_assignment``): the gradebook knows the assignment, no one submitted."""
    (course / "nbgrader_config.py").write_text(
        f"c = get_config()\nc.CourseDirectory.course_id = {COURSE_ID!r}\n"
        f"c.Exchange.root = {str(course / 'exchange')!r}\n", encoding="utf-8")
    source = course / "source" / ASSIGNMENT
    source.mkdir(parents=True)
    for name in BUNDLE.release:
        shutil.copy2(BUNDLE.root / name, source / name)
    nbgrader(course, "generate_assignment", ASSIGNMENT, "--create")
    return course


def submit(course: Path, student: str, sample: str) -> Path:
    """The sample student ``sample``'s notebooks as ``student``'s submission; its folder."""
    folder = course / "submitted" / student / ASSIGNMENT
    shutil.copytree(SAMPLE / sample / "attention", folder)
    return folder


def answer(folder: Path, texts: dict[str, str]) -> None:
    """Write ``texts`` (question -> answer) into the submission's answer cells, which a sample
    student's notebook (written before the questions) gets from the release first."""
    import nbformat

    path = folder / f"{NUMPY}.ipynb"
    nb = nbformat.read(path, as_version=4)
    released = nbformat.read(folder.parents[2] / "release" / ASSIGNMENT / f"{NUMPY}.ipynb", as_version=4)
    ids = {cell.metadata.get("nbgrader", {}).get("grade_id"): cell for cell in nb.cells}
    for cell in released.cells:
        grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
        if grade_id in QUESTIONS and grade_id not in ids:
            nb.cells.append(cell)
            ids[grade_id] = cell
    for question, text in texts.items():
        ids[question].source = text
    nbformat.write(nb, path)


def with_test_cells(folder: Path) -> None:
    """Append the release's test cells to the submission's numpy notebook, as a student's copy of
    the release has them (a sample student's notebook, written as a module, has none); their
    source is a comment here, which autograde's check puts back as released."""
    import nbformat

    path = folder / f"{NUMPY}.ipynb"
    nb = nbformat.read(path, as_version=4)
    released = nbformat.read(folder.parents[2] / "release" / ASSIGNMENT / f"{NUMPY}.ipynb", as_version=4)
    for cell in released.cells:
        if cell.cell_type == "code" and cell.metadata.get("nbgrader", {}).get("grade"):
            nb.cells.append(nbformat.v4.new_code_cell("# the visible tests", metadata=cell.metadata))
    nbformat.write(nb, path)


def api(course: Path) -> Any:
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    config = Config()
    config.CourseDirectory.root = str(course)
    config.CourseDirectory.course_id = COURSE_ID
    config.Exchange.root = str(course / "exchange")
    return NbGraderAPI(coursedir=CourseDirectory(config=config), config=config)


def handler(course: Path, body: dict[str, Any] | None = None) -> SimpleNamespace:
    """What formgrader's handlers use of themselves, for calling their methods undecorated
    (the decorators check a logged-in user and a running server, not what is tested here)."""
    from jinja2 import Environment, FileSystemLoader
    from nbconvert import HTMLExporter
    from nbgrader.api import Gradebook
    from nbgrader.server_extensions.formgrader import handlers
    from traitlets.config import Config

    config = Config()
    config.HTMLExporter.template_name = "formgrade"  # as FormgradeExtension configures it
    config.HTMLExporter.extra_template_basedirs = [handlers.template_path]
    written: list[str] = []
    nbgrader_api = api(course)
    env = Environment(loader=FileSystemLoader([handlers.template_path]))
    return SimpleNamespace(
        gradebook=Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID), api=nbgrader_api,
        coursedir=nbgrader_api.coursedir, exporter=HTMLExporter(config=config), base_url="", url_prefix=".",
        request=SimpleNamespace(path="/formgrader/submissions/x/", query=""), written=written,
        write=written.append, get_json_body=lambda: body, clear=lambda: None, set_status=lambda status: None,
        render=lambda name, **ns: env.get_template(name).render(**ns), status=None)


def call(method: Any, fake: SimpleNamespace, *args: Any) -> str:
    try:
        inspect.unwrap(method)(fake, *args)
    finally:
        fake.gradebook.close()
    return "".join(fake.written)


def find_grade(course: Path, student: str, cell: str, notebook: str = NUMPY) -> dict[str, Any]:
    """A grade as formgrader's page reads it; a test cell has no comment (None)."""
    from nbgrader.api import Gradebook, MissingEntry

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}", COURSE_ID) as gradebook:
        grade = gradebook.find_grade(cell, notebook, ASSIGNMENT, student)
        try:
            comment = gradebook.find_comment(cell, notebook, ASSIGNMENT, student)
        except MissingEntry:
            return {**grade.to_dict(), "score": grade.score, "comment_id": None, "auto_comment": None}
        return {**grade.to_dict(), "score": grade.score, "comment_id": comment.id,
                "auto_comment": comment.auto_comment}


def set_manual(course: Path, student: str, cell: str, score: float | None, comment: str | None = None,
               notebook: str = NUMPY, extra_credit: float | None = None) -> None:
    """A score (None: cleared), its extra credit and a comment saved as formgrader's page saves
    them: its API's handlers."""
    from nbgrader.server_extensions.formgrader.apihandlers import CommentHandler, GradeHandler

    row = find_grade(course, student, cell, notebook)
    call(GradeHandler.put, handler(course, {"manual_score": score, "extra_credit": extra_credit}), row["id"])
    if comment is not None:
        call(CommentHandler.put, handler(course, {"manual_comment": comment}), row["comment_id"])
