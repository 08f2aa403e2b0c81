"""An nbgrader course as an instructor has it, for the tests of ``grade --nbgrader``: nbgrader's
own command line run in it, and the grader's."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from bundle_support import BUNDLE_PATH

from grader.assignment.bundle import load_bundle

BUNDLE = load_bundle(BUNDLE_PATH)
SAMPLE = BUNDLE.root / "sample_class"
ASSIGNMENT = "attention"
COURSE_ID = "attention-course"


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
