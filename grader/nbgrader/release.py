"""Build the student release of an assignment bundle with nbgrader.

The instructor's source notebooks (the bundle's ``<notebook>.ipynb``) carry the
solutions between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and the hidden
tests between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``. nbgrader's
own ``generate_assignment`` strips both; this module runs it in a throw-away
course directory so that the repository never holds nbgrader state.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from ..assignment.bundle import Bundle
from ..studentcheck.generate import build_check_py, write_check_py
from .course import interpreter_bin_on_path


def release_assignment(bundle: Bundle, out_dir: Path, source_dir: Path | None = None) -> list[Path]:
    """Generate the student version of the bundle's source notebooks (``bundle.release``,
    found in ``source_dir``, by default the bundle's folder).

    Runs ``nbgrader generate_assignment`` (through ``NbGraderAPI``) on a copy of
    the source notebooks inside a temporary nbgrader course directory and copies
    the released notebooks to ``out_dir`` (created if needed).

    Beside them goes ``check.py``, the students' checker: the bundle's public checks in one
    file that needs neither this package nor the reference (``grader.studentcheck``).

    Returns the notebooks written, in the order of ``bundle.release`` (``check.py`` is
    ``out_dir / grader.studentcheck.generate.FILE_NAME``). Raises ``ValueError`` when
    ``source_dir`` lacks a source notebook, ``grader.studentcheck.generate.GenerationError``
    when a public check needs the reference and ``RuntimeError`` when nbgrader fails (with
    nbgrader's log).
    """
    source_dir = Path(source_dir) if source_dir is not None else bundle.root
    out_dir = Path(out_dir)
    assignment_id, notebooks = bundle.name, bundle.release
    missing = [name for name in notebooks if not (source_dir / name).is_file()]
    if missing:
        raise ValueError(f"{source_dir}: missing source notebook(s) {', '.join(missing)}")
    checker = build_check_py(bundle)  # before nbgrader runs: a public check that needs the reference stops here

    # Imported here: nbgrader is an optional ("course") dependency.
    from nbgrader.apps import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config import Config

    with tempfile.TemporaryDirectory(prefix="nbgrader-release-") as tmp:
        root = Path(tmp)
        source = root / "source" / assignment_id
        source.mkdir(parents=True)
        for name in notebooks:
            shutil.copy2(source_dir / name, source / name)

        config = Config()
        config.CourseDirectory.root = str(root)
        config.CourseDirectory.course_id = assignment_id
        config.CourseDirectory.db_url = f"sqlite:///{root / 'gradebook.db'}"
        config.Exchange.root = str(root / "exchange")
        coursedir = CourseDirectory(config=config)
        api = NbGraderAPI(coursedir=coursedir, config=config)
        with interpreter_bin_on_path():
            result = api.generate_assignment(assignment_id, force=True, create=True)
        if not result.get("success"):
            raise RuntimeError(
                f"nbgrader generate_assignment failed for {source_dir}:\n"
                f"{result.get('log', '')}\n{result.get('error', '')}"
            )

        released = root / "release" / assignment_id
        out_dir.mkdir(parents=True, exist_ok=True)
        written: list[Path] = []
        for name in notebooks:
            produced = released / name
            if not produced.is_file():
                raise RuntimeError(f"nbgrader did not write {produced} (from {source_dir})")
            target = out_dir / name
            shutil.copyfile(produced, target)
            written.append(target)
    write_check_py(checker, out_dir)
    return written
