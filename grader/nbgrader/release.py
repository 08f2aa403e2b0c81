"""Build the student release of an assignment bundle with nbgrader.

The instructor's source notebooks (the bundle's ``<notebook>.ipynb``) carry the
solutions between ``### BEGIN SOLUTION`` / ``### END SOLUTION`` and the hidden
tests between ``### BEGIN HIDDEN TESTS`` / ``### END HIDDEN TESTS``. nbgrader's
own ``generate_assignment`` strips both; this module runs it in a throw-away
course directory so that the repository never holds nbgrader state.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

from ..assignment.bundle import Bundle
from ..studentcheck.build import FILE_NAME as CHECK_PY
from ..studentcheck.build import build_check_py
from .course import interpreter_bin_on_path


def release_assignment(bundle: Bundle, out_dir: Path, source_dir: Path | None = None,
                       force: bool = False) -> list[Path]:
    """Generate the student version of the bundle's source notebooks (``bundle.release``,
    found in ``source_dir``, by default the bundle's folder).

    Runs ``nbgrader generate_assignment`` (through ``NbGraderAPI``) on a copy of
    the source notebooks inside a temporary nbgrader course directory and copies
    the released notebooks to ``out_dir`` (created if needed).

    Beside them goes ``check.py``, the students' checker: the bundle's public checks in one
    file that needs neither this package nor the reference (``grader.studentcheck``).

    A file of ``out_dir`` that differs from what the release would write there (most often a
    student's finished notebook) is never replaced unless ``force``: a ``ValueError`` names
    them all and nothing is written. Each file is written whole (a temporary file renamed).

    Returns the notebooks written, in the order of ``bundle.release`` (``check.py`` is
    ``out_dir / grader.studentcheck.build.FILE_NAME``). Raises ``ValueError`` when
    ``source_dir`` lacks a source notebook or ``out_dir`` is not a folder,
    ``grader.studentcheck.build.GenerationError``
    when a public check needs the reference and ``RuntimeError`` when nbgrader fails (with
    nbgrader's log).
    """
    source_dir = Path(source_dir) if source_dir is not None else bundle.root
    out_dir = Path(out_dir)
    assignment_id, notebooks = bundle.name, bundle.release
    if out_dir.exists() and not out_dir.is_dir():
        raise ValueError(f"release: --out {out_dir} is a file, not a folder: name a folder for the release")
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
        contents: dict[str, bytes] = {}
        for name in notebooks:
            produced = released / name
            if not produced.is_file():
                raise RuntimeError(f"nbgrader did not write {produced} (from {source_dir})")
            contents[name] = produced.read_bytes()
    contents[CHECK_PY] = checker.encode("utf-8")
    _write_release(out_dir, contents, force)
    return [out_dir / name for name in notebooks]


def _write_release(out_dir: Path, contents: dict[str, bytes], force: bool) -> None:
    """Write each file whole into ``out_dir``; first, unless ``force``, stop (writing nothing)
    if a file there differs from what would replace it: a release must never eat a student's work."""
    differing = [name for name, data in contents.items()
                 if (out_dir / name).exists() and not _holds(out_dir / name, data)]
    if differing and not force:
        names = ", ".join(str(out_dir / name) for name in differing)
        raise ValueError(f"release: {names} differ{'s' if len(differing) == 1 else ''} from the release "
                         "(a student's work?) and would be replaced: move them away, or pass --force")
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, data in contents.items():
        partial = out_dir / f".{name}.partial"
        partial.write_bytes(data)
        os.replace(partial, out_dir / name)


def _holds(path: Path, data: bytes) -> bool:
    try:
        return path.is_file() and path.read_bytes() == data
    except OSError:
        return False
